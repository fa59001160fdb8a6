"""The refit job's SHAP arrays (sandbox/contributions.py), called directly: which input
column each transformed feature comes from, and the exact linear contributions."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import Ridge
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from pipesmith.agents.families.registry import CONTRIBUTIONS
from pipesmith.sandbox.contributions import contributions, output_owners

SPEC = {"methods": CONTRIBUTIONS, "rows": 1000, "seed": 0, "max_s": 60.0}


def fitted():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=60), "plan": rng.choice(list("abc"), size=60),
                      "ignored": rng.normal(size=60), "z": rng.normal(size=60)})
    y = 2.0 * X["x"] + (X["plan"] == "a") - 0.5 * X["z"]
    pre = ColumnTransformer([("numeric", make_pipeline(StandardScaler()), ["x", "z"]),
                             ("categorical", OneHotEncoder(sparse_output=False), ["plan"])])
    return Pipeline([("preprocess", pre), ("model", Ridge(alpha=0.1))]).fit(X, y), X


def test_one_hot_parts_are_owned_by_their_column_and_dropped_columns_by_none():
    model, X = fitted()
    owners = output_owners(model[:-1], list(X.columns), 5)
    assert owners.tolist() == [0, 3, 1, 1, 1]  # x, z, then plan's three categories
    assert output_owners(None, list(X.columns), 4).tolist() == [0, 1, 2, 3]
    # a step after the column transformer may mix its outputs: nothing is claimed
    assert output_owners(Pipeline([("a", StandardScaler()), ("b", StandardScaler())]),
                         ["p", "q"], 2).tolist() == [-1, -1]


def test_linear_contributions_are_coef_times_the_distance_from_the_training_mean():
    model, X = fitted()
    arrays, note = contributions(model, X, X.iloc[:10], SPEC)
    assert note["method"] == "linear" and note["estimator"] == "Ridge"
    Xt = model[:-1].transform(X.iloc[:10])
    mean = model[:-1].transform(X).mean(axis=0)
    coef = model[-1].coef_
    assert np.allclose(arrays["contrib"][:, 0, :-1], coef * (Xt - mean))
    assert np.allclose(arrays["contrib"][:, 0, -1], model[-1].intercept_ + coef @ mean)
    assert np.allclose(arrays["contrib"].sum(axis=2)[:, 0], model.predict(X.iloc[:10]))
    assert arrays["margin"].shape == (10, 1) and list(arrays["rows"]) == list(range(10))
