"""Repairs of the boosting libraries' own refusals whose message names the cure (#25):
parameters CatBoost takes only one of, categorical columns it was told about wrongly, a
multiclass objective without `num_class`, a prediction frame holding columns the training
frame dropped, and a Booster given a container it does not take. Each reads the names it
edits from the message and the code, never from a case."""

from __future__ import annotations

import ast
import re

from pipesmith.agents.prevalidator.static_checks import imported_names
from pipesmith.agents.repair.patches import live
from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    callee_name,
    calls_at_line,
    find_calls,
    insert_after_imports,
    message_text,
    replace_nodes,
)
from pipesmith.agents.schemas import Diagnosis

# "only one of the parameters depth, max_depth should be initialized" (CatBoost),
# "Only one of parameters ['verbose', 'logging_level', ...] should be set"
ONE_OF = re.compile(r"[Oo]nly one of (?:the )?parameters \[?([\w', ]+?)\]? should be")
# Values that mean "print nothing", per logging parameter: a dropped twin that says the
# same as the kept one loses nothing (knowledge as data).
SILENT = {"verbose": ("0", "False"), "verbose_eval": ("0", "False"), "silent": ("True",),
          "logging_level": ("'Silent'",)}


def _named(message: str) -> list[str]:
    found = ONE_OF.search(message)
    return re.findall(r"\w+", found.group(1)) if found else []


def _settings(tree: ast.Module, names: list[str]) -> list[tuple[str, ast.AST, ast.AST, str]]:
    """Where the code sets any of `names`: (name, container, entry, value source) for a
    keyword of a call and a string key of a dict literal."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            found += [(kw.arg, node, kw, ast.unparse(kw.value)) for kw in node.keywords
                      if kw.arg in names]
        elif isinstance(node, ast.Dict):
            pairs = zip(node.keys, node.values, strict=True)
            found += [(k.value, node, k, ast.unparse(v)) for k, v in pairs
                      if isinstance(k, ast.Constant) and k.value in names]
    return found


def _without(code: str, container: ast.AST, drop: set[int]) -> str:
    """The call or dict literal's text without the entries whose ids are in `drop`."""
    if isinstance(container, ast.Call):
        container.keywords = [kw for kw in container.keywords if id(kw) not in drop]
    else:
        pairs = zip(container.keys, container.values, strict=True)
        kept = [(k, v) for k, v in pairs if id(k) not in drop]
        container.keys, container.values = [k for k, _ in kept], [v for _, v in kept]
    return ast.unparse(container)


def one_of_parameters(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Two parameters the library takes only one of: the one it names first (its own name,
    e.g. `depth` before the alias `max_depth`) is kept where the code sets it, the others are
    removed wherever the code sets them (keywords and dict entries)."""
    names = _named(message_text(diagnosis))
    tree = ast.parse(code)
    settings = _settings(tree, names)
    present = [n for n in names if any(s[0] == n for s in settings)]
    if len(present) < 2:
        return None
    keep = present[0]
    by_container: dict[int, tuple[ast.AST, set[int]]] = {}
    for name, container, entry, _ in settings:
        if name != keep:
            by_container.setdefault(id(container), (container, set()))[1].add(id(entry))
    edits = [(c, _without(code, c, drop)) for c, drop in by_container.values()]
    return replace_nodes(code, edits)


def lost_duplicates(before: str, after: str, diagnosis: Diagnosis | None) -> list[str]:
    """A dropped twin whose value differs from the kept one's meaning is lost: partial."""
    names = _named(message_text(diagnosis)) if diagnosis else []
    old = {(n, v) for n, *_, v in _settings(ast.parse(before), names)}
    new = {(n, v) for n, *_, v in _settings(ast.parse(after), names)}
    kept = {n: v for n, v in new}
    silent = all(v in SILENT.get(n, ()) for n, v in new) and bool(new)
    return [f"dropped {n}={v}: the library takes only one of {', '.join(names)} and "
            f"{', '.join(f'{k}={w}' for k, w in kept.items())} was kept, so this value is lost"
            for n, v in sorted(old - new)
            if not (silent and v in SILENT.get(n, ()))]


CAT_HELPER = '''
def _pipesmith_cat_columns(X):
    """The columns CatBoost must treat as categorical: every non-numeric one of the frame
    it is fitted on (positions taken from another frame, floats or undeclared categories
    are what it refused)."""
    import pandas as _pd
    if not isinstance(X, _pd.DataFrame):
        return None
    return [c for c in X.columns if not _pd.api.types.is_numeric_dtype(X[c])
            or isinstance(X[c].dtype, _pd.CategoricalDtype)]
'''
CAT_REFUSALS = re.compile(r"Invalid cat_features|is not in\s+cat_features|"
                          r"cat_features must be integer or string")


def declare_cat_features(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """CatBoost refused the categorical columns it was given (an index past the frame's
    width, a category dtype it was not told about): `cat_features` at each fit of a CatBoost
    model becomes the fitted frame's own non-numeric columns, read at run time; a
    constructor's `cat_features` moves there."""
    if not CAT_REFUSALS.search(message_text(diagnosis)):
        return None
    tree = ast.parse(code)
    models = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign)
              and isinstance(n.value, ast.Call) and callee_name(n.value).startswith("CatBoost")
              for t in n.targets if isinstance(t, ast.Name)}
    edits = []
    for call in find_calls(tree, "fit"):
        if not (isinstance(call.func.value, ast.Name) and call.func.value.id in models
                and call.args):
            continue
        x = ast.get_source_segment(code, call.args[0])
        call.keywords = [kw for kw in call.keywords if kw.arg != "cat_features"]
        call.keywords.append(ast.keyword("cat_features", ast.parse(
            f"_pipesmith_cat_columns({x})", mode="eval").body))
        edits.append((call, ast.unparse(call)))
    if not edits:
        return None
    for call in find_calls(tree):
        if callee_name(call).startswith("CatBoost") and any(
                kw.arg == "cat_features" for kw in call.keywords):
            call.keywords = [kw for kw in call.keywords if kw.arg != "cat_features"]
            edits.append((call, ast.unparse(call)))
    return insert_after_imports(replace_nodes(code, edits), CAT_HELPER)


NO_NUM_CLASS = re.compile(r"Number of classes should be specified|num_class")
DATASETS = ("Dataset", "DMatrix", "QuantileDMatrix", "DaskDMatrix")


def _label(tree: ast.Module, data: ast.AST, code: str) -> str | None:
    """The label expression a Dataset/DMatrix was built with (inline or assigned to a name)."""
    if isinstance(data, ast.Name):
        data = next((n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                     and any(isinstance(t, ast.Name) and t.id == data.id for t in n.targets)),
                    None)
    if isinstance(data, ast.Call) and callee_name(data) in DATASETS:
        label = next((k.value for k in data.keywords if k.arg == "label"),
                     data.args[1] if len(data.args) > 1 else None)
        return ast.get_source_segment(code, label) if label is not None else None
    return None


def add_num_class(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A multiclass objective given to the booster API (`lgb.train`, `xgb.train`) without
    `num_class`: the params at the call get `num_class` read from the training labels at
    run time, as the largest label + 1 (labels must lie below it, so 0..k-1 and 1..k both
    train, and the arg-max of the predictions is the label itself)."""
    if not NO_NUM_CLASS.search(message_text(diagnosis)):
        return None
    tree = ast.parse(code)
    edits = []
    for call in find_calls(tree, "train"):
        if len(call.args) < 2:
            continue
        label = _label(tree, call.args[1], code)
        if label is None:
            continue
        params = ast.get_source_segment(code, call.args[0])
        edits.append((call.args[0],
                      f'{{**{params}, "num_class": int(max({label})) + 1}}'))
    return replace_nodes(code, edits) if edits else None


EXPECTING_TYPE = re.compile(r"Expecting data to be an? (\w+) object")


def wrap_input_type(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"Expecting data to be a DMatrix object, got DataFrame": the data argument of the
    failing predict call is wrapped in the type the message names, spelled as the code
    imports it (`xgb.DMatrix`, or `DMatrix` imported by name)."""
    found = EXPECTING_TYPE.search(message_text(diagnosis))
    if not found:
        return None
    wanted = found.group(1)
    tree = ast.parse(code)
    spelled = None
    for local, target in imported_names(tree).items():
        module, _, attr = target.partition(":")
        if attr == wanted:
            spelled = local
        elif not attr and getattr(live.library_module(module), wanted, None) is not None:
            spelled = spelled or f"{local}.{wanted}"
    if spelled is None:
        return None
    edits = [(c.args[0], f"{spelled}({ast.get_source_segment(code, c.args[0])})")
             for c in calls_at_line(tree, diagnosis.line)
             if callee_name(c).startswith("predict") and c.args
             and not (isinstance(c.args[0], ast.Call) and callee_name(c.args[0]) == wanted)]
    return replace_nodes(code, edits) if edits else None


MORE_FEATURES = re.compile(r"number of features in data \((\d+)\) is not the same as it was "
                           r"in training data \((\d+)\)|X has (\d+) features, but \w+ is "
                           r"expecting (\d+) features")


def _dropped_columns(tree: ast.Module, code: str) -> list[str]:
    """The column lists the code drops from a frame to make its features
    (`df.drop(columns=["y"])`, `df.drop(["y"], axis=1)`)."""
    found = []
    for call in find_calls(tree, "drop"):
        cols = next((k.value for k in call.keywords if k.arg == "columns"), None)
        if cols is None and call.args and any(
                k.arg == "axis" and ast.unparse(k.value) in ("1", "'columns'")
                for k in call.keywords):
            cols = call.args[0]
        if cols is not None:
            found.append(ast.get_source_segment(code, cols))
    return found


def predict_without_dropped(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A prediction frame with more columns than the model was trained on, where the
    training features were made by dropping columns from a frame: the frame at the failing
    predict call gets the same drop (`test.to_numpy()` -> `test.drop(columns=[...],
    errors="ignore").to_numpy()`), when that drop accounts for the surplus."""
    found = MORE_FEATURES.search(message_text(diagnosis))
    if not found:
        return None
    got, trained = [int(g) for g in found.groups() if g is not None]
    tree = ast.parse(code)
    drops = [d for d in _dropped_columns(tree, code)
             if _width(d) in (None, got - trained)]
    if got <= trained or not drops:
        return None
    edits = []
    for call in calls_at_line(tree, diagnosis.line):
        if not (callee_name(call).startswith("predict") or callee_name(call) == "transform") \
                or not call.args:
            continue
        frame = call.args[0]
        while isinstance(frame, (ast.Call, ast.Attribute)) and not isinstance(frame, ast.Name):
            inner = frame.func.value if isinstance(frame, ast.Call) and \
                isinstance(frame.func, ast.Attribute) else getattr(frame, "value", None)
            if inner is None:
                break
            frame = inner
        if isinstance(frame, ast.Name):
            edits.append((frame, f'{frame.id}.drop(columns={drops[0]}, errors="ignore")'))
    return replace_nodes(code, edits[:1]) if edits else None


def _width(columns: str) -> int | None:
    """How many columns a literal list drops (None when it is not a literal)."""
    try:
        value = ast.literal_eval(columns)
    except ValueError:
        return None
    return 1 if isinstance(value, str) else len(value)
