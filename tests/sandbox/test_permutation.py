"""The refit job's shuffled-column predictions (sandbox/permutation.py), called directly:
what the harness writes to importance.npz when job.json asks for it."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from pipesmith.sandbox.permutation import permuted_predictions

SPEC = {"columns": 30, "rows": 5000, "repeats": 5, "seed": 0, "share": 0.5, "min_s": 60.0,
        "max_s": 60.0}


def fitted(n: int = 200):
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"x": rng.normal(size=n),
                      "colour": pd.Categorical(rng.choice(["red", "blue"], size=n)),
                      "z": rng.normal(size=n)})
    y = np.where(X["x"] > 0, "hi", "lo")
    model = make_pipeline(make_column_transformer(
        (OneHotEncoder(handle_unknown="ignore"), ["colour"]), remainder="passthrough"),
        LogisticRegression())
    return model.fit(X, y), X


def test_every_column_is_shuffled_on_the_same_seeded_rows():
    model, X = fitted()
    arrays, note = permuted_predictions(model, X, {**SPEC, "rows": 100, "repeats": 3}, 0.1,
                                        with_proba=True)
    assert note["columns"] == 3 and note["repeats"] == 1 and note["stopped"] == ""  # 100 of 200
    assert arrays["columns"].tolist() == ["x", "colour", "z"]
    assert arrays["pred"].shape == (3, 100) and arrays["proba"].shape == (3, 100, 2)
    assert len(np.unique(arrays["rows"])) == 100 and arrays["rows"].max() < len(X)
    again, _ = permuted_predictions(model, X, {**SPEC, "rows": 100, "repeats": 3}, 0.1, True)
    assert np.array_equal(again["pred"], arrays["pred"])  # seeded
    # shuffling the column the labels follow changes predictions; the others barely do
    unshuffled = model.predict(X.iloc[arrays["rows"]])
    changed = (arrays["pred"] != unshuffled).mean(axis=1)
    assert changed[0] > changed[1] and changed[0] > changed[2]
    # a small part gets up to `repeats` shuffles a column, rows in all within the cap
    small, note = permuted_predictions(model, X.iloc[:40], {**SPEC, "rows": 100}, 0.1, False)
    assert note["repeats"] == 2 and small["columns"].tolist() == ["x", "x", "colour", "colour",
                                                                  "z", "z"]


def test_the_loop_stops_on_its_time_allowance_and_on_a_predictor_that_raises():
    model, X = fitted()
    arrays, note = permuted_predictions(model, X, {**SPEC, "min_s": 0.0, "max_s": 0.0}, 0.1,
                                        False)
    assert arrays["columns"].tolist() == [] and "pred" not in arrays  # no time: no column
    assert note["stopped"] == "time: 0.0s allowance spent"

    class Fussy:
        def predict(self, frame):
            if not frame["colour"].equals(X["colour"].iloc[: len(frame)].reset_index(drop=True)):
                raise ValueError("shuffled")
            return np.zeros(len(frame))

    arrays, note = permuted_predictions(Fussy(), X, {**SPEC, "rows": 200, "repeats": 1}, 0.1,
                                        False)
    assert arrays["columns"].tolist() == ["x"]  # stopped at `colour`, the refit unharmed
    assert note["stopped"] == "predict raised ValueError on shuffled 'colour'"
