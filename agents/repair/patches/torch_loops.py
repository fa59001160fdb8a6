"""Repairs of hand-written torch training loops at the failing expression (#25): class
targets numbered from 1 fed to a cross-entropy loss, a forward pass computed once outside
the loop that calls backward(), and a numpy object array (pandas' bool dummies mixed with
floats) handed to torch.tensor."""

from __future__ import annotations

import ast
import re

from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    callee_name,
    calls_at_line,
    find_calls,
    message_text,
    replace_nodes,
)
from pipesmith.agents.schemas import Diagnosis

OUT_OF_BOUNDS = re.compile(r"Target (\d+) is out of bounds")
CLASS_LOSSES = ("cross_entropy", "nll_loss", "CrossEntropyLoss", "NLLLoss")
TENSOR_MAKERS = ("tensor", "as_tensor", "from_numpy", "Tensor", "FloatTensor")


def _loss_names(tree: ast.Module) -> set[str]:
    """Names bound to a class-target loss module (`loss_fn = nn.CrossEntropyLoss()`)."""
    return {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign)
            and isinstance(n.value, ast.Call) and callee_name(n.value) in CLASS_LOSSES
            for t in n.targets if isinstance(t, ast.Name)}


def targets_from_zero(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"Target K is out of bounds" from a cross-entropy loss: the classes are numbered from 1
    (K is the number of outputs), so the loss at the failing line (else every such loss) is
    given `target - 1`; the rest of the script keeps its own numbering."""
    if not OUT_OF_BOUNDS.search(message_text(diagnosis)):
        return None
    tree = ast.parse(code)
    losses = _loss_names(tree)
    calls = [c for c in find_calls(tree) if len(c.args) >= 2 and (
        callee_name(c) in CLASS_LOSSES or callee_name(c) in losses)]
    at_line = [c for c in calls if c in calls_at_line(tree, diagnosis.line)]
    edits = [(c.args[1], f"({ast.get_source_segment(code, c.args[1])} - 1)")
             for c in at_line or calls]
    return replace_nodes(code, edits) if edits else None


def _trained_modules(tree: ast.Module) -> set[str]:
    """Names whose parameters an optimiser trains (`torch.optim.Adam(model.parameters())`)."""
    return {c.func.value.id for c in find_calls(tree, "parameters")
            if isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)}


def forward_in_loop(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"Trying to backward through the graph a second time": an output of a trained module
    computed before the loop (`logits = model(X)`) and used in it is computed again at the
    top of every iteration, so each backward() has its own graph."""
    if "backward through the graph a second time" not in message_text(diagnosis):
        return None
    tree = ast.parse(code)
    modules = _trained_modules(tree)
    edits = []
    for loop in [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While))]:
        if not any(callee_name(c) == "backward" for c in find_calls(loop)):
            continue
        used = {n.id for n in ast.walk(loop) if isinstance(n, ast.Name)
                and isinstance(n.ctx, ast.Load)}
        before = [s for s in tree.body if isinstance(s, ast.Assign) and s.end_lineno < loop.lineno
                  and isinstance(s.value, ast.Call) and callee_name(s.value) in modules
                  and any(isinstance(t, ast.Name) and t.id in used for t in s.targets)]
        if not before:
            continue
        first = loop.body[0]
        indent = " " * first.col_offset
        lines = "".join(f"{ast.get_source_segment(code, s)}\n{indent}" for s in before)
        edits.append((first, lines + ast.get_source_segment(code, first)))
    return replace_nodes(code, edits) if edits else None


def numeric_tensor_input(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"can't convert np.ndarray of type numpy.object_": the array handed to torch at the
    failing line mixes types (bool dummies beside floats); it is cast to the dtype the call
    asks for (float32 unless an integer dtype is named)."""
    if "numpy.object_" not in message_text(diagnosis):
        return None
    tree = ast.parse(code)
    edits = []
    for call in calls_at_line(tree, diagnosis.line):
        if callee_name(call) not in TENSOR_MAKERS or not call.args:
            continue
        dtype = next((ast.unparse(k.value) for k in call.keywords if k.arg == "dtype"), "")
        kind = "int64" if re.search(r"long|int", dtype) else "float32"
        edits.append((call.args[0],
                      f"({ast.get_source_segment(code, call.args[0])}).astype('{kind}')"))
    return replace_nodes(code, edits) if edits else None
