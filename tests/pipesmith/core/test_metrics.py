"""The metric table: integer codes take a fast path that gives scikit-learn's values."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as sk

from pipesmith.core.metrics import get_metric


@pytest.mark.parametrize("seed", range(5))
def test_accuracy_and_balanced_accuracy_of_codes_are_scikit_learns(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, 300)
    pred = np.where(rng.random(300) < 0.6, y, rng.integers(0, 5, 300))  # a class y lacks
    assert get_metric("accuracy").score(y, pred) == sk.accuracy_score(y, pred)
    with pytest.warns(UserWarning):  # scikit-learn warns of the class y lacks, then skips it
        expected = sk.balanced_accuracy_score(y, pred)
    assert get_metric("balanced_accuracy").score(y, pred) == pytest.approx(expected, abs=1e-12)
    # negative labels and text take scikit-learn's own path
    assert get_metric("balanced_accuracy").score(y - 1, pred - 1) == pytest.approx(expected)
    text = np.array(list("abcde"))
    assert get_metric("accuracy").score(text[y], text[pred]) == sk.accuracy_score(y, pred)
