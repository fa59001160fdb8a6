"""Pure routing functions: the next node from the state and the topology alone.

Budgets (time, candidates, repair rounds) are checked here, never inside agents. The
topology (a frozen description, graph/topologies.py) says which nodes exist; the builder
binds it, so each function stays a pure function of its arguments.
"""

from __future__ import annotations

from typing import Literal

from pipesmith.agents.llm.ledger import budget_reason
from pipesmith.graph.state import RunState, elapsed_s, repair_depth
from pipesmith.graph.topologies import TOPOLOGIES, Topology

# Keep this share of the budget for the ensemble, the refit and the report, ...
RESERVE_SHARE = 0.1
REFIT_SLACK = 1.5  # ... or, when more, this many times the slowest successful fold job
FULL = TOPOLOGIES["full"]


def reserve_s(state: RunState) -> float:
    """Seconds kept back for the refit on all development rows and the report."""
    folds = [a.fold_wall_s for a in (state.get("attempts") or {}).values() if a.succeeded]
    return max(state["inputs"].budget_s * RESERVE_SHARE, REFIT_SLACK * max(folds, default=0.0))


def has_time(state: RunState) -> bool:
    return elapsed_s(state) < state["inputs"].budget_s - reserve_s(state)


def fits_another(state: RunState) -> bool:
    """Anytime: a new candidate starts only when what a successful candidate has cost so
    far (the median) fits in the time left before the reserve."""
    costs = sorted(a.wall_s + a.smoke_s for a in (state.get("attempts") or {}).values()
                   if a.succeeded and a.phase != "ensemble")
    if not costs:
        return True
    typical = costs[len(costs) // 2]
    return elapsed_s(state) + typical < state["inputs"].budget_s - reserve_s(state)


def has_llm_budget(state: RunState) -> bool:
    """In LLM mode, whether the token and cost budgets allow another model call."""
    inputs = state["inputs"]
    return budget_reason(state.get("llm_usage") or {}, inputs.max_tokens_total,
                         inputs.max_cost) is None


def next_step(state: RunState, topology: Topology = FULL) -> Literal[
        "draft", "search", "ensemble", "report"]:
    """Anytime: draft planned candidates until one succeeds (a valid model early); then,
    when the topology searches, search once (the planned candidates not yet drafted become
    its first trials, and its winners join the plan); then draft the rest, then ensemble."""
    more = state.get("next_index", 0) < len(state["plan"].candidates)
    if topology.search and state.get("search") is None and has_time(state) and \
            any(a.succeeded for a in (state.get("attempts") or {}).values()):
        return "search"
    if more and has_time(state) and fits_another(state) and has_llm_budget(state):
        return "draft"
    return "ensemble" if topology.ensemble else "report"


def repair_stop(severity: str | None, depth: int, max_rounds: int, time_left: bool = True,
                model_budget_left: bool = True) -> str | None:
    """Why a failed lineage gets no further repair, or None when another round may go.
    The rule of the run's graph and of `pipesmith repair` alike."""
    if severity == "critical":
        return "the failure is critical: repairing the code cannot help"
    if depth >= max_rounds:
        return f"the round limit ({max_rounds}) is reached"
    if not time_left:
        return "the time budget is spent"
    if not model_budget_left:
        return "the model budget is spent"
    return None


def after_search(state: RunState, topology: Topology = FULL) -> Literal[
        "draft", "search", "ensemble", "report"]:
    return next_step(state, topology)


def can_repair(state: RunState, severity: str | None) -> bool:
    """Within the round limit and the time and model budgets; a critical diagnosis is not
    worth a repair (raw feedback carries no severity, so it is always retried)."""
    current = state["current"]
    return repair_stop(severity, repair_depth(state, current.id),
                       state["inputs"].max_repair_rounds, has_time(state),
                       has_llm_budget(state)) is None


def after_failure(state: RunState, topology: Topology) -> Literal[
        "diagnose", "repair", "draft", "search", "ensemble", "report"]:
    """A failed or rejected candidate: classify it, retry it on the raw error, or move on."""
    if topology.feedback == "taxonomy":
        return "diagnose"
    if state["current"].phase == "ensemble":
        return "report"
    if topology.feedback == "raw" and can_repair(state, None):
        return "repair"
    return next_step(state, topology)


def after_prevalidate(state: RunState, topology: Topology = FULL) -> Literal[
        "execute", "diagnose", "repair", "draft", "search", "ensemble", "report"]:
    if state.get("current") is None:  # the coder drafted nothing: its model budget is spent
        return "ensemble" if topology.ensemble else "report"
    rejected = state["current"].id in (state.get("attempts") or {})
    return after_failure(state, topology) if rejected else "execute"


def after_execute(state: RunState, topology: Topology = FULL) -> Literal[
        "draft", "search", "ensemble", "diagnose", "repair", "report"]:
    current = state["current"]
    attempt = state["attempts"][current.id]
    if not attempt.succeeded:
        return after_failure(state, topology)
    return "report" if current.phase == "ensemble" else next_step(state, topology)


def after_diagnose(state: RunState, topology: Topology = FULL) -> Literal[
        "repair", "draft", "search", "ensemble", "report"]:
    current = state["current"]
    if current.phase == "ensemble":
        return "report"
    diagnosis = state["attempts"][current.id].diagnosis
    if diagnosis is not None and can_repair(state, diagnosis.severity):
        return "repair"
    return next_step(state, topology)


def after_repair(state: RunState, topology: Topology = FULL) -> Literal[
        "prevalidate", "execute", "draft", "search", "ensemble", "report"]:
    if state.get("current") is not None:
        return topology.checked
    return next_step(state, topology)


def after_ensemble(state: RunState, topology: Topology = FULL) -> Literal[
        "prevalidate", "execute", "report"]:
    return topology.checked if state.get("current") is not None else "report"
