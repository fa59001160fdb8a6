"""The scikit-learn families: classification and regression in default priority order,
then clustering; and per learner its search space, cost and fit-time figure."""

from __future__ import annotations

from typing import Any

from pipesmith.agents.families.family import NOT_SEARCHED, UNMEASURED, Family, with_traits

# Per learner: `cost` is fit seconds with default-sized parameters on 5k rows x 20
# features, rounded (measured roughly here); `fit_seconds_per_mcell` is seconds per million
# (rows x features) cells, measured on binary and regression tasks with 100 rounds or trees.
TRAITS: dict[str, dict[str, Any]] = {
    "hist_gradient_boosting": {
        "space": {
            "learning_rate": ("float", 0.01, 0.3, True),
            "max_iter": ("int", 50, 500, True),
            "max_leaf_nodes": ("int", 7, 127, True),
            "min_samples_leaf": ("int", 5, 100, True),
            "l2_regularization": ("float", 1e-6, 10.0, True),
        },
        "cost": 1.0, "fit_seconds_per_mcell": 0.6, "boosting": True,
        "native_categorical": True},
    "random_forest": {
        "space": {
            "n_estimators": ("int", 50, 400, True),
            "max_features": ("float", 0.2, 1.0, False),
            "min_samples_leaf": ("int", 1, 20, True),
        },
        "cost": 3.0, "fit_seconds_per_mcell": 1.2},
    "extra_trees": {
        "space": {
            "n_estimators": ("int", 50, 400, True),
            "max_features": ("float", 0.2, 1.0, False),
            "min_samples_leaf": ("int", 1, 20, True),
        },
        "cost": 2.0, "fit_seconds_per_mcell": 0.8},
    # linear models' SHAP is exact: coef * (x - mean of the training features)
    "logistic_regression": {"space": {"C": ("float", 1e-3, 100.0, True)}, "cost": 0.3,
                            "fit_seconds_per_mcell": 0.2, "contributions": "linear"},
    "ridge": {"space": {"alpha": ("float", 1e-3, 100.0, True)}, "cost": 0.1,
              "fit_seconds_per_mcell": 0.05, "contributions": "linear"},
    # no search space, and no cost measured
    "svc": {"space": NOT_SEARCHED, "cost": UNMEASURED, "fit_seconds_per_mcell": 4.0},
    "svr": {"space": NOT_SEARCHED, "cost": UNMEASURED, "fit_seconds_per_mcell": 4.0},
    "knn": {"space": NOT_SEARCHED, "cost": UNMEASURED, "fit_seconds_per_mcell": 0.3},
    "kmeans": {"space": NOT_SEARCHED, "cost": UNMEASURED, "fit_seconds_per_mcell": 0.3},
    "gaussian_mixture": {"space": NOT_SEARCHED, "cost": UNMEASURED,
                         "fit_seconds_per_mcell": 0.5},
    "agglomerative": {"space": NOT_SEARCHED, "cost": UNMEASURED, "fit_seconds_per_mcell": 3.0},
}

FAMILIES: tuple[Family, ...] = with_traits((
    # classification, in default priority order
    Family("hist_gradient_boosting", "classification", "sklearn.ensemble",
           "HistGradientBoostingClassifier", {"max_iter": 200, "learning_rate": 0.1},
           {"max_iter": 50}, balance={"class_weight": "balanced"}),
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
           {"max_iter": 50}),
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
), TRAITS)
