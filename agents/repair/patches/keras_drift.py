"""Keras 3 drift that the message and the installed signature describe (#25): several
keywords a call no longer takes (`fit(workers=, use_multiprocessing=)`), and a shape given
as a bare integer."""

from __future__ import annotations

import ast
import re

from pipesmith.agents.repair.patches import live
from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    find_calls,
    message_text,
    replace_nodes,
)
from pipesmith.agents.schemas import Diagnosis

UNEXPECTED = re.compile(r"([\w.]+)\(\) got an unexpected keyword argument '(\w+)'")
SHAPE_KEYWORDS = ("shape", "input_shape", "batch_shape", "batch_input_shape", "target_shape")


def drop_rejected_keywords(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Every keyword of the failing call that its installed signature (which takes no
    `**kwargs`) rejects is dropped at once, when there are several and none has a close
    name there: one at a time, each round would meet the same error for the next keyword.
    What the keywords did is lost (the rule's caveat makes the repair partial)."""
    found = UNEXPECTED.search(message_text(diagnosis))
    if not found:
        return None
    keyword = found.group(2)
    tree = ast.parse(code)
    for call in find_calls(tree):
        if not any(kw.arg == keyword for kw in call.keywords):
            continue
        target = live.call_target(tree, call)
        params = live.parameters(target) if target is not None else []
        if not params or "kwargs" in params:
            continue
        rejected = [kw.arg for kw in call.keywords if kw.arg and kw.arg not in params]
        if len(rejected) < 2:
            continue
        call.keywords = [kw for kw in call.keywords if kw.arg not in rejected]
        return replace_nodes(code, [(call, ast.unparse(call))])
    return None


def tuple_shape(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"Cannot convert '30' to a shape": a shape keyword given one number (`Input(shape=
    X.shape[1])`, `input_shape=30`) becomes the one-element tuple Keras 3 takes."""
    if not re.search(r"Cannot convert '[^']*' to a shape", message_text(diagnosis)):
        return None
    tree = ast.parse(code)
    edits = [(kw.value, f"({ast.get_source_segment(code, kw.value)},)")
             for call in find_calls(tree) for kw in call.keywords
             if kw.arg in SHAPE_KEYWORDS and _one_number(kw.value)]
    return replace_nodes(code, edits) if edits else None


def _one_number(node: ast.expr) -> bool:
    """A literal int, an element of a shape (`X.shape[1]`) or a length: one number, never
    a name that may already hold a tuple."""
    return (isinstance(node, ast.Constant) and isinstance(node.value, int)) or \
        isinstance(node, ast.Subscript) or \
        (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
         and node.func.id in ("len", "int"))
