"""Class-weighted decisions for balanced metrics: the fast scores match scikit-learn's, the
weights help on rows they were not fitted on, and the ensembler keeps them only then."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score, f1_score
from sklearn.model_selection import cross_val_predict

from pipesmith.agents.ensembler import decision
from pipesmith.agents.ensembler import select as es
from pipesmith.core.metrics import get_metric
from pipesmith.estimators import ClassWeightedClassifier


@pytest.mark.parametrize("metric", ["balanced_accuracy", "f1_macro"])
def test_label_score_is_scikit_learns(metric):
    rng = np.random.default_rng(0)
    for k in (2, 3, 6):
        for _ in range(20):
            y = rng.integers(0, k, size=int(rng.integers(5, 60)))
            pred = rng.integers(0, k - 1, size=len(y))  # the last class never predicted
            expected = balanced_accuracy_score(y, pred) if metric == "balanced_accuracy" \
                else f1_score(y, pred, average="macro")
            assert decision.label_score(metric, y, pred, k) == pytest.approx(expected)


def imbalanced(n=3000, k=2, seed=0):
    """A minority class or two that an unweighted model's argmax under-predicts: out-of-fold
    probabilities of a plain logistic regression."""
    shares = [0.9, 0.1] if k == 2 else [0.8, 0.15, 0.05]
    X, y = make_classification(n_samples=n, n_features=8, n_informative=4, n_classes=k,
                               n_clusters_per_class=1, weights=shares, flip_y=0.05,
                               class_sep=0.6, random_state=seed)
    proba = cross_val_predict(LogisticRegression(max_iter=500), X, y, cv=5,
                              method="predict_proba")
    return proba, y


@pytest.mark.parametrize("k", [2, 3])
def test_weights_fitted_on_one_half_help_on_the_other(k):
    proba, y = imbalanced(k=k, seed=1)
    half = len(y) // 2
    w = decision.fit_weights("balanced_accuracy", proba[:half], y[:half])
    assert not np.all(w == 1.0)
    plain = balanced_accuracy_score(y[half:], proba[half:].argmax(axis=1))
    tuned = balanced_accuracy_score(y[half:], decision.decide(proba[half:], w))
    assert tuned > plain + 0.05, (plain, tuned)


def test_no_weighting_unless_it_beats_the_plain_argmax():
    y = np.array([0, 1] * 50)
    proba = np.eye(2)[y] * 0.8 + 0.1  # already perfect
    assert np.all(decision.fit_weights("balanced_accuracy", proba, y) == 1.0)


def test_ensembler_choice_keeps_class_weights_only_on_held_out_evidence():
    proba, y = imbalanced(seed=1)
    rng = np.random.default_rng(3)
    noisy = np.clip(proba + rng.normal(scale=0.05, size=proba.shape), 1e-3, None)
    preds = np.stack([proba, noisy / noisy.sum(axis=1, keepdims=True)])
    metric = get_metric("balanced_accuracy")
    scorer = es.Scorer("classification", metric.score, True, np.array([0, 1]))
    plain = es.choose(preds, y, scorer)
    assert plain.class_weights is None and set(plain.nested_scores) == set(es.STRATEGIES)
    tuned = es.choose(preds, y, scorer, tune_metric="balanced_accuracy")
    assert tuned.class_weights is not None
    assert set(tuned.nested_scores) == {*es.STRATEGIES, *(s + es.WEIGHTED
                                                          for s in es.STRATEGIES)}
    best = tuned.strategy + es.WEIGHTED
    assert tuned.nested_scores[best] > max(plain.nested_scores.values()) + 0.05
    assert not decision.tunable("accuracy", "classification")
    assert not decision.tunable("balanced_accuracy", "regression")


def test_class_weighted_classifier_applies_weights_by_class_label():
    X, y = make_classification(n_samples=600, weights=[0.9, 0.1], random_state=1)
    labels = np.where(y == 1, "yes", "no")
    inner = LogisticRegression(max_iter=500)
    model = ClassWeightedClassifier(inner, class_weights={"no": 1.0, "yes": 8.0}).fit(X, labels)
    plain = inner.fit(X, labels)
    assert (model.predict(X) == "yes").sum() > (plain.predict(X) == "yes").sum()
    assert np.allclose(model.predict_proba(X), plain.predict_proba(X))
    assert list(model.classes_) == ["no", "yes"]
