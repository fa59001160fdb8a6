"""What an edit lost of the user's code, read from the two versions alone.

The offline operators each say what they dropped (their rule's caveat). An edit nobody
wrote a caveat for, a model's answer in LLM mode, is checked here instead: a keyword
argument the user passed that the edited code no longer names anywhere (not as a keyword,
not as a dict key, not in a string: moving `early_stopping_rounds` from `fit()` to the
constructor or to a callback keeps it) was dropped, and the repair is partial.
"""

from __future__ import annotations

import ast

from pipesmith.agents.repair.patches.editing import callee_name


def _passed_keywords(tree: ast.AST) -> dict[str, str]:
    """keyword -> the first call that passes it."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg is not None:
                    found.setdefault(kw.arg, callee_name(node))
    return found


def _named(tree: ast.AST) -> set[str]:
    """Every name a keyword could live on as: keywords, dict keys, strings, attributes."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg:
            names.add(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.Name):
            names.add(node.id)
    return names


def dropped_keywords(before: str, after: str) -> list[str]:
    """Notes for the user's keyword arguments that `after` no longer names at all; empty
    when nothing was lost or either version does not parse (nothing can be said)."""
    try:
        old, new = ast.parse(before), ast.parse(after)
    except SyntaxError:
        return []
    kept = _named(new)
    return [f"dropped keyword {kw} from {callee}(): the repaired code no longer passes it"
            for kw, callee in _passed_keywords(old).items() if kw not in kept]
