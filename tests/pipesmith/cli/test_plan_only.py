"""`pipesmith run --plan-only`: the request resolved as `run` resolves it, printed as JSON;
nothing runs and nothing is written. Issue #27's sentence on a small churn table."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

ISSUE_27 = ("figure out which customers are going to churn. Optimize AUC, keep it under a "
            "minute, and don't use the seats column")


@pytest.fixture
def churn_csv(tmp_path):
    rng = np.random.default_rng(0)
    n = 120
    frame = pd.DataFrame({"customer_id": range(n), "tenure": rng.integers(1, 60, n),
                          "seats": rng.integers(1, 10, n),
                          "monthly_charges": rng.normal(50, 10, n).round(2)})
    frame["churn"] = np.where(frame.tenure < 25, "yes", "no")
    frame.to_csv(tmp_path / "churn.csv", index=False)
    return tmp_path / "churn.csv"


def plan_only(*args, cwd):
    return subprocess.run([sys.executable, "-m", "pipesmith.cli", "run", *args, "--plan-only"],
                          capture_output=True, text=True, timeout=300, cwd=cwd,
                          env=os.environ | {"PIPESMITH_RUNS_DIR": str(cwd / "runs")})


def test_the_issue_27_sentence_resolves_to_churn_and_writes_nothing(churn_csv, tmp_path):
    done = plan_only("--data", str(churn_csv), ISSUE_27, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert {k: plan[k] for k in ("target", "task", "drop", "metric", "budget_s")} == {
        "target": "churn", "task": "classification", "drop": ["seats"], "metric": "roc_auc",
        "budget_s": 60.0}
    assert plan["families"] and all(isinstance(f, str) for f in plan["families"])
    assert done.stderr.strip().splitlines() == [
        "target: churn (read from the task's words; --target COLUMN picks another)"]
    assert [p.name for p in tmp_path.iterdir()] == ["churn.csv"]


def test_explicit_options_win_and_the_target_line_is_only_for_guesses(churn_csv, tmp_path):
    done = plan_only("--data", str(churn_csv), "--target", "churn", "--budget", "20",
                     "in 2 minutes, only tree models", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert plan["budget_s"] == 20 and plan["target_from_words"] is False
    assert plan["target_guessed"] is False
    assert set(plan["families"]) <= {"hist_gradient_boosting", "random_forest", "extra_trees",
                                     "lightgbm", "xgboost", "catboost"}
    assert "target:" not in done.stderr


def test_words_that_name_no_column_are_exit_2_and_one_line(churn_csv, tmp_path):
    done = plan_only("--data", str(churn_csv), "predict the weather", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "cannot tell which column" in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["churn.csv"]


def test_a_target_the_words_only_hint_at_is_named_as_a_guess(churn_csv, tmp_path):
    done = plan_only("--data", str(churn_csv), "estimate the charges", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert plan["target"] == "monthly_charges" and plan["target_guessed"] is True
    assert done.stderr.strip().splitlines() == [
        "target: monthly_charges (a guess from the task's words; --target COLUMN picks "
        "another)"]


def test_excluded_families_are_shown_and_left_out(churn_csv, tmp_path):
    done = plan_only("--data", str(churn_csv), "predict churn; no random forests, and don't "
                     "use xgboost or logistic regression", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert sorted(plan["excluded_families"]) == ["logistic_regression", "random_forest",
                                                 "xgboost"]
    assert plan["families"] and not set(plan["families"]) & set(plan["excluded_families"])
    assert [p.name for p in tmp_path.iterdir()] == ["churn.csv"]


def test_excluding_every_family_is_exit_2_and_one_line(churn_csv, tmp_path):
    done = plan_only("--data", str(churn_csv), "predict churn without tree models, linear "
                     "models, svm or knn", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "every classification model family" in done.stderr
