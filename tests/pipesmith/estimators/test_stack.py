"""The stacking estimators predict as the level-2 model the ensembler fitted on the members'
out-of-fold predictions, given only its coefficients."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_iris
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import cross_val_predict

from pipesmith.agents.ensembler import select as es
from pipesmith.estimators import LinearStackClassifier, LinearStackRegressor


def _members_classifiers():
    return [("lr", LogisticRegression(max_iter=500)),
            ("rf", RandomForestClassifier(n_estimators=30, random_state=0))]


@pytest.mark.parametrize("binary", [False, True])
def test_the_classifier_predicts_as_the_level2_model_fitted_on_out_of_fold_rows(binary):
    X, codes = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])
    if binary:
        keep = codes > 0
        X, codes = X[keep], codes[keep]
    y = names[codes]  # text labels, as a table holds them
    members = _members_classifiers()
    oof = np.stack([cross_val_predict(m, X, y, cv=5, method="predict_proba")
                    for _, m in members])
    classes = np.unique(y)
    level2 = es.fit_level2(oof, y, "classification")
    stack = LinearStackClassifier(members, **es.level2_params(level2),
                                  columns=[str(c) for c in classes],
                                  classes=[str(c) for c in level2.classes_]).fit(X, y)
    fitted = np.stack([m.predict_proba(X) for m in stack.estimators_])
    expected = es.level2_predict(level2, fitted, "classification", classes)
    assert list(stack.classes_) == list(classes)
    assert np.allclose(stack.predict_proba(X), expected, atol=1e-12)
    assert np.array_equal(stack.predict(X), classes[expected.argmax(axis=1)])
    assert (stack.predict(X) == y).mean() > 0.9


def test_a_class_the_level2_model_never_saw_gets_no_probability():
    X, codes = load_iris(return_X_y=True)
    y = np.array(["a", "b", "c"])[codes]
    members = _members_classifiers()
    seen = y != "c"  # the out-of-fold rows held two of the three classes
    oof = np.stack([cross_val_predict(m, X[seen], y[seen], cv=5, method="predict_proba")
                    for _, m in members])
    level2 = es.fit_level2(oof, y[seen], "classification")
    stack = LinearStackClassifier(members, **es.level2_params(level2), columns=["a", "b"],
                                  classes=["a", "b"]).fit(X, y)
    proba = stack.predict_proba(X)
    assert list(stack.classes_) == ["a", "b", "c"]
    assert np.allclose(proba[:, 2], 0.0) and np.allclose(proba.sum(axis=1), 1.0)


def test_the_regressor_predicts_as_non_negative_least_squares_on_out_of_fold_values():
    X, y = load_diabetes(return_X_y=True)
    members = [("ridge", Ridge()), ("rf", RandomForestRegressor(n_estimators=30,
                                                                random_state=0))]
    oof = np.stack([cross_val_predict(m, X, y, cv=5) for _, m in members])
    level2 = es.fit_level2(oof, y, "regression")
    stack = LinearStackRegressor(members, **es.level2_params(level2)).fit(X, y)
    fitted = np.stack([m.predict(X) for m in stack.estimators_])
    assert np.allclose(stack.predict(X), level2.predict(fitted.T), rtol=1e-12)
    assert min(level2.coef_) >= 0.0
