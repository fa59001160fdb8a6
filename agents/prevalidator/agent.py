"""The pre-validator: static checks on a candidate before it spends a sandbox run.

Syntax, the build_pipeline contract, that every import resolves in the runtime the sandbox
uses (the same interpreter), the installed API, the data's columns, and the models'
capabilities against the data (agents/prevalidator/capabilities.py).
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from importlib.machinery import PathFinder

from pipesmith.agents.prevalidator import static_checks
from pipesmith.agents.prevalidator.capabilities import check_capabilities
from pipesmith.agents.prevalidator.data_checks import check_data_flow
from pipesmith.agents.prevalidator.neural_checks import check_networks
from pipesmith.agents.prevalidator.type_flow import check_frame_columns, check_objects
from pipesmith.agents.schemas import DataProfile, Issue


def _top_level_imports(tree: ast.Module) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node.lineno))
    return found


def _resolvable(module: str) -> bool:
    """Find the module on the import path without importing (executing) any package."""
    if module in sys.modules:
        return True
    path = None
    parts = module.split(".")
    for depth in range(len(parts)):
        # The top level through every finder (an editable install's is not on sys.path;
        # a top-level find_spec executes nothing), the rest by path: no package runs.
        spec = (importlib.util.find_spec(parts[0]) if depth == 0
                else PathFinder.find_spec(".".join(parts[: depth + 1]), path))
        if spec is None:
            return False
        path = spec.submodule_search_locations
        if path is None and depth < len(parts) - 1:
            return False  # a plain module has no submodules
    return True


class Prevalidator:
    """Static checks; the smoke run is the executor's (see graph/nodes.py: prevalidate)."""

    def check_script(self, code: str, columns: list[str] | None = None,
                     profile: DataProfile | None = None) -> list[Issue]:
        """What any script must pass: syntax, imports, declared requirements, the installed
        API (modules and the objects the code makes), plus security advisories; given the
        data it reads, its columns, and with a profile the data checks (capabilities, data
        flow, networks)."""
        try:
            tree = ast.parse(code)
        except SyntaxError as exc:
            return [_syntax(exc)]
        return self._api(code, tree) + self._data(tree, columns, profile)

    @staticmethod
    def _api(code: str, tree: ast.Module) -> list[Issue]:
        missing = [
            Issue(taxonomy_class="import", subclass="missing_module",
                  message=f"No module named {module!r} in the sandbox runtime", line=line)
            for module, line in _top_level_imports(tree) if not _resolvable(module)
        ]
        return (missing + static_checks.check_requirements(code, tree)
                + static_checks.check_imported_names(tree)
                + static_checks.check_attributes(tree) + static_checks.check_calls(tree)
                + check_objects(tree) + static_checks.check_security(tree))

    @staticmethod
    def _data(tree: ast.Module, columns: list[str] | None,
              profile: DataProfile | None) -> list[Issue]:
        return check_frame_columns(tree, columns or []) + \
            static_checks.check_columns(tree, columns or [],
                                        profile.target if profile else None) + \
            check_capabilities(tree, profile) + check_data_flow(tree, profile) + \
            check_networks(tree, profile)

    def check(self, code: str, columns: list[str] | None = None,
              profile: DataProfile | None = None) -> list[Issue]:
        """check_script, the build_pipeline(task) contract, the data's columns, and with a
        profile the models' capabilities against the data (NaN, text, sparse input)."""
        try:
            tree = ast.parse(code)
        except SyntaxError as exc:
            return [_syntax(exc)]
        issues = self._api(code, tree)
        builders = [node for node in tree.body
                    if isinstance(node, ast.FunctionDef) and node.name == "build_pipeline"]
        if not builders:
            issues.append(Issue(taxonomy_class="contract", subclass="no_build_pipeline",
                                message="the module defines no callable build_pipeline(task)"))
        elif len(builders[0].args.args) != 1:
            issues.append(Issue(taxonomy_class="contract", subclass="no_build_pipeline",
                                message="build_pipeline must take exactly one argument, task",
                                line=builders[0].lineno))
        else:
            issues += _literal_returns(builders[0])
        return issues + self._data(tree, columns, profile)


def _syntax(exc: SyntaxError) -> Issue:
    return Issue(taxonomy_class="syntax", subclass="invalid_syntax",
                 message=f"SyntaxError: {exc.msg}", line=exc.lineno)


LITERALS = {ast.Tuple: "tuple", ast.List: "list", ast.Dict: "dict", ast.Constant: "a constant",
            ast.JoinedStr: "str", ast.Set: "set"}


def _literal_returns(builder: ast.FunctionDef) -> list[Issue]:
    """`return model, params` and friends: a literal is never an estimator."""
    own = [n for n in ast.walk(builder) if isinstance(n, ast.Return) and n.value is not None
           and not any(isinstance(f, (ast.FunctionDef, ast.Lambda, ast.ClassDef))
                       and f is not builder and n in ast.walk(f) for f in ast.walk(builder))]
    return [Issue(taxonomy_class="contract", subclass="wrong_return_type", line=n.lineno,
                  message=f"build_pipeline returned {LITERALS[type(n.value)]}, "
                          "which lacks fit, predict")
            for n in own if type(n.value) in LITERALS]


def blocking(issues: list[Issue]) -> list[Issue]:
    return [issue for issue in issues if not issue.advisory]
