"""The leaderboard: from a real run (tests/pipesmith/conftest.py), and the reasons for
what never ran from states routing would have stopped at."""

from __future__ import annotations

import json

import pytest

from pipesmith.agents.schemas import (
    Attempt,
    Candidate,
    CandidateSpec,
    EnsembleOutcome,
    Plan,
    RunInputs,
)
from pipesmith.core.leaderboard import build_leaderboard, not_run_reason


@pytest.mark.slow  # the shared real run (tests/pipesmith/conftest.py)
def test_the_chosen_candidate_is_marked_and_the_others_say_why_not(explained_run):
    report, out = explained_run
    rows = {r.name: r for r in report.leaderboard}
    chosen = [r for r in report.leaderboard if r.chosen]
    assert len(chosen) == 1 and chosen[0].name == report.final_candidate
    assert chosen[0].attempts == [report.final_attempt] and chosen[0].rank == 1
    assert chosen[0].cv_mean == report.score and chosen[0].cv_std == report.cv_score.std
    assert chosen[0].test_score == report.test_score and chosen[0].why_not_chosen is None
    failed = next(r for r in report.leaderboard if r.attempts == ["a1"])
    assert failed.status == "rejected" and failed.cv_mean is None and failed.rank is None
    assert failed.why_not_chosen == "failed pre-validation: syntax.invalid_syntax"
    # the task's families left out of the two-candidate plan, each with its reason
    unplanned = [r for r in report.leaderboard if r.status == "not_planned"]
    assert unplanned and all(r.why_not_chosen.startswith("not planned: ") for r in unplanned)
    assert "at most 2 candidates" in rows["random_forest"].why_not_chosen
    # report.json holds it; report.md shows it as a table with the chosen row marked
    saved = json.loads((out / "report.json").read_text())
    assert saved["schema_version"] == 6
    assert [r["name"] for r in saved["leaderboard"]] == [r.name for r in report.leaderboard]
    md = (out / "report.md").read_text()
    assert "## Leaderboard" in md
    assert f"| 1 | **{report.final_candidate}** (chosen) ({report.final_attempt}) |" in md
    assert "failed pre-validation: syntax.invalid_syntax |" in md


SPECS = [CandidateSpec(name="ridge", family="ridge"),
         CandidateSpec(name="knn", family="knn", params={"n_neighbors": 15}),
         CandidateSpec(name="random_forest", family="random_forest")]


def state(*, elapsed: float, ensemble_reason: str = "") -> dict:
    inputs = RunInputs(run_id="r", task_text="t", dataset="d", data_path="p", target="y",
                       task_type="regression", metric="rmse", out_dir="o", budget_s=60.0)
    attempts = [Attempt(id="a1", parent=None, candidate="ridge", phase="draft", status="ok",
                        score=3.0, cv_std=0.2, fold_wall_s=1.0, wall_s=2.0),
                Attempt(id="a2", parent=None, candidate="knn", phase="draft", status="ok",
                        score=3.5, cv_std=0.3, fold_wall_s=1.0, wall_s=2.0)]
    return {"inputs": inputs, "plan": Plan(candidates=SPECS), "next_index": 2,
            "attempts": {a.id: a for a in attempts},
            "candidates": {a.id: Candidate(id=a.id, name=a.candidate, phase="draft", code="",
                                           spec=spec)
                           for a, spec in zip(attempts, SPECS[:2], strict=True)},
            "timings": {"execute": elapsed},
            "search": {"best": [{"number": 7, "family": "random_forest", "status": "ok",
                                 "params": {"max_depth": 4}, "score": 3.2, "fit_s": 0.4}],
                       "rejected": {"svr": "data_flow.missing_column: no column 'z'"},
                       "families": ["random_forest", "svr", "extra_trees"]}}


def test_unrun_entries_say_why_and_losers_by_how_much():
    spent = state(elapsed=58.0)  # routing kept the last seconds for the refit
    final = spent["attempts"]["a1"]
    rows = build_leaderboard(spent, final, EnsembleOutcome(strategy="single"), None,
                             not_run_reason(spent))
    by_name = {r.name: r for r in rows}
    assert by_name["random_forest"].status == "not_run" and by_name["random_forest"].\
        why_not_chosen == "not run: time budget: the time left was kept for the refit and " \
        "the report"
    # rmse: lower is better, and the loser's gap is in the metric's own direction
    assert by_name["knn"].why_not_chosen == "higher CV rmse than ridge by 0.5000"
    assert by_name["knn"].params == "n_neighbors=15"
    trial = by_name["search trial 7"]
    assert (trial.status, trial.cv_mean, trial.params) == ("trial", 3.2, "max_depth=4")
    assert trial.why_not_chosen == "not drafted: higher CV rmse than ridge by 0.2000"
    assert by_name["svr"].why_not_chosen.startswith("not run: failed pre-validation")
    assert by_name["extra_trees"].status == "searched"
    # scored rows first, best first, ranked; the chosen one marked
    assert [(r.rank, r.name) for r in rows[:3]] == [(1, "ridge"), (2, "search trial 7"),
                                                     (3, "knn")]
    assert [r.name for r in rows if r.chosen] == ["ridge"]


def test_a_candidate_that_costs_more_than_the_time_left_is_not_run_for_the_budget():
    tight = state(elapsed=52.0)  # 2 s left before the reserve; a candidate costs 2 s
    assert not_run_reason(tight) == ("time budget: a candidate costs more than the time "
                                     "that was left")
    assert not_run_reason(state(elapsed=1.0)) == "the run went on to the ensemble before " \
        "reaching it"
    # after a warm search, 3 s before the reserve: a 2 s run would fit, but not beside the
    # vote of three kept after the search (1.33 s beyond the reserve's floor)
    warm = state(elapsed=51.0)
    warm["search"] = {**warm["search"], "took_the_rest": True}
    assert not_run_reason(warm) == ("time budget: the time left was kept for the ensemble "
                                    "after the search")


def test_a_family_the_person_excluded_says_so():
    excluded = state(elapsed=10.0)
    excluded["inputs"] = excluded["inputs"].model_copy(
        update={"excluded_families": ["hist_gradient_boosting"]})
    rows = build_leaderboard(excluded, excluded["attempts"]["a1"],
                             EnsembleOutcome(strategy="single"), None, not_run_reason(excluded))
    row = next(r for r in rows if r.family == "hist_gradient_boosting")
    assert (row.status, row.why_not_chosen) == ("not_planned",
                                                "not planned: the person excluded it")


def test_a_row_shows_the_parameters_the_code_ran_with_not_the_plans():
    """The pre-validator shrinks a model whose predicted time does not fit (shrink_model
    edits the code): its row shows the 100 trees that were fitted, not the 300 planned."""
    from pipesmith.agents.repair.patches.resources import shrink_model

    planned = CandidateSpec(name="random_forest", family="random_forest",
                            params={"n_estimators": 300, "min_samples_leaf": 1})
    code = ("from sklearn.ensemble import RandomForestRegressor\n\n\n"
            "def build_pipeline(task):\n"
            "    return RandomForestRegressor(n_estimators=300, min_samples_leaf=1, "
            "n_jobs=task['n_jobs'])\n")
    shrunk = shrink_model(code, None, None)
    ran = state(elapsed=10.0)
    ran["candidates"]["a2"] = Candidate(id="a2", name="random_forest", phase="draft",
                                        code=shrunk, spec=planned)
    ran["attempts"]["a2"] = ran["attempts"]["a2"].model_copy(update={"candidate": "random_forest"})
    rows = build_leaderboard(ran, ran["attempts"]["a1"], EnsembleOutcome(strategy="single"),
                             None, not_run_reason(ran))
    assert "n_estimators=100" in shrunk
    assert next(r for r in rows if r.attempts == ["a2"]).params == \
        "min_samples_leaf=1, n_estimators=100"
