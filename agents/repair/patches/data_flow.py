"""Repairs of data-flow failures: columns, NaN, text features, unseen categories, leaks."""

from __future__ import annotations

import ast
import difflib
import re

from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    callee_name,
    find_calls,
    insert_after_imports,
    message_text,
    quote,
    replace_nodes,
    wrap_returns,
)
from pipesmith.agents.schemas import Diagnosis

# --- data flow ---------------------------------------------------------------------------------


def fix_columns(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Point misspelled column names at the closest real column; drop names with none."""
    quoted = set(re.findall(r"'([^']+)'", message_text(diagnosis)))
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
    return replace_nodes(code, edits) if edits else None


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


def add_imputation(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    if "_pipesmith_guard(" in code:
        return None
    return wrap_returns(code, "_pipesmith_guard", _GUARD_HELPER)


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


def encode_categoricals(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    if "_pipesmith_encode(" in code:
        return None
    return wrap_returns(code, "_pipesmith_encode", _ENCODE_HELPER)


def handle_unknown_categories(code: str, diagnosis: Diagnosis,
                              ctx: RepairContext) -> str | None:
    tree = ast.parse(code)
    edits = []
    for call in find_calls(tree, "OneHotEncoder") + find_calls(tree, "OrdinalEncoder"):
        if callee_name(call) == "OneHotEncoder":
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
    return replace_nodes(code, edits) if edits else None


_DROP_HELPER = '''
def _pipesmith_drop(estimator, columns):
    """Added by pipesmith's repair: drop columns suspected of leaking the target."""
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline

    drop = ColumnTransformer([("leaky", "drop", columns)], remainder="passthrough",
                             verbose_feature_names_out=False).set_output(transform="pandas")
    return Pipeline([("pipesmith_drop", drop), ("estimator", estimator)])
'''


def drop_leaky_columns(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    if not ctx.leaky_columns or "_pipesmith_drop(" in code:
        return None
    return wrap_returns(code, "_pipesmith_drop", _DROP_HELPER, repr(ctx.leaky_columns))


# --- manual encoding, splits and metrics (mostly in plain training scripts) ----------------


def _dummies_assignments(tree: ast.Module) -> list[ast.Assign]:
    """`name = pd.get_dummies(...)` statements, in the order they appear."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Call)
            and callee_name(n.value) == "get_dummies"]


def align_features(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Frames one-hot encoded separately (train, then test) get the first one's columns:
    `X_test = X_test.reindex(columns=X_train.columns, fill_value=0)` after each later
    encoding. The model and the data stay as the author wrote them."""
    tree = ast.parse(code)
    encoded = _dummies_assignments(tree)
    if len(encoded) < 2:
        return None
    first = encoded[0].targets[0].id
    lines = code.splitlines(keepends=True)
    for node in reversed(encoded[1:]):
        name = node.targets[0].id
        if name == first:
            continue
        indent = lines[node.lineno - 1][: node.col_offset]
        line = f"{indent}{name} = {name}.reindex(columns={first}.columns, fill_value=0)\n"
        if node.end_lineno < len(lines) and lines[node.end_lineno].strip() == line.strip():
            continue
        if not lines[node.end_lineno - 1].endswith("\n"):
            lines[node.end_lineno - 1] += "\n"
        lines.insert(node.end_lineno, line)
    new = "".join(lines)
    return new if new != code else None


def relax_split(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A class too small to stratify: the split stays, unstratified (`stratify=None`), and
    stratified folds ask for no more folds than the smallest class allows (at most 2)."""
    tree = ast.parse(code)
    edits = [(kw.value, "None") for call in find_calls(tree) for kw in call.keywords
             if kw.arg == "stratify" and ast.unparse(kw.value) != "None"]
    if edits:
        return replace_nodes(code, edits)
    splitters = [c for c in find_calls(tree) if callee_name(c) in STRATIFIED]
    if splitters:  # StratifiedShuffleSplit(...) -> ShuffleSplit(...), same arguments
        names = {STRATIFIED[callee_name(c)] for c in splitters}
        code = replace_nodes(code, [(c.func, ast.get_source_segment(code, c.func).replace(
            callee_name(c), STRATIFIED[callee_name(c)])) for c in splitters])
        return "".join(f"from sklearn.model_selection import {n}\n" for n in sorted(names)) \
            + code
    edits = [(kw.value, "2") for call in find_calls(tree) for kw in call.keywords
             if kw.arg in ("n_splits", "cv") and isinstance(kw.value, ast.Constant)
             and isinstance(kw.value.value, int) and kw.value.value > 2]
    return replace_nodes(code, edits) if edits else None


STRATIFIED = {"StratifiedShuffleSplit": "ShuffleSplit", "StratifiedKFold": "KFold",
              "RepeatedStratifiedKFold": "RepeatedKFold"}


PROBABILITY_METRICS = ("roc_auc_score", "log_loss", "average_precision_score",
                       "brier_score_loss", "top_k_accuracy_score")
_SCORES_HELPER = '''
def _pipesmith_scores(model, X):
    """Added by pipesmith's repair: class probabilities, as the metric needs them (the
    positive class's column for a binary task)."""
    proba = model.predict_proba(X)
    return proba[:, 1] if proba.shape[1] == 2 else proba
'''


def use_probabilities(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A metric that needs scores was given `model.predict(X)`: give it the probabilities
    (`_pipesmith_scores(model, X)`), and `multi_class="ovr"` to roc_auc_score (also where
    it was given a probability matrix already: "multi_class must be in ('ovo', 'ovr')")."""
    message = message_text(diagnosis) if diagnosis else ""
    tree = ast.parse(code)
    edits = []
    for call in [c for name in PROBABILITY_METRICS for c in find_calls(tree, name)]:
        predicts = [a for a in call.args if isinstance(a, ast.Call)
                    and isinstance(a.func, ast.Attribute) and a.func.attr == "predict"]
        needs_ovr = callee_name(call) == "roc_auc_score" and "multi_class" in message and \
            not any(kw.arg == "multi_class" for kw in call.keywords)
        if not (predicts or needs_ovr):
            continue
        args = []
        for arg in call.args:
            text = ast.get_source_segment(code, arg)
            if arg in predicts:
                model = ast.get_source_segment(code, arg.func.value)
                text = f"_pipesmith_scores({model}, " \
                       f"{', '.join(ast.get_source_segment(code, a) for a in arg.args)})"
            args.append(text)
        args += [ast.get_source_segment(code, kw) for kw in call.keywords]
        if callee_name(call) == "roc_auc_score" and \
                not any(kw.arg == "multi_class" for kw in call.keywords):
            q = quote(code, tree, call)
            args.append(f"multi_class={q}ovr{q}")
        edits.append((call, f"{ast.get_source_segment(code, call.func)}({', '.join(args)})"))
    if not edits:
        return None
    code = replace_nodes(code, edits)
    if "_pipesmith_scores(" in code and "def _pipesmith_scores(" not in code:
        code = insert_after_imports(code, _SCORES_HELPER)
    return code


def densify(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A dense-only model behind a one-hot encoder: the encoder outputs dense arrays."""
    tree = ast.parse(code)
    edits = []
    for call in find_calls(tree, "OneHotEncoder"):
        current = [kw for kw in call.keywords if kw.arg in ("sparse_output", "sparse")]
        if current and ast.unparse(current[0].value) == "False":
            continue
        if current:
            edits.append((current[0], "sparse_output=False"))
        else:
            inner = ast.get_source_segment(code, call)
            edits.append((call, inner[:-1] + (", " if call.args or call.keywords else "")
                          + "sparse_output=False)"))
    return replace_nodes(code, edits) if edits else None


# --- labels and missing categories the boosting libraries refuse -----------------------------

_LABELS_HELPER = '''
from sklearn.base import BaseEstimator as _PipesmithBase
from sklearn.base import ClassifierMixin as _PipesmithClassifier


class PipesmithLabelEncoded(_PipesmithClassifier, _PipesmithBase):
    """Added by pipesmith's repair: the estimator is fitted on the labels encoded as
    0..k-1 (XGBoost takes no others) and predicts the original labels."""

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y, **fit_params):
        from sklearn.base import clone
        from sklearn.preprocessing import LabelEncoder

        self.encoder_ = LabelEncoder().fit(y)
        self.classes_ = self.encoder_.classes_
        self.estimator_ = clone(self.estimator).fit(X, self.encoder_.transform(y),
                                                    **fit_params)
        return self

    def predict(self, X):
        import numpy as np

        codes = np.asarray(self.estimator_.predict(X)).ravel().astype(int)
        return self.encoder_.inverse_transform(codes)

    def predict_proba(self, X):
        return self.estimator_.predict_proba(X)


def _pipesmith_encode_labels(estimator):
    return PipesmithLabelEncoded(estimator)
'''


def encode_labels(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Labels the classifier refuses (XGBoost: "Invalid classes inferred", it wants 0..k-1):
    encode them with a LabelEncoder before fit and decode the predictions."""
    if "_pipesmith_encode_labels(" in code:
        return None
    return wrap_returns(code, "_pipesmith_encode_labels", _LABELS_HELPER)


_TEXT_NAN_HELPER = '''
def _pipesmith_text_nan(estimator):
    """Added by pipesmith's repair: categorical features as CatBoost asks for them ("NaN
    values should be converted to string", "real number values ... converted to string"):
    the columns named in cat_features (fit or constructor) and every text column become
    strings, missing ones "nan", before each fit and predict. A wrapper, not a Pipeline, so
    fit keywords such as cat_features and eval_set still reach the estimator."""
    return _PipesmithTextCategories(estimator)


class _PipesmithTextCategories:
    _X_METHODS = ("predict", "predict_proba", "predict_log_proba", "decision_function",
                  "score", "transform", "staged_predict", "staged_predict_proba")

    def __init__(self, estimator):
        self.estimator = estimator
        self.cat_features_ = None

    def get_params(self, deep=True):
        return {"estimator": self.estimator}

    def set_params(self, **params):
        self.estimator = params.get("estimator", self.estimator)
        return self

    def __sklearn_tags__(self):
        return self.estimator.__sklearn_tags__()

    def _text(self, X):
        import pandas as pd

        if not isinstance(X, pd.DataFrame):
            return X
        named = set(self.cat_features_ or ())
        X = X.copy()
        for i, column in enumerate(X.columns):
            values = X[column]
            numeric = pd.api.types.is_numeric_dtype(values) or \
                pd.api.types.is_bool_dtype(values)
            if column in named or i in named or not numeric:
                X[column] = values.astype(object).where(values.notna(), "nan").astype(str)
        return X

    def fit(self, X, y=None, **kwargs):
        params = self.estimator.get_params() if hasattr(self.estimator, "get_params") else {}
        self.cat_features_ = kwargs.get("cat_features") or params.get("cat_features")
        if "eval_set" in kwargs and kwargs["eval_set"] is not None:
            kwargs["eval_set"] = [(self._text(a), b) for a, b in kwargs["eval_set"]]
        self.estimator.fit(self._text(X), y, **kwargs)
        return self

    def __getattr__(self, name):
        if name.startswith("__") or name in ("estimator", "cat_features_"):
            raise AttributeError(name)
        found = getattr(self.estimator, name)
        if name in self._X_METHODS and callable(found):
            import functools

            @functools.wraps(found)  # scorers look the method up by its name
            def method(X, *args, **kwargs):
                return found(self._text(X), *args, **kwargs)
            return method
        return found
'''


def fill_missing_categories(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """NaN in categorical features, which CatBoost refuses: fill them with the string "nan"
    in front of the estimator (numeric NaN is left to the model or add_imputation)."""
    if "_pipesmith_text_nan(" in code:
        return None
    return wrap_returns(code, "_pipesmith_text_nan", _TEXT_NAN_HELPER)
