"""The graph's nodes (graph/nodes.py), on real agents and the real sandbox."""

from __future__ import annotations

from pathlib import Path

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


@pytest.mark.slow
def test_once_the_warm_workers_hold_the_folds_a_plain_draft_gets_no_smoke_run(
        tmp_path, sandbox, digits):
    inputs, profile = digits
    settings = Settings(use_kb=False, warm_workers=True)  # the tests' default is off
    runtime = Runtime(context=default_deps(settings, sandbox=sandbox))
    executor, candidate = runtime.context.executor, _candidate(None)
    state = {"current": candidate, "inputs": inputs, "profile": profile,
             "candidates": {candidate.id: candidate}}
    try:
        assert "smoke" in nodes.prevalidate(state, runtime)  # the first: no workers yet
        result, _ = executor.run(candidate, inputs, tmp_path / "a1", 60.0)
        assert result.ok and result.backend == "warm"  # the first run started them
        second = candidate.model_copy(update={"id": "a2"})
        update = nodes.prevalidate({**state, "current": second}, runtime)
        assert update == {}  # its folds are forks of them: no fresh job on a sample first
    finally:
        executor.close()


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


def _two_members(tmp_path, sandbox):
    """(state, runtime) of an iris run whose two candidates ran on 3 folds."""
    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.families.registry import get_family
    from pipesmith.agents.schemas import Plan

    inputs, frame = make_inputs(tmp_path, "iris", out_dir=str(tmp_path / "run"), cv_folds=3)
    profile = profile_table(frame, inputs.target, inputs.task_type)
    runtime = Runtime(context=default_deps(Settings(use_kb=False), sandbox=sandbox))
    state = {"inputs": inputs, "profile": profile, "attempts": {}, "candidates": {},
             "plan": Plan(candidates=[]), "timings": {}, "started_at": None}
    for cid, name in (("a1", "logistic_regression"), ("a2", "random_forest")):
        family = get_family("classification", name)
        spec = CandidateSpec(name=name, family=name, params=family.params, scale=family.scale,
                             encoding=family.encoding)
        candidate = Coder().draft(cid, spec, profile, inputs)
        state["candidates"][cid] = candidate
        state["attempts"] |= nodes.execute({**state, "current": candidate},
                                           runtime)["attempts"]
    assert all(a.succeeded for a in state["attempts"].values())
    return state, runtime


def test_a_vote_is_scored_from_its_members_and_a_failed_refit_falls_back(tmp_path, sandbox):
    """The execute node scores a vote from its members' out-of-fold predictions (no fold
    job); the report node refits it, and should its module fail there (it never ran
    before), refits the best single candidate instead."""
    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.schemas import EnsembleProposal

    state, runtime = _two_members(tmp_path, sandbox)
    inputs, profile = state["inputs"], state["profile"]
    proposal = EnsembleProposal(strategy="caruana", members=["a1", "a2"], weights=[1.0, 1.0],
                                estimated_score=0.95)
    ensemble = Coder().ensemble("a3", list(state["candidates"].values()), profile, inputs,
                                weights=[1.0, 1.0])
    voted = nodes.execute({**state, "current": ensemble, "proposal": proposal},
                          runtime)["attempts"]["a3"]
    assert voted.succeeded and voted.phase == "ensemble" and len(voted.fold_scores) == 3
    attempts_dir = tmp_path / "run" / "attempts"
    assert list(attempts_dir.glob("a3*/folds/*/predictions.npz"))  # voted, ...
    assert not list(attempts_dir.glob("a3*/folds/*/job.json"))  # ... no fold job ran
    assert list(attempts_dir.glob("a1*/folds/*/job.json")) or \
        list(attempts_dir.glob("a1*/folds/*/predictions.npz"))
    # a module that fails once fitted on every row: the refit falls back to a member
    broken = ensemble.model_copy(update={"code": ensemble.code + (
        "\n\n_build = build_pipeline\n\n\ndef build_pipeline(task):\n"
        "    raise RuntimeError('composed module broke')\n")})
    better = voted.model_copy(update={"score": 1.0})  # kept: it beats both members
    report = nodes.report({**state, "attempts": {**state["attempts"], "a3": better},
                           "candidates": {**state["candidates"], "a3": broken},
                           "proposal": proposal}, runtime)
    assert report["ensemble"].kept is False and "refit failed" in report["ensemble"].reason
    assert report["refit"].status == "ok" and report["refit"].test_score > 0.8


def test_a_stacking_that_cannot_be_cross_fitted_is_not_run(tmp_path, sandbox):
    """A stacking's level-2 model was learnt from every row's stored predictions: run on
    the folds, it would score rows that model saw. When its cross-fit is refused (here a
    member's stored predictions are gone), it fails unrun; a vote would run instead."""
    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.ensembler.agent import Ensembler
    from pipesmith.agents.executor import OOF_FILE

    state, runtime = _two_members(tmp_path, sandbox)
    members = list(state["attempts"].values())
    proposal = Ensembler().propose(members, state["inputs"], strategies=("stacking",))
    assert proposal.strategy == "stacking"
    stacking = Coder().ensemble("a3", list(state["candidates"].values()), state["profile"],
                                state["inputs"], strategy="stacking",
                                weights=proposal.weights, level2=proposal.level2)
    (Path(members[0].workdir) / OOF_FILE).unlink()
    attempt = nodes.execute({**state, "current": stacking, "proposal": proposal},
                            runtime)["attempts"]["a3"]
    assert attempt.status == "error" and not attempt.succeeded
    assert "not run" in attempt.error_tail and "a1 has no out-of-fold" in attempt.error_tail
    assert not list((tmp_path / "run" / "attempts").glob("a3*/folds/*/job.json"))
