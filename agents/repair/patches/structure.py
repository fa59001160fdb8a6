"""Repairs of code that never ran: syntax, the build_pipeline contract, sandbox policy."""

from __future__ import annotations

import ast
import re

from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    replace_nodes,
    wrap_returns,
)
from pipesmith.agents.schemas import Diagnosis

# --- syntax and contract -------------------------------------------------------------------

_BLOCK = re.compile(r"^\s*(def|class|if|elif|else|for|while|with|try|except|finally)\b")


def _line_edits(line: str, previous: str) -> list[str]:
    stripped = line.rstrip()
    edits = []
    if _BLOCK.match(line) and not stripped.endswith(":"):
        edits.append(stripped + ":")
    for opening, closing in ("()", "[]", "{}"):
        if stripped.count(opening) > stripped.count(closing):
            edits.append(stripped + closing * (stripped.count(opening) - stripped.count(closing)))
        if stripped.count(closing) > stripped.count(opening) and stripped.endswith(closing):
            edits.append(stripped[:-1])
    for quote in ('"', "'"):
        if stripped.count(quote) % 2:
            edits.append(stripped + quote)
    indent = len(previous) - len(previous.lstrip())
    body = line.lstrip()
    edits += [" " * indent + body, " " * (indent + 4) + body]
    if indent >= 4:
        edits.append(" " * (indent - 4) + body)
    return edits


def fix_syntax(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Try small edits (colon, bracket, quote, indentation) near the error line."""
    lines = code.splitlines()
    if diagnosis.line is None or not lines:
        return None
    center = min(diagnosis.line, len(lines)) - 1
    for index in range(center, max(-1, center - 4), -1):
        previous = next((ln for ln in reversed(lines[:index]) if ln.strip()), "")
        for edited in _line_edits(lines[index], previous):
            candidate = "\n".join(lines[:index] + [edited] + lines[index + 1:]) + "\n"
            try:
                ast.parse(candidate)
            except SyntaxError:
                continue
            return candidate
    return None


_ESTIMATOR_HELPER = '''
def _pipesmith_estimator(value):
    """Added by pipesmith's repair: find the estimator in what build_pipeline returned."""
    if isinstance(value, type):
        value = value()
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        value = next(v for v in value if hasattr(v, "fit") or hasattr(v, "fit_predict"))
    return value
'''


def fix_contract(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    tree = ast.parse(code)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    builder = functions.get("build_pipeline")
    if builder is not None:
        if diagnosis.subclass == "wrong_return_type":
            return wrap_returns(code, "_pipesmith_estimator", _ESTIMATOR_HELPER)
        if not builder.args.args:  # def build_pipeline(): takes the task it is given
            return code.replace("def build_pipeline()", "def build_pipeline(task=None)", 1)
        return None
    # No build_pipeline: adopt a function or a module-level estimator that looks like one.
    for name, fn in functions.items():
        if re.search(r"pipeline|model|build|make|create|estimator", name) and \
                len(fn.args.args) <= 1:
            call = f"{name}(task)" if fn.args.args else f"{name}()"
            return code.rstrip() + f"\n\n\ndef build_pipeline(task):\n    return {call}\n"
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            target = node.targets[0]
            if isinstance(target, ast.Name) and re.search(r"pipe|model|clf|reg|est", target.id):
                return code.rstrip() + (
                    "\n\n\ndef build_pipeline(task):\n    from sklearn.base import clone\n\n"
                    f"    return clone({target.id})\n")
    return None


# --- sandbox policy ----------------------------------------------------------------------------

NETWORK_CALLS = re.compile(
    r"\b(urlopen|urlretrieve|requests\.(get|post|put|head)|socket\.(socket|create_connection)"
    r"|http\.client|read_(csv|parquet|json)\(\s*['\"]https?://)")


def remove_network_access(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Remove statements that reach for the network (nothing can be fetched at run time)."""
    tree = ast.parse(code)
    doomed = [stmt for stmt in ast.walk(tree)
              if isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.With))
              and NETWORK_CALLS.search(ast.get_source_segment(code, stmt) or "")]
    return replace_nodes(code, [(stmt, "pass") for stmt in doomed]) if doomed else None


def lift_lambdas(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Lambdas cannot be pickled, and the fitted model is: each lambda whose body uses only
    its own arguments and module-level names becomes a module-level function."""
    import builtins

    tree = ast.parse(code)
    module_names = {n.id for stmt in tree.body for n in ast.walk(stmt)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                    and not isinstance(stmt, (ast.FunctionDef, ast.ClassDef))}
    module_names |= {a.asname or a.name.split(".")[0] for stmt in tree.body
                     if isinstance(stmt, (ast.Import, ast.ImportFrom)) for a in stmt.names}
    module_names |= {s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.ClassDef))}
    edits, functions = [], []
    for node in [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]:
        params = {a.arg for a in node.args.args}
        free = {n.id for n in ast.walk(node.body) if isinstance(n, ast.Name)} - params
        if not free <= module_names | set(dir(builtins)):
            continue
        name = f"_pipesmith_step_{len(functions) + 1}"
        while name in module_names:
            name += "_"
        args = ast.unparse(node.args)
        functions.append(f"def {name}({args}):\n"
                         f"    return {ast.get_source_segment(code, node.body)}\n")
        edits.append((node, name))
    if not edits:
        return None
    code = replace_nodes(code, edits)
    return code.rstrip() + "\n\n\n# Added by pipesmith's repair: lambdas cannot be pickled.\n" \
        + "\n\n".join(functions)
