"""The run's warm fold workers (agents/warm_folds.py), in the real sandbox: a fold fit as a
fork of a warm worker gives the same predictions as a fresh fold job; a failure is run
again as fold jobs so its diagnosis reads the real job; a fit past its limit is a
timeout, not run twice."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.executor import Executor
from pipesmith.agents.planner.agent import Planner
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.schemas import Candidate
from tests.conftest import make_inputs

pytestmark = pytest.mark.slow


@pytest.fixture
def run(tmp_path):
    inputs, dev = make_inputs(tmp_path, "wine")
    inputs = inputs.model_copy(update={"out_dir": str(tmp_path), "cv_folds": 3, "n_jobs": 2})
    profile = profile_table(dev, inputs.target, inputs.task_type)
    return inputs, profile


def _candidate(cid: str, code: str) -> Candidate:
    return Candidate(id=cid, name="c", phase="draft", code=code)


def test_a_warm_fold_fit_predicts_what_a_fold_job_predicts(tmp_path, sandbox, run):
    inputs, profile = run
    spec = next(c for c in Planner().plan(inputs, profile, []).candidates
                if c.family == "random_forest")
    candidate = Coder().draft("a1", spec, profile, inputs)
    warm, cold = Executor(sandbox, warm=True), Executor(sandbox)
    try:
        w_result, w_metrics = warm.run(candidate, inputs, tmp_path / "warm", 60)
        assert warm.warm_workers(inputs) is not None  # they stay for the next candidate
    finally:
        warm.close()
    c_result, c_metrics = cold.run(candidate, inputs, tmp_path / "cold", 60)
    assert w_result.ok and w_result.backend == "warm" and c_result.ok
    assert c_result.backend != "warm"
    assert w_metrics["fold_scores"] == c_metrics["fold_scores"]
    w_oof, c_oof = (np.load(tmp_path / side / "oof.npz") for side in ("warm", "cold"))
    assert np.array_equal(w_oof["pred"], c_oof["pred"])
    assert np.allclose(w_oof["proba"], c_oof["proba"])
    # what the fit measured comes back: CPU seconds and the fork's peak memory
    assert w_result.cpu_s > 0 and w_result.peak_mem_mb > 50
    assert warm.warm_workers(inputs) is None  # closed


def test_a_failing_candidate_is_run_again_as_fold_jobs(tmp_path, sandbox, run):
    inputs, _ = run
    broken = _candidate("a1", "def build_pipeline(task):\n"
                              "    raise ValueError('the third column is wrong')\n")
    executor = Executor(sandbox, warm=True)
    try:
        result, metrics = executor.run(broken, inputs, tmp_path / "a1", 30)
    finally:
        executor.close()
    assert metrics is None and result.status == "error" and result.backend != "warm"
    assert "ValueError: the third column is wrong" in result.stderr  # the real job's output


def test_a_fit_past_its_limit_is_a_timeout_and_is_not_run_twice(tmp_path, sandbox, run):
    inputs, _ = run
    hangs = _candidate("a1", "import time\nfrom sklearn.dummy import DummyClassifier\n\n\n"
                             "class Slow(DummyClassifier):\n"
                             "    def fit(self, X, y):\n        time.sleep(60)\n\n\n"
                             "def build_pipeline(task):\n    return Slow()\n")
    executor = Executor(sandbox, warm=True)
    try:
        executor.run(_candidate("a0", "from sklearn.dummy import DummyClassifier\n\n\n"
                                      "def build_pipeline(task):\n"
                                      "    return DummyClassifier()\n"),
                     inputs, tmp_path / "a0", 30)  # the workers are up
        result, metrics = executor.run(hangs, inputs, tmp_path / "a1", 2)
    finally:
        executor.close()
    assert metrics is None and result.status == "timeout" and result.backend == "warm"
    assert result.wall_s < 15  # one limit's worth, not a fold job's start and limit again


def test_a_run_fits_its_candidates_and_its_search_on_one_set_of_workers(tmp_path):
    from pipesmith.api import run
    from pipesmith.settings import Settings

    out = tmp_path / "run"
    report = run(dataset="iris", budget_s=45, out=out,
                 settings=Settings(n_jobs=2, use_kb=False, kb_dir=tmp_path / "kb",
                                   search_share=0.6, warm_workers=True))
    assert report.status == "succeeded"
    k = report.cv_score.folds
    # each fold's worker started once, for every candidate (fold jobs would leave a job
    # folder per fold and attempt, with its candidate and job.json)
    workers = out / "workers" / f"k{k}" / "workers"
    assert sorted(p.name for p in workers.iterdir()) == [f"fold{i}" for i in range(k)]
    # one job per fold for the whole run; a worker that dies is replaced (a fresh job, w1),
    # which a loaded machine has shown once: allowed once, never a job per candidate
    starts = sorted(p.name for fold in workers.iterdir() for p in fold.iterdir())
    assert len(starts) <= k + 1 and starts.count("w0") == k, starts
    singles = [a for a in report.attempts if a.phase != "ensemble" and a.succeeded]
    for attempt in singles:
        folds = Path(attempt.workdir) / "folds"
        assert sorted(p.name for p in folds.iterdir()) == [str(i) for i in range(k)]
        assert not (folds / "0" / "job.json").exists()
        assert (folds / "0" / "predictions.npz").exists()
    if report.search and "skipped" not in report.search:  # the search started no worker
        assert report.search["trials"] > 0
        assert not (out / "search" / "workers").exists()
