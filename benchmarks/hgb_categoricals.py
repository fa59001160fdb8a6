"""HistGradientBoosting with the offline coder's preprocessing: categorical columns split
as categories (native) vs as their ordinal codes, by 5-fold CV on every suite dataset with
categorical columns (outside the sandbox: only the estimators are compared).

    OMP_NUM_THREADS=1 python benchmarks/hgb_categoricals.py
"""

from __future__ import annotations

import time
import warnings

import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.impute import SimpleImputer
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OrdinalEncoder

from pipesmith.evals.suite import SPECS, load

MAX_LEVELS = 250  # as the coder: more levels stay ordinal codes


def pipeline(task: str, numeric: list, categorical: list, native: bool) -> Pipeline:
    encoder = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1,
                             encoded_missing_value=-1)
    columns = ColumnTransformer([
        ("numeric", SimpleImputer(strategy="median"), numeric),
        ("categorical", make_pipeline(SimpleImputer(strategy="most_frequent"), encoder),
         categorical)])
    kwargs = {"max_iter": 200, "learning_rate": 0.1, "random_state": 0}
    if native and categorical:
        kwargs["categorical_features"] = list(range(len(numeric),
                                                    len(numeric) + len(categorical)))
    model = (HistGradientBoostingClassifier if task == "classification"
             else HistGradientBoostingRegressor)(**kwargs)
    return Pipeline([("preprocess", columns), ("model", model)])


def main() -> None:
    warnings.filterwarnings("ignore")
    for spec in SPECS:
        if "categorical" not in spec.traits or spec.task == "clustering":
            continue
        frame = load(spec).drop(columns=list(spec.drop), errors="ignore")
        frame = frame.dropna(subset=[spec.target])
        y, X = frame[spec.target], frame.drop(columns=[spec.target])
        numeric = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])]
        categorical = [c for c in X.columns
                       if c not in numeric and X[c].nunique() <= MAX_LEVELS]
        cv = (StratifiedKFold if spec.task == "classification" else KFold)(
            5, shuffle=True, random_state=0)
        scores = {}
        for native in (False, True):
            started = time.perf_counter()
            folds = cross_val_score(pipeline(spec.task, numeric, categorical, native), X, y,
                                    cv=cv, scoring=spec.metric, n_jobs=1)
            scores[native] = (folds.mean(), folds.std(), time.perf_counter() - started)
        (o, o_sd, o_s), (n, n_sd, n_s) = scores[False], scores[True]
        print(f"{spec.name:14s} rows={len(frame):6d} categorical={len(categorical):3d} "
              f"{spec.metric:18s} ordinal={o:.4f}±{o_sd:.3f} ({o_s:.1f}s) "
              f"native={n:.4f}±{n_sd:.3f} ({n_s:.1f}s) diff={n - o:+.4f}", flush=True)


if __name__ == "__main__":
    main()
