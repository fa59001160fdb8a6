"""The graph's nodes (graph/nodes.py), on real agents and the real sandbox."""

from __future__ import annotations

import pytest
from langgraph.runtime import Runtime

from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.prevalidator.resources import SMOKE_WHEN_ROWS_OVER, predict
from pipesmith.agents.schemas import Candidate, CandidateSpec, SearchTrial
from pipesmith.core.driver import default_deps
from pipesmith.graph import nodes
from pipesmith.settings import Settings
from tests.conftest import make_inputs

CODE = ("from sklearn.linear_model import LogisticRegression\n\n\n"
        "def build_pipeline(task):\n    return LogisticRegression(max_iter=200)\n")
TRIAL = SearchTrial(number=3, score=0.9, share=1.0, params={}, module="", fold_plan="k",
                    folder="f", fold_wall_s=[1.5, 2.0, 1.8], peak_mem_mb=310.0,
                    worker_start_s=2.5)


@pytest.fixture
def digits(tmp_path):
    inputs, dev = make_inputs(tmp_path, "digits", out_dir=str(tmp_path), cv_folds=3)
    return inputs, profile_table(dev, inputs.target, inputs.task_type)


def _candidate(trial: SearchTrial | None) -> Candidate:
    spec = CandidateSpec(name="lr", family="logistic_regression", rationale="",
                         params={}, trial=trial)
    return Candidate(id="a1", name="lr", phase="draft", code=CODE, spec=spec)


@pytest.mark.slow
def test_a_search_winner_gets_no_smoke_run_and_a_plain_draft_does(tmp_path, sandbox, digits):
    inputs, profile = digits
    assert profile.n_rows > SMOKE_WHEN_ROWS_OVER * inputs.smoke_rows  # smoke-sized
    runtime = Runtime(context=default_deps(Settings(use_kb=False), sandbox=sandbox))
    for trial, smoked in ((None, True), (TRIAL, False)):
        candidate = _candidate(trial)
        state = {"current": candidate, "inputs": inputs, "profile": profile,
                 "candidates": {candidate.id: candidate}}
        update = nodes.prevalidate(state, runtime)
        assert ("smoke" in update) is smoked, update
        if smoked:
            assert update["smoke"]["a1"]["wall_s"] > 0 and "attempts" not in update


def test_a_winners_trial_stands_in_for_the_smoke_run_in_its_prediction(digits):
    """The trial fitted the model on each fold's training rows: its slowest fold job is what
    the prediction scales from, not the 300-row sample's (absent) run."""
    inputs, profile = digits
    measured = nodes.trial_measure(_candidate(TRIAL), profile)
    assert measured == {"wall_s": 4.5, "peak_mem_mb": 310.0,
                        "rows": profile.n_rows * 2 // 3}
    assert nodes.trial_measure(_candidate(None), profile) is None
    # one fold job's worth: the folds' jobs on the trial's own rows cost what it measured
    spec = _candidate(TRIAL).spec
    one_fold = predict(profile, spec, 0, measured, inputs.smoke_rows, [])
    assert one_fold.basis == "smoke" and one_fold.wall_s == pytest.approx(4.5, abs=0.3)
