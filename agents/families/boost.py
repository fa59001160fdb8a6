"""LightGBM, XGBoost and CatBoost (the `boost` extra) with good defaults (the portfolio's
first guesses), and per learner its search space, cost and fit-time figure.

XGBoost's classifier wants classes 0..k-1 and CatBoost's predicts a column, so their
classifiers are small wrappers from `pipesmith.estimators` (pickled by reference).
"""

from __future__ import annotations

from typing import Any

from pipesmith.agents.families.family import Family, with_traits

# Per learner, measured as the scikit-learn ones (agents/families/scikit_learn.py).
TRAITS: dict[str, dict[str, Any]] = {
    "lightgbm": {
        "space": {
            "n_estimators": ("int", 50, 800, True),
            "learning_rate": ("float", 0.01, 0.3, True),
            "num_leaves": ("int", 7, 127, True),
            "min_child_samples": ("int", 5, 100, True),
            "subsample": ("float", 0.5, 1.0, False),
            "colsample_bytree": ("float", 0.4, 1.0, False),
            "reg_lambda": ("float", 1e-3, 10.0, True),
        },
        "cost": 1.0, "fit_seconds_per_mcell": 0.4, "boosting": True,
        "contributions": "lightgbm"},  # predict(..., pred_contrib=True)
    "xgboost": {
        "space": {
            "n_estimators": ("int", 50, 800, True),
            "learning_rate": ("float", 0.01, 0.3, True),
            "max_depth": ("int", 2, 10, False),
            "min_child_weight": ("float", 0.5, 20.0, True),
            "subsample": ("float", 0.5, 1.0, False),
            "colsample_bytree": ("float", 0.4, 1.0, False),
            "reg_lambda": ("float", 1e-3, 10.0, True),
        },
        "cost": 1.5, "fit_seconds_per_mcell": 0.6, "boosting": True,
        "contributions": "xgboost"},  # booster.predict(DMatrix, pred_contribs=True)
    "catboost": {
        "space": {
            "iterations": ("int", 100, 1000, True),
            "learning_rate": ("float", 0.02, 0.3, True),
            "depth": ("int", 3, 8, False),
            "l2_leaf_reg": ("float", 0.5, 20.0, True),
        },
        "cost": 4.0, "fit_seconds_per_mcell": 1.0, "boosting": True,
        "contributions": "catboost"},  # get_feature_importance(type="ShapValues")
}


def _rows() -> tuple[Family, ...]:
    rows = []
    for task, kind in (("classification", "Classifier"), ("regression", "Regressor")):
        classify = kind == "Classifier"
        rows += [
            Family("lightgbm", task, "lightgbm", f"LGBM{kind}",
                   {"n_estimators": 300, "learning_rate": 0.05, "num_leaves": 31,
                    "subsample": 0.8, "subsample_freq": 1, "colsample_bytree": 0.8,
                    "verbose": -1},
                   {"n_estimators": 100, "num_leaves": 15, "verbose": -1}, parallel=True,
                   requires="lightgbm",
                   balance={"class_weight": "balanced"} if classify else {}),
            Family("xgboost", task, "pipesmith.estimators" if classify else "xgboost",
                   "XGBLabelClassifier" if classify else "XGBRegressor",
                   {"n_estimators": 300, "learning_rate": 0.05, "max_depth": 6,
                    "subsample": 0.8, "colsample_bytree": 0.8, "tree_method": "hist"},
                   {"n_estimators": 100, "max_depth": 4, "tree_method": "hist"},
                   parallel=True, requires="xgboost",
                   wraps="XGBClassifier" if classify else None),
            Family("catboost", task, "pipesmith.estimators" if classify else "catboost",
                   "CatBoostLabelClassifier" if classify else "CatBoostRegressor",
                   {"iterations": 500, "learning_rate": 0.08, "depth": 6, "verbose": 0,
                    "allow_writing_files": False},
                   {"iterations": 100, "depth": 4, "verbose": 0, "allow_writing_files": False},
                   parallel=True, threads="thread_count", requires="catboost",
                   wraps="CatBoostClassifier" if classify else None),
        ]
    return tuple(rows)


FAMILIES: tuple[Family, ...] = with_traits(_rows(), TRAITS)
