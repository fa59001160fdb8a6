"""Gradient-boosting classifiers with any class labels, behind a scikit-learn face.

XGBoost's classifier wants classes 0..k-1 and CatBoost's predicts a column of labels, so
candidates use these wrappers (`from pipesmith.estimators import XGBLabelClassifier`);
a fitted model pickles them by reference. Each imports its library when it first fits.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import LabelEncoder


class _LabelClassifier(ClassifierMixin, BaseEstimator):
    """Encode the labels for fit, predict the class with the highest probability."""

    def _model(self):
        raise NotImplementedError

    def fit(self, X, y):
        self.labels_ = LabelEncoder().fit(y)
        self.classes_ = self.labels_.classes_
        self.model_ = self._model().fit(X, self.labels_.transform(y))
        return self

    def predict_proba(self, X):
        return np.asarray(self.model_.predict_proba(X), dtype=float)

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]


class XGBLabelClassifier(_LabelClassifier):
    def __init__(self, n_estimators=300, learning_rate=0.05, max_depth=6, subsample=0.8,
                 colsample_bytree=0.8, min_child_weight=1.0, reg_lambda=1.0, reg_alpha=0.0,
                 gamma=0.0, tree_method="hist", n_jobs=1, random_state=0):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.min_child_weight = min_child_weight
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.gamma = gamma
        self.tree_method = tree_method
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _model(self):
        from xgboost import XGBClassifier

        return XGBClassifier(**self.get_params())


class CatBoostLabelClassifier(_LabelClassifier):
    def __init__(self, iterations=500, learning_rate=0.08, depth=6, l2_leaf_reg=3.0,
                 verbose=0, allow_writing_files=False, thread_count=1, random_state=0):
        self.iterations = iterations
        self.learning_rate = learning_rate
        self.depth = depth
        self.l2_leaf_reg = l2_leaf_reg
        self.verbose = verbose
        self.allow_writing_files = allow_writing_files
        self.thread_count = thread_count
        self.random_state = random_state

    def _model(self):
        from catboost import CatBoostClassifier

        return CatBoostClassifier(**self.get_params())
