"""The pre-validator: static checks on a candidate before it spends a sandbox run.

This first version checks syntax, the build_pipeline contract and that every
import resolves in the runtime the sandbox uses (the same interpreter).
"""

from __future__ import annotations

import ast
import importlib.util

from pipesmith.agents.schemas import Issue


def _top_level_imports(tree: ast.Module) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node.lineno))
    return found


def _resolvable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


class Prevalidator:
    def check(self, code: str) -> list[Issue]:
        try:
            tree = ast.parse(code)
        except SyntaxError as exc:
            return [Issue(taxonomy_class="syntax", subclass="invalid_syntax",
                          message=f"SyntaxError: {exc.msg}", line=exc.lineno)]
        issues = [
            Issue(taxonomy_class="import", subclass="missing_module",
                  message=f"No module named {module!r} in the sandbox runtime", line=line)
            for module, line in _top_level_imports(tree) if not _resolvable(module)
        ]
        builders = [node for node in tree.body
                    if isinstance(node, ast.FunctionDef) and node.name == "build_pipeline"]
        if not builders:
            issues.append(Issue(taxonomy_class="contract", subclass="no_build_pipeline",
                                message="the module defines no callable build_pipeline(task)"))
        elif len(builders[0].args.args) != 1:
            issues.append(Issue(taxonomy_class="contract", subclass="no_build_pipeline",
                                message="build_pipeline must take exactly one argument, task",
                                line=builders[0].lineno))
        return issues
