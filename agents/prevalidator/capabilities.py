"""Static checks of the estimators' capabilities against the data: NaN, text, sparse input.

A model that refuses missing values, given a table with missing values and nothing in the
code that imputes or drops them, will fail; so will a numeric-only model given text columns
that nothing encodes, and a dense-only model behind a one-hot encoder that outputs sparse
matrices. What a model accepts is read from the installed scikit-learn's own estimator tags
(`__sklearn_tags__().input_tags`), not from a list. The checks stay silent whenever the code
might handle the concern (any imputer, encoder, column selection, ...): no false alarms on
working code matters more than catching every case.
"""

from __future__ import annotations

import ast
import functools

from pipesmith.agents.prevalidator.static_checks import imported_names, resolve, walk
from pipesmith.agents.schemas import DataProfile, Issue

IMPUTES = ("SimpleImputer", "IterativeImputer", "KNNImputer", "fillna", "dropna",
           "nan_to_num", "interpolate", "ffill", "bfill", "_pipesmith_guard", "notna", "notnull",
           "isna", "isnull", "isnan", "nanmedian", "nanmean", "where", "mask", "query")
ENCODES = ("OneHotEncoder", "OrdinalEncoder", "TargetEncoder", "LabelEncoder", "get_dummies",
           "factorize", "DictVectorizer", "CountVectorizer", "TfidfVectorizer",
           "HashingVectorizer", "make_column_selector", "select_dtypes", "astype", "map",
           "replace", "_pipesmith_encode")
SELECTS = ("ColumnTransformer", "make_column_transformer", "drop", "select_dtypes", "filter",
           "iloc", "loc")


@functools.lru_cache(maxsize=256)
def input_tags(cls) -> object | None:
    """The installed estimator's input tags, or None when it cannot tell."""
    try:
        return cls().__sklearn_tags__().input_tags
    except Exception:  # not a scikit-learn estimator, or it needs arguments
        return None


def _names_used(tree: ast.AST) -> set[str]:
    names = set()
    for node in walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
    return names


def _predictors(tree: ast.AST) -> list[tuple[ast.Call, str, object]]:
    """Constructor calls of installed scikit-learn models (they predict), with their tags."""
    names = imported_names(tree)
    found = []
    for call in [n for n in walk(tree) if isinstance(n, ast.Call)]:
        target = resolve(call.func, names)
        if not isinstance(target, type) or not target.__module__.startswith("sklearn"):
            continue
        if not hasattr(target, "predict") or hasattr(target, "transform"):
            continue
        tags = input_tags(target)
        if tags is not None:
            found.append((call, target.__name__, tags))
    return found


def _subscript_selections(tree: ast.AST) -> set[str] | None:
    """Columns picked by `df[["a", "b"]]` or `df[features]` with `features` a literal list;
    None when a subscript picks columns the checks cannot read (`df[[c for c in ...]]`)."""
    lists: dict[str, object] = {}
    for node in walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    lists[target.id] = _strings(node.value) if target.id not in lists else None
    picked: set[str] = set()
    for node in walk(tree):
        if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load):
            continue
        index = node.slice
        if isinstance(index, ast.Name):
            index = lists.get(index.id, "ignored")
            if index == "ignored":
                continue  # a row mask or positions, most likely
            if index is None:
                return None
            picked |= index
        elif isinstance(index, (ast.List, ast.ListComp)):
            strings = _strings(index)
            if strings is None:
                return None
            picked |= strings
    return picked


def _strings(node: ast.expr) -> set[str] | None | str:
    """The strings of a literal list; "ignored" for a value that is no column list; None
    for a list built at run time."""
    if isinstance(node, (ast.List, ast.Tuple)):
        if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            return {e.value for e in node.elts}
        return None
    if isinstance(node, ast.ListComp) or "columns" in ast.unparse(node):
        return None
    return "ignored"


def _selected(tree: ast.AST, columns: list[str]) -> list[str]:
    """The data's columns the code names (all of them when it names none, or passes the
    rest through a ColumnTransformer); with subscript selections, the columns they pick."""
    if any(isinstance(n, ast.keyword) and n.arg == "remainder" and
           isinstance(n.value, ast.Constant) and n.value.value == "passthrough"
           for n in walk(tree)):
        return columns
    picked = _subscript_selections(tree)
    if picked is None:
        return []
    if picked:
        return [c for c in columns if c in picked]
    named = {n.value for n in walk(tree) if isinstance(n, ast.Constant)
             and isinstance(n.value, str) and n.value in columns}
    named -= _consumed_only(tree, named)
    return [c for c in columns if c in named] or columns


def _consumed_only(tree: ast.AST, names: set[str]) -> set[str]:
    """The names whose every use turns the column into something else at once: compared
    (`row["region"] == "north"`), type-tested (`isinstance(row["region"], str)`) or read
    through a method (`df["region"].unique()`). Features made by hand from them are
    numbers; the column itself never reaches a model."""
    parents = {id(child): node for node in walk(tree) for child in ast.iter_child_nodes(node)}
    fed: set[str] = set()
    for node in walk(tree):
        if not (isinstance(node, ast.Constant) and node.value in names):
            continue
        subscript = parents.get(id(node))
        user = parents.get(id(subscript))
        consumed = isinstance(subscript, ast.Subscript) and subscript.slice is node and (
            isinstance(user, ast.Compare | ast.Attribute) or
            isinstance(user, ast.Call) and getattr(user.func, "id", "") == "isinstance")
        if not consumed:
            fed.add(node.value)
    return names - fed


def _literal_drops(tree: ast.AST) -> set[str] | None:
    """The columns every `.drop(...)` names, when each names them literally; else None."""
    dropped: set[str] = set()
    for call in [n for n in walk(tree) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr == "drop"]:
        by_axis = any(kw.arg == "axis" and isinstance(kw.value, ast.Constant)
                      and kw.value.value in (1, "columns") for kw in call.keywords)
        values = [kw.value for kw in call.keywords if kw.arg == "columns"] + \
            (call.args[:1] if by_axis else [])
        if not values:
            return None
        try:
            for value in map(ast.literal_eval, values):
                dropped |= {value} if isinstance(value, str) else set(value)
        except (ValueError, SyntaxError, TypeError):
            return None
    return dropped


def check_capabilities(tree: ast.AST, profile: DataProfile | None) -> list[Issue]:
    if profile is None:
        return []
    predictors = _predictors(tree)
    if not predictors:
        return []
    used = _names_used(tree)
    features = {c.name: c for c in profile.columns}
    selected = [features[c] for c in _selected(tree, list(features))]
    issues = []
    missing = [c.name for c in selected if c.missing_share > 0]
    refusing = [(call, name) for call, name, tags in predictors if not tags.allow_nan]
    if missing and refusing and not used & set(IMPUTES) and len(refusing) == len(predictors):
        call, name = refusing[0]
        issues.append(Issue(
            taxonomy_class="data_flow", subclass="nan_input", line=call.lineno,
            message=f"Input X contains NaN: {name} does not accept missing values, the "
                    f"data has them in {', '.join(missing[:5])}, and nothing here imputes "
                    "or drops them"))
    dropped = _literal_drops(tree)
    selects = used & set(SELECTS) - ({"drop"} if dropped is not None else set())
    text = [c.name for c in selected if c.kind in ("categorical", "text")
            and c.name not in (dropped or set())]
    if text and not used & set(ENCODES) and not selects and \
            all(not tags.string for _, _, tags in predictors):
        call, name, _ = predictors[0]
        issues.append(Issue(
            taxonomy_class="data_flow", subclass="dtype", line=call.lineno,
            message=f"could not convert string to float: {name} needs numbers, the data has "
                    f"text in {', '.join(text[:5])}, and nothing here encodes it"))
    dense_only = [(call, name) for call, name, tags in predictors if not tags.sparse]
    inside_transformer = bool(used & {"ColumnTransformer", "make_column_transformer"})
    if dense_only and any(c.kind == "categorical" for c in selected) and \
            len(dense_only) == len(predictors) and not inside_transformer:
        encoders = [n for n in walk(tree) if isinstance(n, ast.Call)
                    and getattr(n.func, "id", getattr(n.func, "attr", "")) == "OneHotEncoder"]
        for encoder in encoders:
            dense = any(kw.arg in ("sparse_output", "sparse") and
                        isinstance(kw.value, ast.Constant) and kw.value.value is False
                        for kw in encoder.keywords)
            if not dense:
                issues.append(Issue(
                    taxonomy_class="data_flow", subclass="dtype", line=encoder.lineno,
                    message=f"Sparse data was passed, but dense data is required: "
                            f"OneHotEncoder outputs a sparse matrix and {dense_only[0][1]} "
                            "accepts dense input only"))
                break
    return issues
