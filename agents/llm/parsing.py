"""Pure parsing of model answers: fenced code blocks, and why an answer is malformed."""

from __future__ import annotations

import ast
import re

# An opening fence of three or more backticks or tildes with an optional info string; the
# closing fence is the same character repeated at least as often (CommonMark).
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$",
                    re.MULTILINE)
PYTHON_TAGS = ("python", "py", "python3", "")


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """Every fenced block as (info string, body), in order; an unclosed fence runs to the end."""
    blocks, pos = [], 0
    while True:
        opening = _FENCE.search(text, pos)
        if opening is None:
            return blocks
        fence = opening.group("fence")
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$",
                             re.MULTILINE)
        end = closing.search(text, opening.end())
        body_end = end.start() if end else len(text)
        body = text[opening.end():body_end].removeprefix("\n")
        blocks.append((opening.group("info").strip().split(" ")[0].lower(), body))
        if end is None:
            return blocks
        pos = end.end()


def extract_code(text: str) -> str | None:
    """The Python module in an answer: the longest python (or untagged) fenced block that
    defines build_pipeline, else the longest python block; None when there is none."""
    blocks = [body for info, body in fenced_blocks(text) if info in PYTHON_TAGS]
    if not blocks:
        return None
    defining = [b for b in blocks if "def build_pipeline" in b]
    best = max(defining or blocks, key=len)
    return best.rstrip() + "\n"


def code_problem(text: str, script: bool = False) -> str | None:
    """Why an answer is not a usable candidate module (with `script`: a whole training
    script, which needs no build_pipeline), or None when it is."""
    code = extract_code(text)
    if code is None:
        return "the answer has no fenced ```python code block"
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return f"the code block does not parse: {exc.msg} (line {exc.lineno})"
    defines = any(isinstance(node, ast.FunctionDef) and node.name == "build_pipeline"
                  for node in tree.body)
    if not defines and not script:
        return "the code block does not define build_pipeline(task) at module level"
    return None
