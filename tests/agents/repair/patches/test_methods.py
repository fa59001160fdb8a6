"""A private method the library turned into a public function of the object (#25)."""

from __future__ import annotations

from tests.agents.repair.sandboxed import repaired_here

CUSTOM = """\
import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline


class Clip(BaseEstimator, TransformerMixin):
    def fit(self, X, y=None):
        X = self._validate_data(X)
        self.hi_ = np.quantile(X, 0.99, axis=0)
        return self

    def transform(self, X):
        X = self._validate_data(X, reset=False)
        return np.minimum(X, self.hi_)


X, y = load_breast_cancer(return_X_y=True)
model = make_pipeline(Clip(), LogisticRegression(max_iter=5000)).fit(X, y)
assert model.score(X, y) > 0.9
assert model[0].n_features_in_ == 30  # validate_data still records the width
"""


def test_validate_data_method_becomes_the_function_the_package_exports():
    new, diagnosis = repaired_here(CUSTOM, "method_to_function")
    assert diagnosis.subclass == "removed_attribute"
    assert "from sklearn.utils.validation import validate_data as _validate_data" in new
    assert "X = _validate_data(self, X, reset=False)" in new
