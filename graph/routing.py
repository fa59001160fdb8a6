"""Pure routing functions: the next node from the state and the topology alone.

Budgets (time, candidates, repair rounds) are checked here, never inside agents; the time
arithmetic itself is graph/budget.py. The
topology (a frozen description, graph/topologies.py) says which nodes exist; the builder
binds it, so each function stays a pure function of its arguments.
"""

from __future__ import annotations

from typing import Literal

from pipesmith.agents.llm.ledger import budget_reason
from pipesmith.agents.repair.reformulate import tried_actions
from pipesmith.agents.schemas import Diagnosis
from pipesmith.graph.budget import adoption_fits, fits_another, has_time
from pipesmith.graph.state import RunState, lineage, repair_depth
from pipesmith.graph.topologies import TOPOLOGIES, Topology

FULL = TOPOLOGIES["full"]


def has_llm_budget(state: RunState) -> bool:
    """In LLM mode, whether the token and cost budgets allow another model call."""
    inputs = state["inputs"]
    return budget_reason(state.get("llm_usage") or {}, inputs.max_tokens_total,
                         inputs.max_cost) is None


def next_step(state: RunState, topology: Topology = FULL) -> Literal[
        "draft", "search", "ensemble", "report"]:
    """Anytime: draft planned candidates until one succeeds (a valid model early); then,
    when the topology searches, search once (the planned candidates not yet drafted become
    its first trials, and its winners join the plan); then draft the rest, then ensemble.
    A winner that adopts its trial joins while its refit fits, with no run of its own."""
    more = state.get("next_index", 0) < len(state["plan"].candidates)
    if topology.search and state.get("search") is None and has_time(state) and \
            any(a.succeeded for a in (state.get("attempts") or {}).values()):
        return "search"
    fits = has_time(state) and fits_another(state) or adoption_fits(state)
    if more and fits and has_llm_budget(state):
        return "draft"
    if topology.search and search_again(state):
        return "search"
    return "ensemble" if topology.ensemble else "report"


def search_again(state: RunState) -> bool:
    """A search skipped for time gets one more look once the candidates that fitted have
    run: the estimates that skipped it (the tail, the vote after it) are upper bounds, and
    what they did not need went unused (attrition, caravan, wa_churn at 60 s: the search
    skipped with 0.3-4.6 s "left after an ensemble", the runs ended at 42-54 s). The
    search node looks again and records its decision with the attempts it saw, so it
    looks once per new attempt at most."""
    record = state.get("search") or {}
    seen = record.get("attempts")
    return "skipped" in record and seen is not None and has_time(state) and \
        len(state.get("attempts") or {}) > seen


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


def why_stopped(state: RunState) -> str:
    """Why the repair loop ended (`pipesmith repair`), in words: it works, the stop rule
    (repair_stop: a critical failure, the round limit, the time or model budget) ended it,
    or the coder had no repair left to offer for the last failure."""
    attempts = state.get("attempts") or {}
    last = attempts[max(attempts, key=lambda i: int(i.lstrip("a")))]
    depth = repair_depth(state, last.id)
    if last.succeeded and last.diagnosis is None:
        return "it works as it is" if depth == 0 else f"it works after {depth} repair round(s)"
    diagnosis = last.diagnosis
    if diagnosis is None:
        return f"it ended with status {last.status} and no diagnosis"
    key = f"{diagnosis.taxonomy_class}.{diagnosis.subclass}"
    if state.get("current") is not None:  # routing sent it on without a repair
        stop = repair_stop(diagnosis.severity, depth, state["inputs"].max_repair_rounds,
                           has_time(state), has_llm_budget(state))
        return f"{key} remains and {stop or 'no further round was routed'}"
    chain = lineage(state, last.id)
    tried = tried_actions(chain, {c.id: attempts[c.id].diagnosis for c in chain
                                  if c.id in attempts})
    return nothing_left(key, diagnosis, tried, chain[0].spec is not None)


def nothing_left(key: str, diagnosis: Diagnosis, tried: list[str], has_plan: bool) -> str:
    """Why the coder had no repair to offer, in words."""
    done = [t.split("@")[0] for t in tried if t.endswith("@" + diagnosis.signature)]
    patches = [a for a in diagnosis.repair_actions if a != "redraft"]
    text = f"no repair left for {key}: "
    text += f"already tried {', '.join(done)}; " if done else ""
    untried = [a for a in patches if a not in done]
    text += (f"{', '.join(untried)} changed nothing or repeated earlier code" if untried
             else f"the rule table has no {'other ' if done else ''}patch for it")
    if "redraft" in diagnosis.repair_actions and not has_plan:
        text += "; code without a plan cannot be redrafted offline"
    return text
