"""pipesmith.serve.rows on a schema written by model_io: each row's problems, by column."""

from __future__ import annotations

import pandas as pd

from pipesmith.core.model_io import feature_schema
from pipesmith.serve.rows import check_rows


def schema():
    frame = pd.DataFrame({"flag": [True, False] * 30, "x": [1.5, 2.0] * 30,
                          "plan": ["basic", "pro"] * 30, "y": [0, 1] * 30})
    return feature_schema(frame, "y", "classification")


def test_values_of_the_wrong_type_are_named_and_missing_values_pass():
    rows = [{"flag": True, "x": "1", "plan": "pro"},
            {"flag": True, "x": True, "plan": ["pro"]},
            {"flag": None, "x": None, "plan": None},
            {"flag": False, "x": 2, "plan": "team"}]
    frame, problems = check_rows(schema(), rows, ["flag", "x", "plan"])
    assert list(frame.index) == [0, 2]
    assert [(p.row, p.column) for p in problems] == [(1, "x"), (1, "plan"), (3, "plan")]
    assert problems[2].problem == "unseen category 'team'; training saw: basic, pro"


def test_only_required_columns_must_be_present():
    frame, problems = check_rows(schema(), [{"x": 1.0, "plan": "pro"}], ["x", "plan"])
    assert problems == [] and frame["flag"].isna().all()
    _, problems = check_rows(schema(), [{"x": 1.0, "plan": "pro"}], ["flag", "x", "plan"])
    assert [(p.row, p.column, p.problem) for p in problems] == [(0, "flag", "missing column")]


def test_the_columns_a_class_weighted_model_reads_are_those_of_the_model_inside():
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    from pipesmith.estimators.decision import ClassWeightedClassifier
    from pipesmith.serve.rows import read_by

    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "id": ["a", "b", "c", "d"]})
    inner = make_pipeline(ColumnTransformer([("x", "passthrough", ["x"])], remainder="drop"),
                          LogisticRegression())
    model = ClassWeightedClassifier(inner, {"0": 1.0, "1": 2.0}).fit(frame, [0, 1, 0, 1])
    assert read_by(inner.fit(frame, [0, 1, 0, 1])) == {"x"}
    assert read_by(model) == {"x"}
