"""Pure routing functions: the next node from the state alone.

Budgets (time, candidates, repair rounds) are checked here, never inside agents.
"""

from __future__ import annotations

from typing import Literal

from pipesmith.agents.llm.ledger import budget_reason
from pipesmith.graph.state import RunState, elapsed_s, repair_depth

# Keep this share of the budget for the ensemble and the report.
RESERVE_SHARE = 0.1


def has_time(state: RunState) -> bool:
    budget = state["inputs"].budget_s
    return elapsed_s(state) < budget * (1 - RESERVE_SHARE)


def has_llm_budget(state: RunState) -> bool:
    """In LLM mode, whether the token and cost budgets allow another model call."""
    inputs = state["inputs"]
    return budget_reason(state.get("llm_usage") or {}, inputs.max_tokens_total,
                         inputs.max_cost) is None


def next_step(state: RunState) -> Literal["draft", "ensemble"]:
    more = state.get("next_index", 0) < len(state["plan"].candidates)
    return "draft" if more and has_time(state) and has_llm_budget(state) else "ensemble"


def after_prevalidate(state: RunState) -> Literal["execute", "diagnose", "ensemble"]:
    if state.get("current") is None:  # the coder drafted nothing: its budget is spent
        return "ensemble"
    rejected = state["current"].id in (state.get("attempts") or {})
    return "diagnose" if rejected else "execute"


def after_execute(state: RunState) -> Literal["draft", "ensemble", "diagnose", "report"]:
    current = state["current"]
    attempt = state["attempts"][current.id]
    if not attempt.succeeded:
        return "diagnose"
    if current.phase == "ensemble":
        return "report"
    return next_step(state)


def after_diagnose(state: RunState) -> Literal["repair", "draft", "ensemble", "report"]:
    current = state["current"]
    if current.phase == "ensemble":
        return "report"
    diagnosis = state["attempts"][current.id].diagnosis
    can_repair = (
        diagnosis is not None
        and diagnosis.severity == "recoverable"
        and repair_depth(state, current.id) < state["inputs"].max_repair_rounds
        and has_time(state)
        and has_llm_budget(state)
    )
    return "repair" if can_repair else next_step(state)


def after_repair(state: RunState) -> Literal["prevalidate", "draft", "ensemble"]:
    return "prevalidate" if state.get("current") is not None else next_step(state)


def after_ensemble(state: RunState) -> Literal["prevalidate", "report"]:
    return "prevalidate" if state.get("current") is not None else "report"
