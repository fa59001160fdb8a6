"""Model families the offline planner and coder know, as one table.

`light` holds the parameters the shrink_model repair switches to after a
timeout or out-of-memory failure. Neural families (PyTorch, Keras on TensorFlow)
import their estimator from `pipesmith.estimators`, so a fitted model pickles it by
reference and loads wherever pipesmith is installed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Family:
    name: str
    task_type: str
    module: str
    cls: str
    params: dict[str, Any] = field(default_factory=dict)
    light: dict[str, Any] = field(default_factory=dict)
    scale: bool = False
    encoding: str = "ordinal"
    seeded: bool = True  # takes random_state
    parallel: bool = False  # takes n_jobs
    max_rows: int | None = None  # too slow above this many rows
    backend: str = "sklearn"
    requires: str | None = None  # an optional package (the `boost` extra); skipped if missing
    threads: str = "n_jobs"  # the keyword that takes the thread count, when `parallel`
    # the keywords that weight classes inversely to their frequency (for balanced metrics)
    balance: dict[str, Any] = field(default_factory=dict)
    # splits ordinal-encoded columns as categories (`categorical_features`), not as numbers
    native_categorical: bool = False


FAMILIES: tuple[Family, ...] = (
    # classification, in default priority order
    Family("hist_gradient_boosting", "classification", "sklearn.ensemble",
           "HistGradientBoostingClassifier", {"max_iter": 200, "learning_rate": 0.1},
           {"max_iter": 50}, balance={"class_weight": "balanced"}, native_categorical=True),
    Family("logistic_regression", "classification", "sklearn.linear_model", "LogisticRegression",
           {"C": 1.0, "max_iter": 2000}, {"max_iter": 300}, scale=True, encoding="onehot",
           balance={"class_weight": "balanced"}),
    Family("random_forest", "classification", "sklearn.ensemble", "RandomForestClassifier",
           {"n_estimators": 300, "min_samples_leaf": 1}, {"n_estimators": 50, "max_depth": 12},
           parallel=True, balance={"class_weight": "balanced"}),
    Family("extra_trees", "classification", "sklearn.ensemble", "ExtraTreesClassifier",
           {"n_estimators": 300}, {"n_estimators": 50, "max_depth": 12}, parallel=True,
           balance={"class_weight": "balanced"}),
    Family("svc", "classification", "sklearn.svm", "SVC", {"C": 1.0, "probability": True},
           {"C": 1.0, "probability": True, "max_iter": 2000}, scale=True, encoding="onehot",
           max_rows=5000, balance={"class_weight": "balanced"}),
    Family("knn", "classification", "sklearn.neighbors", "KNeighborsClassifier",
           {"n_neighbors": 15}, {"n_neighbors": 15, "algorithm": "ball_tree"}, scale=True,
           encoding="onehot", seeded=False, parallel=True, max_rows=20000),
    # regression
    Family("hist_gradient_boosting", "regression", "sklearn.ensemble",
           "HistGradientBoostingRegressor", {"max_iter": 200, "learning_rate": 0.1},
           {"max_iter": 50}, native_categorical=True),
    Family("ridge", "regression", "sklearn.linear_model", "Ridge", {"alpha": 1.0},
           {"alpha": 1.0}, scale=True, encoding="onehot"),
    Family("random_forest", "regression", "sklearn.ensemble", "RandomForestRegressor",
           {"n_estimators": 300, "min_samples_leaf": 2}, {"n_estimators": 50, "max_depth": 12},
           parallel=True),
    Family("extra_trees", "regression", "sklearn.ensemble", "ExtraTreesRegressor",
           {"n_estimators": 300, "min_samples_leaf": 2}, {"n_estimators": 50, "max_depth": 12},
           parallel=True),
    Family("svr", "regression", "sklearn.svm", "SVR", {"C": 1.0}, {"C": 1.0, "max_iter": 2000},
           scale=True, encoding="onehot", seeded=False, max_rows=5000),
    Family("knn", "regression", "sklearn.neighbors", "KNeighborsRegressor", {"n_neighbors": 15},
           {"n_neighbors": 15, "algorithm": "ball_tree"}, scale=True, encoding="onehot",
           seeded=False, parallel=True, max_rows=20000),
    # clustering: n_clusters / n_components come from the plan
    Family("kmeans", "clustering", "sklearn.cluster", "KMeans", {"n_init": 10},
           {"n_init": 1}, scale=True, encoding="onehot"),
    Family("gaussian_mixture", "clustering", "sklearn.mixture", "GaussianMixture",
           {"covariance_type": "full"}, {"covariance_type": "diag"}, scale=True,
           encoding="onehot"),
    Family("agglomerative", "clustering", "sklearn.cluster", "AgglomerativeClustering",
           {"linkage": "ward"}, {"linkage": "ward"}, scale=True, encoding="onehot",
           seeded=False, max_rows=10000),
)


def _boost() -> tuple[Family, ...]:
    """LightGBM, XGBoost and CatBoost with good defaults (the portfolio's first guesses).

    XGBoost's classifier wants classes 0..k-1 and CatBoost's predicts a column, so their
    classifiers are small wrappers from `pipesmith.estimators` (pickled by reference).
    """
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
                   parallel=True, requires="xgboost"),
            Family("catboost", task, "pipesmith.estimators" if classify else "catboost",
                   "CatBoostLabelClassifier" if classify else "CatBoostRegressor",
                   {"iterations": 500, "learning_rate": 0.08, "depth": 6, "verbose": 0,
                    "allow_writing_files": False},
                   {"iterations": 100, "depth": 4, "verbose": 0, "allow_writing_files": False},
                   parallel=True, threads="thread_count", requires="catboost"),
        ]
    return tuple(rows)


def _after(rows: tuple[Family, ...], anchor: str, extra: tuple[Family, ...]):
    """`rows` with each task's `extra` families inserted after its `anchor` family."""
    out: list[Family] = []
    for row in rows:
        out.append(row)
        if row.name == anchor:
            out += [f for f in extra if f.task_type == row.task_type]
    return tuple(out)


FAMILIES = _after(FAMILIES, "extra_trees", _boost())


# Metrics that weigh every class alike: a model fitted with equal class weights learns the
# majority class on imbalanced data and scores about 0.5 on them.
BALANCED_METRICS = ("balanced_accuracy", "f1_macro")


def balancing(family: Family, metric: str) -> dict[str, Any]:
    """The keywords that make `family` weigh classes alike, when the metric does."""
    return dict(family.balance) if metric in BALANCED_METRICS else {}


def installed(family: Family) -> bool:
    """Whether the family's optional package is importable (looked up, not imported)."""
    import importlib.util

    return family.requires is None or importlib.util.find_spec(family.requires) is not None


def _neural(backend: str, prefix: str):
    """The neural rows: a small and a wide MLP per task, kept to seconds on a CPU."""
    light = {"hidden": (32,), "batch_size": 64, "epochs": 30}
    small = {"hidden": (64, 32), "learning_rate": 0.001, "batch_size": 64, "epochs": 60}
    wide = {"hidden": (256, 128), "learning_rate": 0.0005, "batch_size": 64, "epochs": 60,
            "dropout": 0.2}
    name = "torch" if backend == "torch" else "keras"
    if backend == "tensorflow":  # Keras' fit() costs more per epoch on small data
        small, wide = {**small, "epochs": 40}, {**wide, "epochs": 40}
    return tuple(
        Family(f"{name}_mlp{suffix}", task, "pipesmith.estimators", f"{prefix}MLP{kind}", params,
               light, scale=True, encoding="onehot", parallel=True, backend=backend)
        for task, kind in (("classification", "Classifier"), ("regression", "Regressor"))
        for suffix, params in (("", small), ("_wide", wide))
    )


FAMILIES += _neural("torch", "Torch")
FAMILIES += _neural("tensorflow", "Keras")


def families_for(task_type: str, n_rows: int,
                 backends: tuple[str, ...] = ("sklearn",)) -> list[Family]:
    """Eligible families, by backend in the order given, then in table order."""
    return sorted((f for f in FAMILIES
                   if f.task_type == task_type and f.backend in backends and installed(f)
                   and (f.max_rows is None or n_rows <= f.max_rows)),
                  key=lambda f: backends.index(f.backend))


def backend_of(family: str) -> str:
    return next((f.backend for f in FAMILIES if f.name == family), "sklearn")


def get_family(task_type: str, name: str) -> Family:
    for family in FAMILIES:
        if family.task_type == task_type and family.name == name:
            return family
    raise KeyError(f"no {task_type} family named {name!r}")
