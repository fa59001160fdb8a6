"""SHAP contributions of the refit pipeline, made inside the refit job, checked outside.

When job.json asks (`contributions`: the final step's class name -> method, from the
family records' `contributions`), the refit job computes per-row contributions of a seeded
sample of the test features with the model library's own exact method (no shap package):
LightGBM `pred_contrib`, XGBoost `pred_contribs`, CatBoost `ShapValues`, and for linear
models coef * (x - mean of the training features) after the pipeline's preprocessing. It
writes `contributions.npz`: `rows` (positions in predict.parquet), `contrib` (rows x
outputs x (features + 1), the last column the base value), `margin` (rows x outputs: the
model's raw output), `owners` (each transformed feature's input column index, -1 when the
preprocessing does not say) and `names` (the transformed features' names). No label is
here; the referee checks it all outside (pipesmith/core/contributions.py). A final step
without a method writes nothing: its family has no SHAP, only permutation importance.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

CONTRIBUTIONS_FILE = "contributions.npz"
PROBE_ROWS = 50  # timed first, to size the sample to the time allowance


def _transform(pre, frame: pd.DataFrame):
    return pre.transform(frame) if pre is not None else frame


def final_and_preprocess(estimator) -> tuple[object, object | None]:
    """(the step that predicts, the fitted steps before it or None)."""
    steps = getattr(estimator, "steps", None)
    if not steps:
        return estimator, None
    return steps[-1][1], (estimator[:-1] if len(steps) > 1 else None)


def _lightgbm(model, Xt, Xt_train) -> tuple[np.ndarray, np.ndarray]:
    return (np.asarray(model.predict(Xt, pred_contrib=True), dtype=float),
            np.asarray(model.predict(Xt, raw_score=True), dtype=float))


def _xgboost(model, Xt, Xt_train) -> tuple[np.ndarray, np.ndarray]:
    import xgboost

    booster = getattr(model, "model_", model).get_booster()  # pipesmith's label wrapper
    matrix = xgboost.DMatrix(Xt)
    return (np.asarray(booster.predict(matrix, pred_contribs=True), dtype=float),
            np.asarray(booster.predict(matrix, output_margin=True), dtype=float))


def _catboost(model, Xt, Xt_train) -> tuple[np.ndarray, np.ndarray]:
    from catboost import Pool

    inner = getattr(model, "model_", model)
    return (np.asarray(inner.get_feature_importance(Pool(Xt), type="ShapValues"), dtype=float),
            np.asarray(inner.predict(Xt, prediction_type="RawFormulaVal"), dtype=float))


def _linear(model, Xt, Xt_train) -> tuple[np.ndarray, np.ndarray]:
    """Exact for a linear margin with independent features: coef * (x - training mean)."""
    x = _dense(Xt)
    mean = _dense(Xt_train).mean(axis=0)
    coef = np.atleast_2d(np.asarray(model.coef_, dtype=float))  # outputs x features
    base = np.atleast_1d(np.asarray(model.intercept_, dtype=float)) + coef @ mean
    parts = coef[None, :, :] * (x - mean)[:, None, :]
    contrib = np.concatenate([parts, np.broadcast_to(base[None, :, None],
                                                     (len(x), len(base), 1))], axis=2)
    margin = model.decision_function(Xt) if hasattr(model, "decision_function") and \
        hasattr(model, "classes_") else model.predict(Xt)
    return contrib, np.asarray(margin, dtype=float)


METHODS = {"lightgbm": _lightgbm, "xgboost": _xgboost, "catboost": _catboost,
           "linear": _linear}


def _dense(X) -> np.ndarray:
    X = X.toarray() if hasattr(X, "toarray") else X
    return np.asarray(X, dtype=float)


def _shape(contrib: np.ndarray, margin: np.ndarray, n: int, p: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """Every library's layout as rows x outputs x (features + 1) and rows x outputs."""
    if contrib.ndim == 2 and contrib.shape[1] != p + 1:  # LightGBM multiclass: classes side by side
        contrib = contrib.reshape(n, -1, p + 1)
    if contrib.ndim == 2:
        contrib = contrib[:, None, :]
    margin = margin.reshape(n, -1)
    return contrib, margin


def output_owners(pre, columns: list[str], width: int) -> np.ndarray:
    """Each transformed feature's input column (index into `columns`), -1 where unknown:
    read from a ColumnTransformer's blocks (one output per input, one input expanded, or a
    one-hot encoder's outputs per input); without preprocessing, the inputs themselves."""
    owners = np.full(width, -1, dtype=np.int64)
    if pre is None:
        return np.arange(width) if width == len(columns) else owners
    steps = getattr(pre, "steps", [(None, pre)])
    if len(steps) != 1 or not hasattr(steps[0][1], "output_indices_"):
        return owners  # steps after the column transformer may mix its outputs
    ct = steps[0][1]
    for name, transformer, cols in ct.transformers_:
        block = ct.output_indices_.get(name)
        if block is None or block.stop <= block.start or isinstance(transformer, str) \
                and transformer == "drop":
            continue
        index = _indices(cols, columns)
        n_out = block.stop - block.start
        if index is None:
            continue
        if n_out == len(index):
            owners[block] = index
        elif len(index) == 1:
            owners[block] = index[0]
        else:
            last = transformer.steps[-1][1] if hasattr(transformer, "steps") else transformer
            counts = getattr(last, "_n_features_outs", None)  # OneHotEncoder's, per input
            if counts is not None and sum(counts) == n_out:
                owners[block] = np.repeat(index, counts)
    return owners


def _indices(cols, columns: list[str]) -> list[int] | None:
    cols = list(cols) if not isinstance(cols, str) else [cols]
    if all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in cols):
        return [int(c) for c in cols]
    if all(isinstance(c, (bool, np.bool_)) for c in cols):
        return [i for i, keep in enumerate(cols) if keep]
    try:
        return [columns.index(str(c)) for c in cols]
    except ValueError:
        return None


def contributions(estimator, X_train: pd.DataFrame, X: pd.DataFrame, spec: dict
                  ) -> tuple[dict | None, dict]:
    """The arrays for contributions.npz (None: the final step has no method) and a note
    for diagnostics.json."""
    from pipesmith.sandbox.permutation import sample_rows

    started = time.perf_counter()
    final, pre = final_and_preprocess(estimator)
    name = type(final).__name__
    method = spec["methods"].get(name)
    if method not in METHODS:
        return None, {"method": None, "estimator": name}
    Xt_train = None
    if method == "linear":
        Xt_train = pre.transform(X_train) if pre is not None else X_train
    # a probe on a few rows sizes the sample to the time allowance: the refit must not time
    # out for its explanation
    probe = sample_rows(len(X), PROBE_ROWS, int(spec["seed"]))
    probe_started = time.perf_counter()
    METHODS[method](final, _transform(pre, X.iloc[probe]), Xt_train)
    per_row = (time.perf_counter() - probe_started) / len(probe)
    allowed = int(max(0.0, float(spec.get("max_s", 60.0)) - (time.perf_counter() - started))
                  / max(per_row, 1e-9))
    rows = sample_rows(len(X), max(len(probe), min(int(spec["rows"]), allowed)),
                       int(spec["seed"]))
    Xt = _transform(pre, X.iloc[rows].reset_index(drop=True))
    width = np.shape(Xt)[1]
    contrib, margin = _shape(*METHODS[method](final, Xt, Xt_train), len(rows), width)
    try:
        names = [str(n) for n in pre.get_feature_names_out()] if pre is not None \
            else [str(c) for c in X.columns]
    except Exception:  # a step without feature names: positions stand in
        names = [f"x{i}" for i in range(width)]
    if len(names) != width:
        names = [f"x{i}" for i in range(width)]
    arrays = {"rows": rows, "contrib": contrib, "margin": margin,
              "owners": output_owners(pre, [str(c) for c in X.columns], width),
              "names": np.asarray(names, dtype=str)}
    return arrays, {"method": method, "estimator": name,
                    "seconds": round(time.perf_counter() - started, 3)}
