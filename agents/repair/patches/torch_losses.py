"""Repairs of torch losses and modules misused in a hand-written loop, at the failing
expression (#25): integer targets to a float loss, a loss class called on tensors, an
unreduced loss given to backward(), a batch tensor turned into one Python number, layers
kept in a plain list (the optimiser sees no parameters), and an in-place update of a leaf
that requires grad."""

from __future__ import annotations

import ast

from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    callee_name,
    calls_at_line,
    find_calls,
    message_text,
    replace_nodes,
)
from pipesmith.agents.schemas import Diagnosis


def _loss_names(tree: ast.Module) -> set[str]:
    """Names bound to a loss module (`loss_fn = nn.BCEWithLogitsLoss()`)."""
    return {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign)
            and isinstance(n.value, ast.Call) and callee_name(n.value).endswith("Loss")
            for t in n.targets if isinstance(t, ast.Name)}


def _is_loss_call(call: ast.Call, losses: set[str]) -> bool:
    name = callee_name(call)
    return len(call.args) >= 2 and (name in losses or "loss" in name.lower()
                                    or "cross_entropy" in name)


def float_targets(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"result type Float can't be cast to the desired output type Long": integer targets
    reached a loss that computes in floats (BCE, MSE); the target of the loss call at the
    failing line (else every loss call) gets `.float()`."""
    if "can't be cast to the desired output type" not in message_text(diagnosis):
        return None
    tree = ast.parse(code)
    losses = _loss_names(tree)
    calls = [c for c in find_calls(tree) if _is_loss_call(c, losses)
             and isinstance(c.func, ast.Name | ast.Attribute)
             and not callee_name(c).endswith("Loss")]
    at_line = [c for c in calls if c in calls_at_line(tree, diagnosis.line)]
    edits = [(c.args[1], f"{ast.get_source_segment(code, c.args[1])}.float()")
             for c in at_line or calls
             if not ast.get_source_segment(code, c.args[1]).endswith(".float()")]
    return replace_nodes(code, edits) if edits else None


def instantiate_loss(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"Boolean value of Tensor with more than one value is ambiguous" where a loss class is
    given the tensors (`nn.MSELoss(pred, y)`: its positional parameters are options): the
    class is instantiated first and the instance called (`nn.MSELoss()(pred, y)`)."""
    if "ambiguous" not in message_text(diagnosis):
        return None
    tree = ast.parse(code)
    edits = []
    for call in find_calls(tree):
        if callee_name(call).endswith("Loss") and len(call.args) >= 2 and not call.keywords:
            func = ast.get_source_segment(code, call.func)
            args = ", ".join(ast.get_source_segment(code, a) for a in call.args)
            edits.append((call, f"{func}()({args})"))
    return replace_nodes(code, edits) if edits else None


def reduce_loss(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"grad can be implicitly created only for scalar outputs": the tensor backward() is
    called on at the failing line (else anywhere) is averaged first (`loss.mean()`), the
    reduction the loss would have made by default."""
    if "only for scalar outputs" not in message_text(diagnosis):
        return None
    tree = ast.parse(code)
    calls = [c for c in find_calls(tree, "backward") if isinstance(c.func, ast.Attribute)
             and not c.args]
    at_line = [c for c in calls if c in calls_at_line(tree, diagnosis.line)]
    edits = [(c.func.value, f"({ast.get_source_segment(code, c.func.value)}).mean()")
             for c in at_line or calls]
    return replace_nodes(code, edits) if edits else None


def tensor_scalar(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"only one element tensors can be converted to Python scalars": `float(t)`/`int(t)`/
    `t.item()` of a batch at the failing line. A comparison is being counted (`correct +=
    float(pred == y)`), so it is summed; any other tensor is averaged."""
    if "only one element tensors" not in message_text(diagnosis):
        return None
    tree = ast.parse(code)
    edits = []
    for call in calls_at_line(tree, diagnosis.line):
        if isinstance(call.func, ast.Name) and call.func.id in ("float", "int") and call.args:
            value = call.args[0]
        elif callee_name(call) == "item" and isinstance(call.func, ast.Attribute):
            value = call.func.value
        else:
            continue
        reduce = "sum" if isinstance(value, ast.Compare) else "mean"
        text = ast.get_source_segment(code, value)
        cast = "float" if callee_name(call) == "item" else call.func.id
        edits.append((call, f"{cast}(({text}).{reduce}().item())"))
    return replace_nodes(code, edits[:1]) if edits else None


def module_list(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"optimizer got an empty parameter list": a module keeps its layers in a plain list
    (`self.layers = [nn.Linear(...) ...]`), which torch does not register; the list becomes
    an `nn.ModuleList`, spelled from the code's own `nn` (or `torch.nn`)."""
    if "empty parameter list" not in message_text(diagnosis):
        return None
    tree = ast.parse(code)
    edits = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.List | ast.ListComp)
                and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                        and t.value.id == "self" for t in node.targets)):
            continue
        built = [c for c in find_calls(node.value) if isinstance(c.func, ast.Attribute)]
        if not built:
            continue
        prefix = ast.get_source_segment(code, built[0].func.value)
        if prefix not in ("nn", "torch.nn"):
            continue
        edits.append((node.value,
                      f"{prefix}.ModuleList({ast.get_source_segment(code, node.value)})"))
    return replace_nodes(code, edits) if edits else None


def _blocks(tree: ast.Module):
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def no_grad_update(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"a leaf Variable that requires grad is being used in an in-place operation": a
    hand-written parameter update (`w -= lr * w.grad`) runs under `torch.no_grad()`, as
    optimisers do; the in-place statements around the failing line (the whole run of
    `x -= ...` updates, so the next parameter does not fail the same way) are wrapped."""
    if "leaf Variable that requires grad" not in message_text(diagnosis):
        return None
    tree = ast.parse(code)
    for block in _blocks(tree):
        at = [i for i, s in enumerate(block) if isinstance(s, ast.AugAssign)
              and diagnosis.line in range(s.lineno, s.end_lineno + 1)]
        if not at:
            continue
        first = last = at[0]
        while first > 0 and isinstance(block[first - 1], ast.AugAssign):
            first -= 1
        while last + 1 < len(block) and isinstance(block[last + 1], ast.AugAssign):
            last += 1
        indent = " " * block[first].col_offset
        body = "".join(f"\n{indent}    {ast.get_source_segment(code, s)}"
                       for s in block[first:last + 1])
        lines = code.splitlines(keepends=True)
        start, end = block[first].lineno - 1, block[last].end_lineno
        return "".join(lines[:start]) + f"{indent}with torch.no_grad():{body}\n" + \
            "".join(lines[end:])
    return None


def logits_loss(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"all elements of input should be between 0 and 1": a binary cross-entropy given raw
    scores (no sigmoid at the model's end) becomes its logits twin, which applies the
    sigmoid inside: same loss, same targets."""
    if "should be between 0 and 1" not in message_text(diagnosis):
        return None
    tree = ast.parse(code)
    edits = []
    for call in find_calls(tree):
        name = callee_name(call)
        if name in ("BCELoss", "binary_cross_entropy"):
            func = ast.get_source_segment(code, call.func)
            twin = "BCEWithLogitsLoss" if name == "BCELoss" else \
                "binary_cross_entropy_with_logits"
            edits.append((call.func, func[: -len(name)] + twin))
    return replace_nodes(code, edits) if edits else None
