"""The fixed harness, run through the real sandbox on real data."""

from __future__ import annotations

import json

import joblib
import numpy as np
import pytest

from pipesmith.agents.coder import Coder
from pipesmith.agents.executor import Executor
from pipesmith.agents.planner import Planner
from pipesmith.agents.profiler import profile_table
from pipesmith.agents.schemas import Candidate
from tests.conftest import make_inputs


def _run(sandbox, inputs, code, tmp_path, name="c"):
    candidate = Candidate(id="a1", name=name, phase="draft", code=code)
    return Executor(sandbox).run(candidate, inputs, tmp_path / name, timeout_s=60)


def test_harness_scores_a_candidate_against_the_dummy_baseline(sandbox, tmp_path, iris):
    inputs, profile = iris
    spec = Planner().plan(inputs, profile, []).candidates[1]
    code = Coder().draft("a1", spec, profile, inputs).code
    result, metrics = _run(sandbox, inputs, code, tmp_path)
    assert result.status == "ok", result.stderr
    assert metrics["metric"] == "accuracy"
    assert metrics["score"] > 0.85 > metrics["baseline_score"]
    assert metrics["n_train"] == 120 and metrics["n_val"] == 30
    workdir = tmp_path / "c"
    preds = np.load(workdir / "predictions.npz")
    assert preds["proba"].shape == (30, 3)
    model = joblib.load(workdir / "model.joblib")
    assert hasattr(model, "predict")
    assert {"metrics.json", "predictions.npz", "model.joblib"} <= set(result.files)


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
    assert metrics["score"] == pytest.approx(1 / 3, abs=0.01)


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


def test_clustering_is_scored_by_silhouette(sandbox, tmp_path):
    inputs, frame = make_inputs(tmp_path, "iris", task_type="clustering", metric="silhouette")
    profile = profile_table(frame, inputs.target, "clustering")
    spec = Planner().plan(inputs, profile, []).candidates[0]
    code = Coder().draft("a1", spec, profile, inputs).code
    result, metrics = _run(sandbox, inputs, code, tmp_path)
    assert result.status == "ok", result.stderr
    assert metrics["n_clusters"] == 3
    assert metrics["score"] > 0.3 > metrics["baseline_score"]


def test_job_file_records_what_ran(sandbox, tmp_path, iris):
    inputs, _ = iris
    _run(sandbox, inputs, "def build_pipeline(task):\n    raise ValueError('x')\n", tmp_path)
    job = json.loads((tmp_path / "c" / "harness_job.json").read_text())
    assert job["seed"] == 0 and job["metric"] == "accuracy"
