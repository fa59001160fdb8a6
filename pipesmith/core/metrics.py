"""Task metrics: one table, used by the harness, the ensembler and the report.

Import-light on purpose: the sandbox harness imports it in every run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

Needs = Literal["labels", "proba", "values", "clusters"]


@dataclass(frozen=True)
class Metric:
    name: str
    task_type: str
    needs: Needs
    greater_is_better: bool
    scorer: str | None = None  # scikit-learn scorer name, for cross-validation

    def from_scorer(self, value: float) -> float:
        """scikit-learn's scorers negate losses; undo that."""
        return -value if self.scorer and self.scorer.startswith("neg_") else value

    def score(self, y_true, y_pred, *, proba=None, classes=None, features=None) -> float:
        from sklearn import metrics as m

        if self.needs == "clusters":
            return _cluster_score(self.name, features, y_pred)
        if self.name in ("accuracy", "balanced_accuracy") and _codes(y_true, y_pred):
            return _code_score(self.name, np.asarray(y_true), np.asarray(y_pred))
        if self.name == "accuracy":
            return float(m.accuracy_score(y_true, y_pred))
        if self.name == "balanced_accuracy":
            return float(m.balanced_accuracy_score(y_true, y_pred))
        if self.name == "f1_macro":
            return float(m.f1_score(y_true, y_pred, average="macro"))
        if self.name == "roc_auc":  # the branch follows the true classes, not the columns
            if (len(classes) if classes is not None else proba.shape[1]) == 2:
                return float(m.roc_auc_score(y_true == classes[1], proba[:, 1]))
            return float(m.roc_auc_score(y_true, proba, multi_class="ovr", labels=classes))
        if self.name == "log_loss":
            return float(m.log_loss(y_true, proba, labels=classes))
        if self.name == "r2":
            return float(m.r2_score(y_true, y_pred))
        if self.name == "rmse":
            return float(np.sqrt(m.mean_squared_error(y_true, y_pred)))
        if self.name == "mae":
            return float(m.mean_absolute_error(y_true, y_pred))
        raise ValueError(f"no scorer for metric {self.name!r}")


def _codes(*arrays) -> bool:
    return all(isinstance(a, np.ndarray) and a.dtype.kind in "iu" and a.ndim == 1
               and len(a) and a.min() >= 0 for a in arrays)


def _code_score(name: str, y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Accuracy or balanced accuracy of non-negative integer codes, as scikit-learn computes
    them (balanced: the mean recall over the classes present in y_true), in a fraction of
    its time: the ensembler scores hundreds of combinations a choice."""
    hits = y_true == y_pred
    if name == "accuracy":
        return float(np.average(hits))
    present = np.bincount(y_true)
    recall = np.bincount(y_true[hits], minlength=len(present))[present > 0] / present[present > 0]
    return float(np.mean(recall))


def _cluster_score(name: str, features, labels) -> float:
    from sklearn import metrics as m

    if len(set(np.asarray(labels).tolist())) < 2:
        return -1.0 if name == "silhouette" else float("nan")
    if name == "silhouette":
        return float(m.silhouette_score(features, labels))
    if name == "calinski_harabasz":
        return float(m.calinski_harabasz_score(features, labels))
    return float(m.davies_bouldin_score(features, labels))


METRICS: dict[str, Metric] = {
    metric.name: metric
    for metric in [
        Metric("accuracy", "classification", "labels", True, "accuracy"),
        Metric("balanced_accuracy", "classification", "labels", True, "balanced_accuracy"),
        Metric("f1_macro", "classification", "labels", True, "f1_macro"),
        Metric("roc_auc", "classification", "proba", True, "roc_auc_ovr"),
        Metric("log_loss", "classification", "proba", False, "neg_log_loss"),
        Metric("r2", "regression", "values", True, "r2"),
        Metric("rmse", "regression", "values", False, "neg_root_mean_squared_error"),
        Metric("mae", "regression", "values", False, "neg_mean_absolute_error"),
        Metric("silhouette", "clustering", "clusters", True),
        Metric("calinski_harabasz", "clustering", "clusters", True),
        Metric("davies_bouldin", "clustering", "clusters", False),
    ]
}


def get_metric(name: str) -> Metric:
    try:
        return METRICS[name]
    except KeyError:
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(METRICS)}") from None


def is_better(metric: str, a: float | None, b: float | None) -> bool:
    """True when score a is strictly better than score b (None is worst)."""
    if a is None or np.isnan(a):
        return False
    if b is None or np.isnan(b):
        return True
    return a > b if get_metric(metric).greater_is_better else a < b
