"""Offline repair rules: one patch per repair action, working on any Python code.

Each patch takes the failing code, its diagnosis and what is known about the data,
and returns new code or None when it does not apply. Edits are made through the
AST (find the node, splice new text in at its position) so the rest of the file
keeps its formatting and comments. What the installed libraries accept is learned
by inspecting them (signatures, module contents), not from hand-written lists alone.
"""

from __future__ import annotations

import ast
import difflib
import functools
import importlib
import inspect
import pkgutil
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

from pipesmith.agents.schemas import Diagnosis
from pipesmith.agents.static_checks import imported_names


@dataclass(frozen=True)
class RepairContext:
    columns: list[str] = field(default_factory=list)  # the data's feature columns
    leaky_columns: list[str] = field(default_factory=list)
    task_type: str = "classification"


Patch = Callable[[str, Diagnosis, RepairContext], "str | None"]
PATCHES: dict[str, Patch] = {}


def patch(action: str):
    def register(fn: Patch) -> Patch:
        PATCHES[action] = fn
        return fn

    return register


def apply(action: str, code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """The patched code, or None when the action does not apply or changes nothing."""
    fn = PATCHES.get(action)
    if fn is None:
        return None
    try:
        new = fn(code, diagnosis, ctx)
        if new is None or new == code:
            return None
        ast.parse(new)
    except (SyntaxError, ValueError, LookupError, TypeError, ImportError):
        return None
    return new


# --- editing helpers ----------------------------------------------------------------------


def _offsets(code: str, node: ast.AST) -> tuple[int, int]:
    """Character offsets of a node (AST columns are UTF-8 byte offsets)."""
    lines = code.splitlines(keepends=True)

    def to_index(line: int, col: int) -> int:
        before = sum(len(text) for text in lines[: line - 1])
        return before + len(lines[line - 1].encode()[:col].decode(errors="ignore"))

    return to_index(node.lineno, node.col_offset), to_index(node.end_lineno, node.end_col_offset)


def _replace_nodes(code: str, edits: list[tuple[ast.AST, str]]) -> str:
    """Replace each node's source text; later nodes first so offsets stay valid."""
    spans = sorted(((*_offsets(code, node), text) for node, text in edits), reverse=True)
    for start, end, text in spans:
        code = code[:start] + text + code[end:]
    return code


def _message(diagnosis: Diagnosis) -> str:
    return diagnosis.summary + "\n" + "\n".join(diagnosis.evidence)


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _calls(tree: ast.AST, name: str | None = None) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and (name is None or _callee(n) == name)]


def _resolve(tree: ast.AST, name: str):
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


def _build_pipeline_returns(tree: ast.Module) -> list[ast.Return]:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "build_pipeline":
            return [n for n in ast.walk(node) if isinstance(n, ast.Return) and n.value]
    return []


def _wrap_returns(code: str, helper_name: str, helper_code: str, *args: str) -> str | None:
    """Wrap every `return X` of build_pipeline as `return helper(X, *args)`; add the helper."""
    tree = ast.parse(code)
    returns = _build_pipeline_returns(tree)
    if not returns:
        return None
    extra = "".join(f", {a}" for a in args)
    def wrapped(node: ast.expr) -> str:
        text = ast.get_source_segment(code, node)
        return f"({text})" if isinstance(node, ast.Tuple) else text

    code = _replace_nodes(code, [(r.value, f"{helper_name}({wrapped(r.value)}{extra})")
                                 for r in returns])
    if f"def {helper_name}(" not in code:
        code = code.rstrip() + "\n\n\n" + helper_code.strip() + "\n"
    return code


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


@patch("fix_syntax")
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


@patch("fix_contract")
def fix_contract(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    tree = ast.parse(code)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    builder = functions.get("build_pipeline")
    if builder is not None:
        if diagnosis.subclass == "wrong_return_type":
            return _wrap_returns(code, "_pipesmith_estimator", _ESTIMATOR_HELPER)
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


# --- resources -------------------------------------------------------------------------------


def _is_forever(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value) is True


@patch("remove_infinite_loop")
def remove_infinite_loop(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    tree = ast.parse(code)
    loops = [n for n in ast.walk(tree) if isinstance(n, ast.While) and _is_forever(n.test)
             and not any(isinstance(m, (ast.Break, ast.Return, ast.Raise)) for m in ast.walk(n))]
    return _replace_nodes(code, [(loop, "pass") for loop in loops]) if loops else None


SHRINK = {  # keyword: (above this, set to this)
    "n_estimators": (200, 100), "max_iter": (2000, 500), "n_iter": (2000, 500),
    "epochs": (200, 50), "n_neighbors": (200, 50), "n_init": (20, 5),
    "batch_size": (1024, 128), "units": (4096, 256),
}
WIDTHS = ("hidden", "hidden_layer_sizes")  # a tuple of layer widths
WIDEST = (4096, 256)  # a layer wider than this becomes this wide


@patch("shrink_model")
def shrink_model(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Cap model sizes (trees, iterations, layer widths, batches) and huge array shapes."""
    tree = ast.parse(code)
    edits = []
    for call in _calls(tree):
        for kw in call.keywords:
            value = kw.value
            if kw.arg in SHRINK and isinstance(value, ast.Constant) and \
                    isinstance(value.value, int) and value.value > SHRINK[kw.arg][0]:
                edits.append((value, str(SHRINK[kw.arg][1])))
            if kw.arg in WIDTHS and isinstance(value, (ast.Tuple, ast.List)):
                edits += [(e, str(WIDEST[1])) for e in value.elts if isinstance(e, ast.Constant)
                          and isinstance(e.value, int) and e.value > WIDEST[0]]
        if _callee(call) in ("ones", "zeros", "empty", "full", "rand", "randn", "random"):
            for const in ast.walk(call):
                if isinstance(const, ast.Constant) and isinstance(const.value, int) and \
                        const.value > 10_000:
                    edits.append((const, "1000"))
    return _replace_nodes(code, edits) if edits else None


@patch("single_process")
def single_process(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    tree = ast.parse(code)
    edits = [(kw.value, "1") for call in _calls(tree) for kw in call.keywords
             if kw.arg == "n_jobs" and ast.unparse(kw.value) != "1"]
    return _replace_nodes(code, edits) if edits else None


# --- imports -----------------------------------------------------------------------------------

# Names that moved or left, where no installed module can tell us (checked first).
KNOWN_MOVES = {
    "Imputer": ("sklearn.impute", "SimpleImputer"),
    "cross_validation": ("sklearn", "model_selection"),
    "joblib": ("joblib", None),
    "plot_confusion_matrix": ("sklearn.metrics", "ConfusionMatrixDisplay"),
    "load_boston": ("sklearn.datasets", "fetch_california_housing"),
}
# Popular packages that are not installed here, and the scikit-learn model to use instead.
SUBSTITUTES = {
    "XGBClassifier": ("sklearn.ensemble", "HistGradientBoostingClassifier"),
    "XGBRegressor": ("sklearn.ensemble", "HistGradientBoostingRegressor"),
    "LGBMClassifier": ("sklearn.ensemble", "HistGradientBoostingClassifier"),
    "LGBMRegressor": ("sklearn.ensemble", "HistGradientBoostingRegressor"),
    "CatBoostClassifier": ("sklearn.ensemble", "HistGradientBoostingClassifier"),
    "CatBoostRegressor": ("sklearn.ensemble", "HistGradientBoostingRegressor"),
}


@functools.lru_cache(maxsize=8)
def public_names(package: str) -> dict[str, str]:
    """Public name -> the shortest module path of `package` that exports it."""
    try:
        root = importlib.import_module(package)
    except ImportError:
        return {}
    found: dict[str, str] = {}
    modules = [root]
    for info in pkgutil.walk_packages(getattr(root, "__path__", []), prefix=package + "."):
        parts = info.name.split(".")
        if any(p.startswith("_") or p in ("tests", "testing", "conftest", "experimental")
               for p in parts[1:]):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                modules.append(importlib.import_module(info.name))
        except Exception:  # some optional submodules fail to import; they export nothing then
            continue
    for module in sorted(modules, key=lambda m: m.__name__.count(".")):
        for name in getattr(module, "__all__", None) or dir(module):
            if not name.startswith("_"):
                found.setdefault(name, module.__name__)
    return found


def locate(name: str, package: str) -> tuple[str, str] | None:
    """Where `name` (or the closest public name) lives now in `package`."""
    if name in KNOWN_MOVES and KNOWN_MOVES[name][1]:
        return KNOWN_MOVES[name]
    if name in SUBSTITUTES:
        return SUBSTITUTES[name]
    names = public_names(package)
    if name in names:
        return names[name], name
    close = difflib.get_close_matches(name, list(names), n=1, cutoff=0.75)
    return (names[close[0]], close[0]) if close else None


def _installed_top_levels() -> list[str]:
    from importlib.metadata import packages_distributions

    return sorted(set(packages_distributions()) | set(sys.stdlib_module_names))


@patch("replace_import")
def replace_import(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    message = _message(diagnosis)
    tree = ast.parse(code)
    missing = re.search(r"No module named '([\w.]+)'", message)
    cannot = re.search(r"cannot import name '(\w+)' from '([\w.]+)'", message)
    edits = []
    for node in [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]:
        if isinstance(node, ast.ImportFrom) and node.module:
            broken_module = missing and (node.module == missing.group(1)
                                         or node.module.startswith(missing.group(1) + "."))
            lines = []
            for alias in node.names:
                broken_name = cannot and alias.name == cannot.group(1)
                if not (broken_module or broken_name):
                    lines.append(f"from {node.module} import {_alias(alias.name, alias.asname)}")
                    continue
                package = node.module.split(".")[0]
                if broken_module and package == missing.group(1).split(".")[0]:
                    package = "sklearn" if alias.name in SUBSTITUTES else package
                where = locate(alias.name, package) or locate(alias.name, "sklearn")
                if where is None:
                    return None
                module, name = where
                lines.append(f"from {module} import {_alias(name, alias.asname or alias.name)}")
            if lines != [f"from {node.module} import {_alias(a.name, a.asname)}"
                         for a in node.names]:
                edits.append((node, "\n".join(lines)))
        elif isinstance(node, ast.Import) and missing:
            for alias in node.names:
                if alias.name == missing.group(1):
                    close = difflib.get_close_matches(alias.name, _installed_top_levels(), n=1,
                                                      cutoff=0.8)
                    if not close:
                        return None
                    edits.append((node, f"import {_alias(close[0], alias.asname or alias.name)}"))
    return _replace_nodes(code, edits) if edits else None


def _alias(name: str, asname: str | None) -> str:
    return name if not asname or asname == name else f"{name} as {asname}"


# --- API drift ---------------------------------------------------------------------------------


def _parameters(obj) -> list[str]:
    try:
        return list(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        return []


def _edit_keyword(code: str, tree: ast.Module, callee: str | None, keyword: str,
                  new_name: str | None = None, new_value: str | None = None) -> str | None:
    """Rename, revalue or (both None) drop `keyword` in calls to `callee` (any call if None)."""
    edits = []
    for call in _calls(tree, callee):
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
    return _replace_nodes(code, edits) if edits else None


@patch("fix_keyword")
def fix_keyword(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Rename a keyword to the closest parameter the installed callable takes, else drop it."""
    found = re.search(r"(\w+)(?:\.__init__)?\(\) got an unexpected keyword argument '(\w+)'",
                      _message(diagnosis))
    if not found:
        return None
    callee, keyword = found.groups()
    tree = ast.parse(code)
    if not any(kw.arg == keyword for c in _calls(tree, callee) for kw in c.keywords):
        callee = None  # the message named a base class or a wrapper; fix every such call
    params = _parameters(_resolve(tree, callee)) if callee else []
    close = difflib.get_close_matches(keyword, params, n=1, cutoff=0.6)
    return _edit_keyword(code, tree, callee, keyword, new_name=close[0] if close else None)


@patch("fix_parameter_value")
def fix_parameter_value(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Use the closest allowed value, the bound the message states, or the default."""
    message = _message(diagnosis)
    tree = ast.parse(code)
    invalid = re.search(r"The '(\w+)' parameter of (\w+) must be (.*?)\. Got (.*?) instead",
                        message)
    if invalid:
        param, callee, allowed, got = invalid.groups()
        options = re.findall(r"'([^']*)'", allowed.split(" or ")[0]) if "among" in allowed else []
        close = difflib.get_close_matches(got.strip("'\""), options, n=1, cutoff=0.5)
        if close:
            return _edit_keyword(code, tree, callee, param, new_value=repr(close[0]))
        return _edit_keyword(code, tree, callee, param)
    bound = re.search(r"(\w+)=\S+ must be between \S+ and .*?=(\d+)", message) or \
        re.search(r"(k) should be <= n_features = (\d+)", message)
    if bound:
        return _edit_keyword(code, tree, None, bound.group(1), new_value=bound.group(2))
    return None


NUMPY_ALIASES = {"float": "float", "int": "int", "bool": "bool", "object": "object",
                 "complex": "complex", "str": "str", "long": "int", "unicode": "str",
                 "NaN": "np.nan", "NAN": "np.nan", "Inf": "np.inf", "Infinity": "np.inf",
                 "PINF": "np.inf", "NINF": "-np.inf", "float_": "np.float64",
                 "complex_": "np.complex128", "product": "np.prod",
                 "cumproduct": "np.cumprod", "sometrue": "np.any", "alltrue": "np.all",
                 "in1d": "np.isin", "row_stack": "np.vstack", "trapz": "np.trapezoid"}


@patch("replace_attribute")
def replace_attribute(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    found = re.search(r"module '([\w.]+)' has no attribute '(\w+)'", _message(diagnosis))
    if not found:
        return None
    module_name, attr = found.groups()
    tree = ast.parse(code)
    aliases = {local for local, target in imported_names(tree).items() if target == module_name}
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == attr
             and isinstance(n.value, ast.Name) and n.value.id in aliases]
    if not nodes:
        return None
    if module_name == "numpy" and attr in NUMPY_ALIASES:
        new = NUMPY_ALIASES[attr]
        return _replace_nodes(code, [(n, new.replace("np.", f"{n.value.id}.")) for n in nodes])
    module = importlib.import_module(module_name)
    close = difflib.get_close_matches(attr, [a for a in dir(module) if not a.startswith("_")],
                                      n=1, cutoff=0.75)
    return _replace_nodes(code, [(n, f"{n.value.id}.{close[0]}") for n in nodes]) if close \
        else None


# --- data flow ---------------------------------------------------------------------------------


@patch("fix_columns")
def fix_columns(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Point misspelled column names at the closest real column; drop names with none."""
    quoted = set(re.findall(r"'([^']+)'", _message(diagnosis)))
    missing = [name for name in quoted if name not in ctx.columns]
    if not missing or not ctx.columns:
        return None
    tree = ast.parse(code)
    edits = []
    for seq in [n for n in ast.walk(tree) if isinstance(n, (ast.List, ast.Tuple))]:
        strings = [e for e in seq.elts if isinstance(e, ast.Constant) and e.value in missing]
        if not strings:
            continue
        elts = []
        for element in seq.elts:
            if element in strings:
                close = difflib.get_close_matches(element.value, ctx.columns, n=1, cutoff=0.6)
                if not close:
                    continue
                element = ast.Constant(close[0])
            elts.append(ast.unparse(element))
        text = ", ".join(elts)
        edits.append((seq, f"[{text}]" if isinstance(seq, ast.List) else f"({text},)"))
    if not edits:  # a bare string, e.g. X["colmun"]
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in missing:
                close = difflib.get_close_matches(node.value, ctx.columns, n=1, cutoff=0.6)
                if close:
                    edits.append((node, repr(close[0])))
    return _replace_nodes(code, edits) if edits else None


_GUARD_HELPER = '''
def _pipesmith_guard(estimator):
    """Added by pipesmith's repair: turn infinities into NaN and impute NaN before the model
    and after every FunctionTransformer step."""
    import numpy as np
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer

    def guard(tag):
        finite = FunctionTransformer(
            np.nan_to_num, kw_args={"nan": np.nan, "posinf": np.nan, "neginf": np.nan})
        impute = SimpleImputer(strategy="median", keep_empty_features=True)
        return [(f"pipesmith_finite_{tag}", finite), (f"pipesmith_impute_{tag}", impute)]

    if not isinstance(estimator, Pipeline):
        return Pipeline(guard("in") + [("model", estimator)])
    steps = []
    for index, (name, step) in enumerate(estimator.steps[:-1]):
        steps.append((name, step))
        if isinstance(step, FunctionTransformer):
            steps += guard(index)
    return Pipeline(steps + guard("model") + estimator.steps[-1:])
'''


@patch("add_imputation")
def add_imputation(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    if "_pipesmith_guard(" in code:
        return None
    return _wrap_returns(code, "_pipesmith_guard", _GUARD_HELPER)


_ENCODE_HELPER = '''
def _pipesmith_encode(estimator):
    """Added by pipesmith's repair: ordinal-encode text columns before the estimator."""
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OrdinalEncoder

    encoder = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1,
                             encoded_missing_value=-1)
    encode = ColumnTransformer(
        [("text", encoder, make_column_selector(dtype_include=["object", "string", "category"]))],
        remainder="passthrough", verbose_feature_names_out=False,
    ).set_output(transform="pandas")
    return Pipeline([("pipesmith_encode", encode), ("estimator", estimator)])
'''


@patch("encode_categoricals")
def encode_categoricals(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    if "_pipesmith_encode(" in code:
        return None
    return _wrap_returns(code, "_pipesmith_encode", _ENCODE_HELPER)


@patch("handle_unknown_categories")
def handle_unknown_categories(code: str, diagnosis: Diagnosis,
                              ctx: RepairContext) -> str | None:
    tree = ast.parse(code)
    edits = []
    for call in _calls(tree, "OneHotEncoder") + _calls(tree, "OrdinalEncoder"):
        if _callee(call) == "OneHotEncoder":
            wanted = {"handle_unknown": ast.Constant("ignore")}
        else:
            wanted = {"handle_unknown": ast.Constant("use_encoded_value"),
                      "unknown_value": ast.Constant(-1)}
        current = {kw.arg: kw for kw in call.keywords}
        if all(k in current and ast.unparse(current[k].value) == ast.unparse(v)
               for k, v in wanted.items()):
            continue
        call.keywords = [kw for kw in call.keywords if kw.arg not in wanted] + [
            ast.keyword(arg=k, value=v) for k, v in wanted.items()]
        edits.append((call, ast.unparse(call)))
    return _replace_nodes(code, edits) if edits else None


_DROP_HELPER = '''
def _pipesmith_drop(estimator, columns):
    """Added by pipesmith's repair: drop columns suspected of leaking the target."""
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline

    drop = ColumnTransformer([("leaky", "drop", columns)], remainder="passthrough",
                             verbose_feature_names_out=False).set_output(transform="pandas")
    return Pipeline([("pipesmith_drop", drop), ("estimator", estimator)])
'''


@patch("drop_leaky_columns")
def drop_leaky_columns(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    if not ctx.leaky_columns or "_pipesmith_drop(" in code:
        return None
    return _wrap_returns(code, "_pipesmith_drop", _DROP_HELPER, repr(ctx.leaky_columns))


# --- numerical ---------------------------------------------------------------------------------

_SCALE_HELPER = '''
def _pipesmith_scale(estimator):
    """Added by pipesmith's repair: standardise the features the model sees."""
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    if isinstance(estimator, Pipeline):
        return Pipeline(estimator.steps[:-1] + [("pipesmith_scale", StandardScaler())]
                        + estimator.steps[-1:])
    return Pipeline([("pipesmith_scale", StandardScaler()), ("model", estimator)])
'''


@patch("scale_features")
def scale_features(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    if "_pipesmith_scale(" in code:
        return None
    return _wrap_returns(code, "_pipesmith_scale", _SCALE_HELPER)


LEARNING_RATES = ("learning_rate", "learning_rate_init", "eta0", "lr")


@patch("lower_learning_rate")
def lower_learning_rate(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    tree = ast.parse(code)
    edits = []
    for call in _calls(tree):
        for kw in call.keywords:
            if kw.arg in LEARNING_RATES and isinstance(kw.value, ast.Constant) and \
                    isinstance(kw.value.value, int | float) and kw.value.value > 0:
                value = kw.value.value
                edits.append((kw.value, repr(value / 10 if value <= 0.1 else 0.01)))
    return _replace_nodes(code, edits) if edits else None


LONGER = {"max_iter": (10, 10_000), "epochs": (4, 400)}  # keyword: (factor, cap)
TOO_SLOW_RATE = 1e-4  # a learning rate below this barely moves a network within the budget


@patch("increase_iterations")
def increase_iterations(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """More iterations or epochs (within a cap), and a learning rate that is not crawling."""
    tree = ast.parse(code)
    edits = []
    for kw in [kw for call in _calls(tree) for kw in call.keywords]:
        if not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, int | float)):
            continue
        value = kw.value.value
        if kw.arg in LONGER and isinstance(value, int) and value < LONGER[kw.arg][1]:
            factor, cap = LONGER[kw.arg]
            edits.append((kw.value, str(min(value * factor, cap))))
        elif kw.arg in LEARNING_RATES and 0 < value < TOO_SLOW_RATE:
            edits.append((kw.value, "0.001"))
    return _replace_nodes(code, edits) if edits else None


@patch("replace_placeholder_model")
def replace_placeholder_model(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A Dummy* estimator left in the code becomes gradient boosting."""
    tree = ast.parse(code)
    kind = "Classifier" if ctx.task_type == "classification" else "Regressor"
    calls = _calls(tree, f"Dummy{kind}")
    if not calls:
        return None
    name = f"HistGradientBoosting{kind}"
    code = _replace_nodes(code, [(call, f"{name}()") for call in calls])
    return f"from sklearn.ensemble import {name}\n" + code


# --- sandbox policy ----------------------------------------------------------------------------

NETWORK_CALLS = re.compile(
    r"\b(urlopen|urlretrieve|requests\.(get|post|put|head)|socket\.(socket|create_connection)"
    r"|http\.client|read_(csv|parquet|json)\(\s*['\"]https?://)")


@patch("remove_network_access")
def remove_network_access(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Remove statements that reach for the network (nothing can be fetched at run time)."""
    tree = ast.parse(code)
    doomed = [stmt for stmt in ast.walk(tree)
              if isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.With))
              and NETWORK_CALLS.search(ast.get_source_segment(code, stmt) or "")]
    return _replace_nodes(code, [(stmt, "pass") for stmt in doomed]) if doomed else None


# --- neural networks ---------------------------------------------------------------------------

DOUBLES = ("float64", "double")


@patch("cast_float32")
def cast_float32(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Network layers hold float32 weights: make float64 data float32 where it is made."""
    tree = ast.parse(code)
    modules = {local for local, target in imported_names(tree).items()
               if target.split(".")[0] in ("numpy", "torch", "tensorflow")} | {"np", "torch"}
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in DOUBLES and \
                isinstance(node.value, ast.Name) and node.value.id in modules:
            edits.append((node, f"{node.value.id}.float32"))
        elif isinstance(node, ast.keyword) and node.arg == "dtype" and \
                isinstance(node.value, ast.Constant) and node.value.value in DOUBLES:
            edits.append((node.value, '"float32"'))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "double" and not node.args:
            edits.append((node.func, f"{ast.get_source_segment(code, node.func.value)}.float"))
    return _replace_nodes(code, edits) if edits else None


_WIDTHS_IN_MESSAGE = (  # (given, expected) input widths, from the frameworks' messages
    re.compile(r"shapes cannot be multiplied \(\d+x(\d+) and (\d+)x\d+\)"),
    re.compile(r"expected axis -1 of input shape to have value (\d+), but received input with "
               r"shape \(\S+, (\d+)\)"),
)


def _message_widths(message: str) -> tuple[int, int] | None:
    torch_style = _WIDTHS_IN_MESSAGE[0].search(message)
    if torch_style:
        return int(torch_style.group(1)), int(torch_style.group(2))
    keras_style = _WIDTHS_IN_MESSAGE[1].search(message)
    if keras_style:
        return int(keras_style.group(2)), int(keras_style.group(1))
    return None


@patch("infer_input_width")
def infer_input_width(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A hard-coded input width goes: `input_width=N` becomes None (inferred at fit), and a
    first layer built for the wrong width (`Linear(N, ...)`, `Input(shape=(N,))`) gets the
    width the data has, read from the error."""
    tree = ast.parse(code)
    edits = [(kw.value, "None") for call in _calls(tree) for kw in call.keywords
             if kw.arg == "input_width" and isinstance(kw.value, ast.Constant)
             and isinstance(kw.value.value, int)]
    widths = _message_widths(_message(diagnosis))
    if edits or widths is None:
        return _replace_nodes(code, edits) if edits else None
    given, expected = widths
    for call in _calls(tree, "Linear") + _calls(tree, "Input") + _calls(tree, "Dense"):
        candidates = call.args[:1] + [kw.value for kw in call.keywords
                                      if kw.arg in ("in_features", "shape", "input_dim")]
        for node in candidates:
            for const in ast.walk(node):
                if isinstance(const, ast.Constant) and const.value == expected:
                    edits.append((const, str(given)))
    return _replace_nodes(code, edits[:1]) if edits else None


BINARY_LOSSES = ("BCELoss", "BCEWithLogitsLoss")
KERAS_LOSSES = {"classification": "sparse_categorical_crossentropy", "regression": "mse"}


@patch("fix_loss")
def fix_loss(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """The loss the task and integer labels want: `loss=` on an estimator goes back to "auto"
    (it picks by task), a Keras loss name becomes sparse categorical cross-entropy (or MSE
    for regression), and a binary cross-entropy module becomes CrossEntropyLoss."""
    tree = ast.parse(code)
    edits = []
    for call in _calls(tree):
        for kw in call.keywords:
            if kw.arg != "loss" or not isinstance(kw.value, ast.Constant) or \
                    not isinstance(kw.value.value, str):
                continue
            estimator = _callee(call).endswith(("Classifier", "Regressor"))
            wanted = "auto" if estimator else KERAS_LOSSES.get(ctx.task_type)
            if wanted and kw.value.value != wanted:
                edits.append((kw.value, repr(wanted)))
    if ctx.task_type == "classification":
        edits += [(call.func, ast.get_source_segment(code, call.func).rsplit(".", 1)[0]
                   + ".CrossEntropyLoss" if isinstance(call.func, ast.Attribute)
                   else "CrossEntropyLoss")
                  for name in BINARY_LOSSES for call in _calls(tree, name)]
    return _replace_nodes(code, edits) if edits else None


def _classes_taking(tree: ast.Module, parameter: str) -> set[str]:
    """Classes of the module, or imported from pipesmith.estimators, whose __init__ takes
    `parameter`, with the module's subclasses of them."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    found = {name for name, node in classes.items() for item in node.body
             if isinstance(item, ast.FunctionDef) and item.name == "__init__"
             and parameter in [a.arg for a in item.args.args]}
    found |= {local for local, target in imported_names(tree).items()
              if target.startswith("pipesmith.estimators:")
              and parameter in _init_parameters(target)}
    grew = True
    while grew:
        more = {name for name, node in classes.items()
                if any(getattr(b, "id", None) in found for b in node.bases)} - found
        found |= more
        grew = bool(more)
    return found


def _init_parameters(target: str) -> tuple[str, ...]:
    """The constructor parameters of an importable class named "module:attr"; () if none."""
    module, _, attr = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module), attr)
        return tuple(inspect.signature(cls).parameters)
    except Exception:  # not importable here: nothing to add
        return ()


CLIP_NORM = 1.0


@patch("clip_gradients")
def clip_gradients(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Clip gradient norms: `clip_norm`/`clipnorm` set to 1.0 where unset, and added to the
    construction of the module's own estimators that take it."""
    tree = ast.parse(code)
    takers = _classes_taking(tree, "clip_norm")
    edits = []
    for call in _calls(tree):
        current = [kw for kw in call.keywords if kw.arg in ("clip_norm", "clipnorm")]
        if current:
            value = current[0].value
            if isinstance(value, ast.Constant) and value.value is None:
                edits.append((value, repr(CLIP_NORM)))
        elif _callee(call) in takers:
            call.keywords.append(ast.keyword(arg="clip_norm", value=ast.Constant(CLIP_NORM)))
            edits.append((call, ast.unparse(call)))
    return _replace_nodes(code, edits) if edits else None
