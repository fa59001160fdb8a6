"""Repairs the library's own message spells out (#25): "set shuffle=True", "pos_label=1 is
not a valid label. It should be one of ['no' 'yes']", "Invalid parameter 'C' for estimator
Pipeline(steps=[..., ('svc', SVC())])", NumPy 2's "Unable to avoid copy". Each edit is
read from the message and the installed signatures, at the call the traceback names."""

from __future__ import annotations

import ast
import re

from pipesmith.agents.repair.patches import live
from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    calls_at_line,
    find_calls,
    message_text,
    replace_nodes,
    with_keyword,
)
from pipesmith.agents.schemas import Diagnosis

SET = re.compile(r"\bset (\w+)=(True|False|None|-?\d+(?:\.\d+)?|'[\w-]+')"
                 r"|with `(\w+)` set to `(True|False|None)`")
NOT_A_LABEL = re.compile(r"pos_label=(\S+) is not a valid label\. It should be one of "
                         r"\[([^\]]*)\]")
# Labels that name the positive class, checked before the sorted order (data, not cases).
POSITIVE = ("yes", "y", "true", "t", "positive", "pos", "1")
INVALID = re.compile(r"Invalid parameter '?(\w+)'? for estimator (\w+)\(")
STEP = re.compile(r"\('(\w+)', (\w+)\(")


def follow_advice(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"... or set shuffle=True" (or torch's "with `weights_only` set to `False`"): the
    call at the failing line whose installed signature takes that parameter gets it
    (KFold(random_state=42) -> KFold(..., shuffle=True))."""
    found = SET.search(message_text(diagnosis))
    if not found:
        return None
    name, value = found.group(1) or found.group(3), found.group(2) or found.group(4)
    tree = ast.parse(code)
    edits = []
    for call in calls_at_line(tree, diagnosis.line) or find_calls(tree):
        target = live.call_target(tree, call)
        if target is None or name not in live.parameters(target):
            continue
        edits.append((call, with_keyword(call, name, value)))
    return replace_nodes(code, edits[:1]) if edits else None


def positive_label(offered: list[str]) -> str | None:
    """The label pos_label=1 meant: one that names the positive class, else the one a label
    encoder codes as 1 (the last in sorted order) when there are two."""
    by_word = [o for o in offered if o.lower() in POSITIVE]
    return by_word[0] if by_word else (sorted(offered)[-1] if len(offered) == 2 else None)


def positive_label_from_classes(code: str, diagnosis: Diagnosis,
                                ctx: RepairContext) -> str | None:
    """`pos_label=1` on text labels: the metric calls at the failing line (else every call
    that takes pos_label) get the positive label among the classes the message lists."""
    found = NOT_A_LABEL.search(message_text(diagnosis))
    if not found:
        return None
    offered = re.findall(r"'([^']*)'", found.group(2))
    label = positive_label(offered)
    if label is None:
        return None
    tree = ast.parse(code)
    edits = []
    for call in calls_at_line(tree, diagnosis.line) or find_calls(tree):
        target = live.call_target(tree, call) or live.owner(tree, getattr(
            call.func, "id", getattr(call.func, "attr", "")))
        if target is None or "pos_label" not in live.parameters(target):
            continue
        edits.append((call, with_keyword(call, "pos_label", ast.Constant(label))))
    return replace_nodes(code, edits) if edits else None


def prefix_step_parameters(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"Invalid parameter 'C' for estimator Pipeline(steps=[..., ('svc', SVC())])": the
    grid's and set_params' names that a step's installed constructor declares get that
    step's prefix (`svc__C`), the last step first."""
    message = message_text(diagnosis)
    found = INVALID.search(message)
    if not found:
        return None
    tree = ast.parse(code)
    steps = []
    for step, cls_name in STEP.findall(message):
        cls = live.owner(tree, cls_name)
        if isinstance(cls, type):
            steps.append((step, set(live.parameters(cls))))
    if not steps:
        return None

    def prefixed(name: str) -> str | None:
        return next((f"{step}__{name}" for step, params in reversed(steps)
                     if name in params), None)

    if prefixed(found.group(1)) is None:
        return None
    edits: list[tuple[ast.AST, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and any(
                isinstance(k, ast.Constant) and k.value == found.group(1) for k in node.keys):
            for key in node.keys:
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and \
                        "__" not in key.value and (new := prefixed(key.value)):
                    edits.append((key, repr(new)))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "set_params" \
                and any(k.arg == found.group(1) for k in node.keywords):
            for kw in node.keywords:
                if kw.arg and "__" not in kw.arg and (new := prefixed(kw.arg)):
                    kw.arg = new
            edits.append((node, ast.unparse(node)))
    return replace_nodes(code, edits) if edits else None


def copy_if_needed(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """NumPy 2's "Unable to avoid copy": `copy=False` meant "copy only if needed", which
    NumPy 2 spells `copy=None` (its migration guide); at the failing line, else everywhere."""
    if "Unable to avoid copy" not in message_text(diagnosis):
        return None
    tree = ast.parse(code)
    calls = calls_at_line(tree, diagnosis.line) or find_calls(tree)
    edits = [(k.value, "None") for c in calls for k in c.keywords
             if k.arg == "copy" and isinstance(k.value, ast.Constant) and k.value.value is False]
    return replace_nodes(code, edits) if edits else None


# "... using the stepname__parameter format, e.g. `Pipeline.fit(X, y,
# logisticregression__sample_weight=sample_weight)`"
STEP_EXAMPLE = re.compile(r"e\.g\. `\w+\.\w+\([^`]*?\b(\w+)__(\w+)=")


def step_keyword(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A pipeline's fit refuses a plain keyword and its message gives the routed spelling
    (`logisticregression__sample_weight=`): the keyword is renamed so in the calls at the
    failing line (else every call passing it)."""
    found = STEP_EXAMPLE.search(message_text(diagnosis))
    if not found:
        return None
    step, keyword = found.groups()
    tree = ast.parse(code)
    calls = [c for c in find_calls(tree) if any(kw.arg == keyword for kw in c.keywords)]
    at_line = [c for c in calls if c in calls_at_line(tree, diagnosis.line)]
    edits = []
    for call in at_line or calls:
        for kw in call.keywords:
            if kw.arg == keyword:
                kw.arg = f"{step}__{keyword}"
        edits.append((call, ast.unparse(call)))
    return replace_nodes(code, edits) if edits else None
