"""Search spaces per model family, as data: what Optuna may vary, and in which range.

A range is (kind, low, high, log) with kind "int" or "float", or ("cat", choices). Only
keywords the family's estimator takes are listed, never n_jobs or random_state (the
candidate's code passes those from the task). `COST` orders the families cheap first,
like FLAML: the search tries cheap learners before expensive ones earn their cost.
"""

from __future__ import annotations

from typing import Any

Range = tuple

SPACES: dict[str, dict[str, Range]] = {
    "hist_gradient_boosting": {
        "learning_rate": ("float", 0.01, 0.3, True),
        "max_iter": ("int", 50, 500, True),
        "max_leaf_nodes": ("int", 7, 127, True),
        "min_samples_leaf": ("int", 5, 100, True),
        "l2_regularization": ("float", 1e-6, 10.0, True),
    },
    "lightgbm": {
        "n_estimators": ("int", 50, 800, True),
        "learning_rate": ("float", 0.01, 0.3, True),
        "num_leaves": ("int", 7, 127, True),
        "min_child_samples": ("int", 5, 100, True),
        "subsample": ("float", 0.5, 1.0, False),
        "colsample_bytree": ("float", 0.4, 1.0, False),
        "reg_lambda": ("float", 1e-3, 10.0, True),
    },
    "xgboost": {
        "n_estimators": ("int", 50, 800, True),
        "learning_rate": ("float", 0.01, 0.3, True),
        "max_depth": ("int", 2, 10, False),
        "min_child_weight": ("float", 0.5, 20.0, True),
        "subsample": ("float", 0.5, 1.0, False),
        "colsample_bytree": ("float", 0.4, 1.0, False),
        "reg_lambda": ("float", 1e-3, 10.0, True),
    },
    "catboost": {
        "iterations": ("int", 100, 1000, True),
        "learning_rate": ("float", 0.02, 0.3, True),
        "depth": ("int", 3, 8, False),
        "l2_leaf_reg": ("float", 0.5, 20.0, True),
    },
    "random_forest": {
        "n_estimators": ("int", 50, 400, True),
        "max_features": ("float", 0.2, 1.0, False),
        "min_samples_leaf": ("int", 1, 20, True),
    },
    "extra_trees": {
        "n_estimators": ("int", 50, 400, True),
        "max_features": ("float", 0.2, 1.0, False),
        "min_samples_leaf": ("int", 1, 20, True),
    },
    "logistic_regression": {"C": ("float", 1e-3, 100.0, True)},
    "ridge": {"alpha": ("float", 1e-3, 100.0, True)},
}
# Relative cost of one fit with default-sized parameters (measured roughly here: fit
# seconds on 5k rows x 20 features, rounded); cheap first.
COST = {"ridge": 0.1, "logistic_regression": 0.3, "hist_gradient_boosting": 1.0,
        "lightgbm": 1.0, "xgboost": 1.5, "extra_trees": 2.0, "random_forest": 3.0,
        "catboost": 4.0}


def searchable(families: list[str], spaces: dict | None = None) -> list[str]:
    """The families that have a space, cheapest first."""
    spaces = SPACES if spaces is None else spaces
    return sorted((f for f in families if spaces.get(f)), key=lambda f: COST.get(f, 5.0))


def default_plan(families: list[str]):
    """The offline search plan: the default spaces of the families that have one."""
    from pipesmith.agents.schemas import SearchPlan

    names = searchable(families)
    return SearchPlan(families=names, spaces={f: dict(SPACES[f]) for f in names})


def suggest(trial, family: str, spaces: dict | None = None) -> dict[str, Any]:
    """Hyperparameters for `family` from an Optuna trial (names prefixed by the family, so
    TPE keeps one model per family's parameters)."""
    params: dict[str, Any] = {}
    for name, spec in (SPACES if spaces is None else spaces)[family].items():
        key = f"{family}.{name}"
        if spec[0] == "int":
            params[name] = trial.suggest_int(key, spec[1], spec[2], log=spec[3])
        elif spec[0] == "float":
            params[name] = trial.suggest_float(key, spec[1], spec[2], log=spec[3])
        else:
            params[name] = trial.suggest_categorical(key, list(spec[1]))
    return params


def as_distributions(family: str, params: dict[str, Any],
                     spaces: dict | None = None) -> dict[str, Any]:
    """The trial parameters Optuna needs to enqueue a known configuration."""
    space = (SPACES if spaces is None else spaces).get(family, {})
    return {"family": family, **{f"{family}.{k}": v for k, v in params.items()
                                 if k in space}}
