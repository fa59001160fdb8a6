"""Errors per segment of the test part, computed by the referee from the refit's checked
predictions and the labels it holds (pipesmith/core/segments.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pipesmith.agents.schemas import RunInputs
from pipesmith.core.segments import cut, segment_errors, worst_segments


def inputs(task_type: str = "classification", metric: str = "accuracy") -> RunInputs:
    return RunInputs(run_id="r", task_text="t", dataset="d", data_path="p", target="y",
                     task_type=task_type, metric=metric, out_dir="o")


# 8 rows: city A all right; city B half wrong (rows 5 and 7); age 1..8 in quartiles of two
TEST = pd.DataFrame({"city": ["A"] * 4 + ["B"] * 4, "age": [1, 2, 3, 4, 5, 6, 7, 8],
                     "customer_id": [f"c{i}" for i in range(8)], "y": list("pqpqpqpq")})
PRED = np.array(list("pqpq") + list("qqqq"))


def test_each_category_and_quartile_gets_its_rows_error_and_metric():
    segments, note = segment_errors(TEST, inputs(), {"pred": PRED})
    table = [(s.column, s.segment, s.kind, s.rows, s.error, s.score) for s in segments]
    assert table == [
        ("city", "A", "category", 4, 0.0, 1.0),
        ("city", "B", "category", 4, 0.5, 0.5),
        ("age", "(0.999, 2.75]", "quartile", 2, 0.0, 1.0),
        ("age", "(2.75, 4.5]", "quartile", 2, 0.0, 1.0),
        ("age", "(4.5, 6.25]", "quartile", 2, 0.5, 0.5),
        ("age", "(6.25, 8]", "quartile", 2, 0.5, 0.5),
        # per true class: the share of its rows predicted wrong (1 - recall)
        ("y", "p", "class", 4, 0.5, 0.5),
        ("y", "q", "class", 4, 0.0, 1.0),
    ]
    # one customer per row is an ID: no segments, and the note says so
    assert "per true class (2: error = 1 - recall)" in note
    assert "overall 0.2500" in note and "not segmented (ID-like or unsupported): customer_id" \
        in note


def test_worst_segments_are_worse_than_the_whole_and_large_enough():
    segments, _ = segment_errors(TEST, inputs(), {"pred": PRED})
    worst = worst_segments(segments, min_rows=3)
    assert [(s.column, s.segment) for s in worst] == [("city", "B"), ("y", "p")]  # quartiles
    assert [(s.column, s.segment) for s in worst_segments(segments, min_rows=2)] == [
        ("city", "B"), ("y", "p"), ("age", "(4.5, 6.25]"), ("age", "(6.25, 8]")]
    assert worst_segments(segments) == []  # the default minimum, 20 rows


def test_regression_segments_use_the_mean_absolute_error_and_missing_values_are_a_segment():
    test = pd.DataFrame({"plan": ["x", "x", None, None], "y": [1.0, 2.0, 3.0, 4.0]})
    segments, note = segment_errors(test, inputs("regression", "rmse"),
                                    {"pred": np.array([1.0, 2.0, 5.0, 1.0])})
    assert [(s.segment, s.rows, s.error, s.score) for s in segments] == [
        ("x", 2, 0.0, 0.0), ("(missing)", 2, 2.5, np.sqrt((4 + 9) / 2).round(6))]
    assert "mean absolute error (overall 1.2500)" in note


def test_a_metric_undefined_on_a_segment_is_none_not_a_failure():
    # ROC AUC needs both classes: each city here has one
    test = pd.DataFrame({"city": ["A", "A", "B", "B"], "y": ["p", "p", "q", "q"]})
    checked = {"pred": np.array(["p", "q", "q", "q"]),
               "proba": np.array([[0.9, 0.1], [0.4, 0.6], [0.2, 0.8], [0.1, 0.9]]),
               "classes": np.array(["p", "q"])}
    segments, _ = segment_errors(test, inputs(metric="roc_auc"), checked)
    assert [(s.segment, s.error, s.score) for s in segments] == [
        ("A", 0.5, None), ("B", 0.0, None), ("p", 0.5, None), ("q", 0.0, None)]


def test_few_distinct_numbers_are_categories_and_clustering_is_skipped():
    labels, kind = cut(pd.Series([0, 1, 1, 0, 1, 0]))
    assert kind == "category" and sorted(set(labels)) == ["0", "1"]
    assert segment_errors(TEST, inputs("clustering", "silhouette"), {"pred": PRED}) == (
        [], "skipped: clustering has no labels to count errors against")


def test_a_large_test_part_is_segmented_on_a_seeded_sample(monkeypatch):
    from pipesmith.core import segments

    monkeypatch.setattr(segments, "MAX_ROWS", 6)
    sampled, note = segment_errors(TEST, inputs(), {"pred": PRED})
    assert "on 6 test rows (a seeded sample)" in note
    assert sum(s.rows for s in sampled if s.column == "city") == 6
    again, _ = segment_errors(TEST, inputs(), {"pred": PRED})
    assert again == sampled  # the same rows each time (the run's seed)
    # each sampled row keeps its own prediction: city A's rows are all right, whichever
    by = {(s.column, s.segment): s for s in sampled}
    assert by[("city", "A")].error == 0.0 and by[("city", "B")].error > 0.0
