"""Budget arithmetic: what the time left allows, as pure functions of the state.

Routing (graph/routing.py) asks whether a node may start; the nodes ask how much time
their agent may spend. Both read it here, so the arithmetic is written once and tested
without a graph (tests/graph/test_budget.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from pipesmith.agents.ensembler.agent import SEARCHED, best_attempt
from pipesmith.agents.ensembler.compose import VOTES
from pipesmith.agents.executor import PARALLEL_FOLDS
from pipesmith.agents.schemas import Attempt, EnsembleProposal
from pipesmith.agents.search.adopt import adopted_wall_s, fold_fit_wall_s
from pipesmith.core import permutation
from pipesmith.core.metrics import get_metric
from pipesmith.core.referee import fold_rounds
from pipesmith.graph import rows
from pipesmith.graph.state import RunState, elapsed_s

# Keep this share of the budget for the ensemble, the refit and the report, ...
RESERVE_SHARE = 0.1
REFIT_SLACK = 1.5  # ... or, when more, this many times the slowest successful fold job
REPORT_S = 1.5  # ... plus this for the report and the knowledge base's record (the plots,
# the importance, the model's files), times the run's pace: at load 7-10 (pace 3.6-5) the
# report took 3.4-5.1 s after the refit, at most 1.1 s per unit of pace (3 s per unit kept
# 9-12 s of those budgets unused; docs/figures.md, budgetfit); plots alone 0.7 s at load 1
# ... and, when the chosen pipeline gets the permutation control (two folds on shuffled
# labels, side by side), one round of a candidate's fits before its refit

CONTROL_SLACK = 3.0  # the control's own time limit: this many of the final's slowest
CONTROL_EXTRA_S = 10.0  # fold job, plus this (a fit on shuffled labels may grow deeper trees)
MIN_CONTROL_S = 5.0  # ... and within the budget, but never less than this
MIN_EXPLAIN_S = 2.0  # the refit's explanations get what the budget leaves, at least this

MIN_RUN_TIMEOUT_S = 5.0
MIN_PREDICTED_TIMEOUT_S = 30.0  # never time a run out sooner than this, ...
TIMEOUT_SLACK = 3.0  # ... or than this many times the predicted wall-time bound

MIN_SEARCH_S = 6.0  # less than this is not worth starting the trial workers, ...
SEARCH_STARTS = 3.0  # ... nor less than this many times the slowest fold job so far
# On warm workers a winner adopts its trial's fold predictions (no run of its own), so the
# time after the search need only hold the ensemble that follows it; the search takes the
# rest (at least its share). False: the share alone, as with fold jobs.
WARM_SEARCH_TAKES_THE_REST = True
# That ensemble: a vote of the best this many candidates so far (at least two), costed as
# ensemble_cost_s costs one, no smoke run. False: ENSEMBLE_RUNS mean candidate runs, smoke
# runs included, the rule before (benchmarks/budget_use.py's baseline arm): on attrition it
# kept 16.8 s after the search for an ensemble that cost 1.7 s plus its refit.
SIZE_BY_ENSEMBLE_COST = True
ENSEMBLE_MEMBERS = 3
ENSEMBLE_RUNS = 3


def _succeeded(state: RunState) -> list[Attempt]:
    return [a for a in (state.get("attempts") or {}).values() if a.succeeded]


def tail_s(state: RunState, refit_s: float, control_s: float) -> float:
    """What follows the last candidate for the chosen pipeline: its refit (`refit_s`), its
    permutation control (`control_s`, when the run holds one) and the report, at the run's
    pace."""
    inputs = state["inputs"]
    control = control_s if inputs.permutation_control and inputs.task_type != "clustering" \
        else 0.0
    return refit_s + control + REPORT_S * (state.get("pace") or 1.0)


def contender(state: RunState) -> Attempt | None:
    """The candidate the run would choose now, as the report chooses (best_attempt: the
    best score, but a search winner only when clearly better than the planned ones), whose
    tail the reserve keeps; an ensemble that joins it pays for its other members
    (members_cost_s). (The slowest one's was kept before: hotel_rates at 60 s kept 20 s for
    an extra-trees' refit and control while a gradient boosting 0.02 r2 better was chosen,
    its tail took 8 s, and the run ended at 44 s with a vote that had not fitted.)"""
    scored = [a for a in _succeeded(state) if a.score is not None]
    if not scored:  # none yet, or plain scripts (`pipesmith repair`: no metric, no score)
        return None
    return best_attempt(scored, state["inputs"].metric)


def tail_now_s(state: RunState) -> float:
    """What must follow the candidates for the one the run would choose now: its
    permutation control, its refit on all development rows and the report."""
    inputs = state["inputs"]
    best = contender(state)
    if best is None:
        return tail_s(state, 0.0, 0.0)
    # the control's folds run as forks of the warm workers (a candidate's fits, `wall_s`)
    # or as one fold job (`fold_wall_s`, an interpreter's start included): the smaller
    control = min(best.fold_wall_s, best.wall_s)
    refit = REFIT_SLACK * best.fold_wall_s
    if inputs.cv_rows:  # the folds fitted a sample; the refit is meant for every row
        refit = max(refit, rows.refit_s(state["profile"].n_rows, best.fold_wall_s,
                                        rows.train_rows(inputs.cv_rows, inputs.cv_folds),
                                        rows.fixed_s(best)))
    return tail_s(state, refit, control)


def reserve_s(state: RunState) -> float:
    """Seconds kept back for the permutation control, the refit on all development rows
    and the report: the tail, or RESERVE_SHARE of the budget when that is more."""
    return max(state["inputs"].budget_s * RESERVE_SHARE, tail_now_s(state))


def control_timeout_s(state: RunState, final: Attempt) -> float:
    """The permutation control's time limit: generous against its own fits (CONTROL_SLACK
    times the final's slowest fold job, plus CONTROL_EXTRA_S), within the per-run limit and
    within what the budget leaves after the final's refit and the report, though never
    under MIN_CONTROL_S: a run already past its reserve gets a short control, reported
    inconclusive when it cannot finish, not one that doubles the overrun (leaf_flavia at
    load 3: its first candidate ended at 42 s of 60, then a 26 s control, a 16 s refit)."""
    inputs = state["inputs"]
    own = min(inputs.run_timeout_s,
              CONTROL_SLACK * max(final.fold_wall_s, 1.0) + CONTROL_EXTRA_S)
    left = inputs.budget_s - elapsed_s(state) - tail_s(
        state, REFIT_SLACK * final.fold_wall_s, 0.0)
    return min(own, max(MIN_CONTROL_S, left))


def explain_s(state: RunState, final: Attempt, spent_s: float = 0.0) -> float:
    """Seconds the refit's explanations (permutation importance, SHAP) may take: what the
    budget leaves after the refit's own fit (REFIT_SLACK times the final's slowest fold
    job) and the report, at least MIN_EXPLAIN_S. `spent_s`: the report node's seconds so
    far. (diamonds at 60 s: an XGBoost refit of 10 s, most of it SHAP and importances
    sized from the job's 120 s limit, ended the run at 65 s.)"""
    left = state["inputs"].budget_s - elapsed_s(state) - spent_s - tail_s(
        state, REFIT_SLACK * final.fold_wall_s, 0.0)
    return max(MIN_EXPLAIN_S, left)


def left_before_reserve(state: RunState) -> float:
    """Seconds left for new work once the reserve is set aside."""
    return state["inputs"].budget_s - reserve_s(state) - elapsed_s(state)


def run_time_left(state: RunState) -> float:
    """Seconds a candidate run may take: up to the budget's end while no candidate has
    succeeded (a valid model first), afterwards up to the reserve, which the refit of the
    chosen one needs."""
    left = state["inputs"].budget_s - elapsed_s(state)
    if _succeeded(state):
        left -= reserve_s(state)
    return left


def has_time(state: RunState) -> bool:
    return left_before_reserve(state) > 0


def adoption_fits(state: RunState) -> bool:
    """The next planned candidate is a search winner that adopts its trial (its folds'
    predictions are already made, so it has no run of its own): it needs the time of its
    refit, its permutation control and the report, not a candidate run's. A warm search
    may take all the time before the reserve; its winners must still join."""
    plan, index = state["plan"].candidates, state.get("next_index", 0)
    trial = plan[index].trial if index < len(plan) else None
    if trial is None:
        return False
    slowest = max(trial.fold_wall_s, default=0.0)
    return state["inputs"].budget_s - elapsed_s(state) > tail_s(state, REFIT_SLACK * slowest,
                                                                 slowest)


def run_cost_s(state: RunState) -> float | None:
    """What a successful planned candidate's run has cost so far (the median; None: none
    yet). A search winner that adopted its trial had no run of its own (its seconds are its
    trial's fits, with no smoke run), so it does not count."""
    costs = sorted(a.wall_s + a.smoke_s for a in _succeeded(state)
                   if a.phase != "ensemble" and a.adopted_trial is None)
    return costs[len(costs) // 2] if costs else None


def fits_another(state: RunState) -> bool:
    """Anytime: a new candidate starts only when a run like the ones so far (run_cost_s)
    fits in the time left before the reserve, and after a warm search, before the time
    that search left for the ensemble (kept_for_ensemble_s)."""
    cost = run_cost_s(state)
    return cost is None or cost < left_before_reserve(state) - kept_for_ensemble_s(state)


def kept_for_ensemble_s(state: RunState) -> float:
    """A search that ran on the warm workers took the time up to its end but what the
    ensemble after it needs (after_search_s, now costed on the best so far, its winners
    among them): the planned candidates it leaves get what lies beyond that, so they do not
    spend the ensemble's time. (At 60 s, 7 of 66 votes were left out for their members'
    cost after 1.3-10 s of planned candidates had run after the search: hotel_rates every
    seed, ames, cars, cps1988, txhousing.) A vote may also take the reserve's floor beyond
    the tail (ensemble_fits), so only what exceeds that floor is kept."""
    if not (state.get("search") or {}).get("took_the_rest"):
        return 0.0
    return max(0.0, tail_now_s(state) + after_search_s(state) - reserve_s(state))


def run_timeout(state: RunState, wall_bound_s: float | None = None) -> float:
    """A run's time limit: the time left (at least MIN_RUN_TIMEOUT_S) within the run's
    per-run limit and, when its wall time was predicted, a generous multiple of the bound
    (so a hung candidate costs that much, not the whole budget)."""
    inputs = state["inputs"]
    timeout = min(inputs.run_timeout_s, max(run_time_left(state), MIN_RUN_TIMEOUT_S))
    if wall_bound_s is not None:
        timeout = min(timeout, max(MIN_PREDICTED_TIMEOUT_S, TIMEOUT_SLACK * wall_bound_s))
    return timeout


@dataclass(frozen=True)
class SearchAllowance:
    """Seconds the search may take and how many winners the time after it can run; or why
    it does not start."""

    seconds: float
    n_winners: int
    skipped: str | None = None


def search_allowance(state: RunState, max_winners: int, workers_running: bool = False,
                     ensemble: bool = True) -> SearchAllowance:
    """The search leaves time for at least one of its winners to run as a candidate (else
    its trials are spent for nothing); the rest of the time decides how many winners run.
    `workers_running`: the run's warm workers take the trials, so none has to start, and
    the winners adopt their trials (no run of their own): the search takes all but the
    time of the ensemble that follows it (after_search_s), or with no `ensemble` in the
    topology, all of it."""
    inputs = state["inputs"]
    left = left_before_reserve(state)
    if inputs.search_share <= 0:
        return SearchAllowance(0.0, 0, "turned off (search_share 0)")
    done = _succeeded(state)
    per_run = max(1.0, sum(a.wall_s + a.smoke_s for a in done) / max(1, len(done)))
    seconds = min(inputs.search_share * left, left - per_run)
    warm_rest = workers_running and WARM_SEARCH_TAKES_THE_REST
    if warm_rest:
        after = after_search_s(state) if SIZE_BY_ENSEMBLE_COST else ENSEMBLE_RUNS * per_run
        seconds = max(seconds, left - (after if ensemble else 0.0))
    # the trial workers start like fold jobs (a few at a time), then the trials need time
    starts = 0.0 if workers_running else SEARCH_STARTS * max((a.fold_wall_s for a in done),
                                                             default=0.0)
    needed = max(MIN_SEARCH_S, starts)
    if warm_rest and seconds < needed <= left and not _planned_run_fits(state):
        # too little for a search and an ensemble, and no planned candidate's run fits:
        # the search takes it all rather than nothing (concrete at load 10 ended 10 s early)
        seconds = left
    if seconds < needed:  # the planned candidates use the time instead
        after = "an ensemble" if warm_rest else "one more candidate run"
        return SearchAllowance(0.0, 0, f"{max(seconds, 0.0):.1f} s left for the search after "
                                       f"{after}, {needed:.1f} s needed to start its workers")
    if warm_rest and SIZE_BY_ENSEMBLE_COST:  # adopted winners cost no run: all may join
        return SearchAllowance(seconds, max(1, max_winners))
    return SearchAllowance(seconds, max(1, min(max_winners, int((left - seconds) / per_run))))


def _planned_run_fits(state: RunState) -> bool:
    """Whether a planned candidate is left to draft and a run like the ones so far fits."""
    plan = state.get("plan")
    left = plan is not None and state.get("next_index", 0) < len(plan.candidates)
    return left and fits_another(state)


def members_cost_s(state: RunState, members: list[Attempt], runs: int) -> float:
    """What an ensemble of these members costs beyond the reserve: `runs` times each
    member's fits on the run's folds (0 for a vote, scored from their stored out-of-fold
    predictions, as a stacking's level-2 model is; 1 for a consensus of clusterings), and in
    its refit, one job, and its permutation control the fits of all its members but the
    contender (the reserve holds that one's fold job, the job's start included). A member's
    one fit is its run's time per round of folds, not its fold job's time, which holds a
    fresh interpreter's start (attrition at load 4: fits of 2.4 s, a fold job of 7.3 s);
    counting that start once per member kept penguins' ensembles from running. The rounds
    are the run's: under n_jobs 1 its folds run one at a time, five rounds, not three (at
    three, 17 of 66 votes at 60 s were left out as too costly), and the control's two
    folds run in two rounds."""
    workers = state.get("fold_workers") or PARALLEL_FOLDS
    fits = [m.wall_s / fold_rounds(state["inputs"].cv_folds, workers) for m in members]
    best = contender(state)
    held = next((f for m, f in zip(members, fits, strict=True)
                 if best is not None and m.id == best.id), 0.0)
    others = sum(fits) - held
    control = fold_rounds(permutation.FOLDS, workers) * others
    return runs * sum(m.wall_s for m in members) + \
        tail_s(state, REFIT_SLACK * others, control) - tail_s(state, 0.0, 0.0)


def after_search_s(state: RunState) -> float:
    """Seconds the time after a warm search holds: a weighted vote of ENSEMBLE_MEMBERS
    members (a stacking costs as much: its level-2 model is learnt from the stored
    predictions). A vote fits nothing before its refit, and the search's winners adopt
    their trials, so this is the members' share of the refit and the control. The winners
    are members too and not known yet: each member but the best so far (the reserve holds
    its tail) is costed like the costliest of the best so far. (Cost as they were, the
    best three left 13 of 22 votes at 60 s out for time; a vote that still does not fit is
    made smaller, Ensembler.fitting_vote.)"""
    greater = get_metric(state["inputs"].metric).greater_is_better
    best = sorted((a for a in _succeeded(state) if a.phase != "ensemble"),
                  key=lambda a: a.score or 0.0, reverse=greater)[:ENSEMBLE_MEMBERS]
    if not best:
        return 0.0
    costliest = max(best, key=lambda a: a.wall_s)
    return members_cost_s(state, best[:1] + [costliest] * (ENSEMBLE_MEMBERS - 1), runs=0)


def winners_growth_s(state: RunState, winners: list[Attempt]) -> float:
    """How much more the time after a warm search must hold once these winners join (as
    the attempts their adoption makes, winner_attempt): a winner that becomes the
    contender brings its own tail, and the vote's members are costed like the costliest
    of the best, winners included. after_search_s is sized on the best at the search's
    start; tuned winners often cost more (boston at 60 s: a tuned CatBoost of 2.4 s against
    the HGB's 0.9 s; the vote was left out 0.4 s short of its 0.9 s at the least)."""
    grown = {**state, "attempts": {**(state.get("attempts") or {}),
                                   **{w.id: w for w in winners}}}
    return max(0.0, after_search_s(grown) + reserve_s(grown)
               - after_search_s(state) - reserve_s(state))


def winner_attempt(trial, workers: int) -> Attempt | None:
    """A search trial (agents/search/runner.py's TrialResult) that fitted every fold at the
    full share, as the attempt its adoption will make, with the times Executor.adopt
    records (its slowest fold's fit; its fits over the run's workers). None otherwise."""
    walls = [fold_fit_wall_s(measured) for measured, _ in trial.folds.values()]
    if trial.share != 1.0 or trial.score is None or not walls:
        return None
    return Attempt(id=f"trial{trial.number}", parent=None,
                   candidate=f"{trial.family}{SEARCHED}", phase="draft", status="ok",
                   score=trial.score, adopted_trial=trial.number, fold_wall_s=max(walls),
                   wall_s=adopted_wall_s(walls, workers))


def ensemble_cost_s(state: RunState, proposal: EnsembleProposal) -> float:
    """What an ensemble costs beyond the reserve: a vote or a stacking its members' share of
    the refit and the control (Executor.combine scores it from their out-of-fold
    predictions); a consensus of clusterings its members' runs again as well."""
    by_id = state.get("attempts") or {}
    members = [by_id[m] for m in proposal.weighted_members if m in by_id]
    votes = proposal.strategy in VOTES and state["inputs"].task_type != "clustering"
    return members_cost_s(state, members, 0 if votes else 1)


def ensemble_fits(state: RunState, proposal: EnsembleProposal) -> bool:
    """Whether the ensemble's cost fits before the reserve. A vote fits nothing before its
    refit, so it may also take the reserve's floor (RESERVE_SHARE of the budget) beyond
    what the tail needs: that floor is kept for the chosen pipeline's tail, and the vote
    is that pipeline."""
    cost = ensemble_cost_s(state, proposal)
    if cost <= 0.0:  # one member's decisions (class weights): its refit is the reserve's
        return True
    if proposal.strategy in VOTES and state["inputs"].task_type != "clustering":
        return cost <= state["inputs"].budget_s - elapsed_s(state) - tail_now_s(state)
    return cost <= left_before_reserve(state)
