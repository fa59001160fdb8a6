"""Permutation importance on the test part: computed from the refit job's shuffled-column
predictions by the referee, outside the sandbox (docs/architecture.md, "The referee")."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from pipesmith.agents.schemas import RunInputs
from pipesmith.core.importance import permutation_importance


@pytest.mark.slow  # the shared real run (tests/pipesmith/conftest.py)
def test_the_informative_feature_outranks_pure_noise(explained_run):
    report, out = explained_run
    ranked = [f.feature for f in report.feature_importance]
    assert sorted(ranked) == ["noise", "signal", "weak"]
    importances = [f.importance for f in report.feature_importance]
    assert importances == sorted(importances, reverse=True)
    by_name = {f.feature: f.importance for f in report.feature_importance}
    assert ranked[0] == "signal" and by_name["signal"] > by_name["noise"] + 0.1
    assert f"on {report.refit.n_test} test rows" in report.feature_importance_note
    # the job was asked, and what it wrote holds predictions, never a label
    job = json.loads((out / "refit" / "job.json").read_text())
    assert job["importance"]["columns"] == 30 and job["importance"]["rows"] == 5000
    with np.load(out / "refit" / "importance.npz") as written:
        assert set(written.files) <= {"rows", "columns", "pred", "proba", "classes"}
        assert written["pred"].shape[1] == report.refit.n_test
    md = (out / "report.md").read_text()
    assert "## Feature importance" in md and "| signal |" in md


def inputs(task_type: str = "classification") -> RunInputs:
    return RunInputs(run_id="r", task_text="t", dataset="d", data_path="p", target="y",
                     task_type=task_type, metric="accuracy", out_dir="o")


TEST = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "b": [1.0, 1.0, 0.0, 0.0],
                     "y": ["p", "q", "p", "q"]})
CHECKED = {"pred": np.array(["p", "q", "p", "q"])}  # the unshuffled predictions: all right


def test_a_file_that_lies_about_its_rows_or_columns_is_refused(tmp_path):
    np.savez(tmp_path / "importance.npz", rows=np.array([0, 1, 9]), columns=np.array(["a"]),
             pred=np.array([["p", "q", "p"]]))
    ranked, note = permutation_importance(tmp_path, TEST, inputs(), CHECKED, TEST["y"])
    assert ranked == [] and note.startswith("not computed: importance.npz is unusable")
    assert "not distinct test rows" in note
    np.savez(tmp_path / "importance.npz", rows=np.array([0, 1]), columns=np.array(["y"]),
             pred=np.array([["p", "q"]]))  # the target is no feature to shuffle
    ranked, note = permutation_importance(tmp_path, TEST, inputs(), CHECKED, TEST["y"])
    assert ranked == [] and "columns are not test features" in note


def test_shuffled_predictions_are_scored_against_the_true_labels(tmp_path):
    # `a` shuffled twice: one row of four wrong each time; `b` shuffled: every row right
    np.savez(tmp_path / "importance.npz", rows=np.arange(4),
             columns=np.array(["a", "a", "b", "b"]),
             pred=np.array([list("qqpq"), list("pppq"), list("pqpq"), list("pqpq")]))
    ranked, note = permutation_importance(tmp_path, TEST, inputs(), CHECKED, TEST["y"])
    assert [(f.feature, f.importance) for f in ranked] == [("a", 0.25), ("b", 0.0)]
    assert "each shuffled 2 time(s) on 4 test rows (seed 0)" in note
    ranked, note = permutation_importance(tmp_path, TEST, inputs("clustering"), CHECKED, None)
    assert ranked == [] and note.startswith("skipped: clustering")
