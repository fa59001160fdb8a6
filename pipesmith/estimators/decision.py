"""A classifier whose labels are the argmax of class-weighted probabilities.

For metrics that weigh every class alike (balanced accuracy, macro F1) the ensembler learns
per-class weights from out-of-fold probabilities (agents/ensembler/decision.py); a composed module
wraps its pipeline in this so that the weights travel with the fitted model. The weights are
keyed by the class's text (str of the label, as the report writes them), so a fit that saw
fewer classes still applies them to the ones it knows.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone


class ClassWeightedClassifier(ClassifierMixin, BaseEstimator):
    def __init__(self, estimator=None, class_weights: dict | None = None) -> None:
        self.estimator = estimator
        self.class_weights = class_weights

    def fit(self, X, y, **fit_params):
        self.estimator_ = clone(self.estimator).fit(X, y, **fit_params)
        self.classes_ = self.estimator_.classes_
        return self

    def predict_proba(self, X):
        return self.estimator_.predict_proba(X)

    def predict(self, X):
        weights = dict(self.class_weights or {})
        w = np.array([weights.get(str(c), 1.0) for c in self.classes_.tolist()], dtype=float)
        return self.classes_[np.argmax(self.predict_proba(X) * w, axis=1)]
