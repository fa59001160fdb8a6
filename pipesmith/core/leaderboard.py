"""The run's leaderboard: every candidate it tried, kept search trials, and what it never
ran, each with the referee's figures and why it was not chosen (report.json
`leaderboard`, docs/report-schema.md).

A draft and its repairs are one candidate: the row shows the lineage's outcome (its
successful attempt when one succeeded, else its last), and `attempts` lists every id.
Rows are ordered: scored rows by CV score (best first, `rank` 1..n; the chosen one is
marked, and may rank below a row the selection rules passed over), then failed ones, then
what never ran, then the task's families the plan left out.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from pipesmith.agents.prevalidator.resources import as_coded
from pipesmith.agents.schemas import Attempt, EnsembleOutcome, RefitOutcome
from pipesmith.core.metrics import get_metric, is_better
from pipesmith.graph.state import RunState

Source = Literal["candidate", "ensemble", "search", "plan", "registry"]
PARAMS_CHARS = 120
PERSON_EXCLUDED = "the person excluded it"  # the chat's "why not X?" answers by it


class LeaderboardRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    rank: int | None = None  # among rows with a CV score, 1 = best
    name: str
    family: str
    source: Source  # where the row comes from (a run candidate, a kept trial, the plan ...)
    status: str  # ok, poor, rejected, a sandbox status, trial, not_run, not_planned
    attempts: list[str] = []  # the lineage's attempt ids, in order
    params: str = ""  # a short digest of the parameters
    cv_mean: float | None = None
    cv_std: float | None = None
    time_s: float | None = None  # candidates: sandbox seconds of the CV jobs; trials: fit s
    test_score: float | None = None  # the chosen pipeline only (the one refit)
    chosen: bool = False
    why_not_chosen: str | None = None


def params_digest(params: dict) -> str:
    text = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in sorted(params.items()))
    return text if len(text) <= PARAMS_CHARS else text[: PARAMS_CHARS - 1] + "…"


def build_leaderboard(state: RunState, final: Attempt | None, ensemble: EnsembleOutcome,
                      refit: RefitOutcome | None, not_run_reason: str) -> list[LeaderboardRow]:
    """The rows from the run's state; `not_run_reason`: why routing drafted no more."""
    inputs = state["inputs"]
    metric = inputs.metric
    attempts = state.get("attempts") or {}
    candidates = state.get("candidates") or {}
    rows = [_lineage_row(lineage, candidates, final, ensemble, refit, metric)
            for lineage in _lineages(attempts, candidates)]
    search = state.get("search") or {}
    rows += _trial_rows(search, candidates, attempts, final, metric)
    plan = state["plan"].candidates
    rows += [LeaderboardRow(name=spec.name, family=spec.family, source="plan",
                            status="not_run", params=params_digest(spec.params),
                            why_not_chosen=f"not run: {not_run_reason}")
             for spec in plan[state.get("next_index", 0):]]
    rows += [LeaderboardRow(name=name, family=name, source="search", status="rejected",
                            why_not_chosen=f"not run: failed pre-validation ({message[:160]})")
             for name, message in (search.get("rejected") or {}).items()]
    if ensemble.strategy not in ("single", "none") and \
            not any(a.phase == "ensemble" for a in attempts.values()):
        rows.append(LeaderboardRow(name=f"ensemble ({ensemble.strategy})", family="ensemble",
                                   source="ensemble", status="not_run",
                                   why_not_chosen=f"not run: {ensemble.reason}"))
    rows += _searched_only(search, {r.family for r in rows})
    profile = state.get("profile")
    rows += _not_planned(inputs, profile.n_rows if profile else 0, {r.family for r in rows})
    return _ranked(rows, metric)


def _lineages(attempts: dict[str, Attempt], candidates: dict) -> list[list[Attempt]]:
    """Attempts grouped by their draft (a repair joins its root), in creation order."""
    groups: dict[str, list[Attempt]] = {}
    for attempt in attempts.values():
        root = attempt.id
        while candidates.get(root) is not None and candidates[root].parent is not None:
            root = candidates[root].parent
        groups.setdefault(root, []).append(attempt)
    return list(groups.values())


def _lineage_row(lineage: list[Attempt], candidates: dict, final: Attempt | None,
                 ensemble: EnsembleOutcome, refit: RefitOutcome | None,
                 metric: str) -> LeaderboardRow:
    done = [a for a in lineage if a.succeeded]
    shown = next((a for a in done if final and a.id == final.id), None) or \
        (done[0] if done else lineage[-1])
    candidate = candidates.get(shown.id)
    spec = candidate.spec if candidate is not None else None
    chosen = final is not None and shown.id == final.id
    is_ensemble = shown.phase == "ensemble"
    name = f"ensemble ({ensemble.strategy})" if is_ensemble else shown.candidate
    return LeaderboardRow(
        name=name, family="ensemble" if is_ensemble else (spec.family if spec else
                                                          shown.candidate),
        source="ensemble" if is_ensemble else "candidate", status=shown.status,
        attempts=[a.id for a in lineage],
        params=params_digest(as_coded(spec, candidate.code).params) if spec else "",
        cv_mean=shown.score if shown.succeeded else None,
        cv_std=shown.cv_std if shown.succeeded else None, time_s=round(shown.wall_s, 3),
        test_score=refit.test_score if chosen and refit else None, chosen=chosen,
        why_not_chosen=None if chosen else _why(shown, final, ensemble, metric))


def _why(attempt: Attempt, final: Attempt | None, ensemble: EnsembleOutcome,
         metric: str) -> str:
    if not attempt.succeeded:
        d = attempt.diagnosis
        what = f"{d.taxonomy_class}.{d.subclass}" if d else attempt.status
        if attempt.status == "poor":
            return f"poor: {d.summary[:120] if d else 'judged untrustworthy'}"
        if attempt.status == "rejected":
            return f"failed pre-validation: {what}"
        return f"failed: {what}"
    if final is None:
        return "no candidate was chosen"
    if attempt.phase == "ensemble":  # ran, and the nested-CV decision did not keep it
        return f"not kept: {ensemble.reason}"
    if ensemble.kept and attempt.id in ensemble.members:
        weight = ensemble.weights[ensemble.members.index(attempt.id)] \
            if len(ensemble.weights) == len(ensemble.members) else None
        share = f" (weight {weight:.2f})" if weight is not None else ""
        return f"a member of the chosen {ensemble.strategy} ensemble{share}"
    return compared(attempt.score, final.candidate if final.phase != "ensemble"
                    else f"the {ensemble.strategy} ensemble", final.score, metric,
                    searched_rule=attempt.candidate.endswith("_tuned")
                    and not final.candidate.endswith("_tuned"))


def compared(score: float | None, winner: str, winner_score: float | None, metric: str,
             searched_rule: bool = False) -> str:
    """Why a scored row lost to the winner, in the metric's own direction."""
    if score is None or winner_score is None:
        return f"{winner} was chosen"
    gap = abs(winner_score - score)
    if is_better(metric, winner_score, score):
        worse = "lower" if get_metric(metric).greater_is_better else "higher"
        return f"{worse} CV {metric} than {winner} by {gap:.4f}"
    if score == winner_score:
        return f"same CV {metric} as {winner}, which came first"
    better = "higher" if get_metric(metric).greater_is_better else "lower"
    rule = ("a search winner must beat the best planned candidate by more than one "
            "standard error of their paired fold differences (its score is optimistic)"
            if searched_rule else "the ensemble decision chose it")
    return f"{better} CV {metric} than {winner} by {gap:.4f}, but {rule}"


def _trial_rows(search: dict, candidates: dict, attempts: dict, final: Attempt | None,
                metric: str) -> list[LeaderboardRow]:
    """The trials the search kept (its best few), with the candidate each became."""
    rows = []
    for trial in search.get("best") or []:
        number = trial.get("number")
        drafted = next((c for c in candidates.values() if c.spec is not None and
                        c.spec.rationale.startswith(f"search trial {number}:")), None)
        if drafted is not None:
            ran = [a.id for a in attempts.values() if candidates[a.id].spec == drafted.spec]
            why = (f"its configuration ran as {drafted.name} ({', '.join(ran)})"
                   + (", the chosen candidate" if final and final.id in ran else ""))
        else:
            why = "not drafted: " + compared(trial.get("score"), final.candidate, final.score,
                                              metric) if final else "no candidate was chosen"
        rows.append(LeaderboardRow(
            name=f"search trial {number}", family=str(trial.get("family")), source="search",
            status="trial", params=params_digest(trial.get("params") or {}),
            cv_mean=trial.get("score"), time_s=trial.get("fit_s"), why_not_chosen=why))
    return rows


def _searched_only(search: dict, listed: set[str]) -> list[LeaderboardRow]:
    """Learners the search tried whose trials all fell below the ones it kept."""
    return [LeaderboardRow(name=family, family=family, source="search", status="searched",
                           why_not_chosen="searched: none of its trials was among the "
                           "search's best")
            for family in search.get("families") or [] if family not in listed]


def _not_planned(inputs, n_rows: int, listed: set[str]) -> list[LeaderboardRow]:
    """The task's other known families and why the plan left them out."""
    from pipesmith.agents.families.backends import planned_backends
    from pipesmith.agents.families.registry import FAMILIES, installed

    rows = []
    for family in FAMILIES:
        if family.task_type != inputs.task_type or family.name in listed:
            continue
        if family.name in inputs.excluded_families:  # said first: it is the person's reason
            why = PERSON_EXCLUDED
        elif not installed(family):
            why = f"dependency: {family.requires} is not installed"
        elif family.backend not in planned_backends(inputs.backend, n_rows):
            why = f"{family.backend} models were not asked for (--backend {inputs.backend})"
        elif family.max_rows is not None and n_rows > family.max_rows:
            why = f"too slow for {n_rows} rows (at most {family.max_rows})"
        elif inputs.families and family.name not in inputs.families:
            why = "the person asked for other families"
        else:
            why = f"the plan holds at most {inputs.max_candidates} candidates"
        rows.append(LeaderboardRow(name=family.name, family=family.name, source="registry",
                                   status="not_planned", why_not_chosen=f"not planned: {why}"))
    return rows


def _ranked(rows: list[LeaderboardRow], metric: str) -> list[LeaderboardRow]:
    sign = 1.0 if get_metric(metric).greater_is_better else -1.0
    scored = sorted((r for r in rows if r.cv_mean is not None), key=lambda r: -sign * r.cv_mean)
    order = {"not_run": 2, "searched": 3, "not_planned": 4}
    rest = sorted((r for r in rows if r.cv_mean is None),
                  key=lambda r: order.get(r.status, 1))
    return [r.model_copy(update={"rank": i}) for i, r in enumerate(scored, 1)] + rest


def not_run_reason(state: RunState) -> str:
    """Why routing drafted no more planned candidates (graph/routing.py's next_step)."""
    from pipesmith.graph.budget import (
        fits_another,
        has_time,
        kept_for_ensemble_s,
        left_before_reserve,
        run_cost_s,
    )
    from pipesmith.graph.routing import has_llm_budget

    if not has_llm_budget(state):
        return "model budget: the token or cost budget was spent"
    if not has_time(state):
        return "time budget: the time left was kept for the refit and the report"
    if not fits_another(state):
        if kept_for_ensemble_s(state) and run_cost_s(state) < left_before_reserve(state):
            return "time budget: the time left was kept for the ensemble after the search"
        return "time budget: a candidate costs more than the time that was left"
    return "the run went on to the ensemble before reaching it"
