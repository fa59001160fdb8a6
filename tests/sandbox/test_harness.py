"""The fold jobs (sandbox/harness.py) through the real sandbox, scored by the referee outside."""

from __future__ import annotations

import json

import joblib
import numpy as np
import pandas as pd
import pytest

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.executor import Executor, load_oof
from pipesmith.agents.planner.agent import Planner
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.schemas import Candidate
from tests.conftest import make_inputs


def _run(sandbox, inputs, code, tmp_path, name="c"):
    candidate = Candidate(id="a1", name=name, phase="draft", code=code)
    return Executor(sandbox).run(candidate, inputs, tmp_path / name, timeout_s=60)


def _drafted(inputs, profile, index=1):
    spec = Planner().plan(inputs, profile, []).candidates[index]
    return Coder().draft("a1", spec, profile, inputs).code


def test_folds_are_scored_outside_against_the_dummy_baseline(sandbox, tmp_path, iris):
    inputs, profile = iris
    result, metrics = _run(sandbox, inputs, _drafted(inputs, profile), tmp_path)
    assert result.status == "ok", result.stderr
    assert inputs.cv_folds == 3  # 120 development rows: small data, three folds
    assert len(metrics["fold_scores"]) == 3 and metrics["folds"] == 3
    assert metrics["score"] == pytest.approx(np.mean(metrics["fold_scores"]))
    assert metrics["cv_std"] == pytest.approx(np.std(metrics["fold_scores"]))
    assert metrics["score"] > 0.85 > metrics["baseline_score"]
    assert metrics["n_val"] == 120  # every development row predicted once, out of fold
    oof = load_oof(tmp_path / "c")
    assert oof["index"].tolist() == list(range(120))
    assert oof["proba"].shape == (120, 3) and len(oof["y_true"]) == 120
    assert not list((tmp_path / "c").rglob("metrics.json"))
    assert not list((tmp_path / "c").rglob("model.joblib"))  # only the refit saves a model


def test_each_fold_sees_its_training_rows_and_unlabelled_rows_to_predict(sandbox, tmp_path,
                                                                          iris):
    inputs, profile = iris
    _run(sandbox, inputs, _drafted(inputs, profile), tmp_path)
    dev = pd.read_parquet(inputs.data_path)
    folds = sorted((tmp_path / "c" / "folds").iterdir())
    assert len(folds) == 3
    predicted = 0
    for folder in folds:
        train = pd.read_parquet(folder / "train.parquet")
        to_predict = pd.read_parquet(folder / "predict.parquet")
        assert inputs.target in train.columns
        assert inputs.target not in to_predict.columns
        assert len(train) + len(to_predict) == len(dev)
        predicted += len(to_predict)
        job = json.loads((folder / "job.json").read_text())
        assert not any("path" in key for key in job)  # the job names no path to data
    assert predicted == len(dev)


def test_printed_scores_count_for_nothing(sandbox, tmp_path, iris):
    inputs, _ = iris
    code = (
        "from sklearn.dummy import DummyClassifier\n"
        "print('accuracy=0.99')\n"
        "def build_pipeline(task):\n"
        "    return DummyClassifier(strategy='most_frequent')\n"
    )
    result, metrics = _run(sandbox, inputs, code, tmp_path)
    assert result.status == "ok"
    assert metrics["score"] == pytest.approx(metrics["baseline_score"])
    assert metrics["score"] == pytest.approx(1 / 3, abs=0.02)


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("x = 1\n", "defines no callable build_pipeline"),
        ("def build_pipeline(task):\n    return 42\n", "returned int, which lacks fit, predict"),
    ],
)
def test_contract_violations_are_reported(sandbox, tmp_path, iris, code, message):
    inputs, _ = iris
    result, metrics = _run(sandbox, inputs, code, tmp_path)
    assert result.status == "error" and result.exit_code == 3
    assert message in result.stderr
    assert metrics is None


def test_clustering_labels_are_scored_outside_by_silhouette(sandbox, tmp_path):
    inputs, frame = make_inputs(tmp_path, "iris", task_type="clustering", metric="silhouette")
    profile = profile_table(frame, inputs.target, "clustering")
    code = _drafted(inputs, profile, index=0)
    result, metrics = _run(sandbox, inputs, code, tmp_path)
    assert result.status == "ok", result.stderr
    assert metrics["n_clusters"] == 3
    assert metrics["score"] > 0.3 > metrics["baseline_score"]


def test_the_refit_trains_on_every_development_row_and_is_scored_on_the_test_part(
        sandbox, tmp_path, iris):
    inputs, profile = iris
    candidate = Candidate(id="a1", name="c", phase="draft", code=_drafted(inputs, profile))
    result, scores = Executor(sandbox).refit(candidate, inputs, tmp_path / "refit", 60)
    assert result.status == "ok", result.stderr
    assert scores["n_dev"] == 120 and scores["n_test"] == 30
    assert scores["test_score"] > 0.85 > scores["test_baseline_score"]
    model = joblib.load(tmp_path / "refit" / "model.joblib")
    test = pd.read_parquet(inputs.test_path)
    assert len(model.predict(test.drop(columns=[inputs.target]))) == 30
    assert inputs.target not in pd.read_parquet(tmp_path / "refit" / "predict.parquet")
