"""Budget arithmetic is a pure function of the state (graph/budget.py)."""

from __future__ import annotations

import pytest

from pipesmith.agents.schemas import EnsembleProposal
from pipesmith.graph import budget
from tests.graph.test_routing import attempt, state


def test_a_run_keeps_the_reserve_for_the_refit_once_a_model_exists():
    # no valid model yet: a run may use the budget up to its end
    assert budget.run_time_left(state(elapsed=40.0)) == 20.0
    # afterwards the reserve (here 1.5 x the slowest fold job for the refit, one more for
    # the permutation control, and the report's share) stays
    slow = attempt("a1").model_copy(update={"fold_wall_s": 8.0, "wall_s": 20.0})
    assert budget.reserve_s(state(attempts=[slow])) == 2.5 * 8.0 + budget.REPORT_S
    assert budget.run_time_left(state(attempts=[slow], elapsed=40.0)) == \
        20.0 - 2.5 * 8.0 - budget.REPORT_S
    # on warm workers the control's folds are forks: a candidate's fits, no interpreter
    warm = slow.model_copy(update={"wall_s": 2.0})
    assert budget.reserve_s(state(attempts=[warm])) == 1.5 * 8.0 + 2.0 + budget.REPORT_S
    # without the control, the refit's alone; on a busy machine the report takes longer
    plain = state(attempts=[slow])
    plain["inputs"] = plain["inputs"].model_copy(update={"permutation_control": False})
    assert budget.reserve_s(plain) == 1.5 * 8.0 + budget.REPORT_S
    assert budget.reserve_s({**plain, "pace": 3.0}) == 1.5 * 8.0 + 3 * budget.REPORT_S
    # the reserve holds the tail of the candidate the run would choose, the best so far,
    # not the slowest's (hotel_rates at 60 s: 20 s kept for an extra trees scored 0.02 r2
    # below the gradient boosting chosen, whose tail took 8 s)
    worse_and_slower = attempt("a2", score=0.3).model_copy(update={"fold_wall_s": 30.0,
                                                                   "wall_s": 90.0})
    assert budget.reserve_s(state(attempts=[slow, worse_and_slower])) == \
        budget.reserve_s(state(attempts=[slow]))
    assert budget.contender(state(attempts=[slow, worse_and_slower])).id == "a1"
    rmse = state(attempts=[slow, worse_and_slower])
    rmse["inputs"] = rmse["inputs"].model_copy(update={"metric": "rmse"})  # lower is better
    assert budget.contender(rmse).id == "a2"
    assert budget.reserve_s(rmse) == 1.5 * 30.0 + 30.0 + budget.REPORT_S
    # as the report chooses: a search winner within one standard error of the planned best
    # is not chosen, so its tail is not the one kept (ames at 300 s: a tuned CatBoost won
    # by 0.0066 CV against a standard error of 0.0065)
    planned = slow.model_copy(update={"score": 0.33, "fold_scores": [0.35, 0.30, 0.35, 0.30,
                                                                    0.33]})
    tuned = worse_and_slower.model_copy(update={
        "candidate": "catboost_tuned", "score": 0.36, "fold_scores": [0.50, 0.10, 0.60,
                                                                      0.20, 0.40]})
    assert budget.contender(state(attempts=[planned, tuned])).id == "a1"
    assert budget.reserve_s(state(attempts=[planned, tuned])) == budget.reserve_s(
        state(attempts=[planned]))
    clear = tuned.model_copy(update={"fold_scores": [0.40, 0.36, 0.41, 0.35, 0.38],
                                     "score": 0.38})
    assert budget.contender(state(attempts=[planned, clear])).id == "a2"
    # a plain script (`pipesmith repair`) has no metric and no score: no contender, the floor
    script = state(attempts=[slow.model_copy(update={"score": None, "script": True})])
    script["inputs"] = script["inputs"].model_copy(update={"metric": "none"})
    assert budget.contender(script) is None
    assert budget.reserve_s(script) == 0.1 * script["inputs"].budget_s
    # and the time outside nodes counts like any node's
    outside = state(attempts=[slow], elapsed=40.0)
    outside["timings"]["outside nodes"] = 5.0
    assert budget.run_time_left(outside) == budget.run_time_left(
        state(attempts=[slow], elapsed=45.0))


def test_a_run_times_out_at_a_multiple_of_its_predicted_bound_within_the_time_left():
    inputs = state()["inputs"]
    # nothing predicted: the time left, within the per-run limit
    assert budget.run_timeout(state(elapsed=10.0)) == min(inputs.run_timeout_s, 50.0)
    # a 2 s bound: 30 s at least (a fast prediction must not cut a slow start short)
    assert budget.run_timeout(state(elapsed=10.0), wall_bound_s=2.0) == 30.0
    # a 15 s bound: three times it, but never past the time left
    assert budget.run_timeout(state(elapsed=10.0), wall_bound_s=15.0) == min(45.0, 50.0)
    assert budget.run_timeout(state(elapsed=30.0), wall_bound_s=15.0) == 30.0
    # past the budget: the floor, so that the run can still say why it failed
    assert budget.run_timeout(state(elapsed=70.0)) == budget.MIN_RUN_TIMEOUT_S


def test_the_search_leaves_time_for_one_winner_or_does_not_start():
    run = attempt("a1").model_copy(update={"wall_s": 10.0, "fold_wall_s": 2.0})
    early = state(attempts=[run], elapsed=10.0, budget=300.0)
    early["inputs"] = early["inputs"].model_copy(update={"search_share": 0.5})
    allowance = budget.search_allowance(early, max_winners=3)
    left = 300.0 - budget.reserve_s(early) - 10.0
    assert allowance.skipped is None
    assert allowance.seconds == 0.5 * left
    assert allowance.n_winners == 3  # 130 s after the search buys 13 runs; capped at 3
    late = state(attempts=[run], elapsed=40.0)
    late["inputs"] = late["inputs"].model_copy(update={"search_share": 0.5})
    skipped = budget.search_allowance(late, max_winners=3)
    assert skipped.seconds == 0.0 and "needed to start its workers" in skipped.skipped
    off = state(attempts=[run])
    off["inputs"] = off["inputs"].model_copy(update={"search_share": 0.0})
    off = budget.search_allowance(off, max_winners=3)
    assert off.skipped == "turned off (search_share 0)"


def test_on_warm_workers_the_search_takes_all_but_an_ensembles_time():
    run = attempt("a1").model_copy(update={"wall_s": 4.0, "fold_wall_s": 1.0})
    now = state(attempts=[run], elapsed=10.0, budget=60.0)
    now["inputs"] = now["inputs"].model_copy(update={"search_share": 0.6})
    left = 60.0 - budget.reserve_s(now) - 10.0
    warm = budget.search_allowance(now, max_winners=3, workers_running=True)
    # winners adopt their trials, and the vote that follows fits nothing before its refit:
    # after the search, time for a vote of three members like the costliest so far (in
    # its refit and control, two more fits: 4 s over five folds in three rounds each)
    assert budget.after_search_s(now) == pytest.approx((1.5 + 1) * 2 * 4.0 / 3)
    assert warm.seconds == pytest.approx(left - (1.5 + 1) * 2 * 4.0 / 3)
    assert warm.seconds > 0.6 * left
    assert warm.n_winners == 3
    # a topology without an ensemble (full-no-ensemble) keeps no time for one
    alone = budget.search_allowance(now, max_winners=3, workers_running=True, ensemble=False)
    assert alone.seconds == pytest.approx(left)
    # fold jobs: each winner runs again, so the share holds
    cold = budget.search_allowance(now, max_winners=3, workers_running=False)
    assert cold.seconds == 0.6 * left
    # a slow candidate: the rule for fold jobs is the floor (the share, or all but one
    # more run: 41 s left, 11 s after a 30 s run); a vote of three like it would cost
    # more than is left (50 s), so the floor holds on warm workers too
    slow = attempt("a1").model_copy(update={"wall_s": 30.0, "fold_wall_s": 3.0})
    late = state(attempts=[slow], elapsed=10.0, budget=60.0)
    late["inputs"] = late["inputs"].model_copy(update={"search_share": 0.6})
    assert budget.search_allowance(late, 3, workers_running=False).seconds == 11.0
    assert budget.after_search_s(late) == pytest.approx((1.5 + 1) * 2 * 30.0 / 3)
    assert budget.search_allowance(late, 3, workers_running=True).seconds == 11.0


def test_an_ensemble_runs_only_when_its_members_and_refit_fit():
    a = attempt("a1").model_copy(update={"wall_s": 6.0, "fold_wall_s": 2.0})
    b = attempt("a2").model_copy(update={"wall_s": 4.0, "fold_wall_s": 1.0})
    caruana = EnsembleProposal(strategy="caruana", members=["a1", "a2"], weights=[0.5, 0.5],
                               estimated_score=0.9)
    # a vote is scored from the members' out-of-fold predictions: no fit; the refit, one
    # job, and the permutation control fit the second member beyond the reserve: one of
    # its fits (4 s / 3 rounds: five folds), not its fold job (a fresh interpreter's start
    # is the reserve's, once)
    assert budget.ensemble_cost_s(state(attempts=[a, b]), caruana) == \
        pytest.approx((1.5 + 1) * 4.0 / 3)
    # under n_jobs 1 a run fits its folds one at a time: 4 s was five fits, not three,
    # and the control's two folds are two rounds (at three rounds, 17 of 66 votes at 60 s
    # were left out as too costly)
    one_worker = {**state(attempts=[a, b]), "fold_workers": 1}
    assert budget.ensemble_cost_s(one_worker, caruana) == pytest.approx((1.5 + 2) * 4.0 / 5)
    # stacking's level-2 model is learnt from the same stored predictions: no member runs
    # again, it costs what the vote costs
    stacking = caruana.model_copy(update={"strategy": "stacking"})
    assert budget.ensemble_cost_s(state(attempts=[a, b]), stacking) == \
        budget.ensemble_cost_s(state(attempts=[a, b]), caruana)
    assert budget.ensemble_fits(state(attempts=[a, b], elapsed=20.0), stacking)
    # a consensus of clusterings fits its members again: their runs count
    clusters = state(attempts=[a, b])
    clusters["inputs"] = clusters["inputs"].model_copy(update={"task_type": "clustering"})
    consensus = caruana.model_copy(update={"strategy": "consensus"})
    assert budget.ensemble_cost_s(clusters, consensus) == \
        pytest.approx(10.0 + budget.members_cost_s(clusters, [a, b], runs=0))


def test_the_time_after_a_warm_search_is_a_vote_of_three_like_the_costliest_of_the_best():
    def run(aid, score, wall, fold, smoke=0.0):
        return attempt(aid, score=score).model_copy(update={
            "wall_s": wall, "fold_wall_s": fold, "smoke_s": smoke})

    # r2: the best three by score are a4, a2, a3; a1 (the slowest, worst) is not a member,
    # and no smoke run counts (an ensemble gets none); the winners to come are members
    # too, so each of three is costed like a4, the costliest of the three (6 s)
    done = [run("a1", 0.1, 30.0, 9.0, smoke=5.0), run("a2", 0.8, 4.0, 1.0, smoke=3.0),
            run("a3", 0.7, 2.0, 0.5), run("a4", 0.9, 6.0, 2.0),
            run("a5", 0.85, 50.0, 10.0).model_copy(update={"phase": "ensemble"})]
    now = state(attempts=done, elapsed=10.0, budget=300.0)
    # no fit before the refit; in the refit and the control, all but the best's fits (a4,
    # whose tail the reserve holds)
    expected = (1.5 + 1) * (6.0 + 6.0) / 3
    assert budget.after_search_s(now) == pytest.approx(expected)
    proposal = EnsembleProposal(strategy="caruana", members=["a4", "a2", "a3"],
                                weights=[0.5, 0.3, 0.2], estimated_score=0.9)
    assert budget.ensemble_cost_s(now, proposal) == pytest.approx((1.5 + 1) * 6.0 / 3)
    # a metric where lower is better picks the other end: a1, the slowest, is a member
    rmse = {**now, "inputs": now["inputs"].model_copy(update={"metric": "rmse"})}
    assert budget.after_search_s(rmse) == pytest.approx((1.5 + 1) * (30.0 + 30.0) / 3)
    # nothing has succeeded: no vote to keep time for
    assert budget.after_search_s(state(elapsed=10.0)) == 0.0
    # the search takes the rest; the rule before kept three mean runs, smoke included
    left = budget.left_before_reserve(now)
    allowance = budget.search_allowance(now, max_winners=3, workers_running=True)
    assert allowance.seconds == pytest.approx(left - expected)
    budget.SIZE_BY_ENSEMBLE_COST = False
    try:
        before = budget.search_allowance(now, max_winners=3, workers_running=True)
    finally:
        budget.SIZE_BY_ENSEMBLE_COST = True
    per_run = (35.0 + 7.0 + 2.0 + 6.0 + 50.0) / 5  # every success's run, smoke included
    assert before.seconds == max(0.6 * left, left - 3 * per_run) < allowance.seconds


def test_a_warm_search_with_no_time_after_an_ensemble_is_skipped_and_says_so():
    slow = attempt("a1").model_copy(update={"wall_s": 12.0, "fold_wall_s": 4.0,
                                            "smoke_s": 2.0})
    late = state(attempts=[slow], elapsed=33.0, budget=60.0)
    # 15.5 s before the reserve (the refit's 1.5 x 4 s, the control's 4 s, the report's
    # 1.5 s), 20 s for a vote's refit and control (two more fits of 12 s / 3 rounds, 2.5
    # times), and by the share less than nothing after one more run (14 s)
    assert budget.left_before_reserve(late) == 15.5
    assert budget.after_search_s(late) == pytest.approx((1.5 + 1) * 2 * 12.0 / 3)
    skipped = budget.search_allowance(late, max_winners=3, workers_running=True)
    assert skipped.seconds == 0.0 and "after an ensemble" in skipped.skipped
    # that time goes to the next planned candidate (its run fits: 14 s of 15.5 s) ...
    assert budget.fits_another(late)
    # ... but with none left to draft, or none whose run fits, the search takes it all
    # rather than leave it to nothing
    done = state(attempts=[slow], elapsed=33.0, budget=60.0, next_index=3)
    assert budget.search_allowance(done, 3, workers_running=True) == \
        budget.SearchAllowance(15.5, 3)
    slower = slow.model_copy(update={"smoke_s": 15.0})  # 27 s a run: none fits
    tight = state(attempts=[slower], elapsed=33.0, budget=60.0)
    assert not budget.fits_another(tight)
    assert budget.search_allowance(tight, 3, workers_running=True).seconds == \
        budget.left_before_reserve(tight)
    # too little even for a search: skipped as before
    spent = state(attempts=[slow], elapsed=43.0, budget=60.0, next_index=3)
    assert budget.left_before_reserve(spent) < budget.MIN_SEARCH_S
    assert budget.search_allowance(spent, 3, workers_running=True).skipped


def test_a_sampled_cross_validation_keeps_the_refit_of_every_row_in_reserve():
    from pipesmith.agents.schemas import DataProfile
    from pipesmith.graph import rows

    # the folds fitted 40,000 of a 50,000-row sample in 4 s (2 s of it the job's start)
    final = attempt("a1").model_copy(update={"fold_wall_s": 4.0, "wall_s": 4.0,
                                             "smoke_s": 2.0})
    sampled = state(attempts=[final], budget=120.0)
    sampled["inputs"] = sampled["inputs"].model_copy(update={"cv_rows": 50_000,
                                                             "cv_folds": 1})
    sampled["profile"] = DataProfile(n_rows=800_000, n_columns=2, columns=[], target="y")
    refit = rows.refit_s(800_000, 4.0, 40_000, 2.0)  # 2 + 1.5 x 2 s x 20 = 62 s
    assert abs(refit - 62.0) < 1e-9
    assert budget.reserve_s(sampled) == refit + 4.0 + budget.REPORT_S
    # the same fold job on every row keeps 1.5 of it: the refit's rows are the folds'
    whole = state(attempts=[final], budget=120.0)
    assert budget.reserve_s(whole) == max(12.0, 1.5 * 4.0 + 4.0 + budget.REPORT_S)


def test_the_permutation_control_gets_what_the_budget_leaves_after_the_refit():
    final = attempt("a1").model_copy(update={"fold_wall_s": 10.0, "wall_s": 30.0})
    # early: its own limit, three fold jobs and 10 s
    assert budget.control_timeout_s(state(attempts=[final], elapsed=5.0, budget=120.0),
                                    final) == 40.0
    # later: what is left after the refit (1.5 x 10 s) and the report (1.5 s)
    assert budget.control_timeout_s(state(attempts=[final], elapsed=30.0), final) == \
        pytest.approx(60.0 - 30.0 - 15.0 - budget.REPORT_S)
    # past the reserve: a short control, not none and not its own 40 s
    assert budget.control_timeout_s(state(attempts=[final], elapsed=42.0), final) == \
        budget.MIN_CONTROL_S


def test_the_refits_explanations_get_what_the_budget_leaves_after_its_fit():
    from pipesmith.core import contributions, importance

    final = attempt("a1").model_copy(update={"fold_wall_s": 4.0, "wall_s": 12.0})
    # 60 s: 40 spent, 1 s of the report node so far, a 6 s fit, the report's 1.5 s
    assert budget.explain_s(state(attempts=[final], elapsed=40.0), final, 1.0) == \
        pytest.approx(60.0 - 40.0 - 1.0 - 6.0 - budget.REPORT_S)
    assert budget.explain_s(state(attempts=[final], elapsed=58.0), final) == \
        budget.MIN_EXPLAIN_S
    inputs = state()["inputs"].model_copy(update={"task_type": "classification",
                                                  "metric": "accuracy"})
    # the jobs' own caps (a share of the refit's time limit) hold when the budget is loose
    assert importance.job_request(inputs, 120.0, 3.0)["max_s"] == 3.0
    assert importance.job_request(inputs, 120.0, 300.0)["max_s"] == 30.0
    assert contributions.job_request(inputs, 120.0, 3.0)["max_s"] == 3.0
    assert contributions.job_request(inputs, 120.0)["max_s"] == 18.0


def test_a_vote_may_take_the_reserves_floor_beyond_the_tail():
    a = attempt("a1").model_copy(update={"wall_s": 6.0, "fold_wall_s": 1.0})
    b = attempt("a2").model_copy(update={"wall_s": 6.0, "fold_wall_s": 1.0})
    # at 50 s of 60 the tail is 4 s (a refit of 1.5 x 1 s, a control of 1 s, the report's
    # 1.5 s) and the reserve its floor, 6 s: 4 s are left before it; the vote costs 5 s
    # (in its refit and control one more fit of 6 s / 3 rounds, 2.5 times)
    late = state(attempts=[a, b], elapsed=50.0)
    assert budget.tail_now_s(late) == 4.0 and budget.reserve_s(late) == 6.0
    caruana = EnsembleProposal(strategy="caruana", members=["a1", "a2"], weights=[0.5, 0.5],
                               estimated_score=0.9)
    assert budget.ensemble_cost_s(late, caruana) == pytest.approx(5.0)
    assert budget.left_before_reserve(late) == 4.0
    # the vote is the chosen pipeline: the floor beyond its tail is its to use, and a
    # stacking's, which fits nothing before its refit either
    assert budget.ensemble_fits(late, caruana)
    assert budget.ensemble_fits(late, caruana.model_copy(update={"strategy": "stacking"}))
    # with less than the vote's cost beyond the tail, no vote
    assert not budget.ensemble_fits(state(attempts=[a, b], elapsed=52.0), caruana)
    # one member's class-weighted decisions cost nothing beyond its refit: they fit even
    # past the reserve (caravan at load 5 lost them, 0.63 to 0.54, to a search that ran long)
    weighted = EnsembleProposal(strategy="single", members=["a1", "a2"], weights=[1.0, 0.0],
                                estimated_score=0.9, class_weights={"0": 1.0, "1": 4.0})
    assert budget.ensemble_cost_s(late, weighted) == 0.0
    assert budget.ensemble_fits(state(attempts=[a, b], elapsed=58.0), weighted)


def test_a_search_winner_that_adopted_its_trial_is_not_a_run_to_cost():
    run = attempt("a1").model_copy(update={"wall_s": 9.0, "smoke_s": 1.0})
    adopted = [attempt(f"a{i}").model_copy(update={"wall_s": 0.5, "adopted_trial": i})
               for i in (2, 3)]
    # 40 s of 60: 14 s before the reserve; a run like a1 (10 s) fits, and so it would
    # whatever the winners' seconds, which are their trials' fits, not runs
    assert budget.fits_another(state(attempts=[run, *adopted], elapsed=36.0))
    # at 50 s (4 s left) the median of the runs (10 s) does not fit, though the median
    # with the adopted winners counted (0.5 s) would
    assert not budget.fits_another(state(attempts=[run, *adopted], elapsed=50.0))


def test_after_a_warm_search_the_planned_candidates_leave_the_ensembles_time():
    """hotel_rates at 60 s, every seed: the warm search kept time for a vote after it, then
    the planned candidates it left (ridge, random forest, extra trees: 6-10 s) ran in that
    time, and the vote was left out for its members' cost."""
    run = attempt("a1").model_copy(update={"wall_s": 6.0, "fold_wall_s": 2.0})
    winner = attempt("a2", score=0.6).model_copy(update={"wall_s": 9.0, "fold_wall_s": 3.0,
                                                        "adopted_trial": 4})

    def after_search(elapsed, took_the_rest=True):
        return state(attempts=[run, winner], elapsed=elapsed,
                     search={"trials": 30, "took_the_rest": took_the_rest})

    now = after_search(38.0)
    # the contender is the winner: its tail (1.5 x 3 s refit, 3 s control, 1.5 s report:
    # 9 s) is over the reserve's floor (6 s); a vote of three like the costliest (two more
    # fits of 9 s over three rounds: 2.5 times each) costs 15 s beyond it
    assert budget.reserve_s(now) == pytest.approx(9.0)
    assert budget.after_search_s(now) == pytest.approx((1.5 + 1) * 2 * 9.0 / 3)
    assert budget.kept_for_ensemble_s(now) == pytest.approx(15.0)
    # 13 s before the reserve: a planned run of 6 s fitted before; now it does not, as
    # it would leave the vote 7 s of its 15 s
    assert budget.left_before_reserve(now) == pytest.approx(13.0)
    assert not budget.fits_another(now)
    assert budget.fits_another(after_search(38.0, took_the_rest=False))
    # with time for both, it runs
    assert budget.fits_another(after_search(28.0))
    # before any search, nothing is kept
    assert budget.kept_for_ensemble_s(state(attempts=[run, winner], elapsed=38.0)) == 0.0


def test_a_warm_search_keeps_more_time_after_it_as_costlier_winners_join():
    """boston at 60 s: the time after the search was sized on an HGB of 0.9 s; the tuned
    CatBoost that won took 2.4 s, became the contender with a longer tail, and no vote fitted."""
    from pipesmith.agents.search.runner import TrialResult

    hgb = attempt("a1").model_copy(update={"wall_s": 0.9, "fold_wall_s": 1.7})
    now = state(attempts=[hgb], elapsed=10.0)

    def trial(walls, score=0.6, share=1.0):
        return TrialResult(number=20, family="catboost", params={}, share=share, status="ok",
                           score=score, folds={k: ({"wall_s": w}, {}) for k, w in
                                               enumerate(walls)})

    # a trial's adoption: its slowest fold, its fits over the workers
    cheap = budget.winner_attempt(trial([1.0] * 5), workers=2)
    assert (cheap.fold_wall_s, cheap.wall_s, cheap.adopted_trial) == (1.0, 2.5, 20)
    assert budget.winner_attempt(trial([1.0] * 5, share=0.3), workers=2) is None
    # before: a vote of three like the HGB, 1.5 s (two more fits of 0.3 s, 2.5 times each);
    # with the winner, three like it (fits of 2.5 s / 3 rounds): 4.17 s; the tail (4 s)
    # stays under the reserve's floor (6 s)
    assert budget.after_search_s(now) == pytest.approx(2.5 * 2 * 0.9 / 3)
    assert budget.winners_growth_s(now, [cheap]) == pytest.approx(2.5 * 2 * 2.5 / 3 - 1.5)
    # a slower winner's tail (1.5 x 3 s refit, 3 s control, 1.5 s report: 9 s) passes the
    # floor: that grows the time too
    slow = budget.winner_attempt(trial([3.0] * 5), workers=2)
    assert budget.winners_growth_s(now, [slow]) == pytest.approx(
        2.5 * 2 * 7.5 / 3 + 9.0 - 1.5 - 6.0)
    # a winner no better and no costlier than the best so far: nothing more
    assert budget.winners_growth_s(now, [budget.winner_attempt(
        trial([0.1] * 5, score=0.4), workers=2)]) == 0.0
