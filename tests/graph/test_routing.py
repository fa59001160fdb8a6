"""Routing is a pure function of the state."""

from __future__ import annotations

from pipesmith.agents.schemas import (
    Attempt,
    Candidate,
    CandidateSpec,
    Diagnosis,
    Plan,
    RunInputs,
)
from pipesmith.graph import routing
from pipesmith.graph.topologies import get_topology

SPEC = CandidateSpec(name="ridge", family="ridge")


def state(*, attempts=(), candidates=(), current=None, next_index=1, n_planned=3,
          elapsed=0.0, budget=60.0, rounds=3, search=None):
    inputs = RunInputs(run_id="r", task_text="t", dataset="d", data_path="p", target="y",
                       task_type="regression", metric="r2", out_dir="o", budget_s=budget,
                       max_repair_rounds=rounds)
    return {
        "inputs": inputs,
        "plan": Plan(candidates=[SPEC] * n_planned),
        "next_index": next_index,
        "current": current,
        "candidates": {c.id: c for c in candidates},
        "attempts": {a.id: a for a in attempts},
        "timings": {"execute": elapsed},
        "search": search,
    }


def cand(cid, parent=None, phase="draft", spec=SPEC):
    return Candidate(id=cid, name="ridge", phase=phase, code="", parent=parent, spec=spec)


def attempt(aid, status="ok", score=0.5, severity=None, phase="draft"):
    diagnosis = None if severity is None else Diagnosis(
        taxonomy_class="x", subclass="y", severity=severity, summary="")
    return Attempt(id=aid, parent=None, candidate="ridge", phase=phase, status=status,
                   score=score if status == "ok" else None, diagnosis=diagnosis)


def test_prevalidate_routes_rejections_to_diagnosis():
    c = cand("a1")
    assert routing.after_prevalidate(state(current=c, candidates=[c])) == "execute"
    rejected = state(current=c, candidates=[c], attempts=[attempt("a1", "rejected")])
    assert routing.after_prevalidate(rejected) == "diagnose"


def test_success_drafts_the_next_candidate_until_the_plan_or_budget_ends():
    c = cand("a1")
    ok = [attempt("a1")]
    searched = {"trials": 4}
    assert routing.after_execute(state(current=c, candidates=[c], attempts=ok,
                                       search=searched)) == "draft"
    done = state(current=c, candidates=[c], attempts=ok, next_index=3, search=searched)
    assert routing.after_execute(done) == "ensemble"
    late = state(current=c, candidates=[c], attempts=ok, elapsed=55.0)
    assert routing.after_execute(late) == "ensemble"


def test_no_new_candidate_when_a_typical_one_would_overrun_the_budget():
    c = cand("a1")
    slow = attempt("a1").model_copy(update={"wall_s": 40.0})
    roomy = state(current=c, candidates=[c], attempts=[slow], elapsed=10.0,
                  search={"trials": 1})
    assert routing.after_execute(roomy) == "draft"  # 10 + 40 < 60 - reserve
    tight = state(current=c, candidates=[c], attempts=[slow], elapsed=20.0,
                  search={"trials": 1})
    assert routing.after_execute(tight) == "ensemble"  # 20 + 40 would pass the reserve


def test_full_topology_searches_once_after_the_first_valid_model():
    c = cand("a1")
    failed = state(current=c, candidates=[c], attempts=[attempt("a1", "error")])
    assert routing.next_step(failed) == "draft"  # no valid model yet: the portfolio goes on
    ok = state(current=c, candidates=[c], attempts=[attempt("a1")])
    assert routing.after_execute(ok) == "search"
    assert routing.after_search({**ok, "search": {"trials": 3}}) == "draft"
    assert routing.after_search({**ok, "search": {"skipped": "no time"},
                                 "next_index": 3}) == "ensemble"
    no_search = routing.TOPOLOGIES["sage-loop"]
    assert routing.after_execute(ok, no_search) == "draft"


def test_a_search_skipped_for_time_is_looked_at_again_once_the_candidates_have_run():
    c = cand("a2")
    skipped = {"skipped": "3.0 s left for the search after an ensemble", "attempts": 1}
    done = state(current=c, candidates=[c], attempts=[attempt("a1"), attempt("a2")],
                 next_index=3, search=skipped)
    assert routing.after_execute(done) == "search"  # a new attempt since the skip
    # the search node looked again and skipped again: no loop
    assert routing.after_search({**done, "search": {**skipped, "attempts": 2}}) == "ensemble"
    # a search turned off records no attempts: never looked at again
    assert routing.after_execute({**done, "search": {"skipped": "turned off"}}) == "ensemble"
    late = state(current=c, candidates=[c], attempts=[attempt("a1"), attempt("a2")],
                 next_index=3, search=skipped, elapsed=59.5)
    assert routing.after_execute(late) == "ensemble"


def test_failures_go_to_diagnosis_and_ensembles_to_the_report():
    c = cand("a1")
    assert routing.after_execute(
        state(current=c, candidates=[c], attempts=[attempt("a1", "error")])) == "diagnose"
    e = cand("a2", phase="ensemble", spec=None)
    assert routing.after_execute(
        state(current=e, candidates=[e], attempts=[attempt("a2", phase="ensemble")])) == "report"
    assert routing.after_diagnose(state(current=e, candidates=[e], attempts=[
        attempt("a2", "error", severity="recoverable", phase="ensemble")])) == "report"


def test_repair_stops_at_the_round_limit_and_on_critical_failures():
    a1, a2, a3 = cand("a1"), cand("a2", parent="a1"), cand("a3", parent="a2")
    failed = lambda aid, sev="recoverable": attempt(aid, "error", severity=sev)  # noqa: E731
    assert routing.after_diagnose(
        state(current=a1, candidates=[a1], attempts=[failed("a1")])) == "repair"
    two_deep = state(current=a3, candidates=[a1, a2, a3], attempts=[failed("a3")], rounds=2)
    assert routing.after_diagnose(two_deep) == "draft"
    assert routing.after_diagnose(state(current=a1, candidates=[a1],
                                        attempts=[failed("a1", "critical")])) == "draft"
    out_of_time = state(current=a1, candidates=[a1], attempts=[failed("a1")], elapsed=59.0)
    assert routing.after_diagnose(out_of_time) == "ensemble"


def test_nothing_left_to_repair_moves_on():
    assert routing.after_repair(state(current=None)) == "draft"
    assert routing.after_repair(state(current=cand("a2", parent="a1"))) == "prevalidate"
    assert routing.after_ensemble(state(current=None)) == "report"
    assert routing.after_ensemble(state(current=cand("a5", phase="ensemble"))) == "prevalidate"


# --- pipesmith repair: the same routing on the repair topology, and why the loop stopped ---

REPAIR = get_topology("repair")


def script_state(*attempts_, current="last", rounds=3, elapsed=0.0, budget=60.0):
    """A lineage a1 <- a2 <- ... of plain-script candidates, one attempt each."""
    chain = [Candidate(id=a.id, name="train", phase="draft" if i == 0 else "repair", code="",
                       parent=None if i == 0 else attempts_[i - 1].id, script="/x/train.py",
                       repair_action=None if i == 0 else "fix")
             for i, a in enumerate(attempts_)]
    return state(attempts=attempts_, candidates=chain, n_planned=0, rounds=rounds,
                 elapsed=elapsed, budget=budget,
                 current=chain[-1] if current == "last" else current)


def failed(aid, severity="recoverable", actions=("fix",)):
    return Attempt(id=aid, parent=None, candidate="train", phase="draft", status="error",
                   script=True, diagnosis=Diagnosis(
                       taxonomy_class="data", subclass="missing_column", severity=severity,
                       summary="", signature="sig", repair_actions=list(actions)))


def test_a_script_that_exits_0_succeeds_and_the_repair_loop_ends():
    ok = Attempt(id="a1", parent=None, candidate="train", phase="draft", status="ok",
                 script=True)
    s = script_state(ok)
    assert ok.succeeded and routing.after_execute(s, REPAIR) == "report"
    assert routing.why_stopped(s) == "it works as it is"
    fixed = Attempt(id="a3", parent="a2", candidate="train", phase="repair", status="ok",
                    script=True)
    assert routing.why_stopped(script_state(failed("a1"), failed("a2"), fixed)) == \
        "it works after 2 repair round(s)"


def test_the_repair_loop_says_which_stop_rule_ended_it():
    s = script_state(failed("a1"), failed("a2"), rounds=1)
    assert routing.after_diagnose(s, REPAIR) == "report"
    assert routing.why_stopped(s) == \
        "data.missing_column remains and the round limit (1) is reached"
    s = script_state(failed("a1", severity="critical"))
    assert routing.after_diagnose(s, REPAIR) == "report"
    assert routing.why_stopped(s).endswith("the failure is critical: repairing the code "
                                           "cannot help")
    s = script_state(failed("a1"), elapsed=59.0, budget=60.0)
    assert routing.after_diagnose(s, REPAIR) == "report"
    assert routing.why_stopped(s).endswith("the time budget is spent")
    assert routing.after_diagnose(script_state(failed("a1")), REPAIR) == "repair"


def test_the_repair_loop_says_when_the_coder_had_nothing_left():
    # a2 repaired a1 with "fix" and failed the same way; the coder then offered nothing
    s = script_state(failed("a1"), failed("a2", actions=("fix", "redraft")), current=None)
    assert routing.after_repair(s, REPAIR) == "report"
    assert routing.why_stopped(s) == (
        "no repair left for data.missing_column: already tried fix; the rule table has no "
        "other patch for it; code without a plan cannot be redrafted offline")


def test_the_time_between_nodes_is_recorded_when_the_run_has_a_clock():
    import time
    from types import SimpleNamespace

    from pipesmith.graph.builder import timed
    from pipesmith.graph.clock import OUTSIDE_NODES, RunClock

    clock = RunClock(time.perf_counter() - 2.0)  # the run was asked for 2 s ago
    node = timed("plan", lambda state, runtime: {"plan": None})
    first = node({}, SimpleNamespace(context=SimpleNamespace(clock=clock)))["timings"]
    assert first[OUTSIDE_NODES] >= 2.0 and first["plan"] < 1.0
    second = node({}, SimpleNamespace(context=SimpleNamespace(clock=clock)))["timings"]
    assert second[OUTSIDE_NODES] < 1.0  # only what passed since the last node ended
    stopped = SimpleNamespace(context=SimpleNamespace(clock=RunClock.stopped()))  # Deps' default
    assert OUTSIDE_NODES not in node({}, stopped)["timings"]


def test_a_winner_that_adopts_its_trial_joins_after_a_search_that_took_all_the_time():
    """ames at 60 s: the warm search took the time up to the reserve, and its winners (XGBoost
    0.907, HGB 0.897 cross-validated) were never drafted: the final was the ridge (0.881)
    that ran before the search. An adopted winner has no run of its own; it needs its
    refit, control and report only."""
    from pipesmith.agents.schemas import SearchTrial

    trial = SearchTrial(number=2, score=0.907, share=1.0, params={}, module="", fold_plan="k",
                        folder="f", fold_wall_s=[1.6, 1.9, 1.7, 1.8, 1.5])
    winner = CandidateSpec(name="xgboost (searched)", family="xgboost", trial=trial)
    c = cand("a1")
    ridge = attempt("a1").model_copy(update={"wall_s": 7.0, "fold_wall_s": 1.2})

    def after_search_at(elapsed, next_spec):
        return {**state(current=c, candidates=[c], attempts=[ridge], elapsed=elapsed,
                        search={"trials": 7}), "plan": Plan(candidates=[SPEC, next_spec])}

    # a run like ridge's (7 s) does not fit in the 8 s left; the adopted winner's refit
    # (1.5 x 1.9 s), control (1.9 s) and report (1.5 s) do
    assert routing.after_execute(after_search_at(52.0, SPEC)) == "ensemble"
    assert routing.after_execute(after_search_at(52.0, winner)) == "draft"
    assert routing.after_execute(after_search_at(55.0, winner)) == "ensemble"
