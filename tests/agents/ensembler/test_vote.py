"""A vote scored from its members' out-of-fold predictions (Executor.combine) is what
running its composed module on the same folds in the real sandbox gives, with no fit."""

from __future__ import annotations

import numpy as np
import pytest

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.executor import Executor, load_oof
from pipesmith.agents.families.registry import get_family
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.schemas import Attempt, CandidateSpec
from tests.conftest import make_inputs


def _ran(sandbox, tmp_path, inputs, profile, cid: str, family_name: str):
    family = get_family(inputs.task_type, family_name)
    spec = CandidateSpec(name=family_name, family=family_name, params=family.params,
                         scale=family.scale, encoding=family.encoding)
    candidate = Coder().draft(cid, spec, profile, inputs)
    result, metrics = Executor(sandbox).run(candidate, inputs, tmp_path / cid, timeout_s=120)
    assert result.ok, result.stderr[-2000:]
    attempt = Attempt(id=cid, parent=None, candidate=family_name, phase="draft", status="ok",
                      score=metrics["score"], fold_scores=metrics["fold_scores"],
                      wall_s=result.wall_s, fold_wall_s=metrics.get("fold_wall_s", 1.0),
                      workdir=str(tmp_path / cid))
    return candidate, attempt


@pytest.mark.parametrize("dataset,families,strategy,weights,class_weights", [
    ("iris", ("logistic_regression", "random_forest"), "caruana", [2.0, 1.0], None),
    ("iris", ("logistic_regression", "random_forest"), "single", [1.0, 0.0],
     {"0": 1.0, "1": 3.0, "2": 0.5}),
    ("diabetes", ("ridge", "random_forest"), "caruana", [1.0, 3.0], None),
])
def test_a_vote_from_stored_predictions_is_what_its_module_predicts(
        sandbox, tmp_path, dataset, families, strategy, weights, class_weights):
    inputs, frame = make_inputs(tmp_path, dataset, cv_folds=3)
    profile = profile_table(frame, inputs.target, inputs.task_type)
    ran = [_ran(sandbox, tmp_path, inputs, profile, f"a{n}", name)
           for n, name in enumerate(families, start=1)]
    ensemble = Coder().ensemble("a3", [c for c, _ in ran], profile, inputs, strategy=strategy,
                                weights=weights, class_weights=class_weights)
    kept = [(a, w) for (_, a), w in zip(ran, weights, strict=True) if w > 0]
    voted = Executor(sandbox).combine(ensemble, [a for a, _ in kept], [w for _, w in kept],
                                      inputs, tmp_path / "voted", class_weights=class_weights)
    assert not isinstance(voted, str), voted
    result, metrics = voted
    # the module, run on the same folds in the sandbox, fits every member again
    run_result, run_metrics = Executor(sandbox).run(ensemble, inputs, tmp_path / "run",
                                                    timeout_s=120)
    assert run_result.ok, run_result.stderr[-2000:]
    assert metrics["fold_scores"] == pytest.approx(run_metrics["fold_scores"], abs=1e-9)
    mine, theirs = load_oof(tmp_path / "voted"), load_oof(tmp_path / "run")
    assert np.array_equal(mine["index"], theirs["index"])
    if inputs.task_type == "classification":
        assert np.array_equal(mine["pred"].astype(str), theirs["pred"].astype(str))
        assert np.allclose(mine["proba"], theirs["proba"], atol=1e-9)
    else:
        assert np.allclose(mine["pred"], theirs["pred"], rtol=1e-9)
    # no fit ran: its times are its members' (what its refit will fit)
    assert result.backend == "vote"
    assert result.wall_s == pytest.approx(sum(a.wall_s for a, _ in kept), abs=1e-3)
    assert not (tmp_path / "voted" / "folds" / "0" / "diagnostics.json").exists()


def test_a_vote_refuses_members_that_were_not_on_the_run_s_folds(sandbox, tmp_path, iris):
    inputs, profile = iris
    three = inputs.model_copy(update={"cv_folds": 3})
    candidate, member = _ran(sandbox, tmp_path, three, profile, "a1", "logistic_regression")
    # the run now cross-validates a sample: the member predicted other rows
    sampled = three.model_copy(update={"cv_rows": 60})
    why = Executor(sandbox).combine(candidate, [member], [1.0], sampled, tmp_path / "v")
    assert isinstance(why, str) and "not on this run's folds" in why
    missing = member.model_copy(update={"workdir": str(tmp_path / "nowhere")})
    why = Executor(sandbox).combine(candidate, [missing], [1.0], three, tmp_path / "w")
    assert isinstance(why, str) and "no out-of-fold predictions" in why


@pytest.mark.parametrize("dataset,families", [
    ("iris", ("logistic_regression", "random_forest")),
    ("diabetes", ("ridge", "random_forest")),
])
def test_a_stacking_is_cross_fitted_from_stored_predictions(sandbox, tmp_path, dataset,
                                                           families):
    """No fold's stacked prediction comes from a level-2 model that saw that fold's labels:
    changing the first fold's labels in the members' stored predictions changes every
    other fold's predictions and none of the first's. The composed module runs as any."""
    from pipesmith.agents.ensembler.agent import Ensembler
    from pipesmith.agents.executor import cv_development
    from pipesmith.core import referee

    inputs, frame = make_inputs(tmp_path, dataset, cv_folds=3)
    profile = profile_table(frame, inputs.target, inputs.task_type)
    ran = [_ran(sandbox, tmp_path, inputs, profile, f"a{n}", name)
           for n, name in enumerate(families, start=1)]
    members = [a for _, a in ran]
    proposal = Ensembler().propose(members, inputs, strategies=("stacking",))
    assert proposal.strategy == "stacking" and proposal.level2 is not None
    ensemble = Coder().ensemble("a3", [c for c, _ in ran], profile, inputs,
                                strategy="stacking", weights=proposal.weights,
                                level2=proposal.level2)

    def stacked(folder, attempts):
        out = Executor(sandbox).combine(ensemble, attempts, proposal.weights, inputs,
                                        tmp_path / folder, strategy="stacking")
        assert not isinstance(out, str), out
        return out

    result, metrics = stacked("stacked", members)
    assert result.backend == "vote" and "stacked" in result.detail
    assert result.wall_s == pytest.approx(sum(a.wall_s for a in members), abs=1e-3)
    dev = cv_development(inputs)
    first = referee.fold_plan(dev, inputs.target, inputs.task_type, 3, inputs.seed)[0]
    changed = []
    for member in members:
        oof = load_oof(member.workdir)
        at = np.searchsorted(oof["index"], first.predict)
        y = oof["y_true"].copy()
        y[at] = np.roll(y[at], 1) if inputs.task_type == "classification" else y[at] + 100.0
        folder = tmp_path / f"changed_{member.id}"
        folder.mkdir()
        np.savez(folder / "oof.npz", **{**oof, "y_true": y})
        changed.append(member.model_copy(update={"workdir": str(folder)}))
    stacked("changed", changed)
    for n in range(3):
        before, after = (np.load(tmp_path / f / "folds" / str(n) / "predictions.npz")
                         for f in ("stacked", "changed"))
        key = "proba" if inputs.task_type == "classification" else "pred"
        assert np.allclose(before[key], after[key]) == (n == 0), n
    # the composed module: its members fitted on each fold, the level-2 model as given
    run_result, run_metrics = Executor(sandbox).run(ensemble, inputs, tmp_path / "run",
                                                    timeout_s=120)
    assert run_result.ok, run_result.stderr[-2000:]
    assert abs(run_metrics["score"] - metrics["score"]) < 0.1
