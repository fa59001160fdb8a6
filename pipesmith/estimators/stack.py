"""Stacking whose level-2 model was learnt from the members' out-of-fold predictions.

The ensembler fits the level-2 linear model on the predictions each member already made on
rows it was not fitted on (agents/ensembler/select.py), as AutoGluon's stack layers do. A
composed module hands its coefficients to these estimators, so a stacked ensemble costs its
members' fits on the rows it is given and nothing more, like a vote; scikit-learn's
StackingClassifier would fit every member `cv` more times to learn the same model again.

Classes travel as text (str of the label, as the report writes them), so a fit that saw
fewer or other classes still lines the coefficients up with the ones it knows.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone


def _fit_members(estimators, X, y, fit_params) -> list:
    return [clone(estimator).fit(X, y, **fit_params) for _, estimator in estimators]


class LinearStackRegressor(RegressorMixin, BaseEstimator):
    """coef[i] * member i's prediction, summed, plus the intercept (non-negative least
    squares on the out-of-fold values)."""

    def __init__(self, estimators=None, coef=None, intercept=None) -> None:
        self.estimators = estimators
        self.coef = coef
        self.intercept = intercept

    def fit(self, X, y, **fit_params):
        self.estimators_ = _fit_members(self.estimators, X, y, fit_params)
        return self

    def predict(self, X):
        values = np.column_stack([m.predict(X) for m in self.estimators_]).astype(float)
        return values @ np.asarray(self.coef, dtype=float) + float(self.intercept[0])


class LinearStackClassifier(ClassifierMixin, BaseEstimator):
    """Logistic regression on the members' probabilities: `columns` names the classes of
    each member's block of features (the same for every member), `classes` the level-2
    model's outputs (one row of `coef` for two classes, one per class otherwise)."""

    def __init__(self, estimators=None, coef=None, intercept=None, columns=None,
                 classes=None) -> None:
        self.estimators = estimators
        self.coef = coef
        self.intercept = intercept
        self.columns = columns
        self.classes = classes

    def fit(self, X, y, **fit_params):
        self.estimators_ = _fit_members(self.estimators, X, y, fit_params)
        self.classes_ = np.unique(np.asarray(y))
        return self

    def _features(self, X) -> np.ndarray:
        blocks = []
        for member in self.estimators_:
            proba = member.predict_proba(X)
            where = {str(c): j for j, c in enumerate(member.classes_.tolist())}
            block = np.zeros((proba.shape[0], len(self.columns)))
            for i, name in enumerate(self.columns):
                if name in where:
                    block[:, i] = proba[:, where[name]]
            blocks.append(block)
        return np.concatenate(blocks, axis=1)

    def predict_proba(self, X):
        z = self._features(X) @ np.asarray(self.coef, dtype=float).T + \
            np.asarray(self.intercept, dtype=float)
        if z.shape[1] == 1:  # two classes: the second's log-odds
            p = 1.0 / (1.0 + np.exp(-z[:, 0]))
            level2 = np.column_stack([1.0 - p, p])
        else:
            z = z - z.max(axis=1, keepdims=True)
            level2 = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        where = {name: j for j, name in enumerate(self.classes)}
        out = np.zeros((level2.shape[0], len(self.classes_)))
        for i, c in enumerate(self.classes_.tolist()):
            if str(c) in where:
                out[:, i] = level2[:, where[str(c)]]
        return out

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
