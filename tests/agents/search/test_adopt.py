"""Nothing is computed twice: a search winner whose trial fitted every fold of the run's
fold plan adopts that trial's predictions as its cross-validation (agents/search/adopt.py,
Executor.adopt, the execute node), scored by the referee; anything less and it runs as
any candidate. Real sandbox, small data, 3 folds."""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.coder.bind import bound_module
from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.agents.executor import Executor, load_oof
from pipesmith.agents.families.registry import get_family
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.schemas import Attempt, CandidateSpec
from pipesmith.agents.search.adopt import refusal, save_evidence
from pipesmith.agents.search.runner import Search, TrialRunner, make_folds, run_folds
from tests.conftest import make_inputs

pytestmark = pytest.mark.slow
FAMILY = "logistic_regression"


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    """One bracket of a search on the run's own folds (wine, 3 folds) and the winner's
    evidence, as the search node leaves them."""
    from pipesmith.sandbox.local import LocalSandbox

    tmp = tmp_path_factory.mktemp("adopt")
    inputs, dev = make_inputs(tmp, "wine")
    inputs = inputs.model_copy(update={"out_dir": str(tmp), "cv_folds": 3})
    profile = profile_table(dev, inputs.target, inputs.task_type)
    frame = pd.read_parquet(inputs.data_path)
    folds = make_folds(frame, inputs.target, inputs.task_type, 3, inputs.seed, tmp / "folds",
                       plan=run_folds(frame, inputs))
    family = get_family(inputs.task_type, FAMILY)
    spec = CandidateSpec(name=FAMILY, family=FAMILY, params=family.params,
                         scale=family.scale, encoding=family.encoding)
    module = Coder().searchable(spec, profile, inputs)
    runner = TrialRunner(LocalSandbox(), folds, target=inputs.target,
                         task_type=inputs.task_type, metric=inputs.metric, seed=inputs.seed,
                         memory_mb=4096, disk_mb=256)
    search = Search(runner, [FAMILY], lambda _: module, inputs.metric, inputs.seed,
                    tmp / "search", len(frame), batch=3)
    try:
        search.bracket(time.monotonic() + 120)
    finally:
        runner.close()
    winner = search.best(1)[0]
    evidence = save_evidence(winner, folds, module, tmp / "search" / "adoptable")
    winning = spec.model_copy(update={"name": f"{FAMILY}_tuned", "trial": evidence,
                                      "params": {**family.params, **winner.params}})
    return SimpleNamespace(inputs=inputs, profile=profile, folds=folds, winner=winner,
                           evidence=evidence, spec=winning, tmp=tmp)


def _draft(searched, cid="a2", spec=None):
    return Coder().draft(cid, spec or searched.spec, searched.profile, searched.inputs)


def test_a_winner_on_every_fold_adopts_its_trials_predictions(searched, sandbox):
    assert searched.evidence is not None  # share 1.0 on every fold of the run's plan
    candidate = _draft(searched)
    assert candidate.code == bound_module(searched.evidence.module, searched.winner.params,
                                          searched.winner.number)
    workdir = searched.tmp / "attempts" / "a2"
    result, metrics = Executor(sandbox).adopt(candidate, searched.inputs, workdir)
    assert result.ok and result.backend == "search-trial"
    assert metrics["score"] == pytest.approx(searched.winner.score, rel=1e-12)
    assert result.wall_s > 0 and metrics["fold_wall_s"] > 0  # the trial's measured fits
    # the oof the ensembler reads is the trial's, row for row
    oof, trial = load_oof(workdir), searched.winner.oof
    order = np.argsort(searched.folds.rows)
    assert np.array_equal(oof["index"], searched.folds.rows[order])
    assert np.array_equal(oof["pred"], trial["y_pred"][order].astype(oof["pred"].dtype))
    assert np.allclose(oof["proba"], trial["proba"][order])
    # no fold job ran: the folds hold the trial's predictions, no job of their own
    for k in range(3):
        assert sorted(p.name for p in (workdir / "folds" / str(k)).iterdir()) == \
            ["diagnostics.json", "predictions.npz"]


def test_adoption_is_refused_for_a_lower_share_other_folds_or_other_code(searched, sandbox):
    candidate = _draft(searched)
    key = searched.folds.key
    assert refusal(candidate, key) is None
    low = searched.spec.model_copy(update={"trial": searched.evidence.model_copy(
        update={"share": 0.3})})
    assert "30%" in refusal(_draft(searched, spec=low).model_copy(
        update={"code": candidate.code}), key)
    edited = candidate.model_copy(update={"code": candidate.code + "\n# edited\n"})
    assert "not trial" in refusal(edited, key)
    repaired = candidate.model_copy(update={"phase": "repair"})
    assert "repair" in refusal(repaired, key)
    # the run's folds changed (K 2): the executor says why, and nothing is scored
    two = searched.inputs.model_copy(update={"cv_folds": 2})
    why = Executor(sandbox).adopt(candidate, two, searched.tmp / "attempts" / "k2")
    assert isinstance(why, str) and "other folds" in why
    assert not (searched.tmp / "attempts" / "k2" / "oof.npz").exists()


def test_predictions_the_referee_rejects_are_not_adopted(searched, sandbox, tmp_path):
    """The evidence is re-checked by the referee: a fold's predictions of the wrong length
    (here truncated on disk) refuse the adoption."""
    import shutil

    folder = tmp_path / "evidence"
    shutil.copytree(searched.evidence.folder, folder)
    with np.load(folder / "fold1" / "predictions.npz") as data:
        arrays = {k: data[k][:-1] for k in data.files if k != "classes"}
        arrays["classes"] = data["classes"]
    np.savez(folder / "fold1" / "predictions.npz", **arrays)
    spec = searched.spec.model_copy(update={"trial": searched.evidence.model_copy(
        update={"folder": str(folder)})})
    why = Executor(sandbox).adopt(_draft(searched, spec=spec), searched.inputs,
                                  tmp_path / "attempt")
    assert isinstance(why, str) and "rejected" in why and "rows" in why


def _state(searched, candidate):
    first = Attempt(id="a1", parent=None, candidate=FAMILY, phase="draft", status="ok",
                    score=0.9, wall_s=1.0, fold_wall_s=1.0)
    inputs = searched.inputs.model_copy(update={"budget_s": 120.0})
    return {"inputs": inputs, "profile": searched.profile, "current": candidate,
            "attempts": {"a1": first}, "candidates": {candidate.id: candidate},
            "timings": {}}


def test_the_execute_node_adopts_or_runs_the_candidate_as_before(searched, sandbox):
    from pipesmith.graph.nodes import execute

    runtime = SimpleNamespace(context=SimpleNamespace(
        executor=Executor(sandbox), diagnostician=Diagnostician(), kb=None))
    adopted = execute(_state(searched, _draft(searched, "a2")), runtime)["attempts"]["a2"]
    assert adopted.succeeded and adopted.adopted_trial == searched.winner.number
    assert adopted.score == pytest.approx(searched.winner.score, rel=1e-12)
    assert not (Path(adopted.workdir) / "folds" / "0" / "job.json").exists()
    # a trial on 30% of each fold's rows is no cross-validation of the candidate: it runs
    low = searched.spec.model_copy(update={"trial": searched.evidence.model_copy(
        update={"share": 0.3})})
    candidate = _draft(searched, "a3", low).model_copy(update={"code": _draft(searched).code})
    ran = execute(_state(searched, candidate), runtime)["attempts"]["a3"]
    assert ran.succeeded and ran.adopted_trial is None and "30%" in ran.adoption_refused
    job = json.loads((Path(ran.workdir) / "folds" / "0" / "job.json").read_text())
    assert job["candidate"] == "candidate.py"  # a fold job of its own ran
    assert ran.score == pytest.approx(searched.winner.score, abs=0.05)  # the same pipeline


def test_a_run_with_the_search_adopts_its_winners_cross_validation(tmp_path):
    from pipesmith.api import run
    from pipesmith.settings import Settings

    out = tmp_path / "run"
    report = run(dataset="wine", budget_s=60, out=out,
                 settings=Settings(n_jobs=2, use_kb=False, kb_dir=tmp_path / "kb",
                                   search_share=0.6, warm_workers=True, cv_folds=3))
    assert report.status == "succeeded"
    if "skipped" in report.search:  # a loaded machine may leave no time to search
        pytest.skip(f"the search was skipped: {report.search['skipped']}")
    trials = {r["number"]: r for r in map(json.loads, (out / "search" / "trials.jsonl")
                                          .read_text().splitlines())}
    tuned = [a for a in report.attempts if a.candidate.endswith("_tuned")]
    adopted = [a for a in tuned if a.adopted_trial is not None]
    assert adopted or not tuned, [a.adoption_refused for a in tuned]
    k = report.cv_score.folds
    code_dir = out / "workers" / f"k{k}" / "code"
    for attempt in adopted:
        trial = trials[attempt.adopted_trial]
        assert trial["share"] == 1.0 and attempt.score == pytest.approx(trial["score"],
                                                                         rel=1e-12)
        # no fold job and no warm fit ran for it: its module never reached the workers
        assert not any(p.name.startswith(f"{attempt.id}_") for p in code_dir.iterdir())
        assert not (Path(attempt.workdir) / "folds" / "0" / "job.json").exists()
        evidence = out / "search" / "adoptable" / f"trial_{attempt.adopted_trial}"
        oof = load_oof(attempt.workdir)
        for j, predicted in enumerate(_predicted(out, k)):
            with np.load(evidence / f"fold{j}" / "predictions.npz") as fold:
                trial_pred = fold["pred"][np.argsort(predicted)]  # oof is in row order
            assert np.array_equal(oof["pred"][np.isin(oof["index"], predicted)],
                                  trial_pred.astype(oof["pred"].dtype))
    md = (out / "report.md").read_text()
    assert all(f"CV adopted from search trial {a.adopted_trial}" in md for a in adopted)


def _predicted(out: Path, k: int) -> list[np.ndarray]:
    """The rows each of the run's folds predicts (the referee's plan)."""
    from pipesmith.core.referee import fold_plan

    report = json.loads((out / "report.json").read_text())
    dev = pd.read_parquet(out / "development.parquet")
    return [f.predict for f in fold_plan(dev, report["target"], report["task_type"], k,
                                         report["seed"])]
