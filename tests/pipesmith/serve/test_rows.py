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
