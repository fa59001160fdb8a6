"""What people call the model families: one table from a word or alias to the family
records' names (agents/families/). The task-text reader (pipesmith/chat/task_text.py) reads
restrictions ("only tree models") and exclusions ("no random forests") with it, and the chat
finds the family a question names ("why didn't you try logistic regression?").

Words are matched lower-case with spaces for "_" and "-", whole words, plural "s" allowed
("forests", "NNs"); the longest word wins, so "random forest" is not also "forest".
Group words ("tree", "boosting") name several families; a family a task does not have is
ignored downstream (the planner plans only the task's own).
"""

from __future__ import annotations

NEURAL = ("torch_mlp", "torch_mlp_wide", "keras_mlp", "keras_mlp_wide")
BOOSTING = ("hist_gradient_boosting", "lightgbm", "xgboost", "catboost")
TREES = ("hist_gradient_boosting", "random_forest", "extra_trees", "lightgbm", "xgboost",
         "catboost")

FAMILY_WORDS: dict[str, tuple[str, ...]] = {
    # groups
    "tree": TREES, "tree based": TREES, "decision tree": TREES,
    "boosting": BOOSTING, "boosted": BOOSTING, "gradient boosted trees": BOOSTING,
    "forest": ("random_forest", "extra_trees"),
    "linear": ("logistic_regression", "ridge"),
    "neural": NEURAL, "neural net": NEURAL, "neural network": NEURAL, "nn": NEURAL,
    "deep learning": NEURAL, "mlp": NEURAL, "perceptron": NEURAL,
    "kernel": ("svc", "svr"), "svm": ("svc", "svr"), "support vector": ("svc", "svr"),
    # one family, by its own name and common aliases
    "hist gradient boosting": ("hist_gradient_boosting",),
    "histgradientboosting": ("hist_gradient_boosting",), "hgb": ("hist_gradient_boosting",),
    "gbm": ("hist_gradient_boosting",), "gbdt": ("hist_gradient_boosting",),
    "random forest": ("random_forest",), "rf": ("random_forest",),
    "randomforest": ("random_forest",),
    "extra trees": ("extra_trees",), "extra tree": ("extra_trees",),
    "extratrees": ("extra_trees",), "xt": ("extra_trees",),
    "xgboost": ("xgboost",), "xgb": ("xgboost",),
    "lightgbm": ("lightgbm",), "lgbm": ("lightgbm",), "light gbm": ("lightgbm",),
    "lightgbmclassifier": ("lightgbm",), "lightgbmregressor": ("lightgbm",),
    "catboost": ("catboost",), "cat boost": ("catboost",),
    "logistic": ("logistic_regression",), "logistic regression": ("logistic_regression",),
    "logreg": ("logistic_regression",),
    "ridge": ("ridge",), "ridge regression": ("ridge",),
    "svc": ("svc",), "svr": ("svr",),
    "knn": ("knn",), "k nn": ("knn",), "nearest neighbor": ("knn",),
    "nearest neighbour": ("knn",), "neighbour": ("knn",), "neighbor": ("knn",),
    "k nearest neighbors": ("knn",), "kneighbors": ("knn",),
    "torch mlp": ("torch_mlp",), "keras mlp": ("keras_mlp",),
    "kmeans": ("kmeans",), "k means": ("kmeans",),
    "gaussian mixture": ("gaussian_mixture",), "mixture": ("gaussian_mixture",),
    "gmm": ("gaussian_mixture",),
    "agglomerative": ("agglomerative",), "hierarchical": ("agglomerative",),
}
