"""Metric arguments from the task: an averaging rule for a multiclass target where the
metric defaults to a binary one, in a metric call or a scorer name."""

from __future__ import annotations

import ast
import re

from pipesmith.agents.repair.patches import live
from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    callee_name,
    find_calls,
    message_text,
    quote,
    replace_nodes,
)
from pipesmith.agents.schemas import Diagnosis

MULTICLASS = re.compile(r"Target is multi(class|label) but average='binary'")
# Of the averages the message offers, the one that keeps a single number and weighs the
# classes as the data does; then the unweighted mean.
PREFERRED = ("weighted", "macro", "micro", "samples")


def _average(message: str) -> str | None:
    offered = re.search(r"one of \[([^\]]*)\]", message)
    options = re.findall(r"'(\w+)'", offered.group(1)) if offered else list(PREFERRED)
    return next((p for p in PREFERRED if p in options), None)


def _scorer_names() -> list[str]:
    from sklearn.metrics import get_scorer_names

    return list(get_scorer_names())


def metric_average(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"Target is multiclass but average='binary'": every call of a metric whose installed
    signature takes `average` and that sets none (or sets 'binary') gets the average the
    message offers (weighted first); a scorer named by string (`scoring="f1"`) becomes its
    averaged twin among the installed scorer names (`"f1_weighted"`)."""
    message = message_text(diagnosis)
    if not MULTICLASS.search(message):
        return None
    average = _average(message)
    if average is None:
        return None
    tree = ast.parse(code)
    edits = []
    for call in find_calls(tree):
        current = next((k for k in call.keywords if k.arg == "average"), None)
        target = live.call_target(tree, call) or live.owner(tree, callee_name(call))
        q = quote(code, tree, call)
        if current is None and "average" in live.parameters(target) and not \
                callee_name(call)[:1].isupper():
            text = ast.get_source_segment(code, call)
            edits.append((call, text[:-1] + (", " if call.args or call.keywords else "")
                          + f"average={q}{average}{q})"))
        elif current is not None and ast.unparse(current.value) == "'binary'":
            edits.append((current.value, f"{q}{average}{q}"))
        for kw in call.keywords:
            if kw.arg == "scoring" and isinstance(kw.value, ast.Constant) and \
                    f"{kw.value.value}_{average}" in _scorer_names():
                edits.append((kw.value, f"{q}{kw.value.value}_{average}{q}"))
    return replace_nodes(code, _outermost(edits)) if edits else None


def _outermost(edits: list[tuple[ast.AST, str]]) -> list[tuple[ast.AST, str]]:
    """Edits of a node inside another edited call are dropped (the call's text is rebuilt
    from the original); such nesting is rare in metric code."""
    inside = {id(n) for node, _ in edits for n in ast.walk(node) if n is not node}
    return [(n, t) for n, t in edits if id(n) not in inside]
