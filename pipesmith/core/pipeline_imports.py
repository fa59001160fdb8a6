"""What a run's pipeline.py needs installed, read from its imports, so that what pipesmith
says about the file (its header, the chat's answer to "export it") is true: a pipeline may
import pipesmith itself (pipesmith.estimators), not only scikit-learn."""

from __future__ import annotations

import ast
import sys

SHOWN = {"sklearn": "scikit-learn"}  # import name -> the name people install


def imported_libraries(code: str) -> list[str]:
    """The non-standard-library top-level packages `code` imports, sorted, as installed."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            roots.add(node.module.split(".")[0])
    roots -= set(sys.stdlib_module_names) | {"__future__"}
    return sorted(SHOWN.get(root, root) for root in roots)


def needs_sentence(code: str) -> str:
    """e.g. "It imports cloudpickle, pandas, pipesmith and scikit-learn." with why pipesmith."""
    libraries = imported_libraries(code)
    if not libraries:
        return "It imports only the standard library."
    listed = (", ".join(libraries[:-1]) + " and " + libraries[-1]) if len(libraries) > 1 \
        else libraries[0]
    why = (" (pipesmith's own estimators: pipesmith must be installed to run it, or use the "
           "exported bundle, which vendors them)") if "pipesmith" in libraries else ""
    return f"It imports {listed}{why}."
