"""What every repair patch shares: the context it is given and AST-preserving edits.

Edits are made through the AST (find the node, splice new text in at its position) so the
rest of the file keeps its formatting and comments.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from dataclasses import dataclass, field

from pipesmith.agents.prevalidator.static_checks import imported_names
from pipesmith.agents.schemas import Diagnosis


@dataclass(frozen=True)
class RepairContext:
    columns: list[str] = field(default_factory=list)  # the data's feature columns
    leaky_columns: list[str] = field(default_factory=list)
    task_type: str = "classification"
    column_kinds: dict[str, str] = field(default_factory=dict)  # column -> numeric/categorical/...


def offsets(code: str, node: ast.AST) -> tuple[int, int]:
    """Character offsets of a node (AST columns are UTF-8 byte offsets)."""
    lines = code.splitlines(keepends=True)

    def to_index(line: int, col: int) -> int:
        before = sum(len(text) for text in lines[: line - 1])
        return before + len(lines[line - 1].encode()[:col].decode(errors="ignore"))

    return to_index(node.lineno, node.col_offset), to_index(node.end_lineno, node.end_col_offset)


def replace_nodes(code: str, edits: list[tuple[ast.AST, str]]) -> str:
    """Replace each node's source text; later nodes first so offsets stay valid."""
    spans = sorted(((*offsets(code, node), text) for node, text in edits), reverse=True)
    for start, end, text in spans:
        code = code[:start] + text + code[end:]
    return code


def message_text(diagnosis: Diagnosis) -> str:
    return diagnosis.summary + "\n" + "\n".join(diagnosis.evidence)


def callee_name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def find_calls(tree: ast.AST, name: str | None = None) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and (name is None or callee_name(n) == name)]


def calls_at_line(tree: ast.AST, line: int | None) -> list[ast.Call]:
    """The calls spanning `line` (the failing line a traceback names); none without one."""
    return [c for c in find_calls(tree) if line and c.lineno <= line <= c.end_lineno]


def resolve(tree: ast.AST, name: str):
    """The installed object the code means by `name`, or None."""
    target = imported_names(tree).get(name)
    if target is None:
        return None
    module, _, attr = target.partition(":")
    try:
        obj = importlib.import_module(module)
        return getattr(obj, attr) if attr else obj
    except (ImportError, AttributeError):
        return None


def build_pipeline_returns(tree: ast.Module) -> list[ast.Return]:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "build_pipeline":
            return [n for n in ast.walk(node) if isinstance(n, ast.Return) and n.value]
    return []


def wrap_returns(code: str, helper_name: str, helper_code: str, *args: str) -> str | None:
    """Wrap every `return X` of build_pipeline as `return helper(X, *args)`; add the helper.
    In a plain script (no build_pipeline), wrap the estimators the script fits instead:
    `model = LogisticRegression()` ... `model.fit(X, y)` becomes
    `model = helper(LogisticRegression(), *args)`, the helper placed after the imports."""
    tree = ast.parse(code)
    returns = build_pipeline_returns(tree)
    extra = "".join(f", {a}" for a in args)

    def wrapped(node: ast.expr) -> str:
        text = ast.get_source_segment(code, node)
        return f"({text})" if isinstance(node, ast.Tuple) else text

    if not returns:
        fitted = fitted_constructions(tree) or estimator_sites(tree)
        if not fitted or any(f"{helper_name}(" in (ast.get_source_segment(code, n) or "")
                             for n in fitted):
            return None
        code = replace_nodes(code, [(n, f"{helper_name}({wrapped(n)}{extra})")
                                    for n in fitted])
        return code if f"def {helper_name}(" in code else \
            insert_after_imports(code, helper_code)
    code = replace_nodes(code, [(r.value, f"{helper_name}({wrapped(r.value)}{extra})")
                                 for r in returns])
    if f"def {helper_name}(" not in code:
        code = code.rstrip() + "\n\n\n" + helper_code.strip() + "\n"
    return code


FIT_METHODS = ("fit", "fit_predict", "fit_transform")


def fitted_constructions(tree: ast.Module) -> list[ast.Call]:
    """In a script: the constructor calls assigned to names whose `.fit(...)` is called
    (`model = SVC()` ... `model.fit(X, y)`), or passed to cross-validation helpers."""
    fitted = {n.func.value.id for n in ast.walk(tree) if isinstance(n, ast.Call)
              and isinstance(n.func, ast.Attribute) and n.func.attr in FIT_METHODS
              and isinstance(n.func.value, ast.Name)}
    fitted |= {n.args[0].id for n in ast.walk(tree) if isinstance(n, ast.Call)
               and callee_name(n) in ("cross_val_score", "cross_validate",
                                      "cross_val_predict", "GridSearchCV",
                                      "RandomizedSearchCV")
               and n.args and isinstance(n.args[0], ast.Name)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and node.targets[0].id in fitted and \
                isinstance(node.value, ast.Call) and callee_name(node.value)[:1].isupper():
            found.append(node.value)
    return found


CV_HELPERS = ("cross_val_score", "cross_validate", "cross_val_predict", "GridSearchCV",
              "RandomizedSearchCV", "HalvingGridSearchCV", "learning_curve",
              "validation_curve", "permutation_test_score")
PIPELINE_MAKERS = ("make_pipeline", "Pipeline")


def _constructs(node: ast.AST) -> bool:
    """A call that builds an estimator or a pipeline (`SVC(...)`, `make_pipeline(...)`)."""
    return isinstance(node, ast.Call) and (callee_name(node)[:1].isupper()
                                           or callee_name(node) in PIPELINE_MAKERS)


def estimator_sites(tree: ast.Module) -> list[ast.Call]:
    """Every place a script builds the estimator it fits, beyond `model = X()` ...
    `model.fit()`: a pipeline assigned and fitted (`pipe = make_pipeline(...)`), a
    construction fitted on the spot (`SVC().fit(X, y)`), or handed to cross-validation or a
    search (`cross_val_score(make_pipeline(...), X, y)`, `GridSearchCV(SVC(), ...)`)."""
    fitted = {n.func.value.id for n in ast.walk(tree) if isinstance(n, ast.Call)
              and isinstance(n.func, ast.Attribute) and n.func.attr in FIT_METHODS
              and isinstance(n.func.value, ast.Name)}
    fitted |= {n.args[0].id for n in ast.walk(tree) if isinstance(n, ast.Call)
               and callee_name(n) in CV_HELPERS and n.args and isinstance(n.args[0], ast.Name)}
    sites: list[ast.Call] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in fitted
                                                for t in node.targets) \
                and _constructs(node.value) and callee_name(node.value) not in CV_HELPERS:
            sites.append(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in FIT_METHODS and _constructs(node.func.value):
            sites.append(node.func.value)
        elif isinstance(node, ast.Call) and callee_name(node) in CV_HELPERS:
            first = node.args[0] if node.args else next(
                (k.value for k in node.keywords if k.arg == "estimator"), None)
            if _constructs(first):
                sites.append(first)
    nested = {id(inner) for site in sites for inner in ast.walk(site) if inner is not site}
    return [s for s in sites if id(s) not in nested]  # the outermost construction only


def insert_after_imports(code: str, helper: str) -> str:
    """Scripts run top to bottom: a helper goes after the imports that open the script,
    before the first other statement (an import further down may follow code that already
    calls the helper)."""
    tree = ast.parse(code)
    at = 0
    for i, node in enumerate(tree.body):
        docstring = i == 0 and isinstance(node, ast.Expr) and \
            isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        if not (docstring or isinstance(node, (ast.Import, ast.ImportFrom))):
            break
        at = node.end_lineno
    lines = code.splitlines(keepends=True)
    return "".join(lines[:at]) + "\n\n" + helper.strip("\n") + "\n\n\n" + "".join(lines[at:])


def import_alias(name: str, asname: str | None) -> str:
    return name if not asname or asname == name else f"{name} as {asname}"


def parameters(obj) -> list[str]:
    try:
        return list(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        return []


def edit_keyword(code: str, tree: ast.Module, callee: str | None, keyword: str,
                  new_name: str | None = None, new_value: str | None = None) -> str | None:
    """Rename, revalue or (both None) drop `keyword` in calls to `callee` (any call if None)."""
    edits = []
    for call in find_calls(tree, callee):
        kws = [kw for kw in call.keywords if kw.arg == keyword]
        if not kws:
            continue
        if new_value is not None:
            edits.append((kws[0].value, new_value))
            continue
        if new_name is not None:
            kws[0].arg = new_name
        else:
            call.keywords = [kw for kw in call.keywords if kw.arg != keyword]
        edits.append((call, ast.unparse(call)))
    return replace_nodes(code, edits) if edits else None


def with_keyword(call: ast.Call, name: str, value: ast.expr | str) -> str:
    """The call's source with `name=value` in place of any `name=` it passes (`value`: a
    node, or the source of an expression)."""
    node = ast.parse(value, mode="eval").body if isinstance(value, str) else value
    call.keywords = [k for k in call.keywords if k.arg != name] + [ast.keyword(name, node)]
    return ast.unparse(call)


def quote(code: str, tree: ast.Module, node: ast.AST) -> str:
    """The quote for a string literal written at `node`: inside an f-string (`print(f"...
    {f1_score(y, p)}")`), the one the f-string does not use (Python before 3.12 cannot
    reuse it); else a double quote."""
    for outer in ast.walk(tree):
        if isinstance(outer, ast.JoinedStr) and outer is not node and any(
                inner is node for inner in ast.walk(outer)):
            start, _ = offsets(code, outer)
            opening = code[start:start + 4].lstrip("fFrRbBuU")[:1]
            return "'" if opening == '"' else '"'
    return '"'
