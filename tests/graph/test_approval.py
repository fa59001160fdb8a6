"""The plan a person approves (graph/approval.py): the times it shows, and edits applied to a
real prepared run folder (apply_edits)."""

from __future__ import annotations

import pytest

from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.prevalidator.resources import first_run_wall_s, wants_smoke
from pipesmith.agents.schemas import CandidateSpec, Plan
from pipesmith.core.inputs import prepare_inputs
from pipesmith.errors import InputError
from pipesmith.graph.approval import apply_edits, plan_summary
from tests.conftest import make_inputs

SPECS = [CandidateSpec(name=f, family=f, rationale="", params={})
         for f in ("hist_gradient_boosting", "random_forest")]


@pytest.fixture
def digits_state(tmp_path):
    inputs, dev = make_inputs(tmp_path, "digits", cv_folds=5, n_jobs=2, search_share=0.6)
    return {"inputs": inputs, "profile": profile_table(dev, inputs.target, inputs.task_type),
            "plan": Plan(candidates=SPECS)}


def test_the_run_is_shown_as_the_budget_when_the_search_takes_the_rest(digits_state):
    shown = plan_summary(digits_state, cores=2, pace=1.0)
    assert shown["predicted_wall_s"] == digits_state["inputs"].budget_s
    assert "search" in shown["time_note"]
    alone = plan_summary(digits_state, cores=2, pace=1.0, searches=False)
    planned = sum(c["predicted_wall_s"] for c in alone["candidates"])
    assert alone["time_note"] is None
    assert alone["predicted_wall_s"] == pytest.approx(min(planned, 60.0), abs=0.1)


def test_a_candidate_is_its_smoke_run_and_its_folds_two_at_a_time_the_first_alone_smoked(
        digits_state):
    inputs, profile = digits_state["inputs"], digits_state["profile"]
    assert wants_smoke(profile, inputs.smoke_rows)  # 1,437 rows: a 300-row sample first
    assert not wants_smoke(profile, 0) and not wants_smoke(profile, profile.n_rows)
    spec = SPECS[1]
    warm = first_run_wall_s(profile, spec, 5, inputs.smoke_rows, 2, warm=True)
    fresh = first_run_wall_s(profile, spec, 5, inputs.smoke_rows, 2, warm=False)
    one_at_a_time = first_run_wall_s(profile, spec, 5, inputs.smoke_rows, 1, warm=True)
    no_smoke = first_run_wall_s(profile, spec, 5, 0, 2, warm=True)
    assert 0 < no_smoke < warm < fresh  # each fresh fold job starts an interpreter
    # five folds: three rounds of two, or five rounds of one (two rounds more)
    assert one_at_a_time - warm == pytest.approx(no_smoke * 2 / 3, rel=1e-6)
    # on warm workers the first candidate's run starts them; the second's folds are forks
    # of them, with no smoke run of its own (nodes.prevalidate)
    first = first_run_wall_s(profile, SPECS[0], 5, inputs.smoke_rows, 2, warm=True)
    shown = plan_summary(digits_state, cores=2, pace=1.0)["candidates"]
    assert [c["predicted_wall_s"] for c in shown] == pytest.approx([first, no_smoke], abs=0.05)
    slower = plan_summary(digits_state, cores=2, pace=2.0)["candidates"][1]
    assert slower["predicted_wall_s"] == pytest.approx(2 * no_smoke, abs=0.1)
    fresh_jobs = plan_summary(digits_state, cores=2, pace=1.0, warm=False)["candidates"][1]
    assert fresh_jobs["predicted_wall_s"] == pytest.approx(fresh, abs=0.05)


def test_excluded_families_accumulate_and_re_plan(tmp_path):
    inputs, _ = prepare_inputs(tmp_path / "run", dataset="iris")
    once, goto = apply_edits(inputs, {"exclude_families": ["random_forest"]})
    assert (once.excluded_families, goto) == (["random_forest"], "plan")
    twice, _ = apply_edits(once, {"exclude_families": ["xgboost", "random_forest"]})
    assert twice.excluded_families == ["random_forest", "xgboost"]


@pytest.mark.parametrize("edits, words", [
    ({"exclude_families": ["random_forrest"]}, "no model family named random_forrest"),
    ({"families": ["knn"], "exclude_families": ["knn"]}, "every classification model family"),
])
def test_an_edit_that_leaves_nothing_or_names_no_family_is_refused(tmp_path, edits, words):
    inputs, _ = prepare_inputs(tmp_path / "run", dataset="iris")
    with pytest.raises(InputError, match=words):
        apply_edits(inputs, edits)
