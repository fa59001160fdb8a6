"""RunState: what the graph carries between nodes, and its reducers."""

from __future__ import annotations

import operator
from typing import Annotated, Any, NotRequired

from langgraph.channels import EphemeralValue
from langgraph.types import Overwrite
from typing_extensions import TypedDict  # pydantic builds these on 3.11

from pipesmith.agents.llm.ledger import add_usage
from pipesmith.agents.schemas import (
    Attempt,
    Candidate,
    CodeExample,
    DataProfile,
    EnsembleOutcome,
    EnsembleProposal,
    PastRun,
    PermutationControl,
    Plan,
    RefitOutcome,
    RunInputs,
)


def merge(old: dict | None, new: dict | None) -> dict:
    """Entries keyed by id; a newer entry with the same id replaces the older one."""
    return {**(old or {}), **(new or {})}


def add_times(old: dict | None, new: dict | None) -> dict:
    """Seconds spent per node, summed over every visit."""
    out = dict(old or {})
    for node, seconds in (new or {}).items():
        out[node] = round(out.get(node, 0.0) + seconds, 4)
    return out


class RunInput(TypedDict):
    """The graph's narrow input: what to do; with approve_plan, stop for the person's
    approval of the plan (an interrupt) before anything runs."""

    inputs: RunInputs
    approve_plan: NotRequired[bool]


class PlainInput(TypedDict, total=False):
    """The input LangGraph server / Studio takes (langgraph.json's graph): a bundled dataset
    or a data file with its target; the setup node turns it into RunInputs. Each input on a
    thread starts a new run."""

    # (The docstring is the input's description in Studio.) Ephemeral channels: they hold
    # this input's values for the setup node's step only, so a later input on the thread is
    # read alone (a key it leaves out is unset, not the earlier input's). approve_plan is the
    # run graph's durable key, so setup copies it to approval_asked and clears it.
    dataset: Annotated[str, EphemeralValue]
    data_path: Annotated[str, EphemeralValue]
    target: Annotated[str, EphemeralValue]
    task: Annotated[str, EphemeralValue]
    metric: Annotated[str, EphemeralValue]
    budget_s: Annotated[float, EphemeralValue]
    seed: Annotated[int, EphemeralValue]
    task_text: Annotated[str, EphemeralValue]
    approve_plan: bool


REQUEST_KEYS = ("dataset", "data_path", "target", "task", "metric", "budget_s", "seed",
                "task_text")


class RunOutput(TypedDict, total=False):
    """What a finished run hands back: its outcome (status, scores), report and plan."""

    outcome: dict[str, Any]
    report_path: str | None
    plan: Plan
    approval_note: str | None


class RunState(TypedDict, total=False):
    inputs: RunInputs
    approve_plan: bool  # stop at the plan for approval (the chat sets it)
    approval_asked: bool  # the served graph: this run's approve_plan, copied by setup
    approval_note: str | None  # why the last edit was not applied, shown with the plan
    approved: bool  # the person approved the plan
    outcome: dict[str, Any]  # status, scores, final candidate: set by the report node
    profile: DataProfile
    pace: float  # how many times slower than alone a job ran at the run's start (its load)
    fold_workers: int  # a candidate's folds fitted at once (fold_workers: 1 under n_jobs 1)
    past_runs: list[PastRun]
    examples: list[CodeExample]  # code of similar successful past runs, for the coder
    plan: Plan
    next_index: int  # the next planned candidate to draft
    current: Candidate | None  # the candidate being validated, run, diagnosed or repaired
    candidates: Annotated[dict[str, Candidate], merge]
    attempts: Annotated[dict[str, Attempt], merge]
    smoke: Annotated[dict[str, dict], merge]  # smoke-run measurements per candidate
    search: dict | None  # the search's summary (trials, curve, winners); set once it ran
    proposal: EnsembleProposal | None
    ensemble: EnsembleOutcome | None
    refit: RefitOutcome | None  # the chosen pipeline refit and scored on the test part
    # before the refit, the control of each final chosen in turn (the last one's passed)
    permutation_controls: list[PermutationControl]
    timings: Annotated[dict[str, float], add_times]
    report_path: str | None
    stop_reason: str  # `pipesmith repair`: why its loop stopped, in words
    llm_usage: Annotated[dict[str, dict], add_usage]  # tokens, cost, calls per node
    llm_events: Annotated[list[dict], operator.add]  # format errors, fallbacks, budget stops


def fresh_run(inputs: RunInputs, approval_asked: bool) -> dict[str, Any]:
    """The update that starts a new run on a thread that may hold an earlier one (LangGraph
    server): every per-run key back to its empty value, the reducers' too (Overwrite
    bypasses them), so nothing of the earlier run (attempts, timings, outcome) carries over."""
    return {
        "inputs": inputs, "approve_plan": None, "approval_asked": approval_asked,
        "approval_note": None, "approved": False, "outcome": None, "profile": None,
        "pace": None, "fold_workers": None,
        "past_runs": None, "examples": None, "plan": None, "next_index": 0, "current": None,
        "candidates": Overwrite({}), "attempts": Overwrite({}), "smoke": Overwrite({}),
        "search": None, "proposal": None, "ensemble": None, "refit": None,
        "permutation_controls": [], "timings": Overwrite({}), "report_path": None,
        "stop_reason": None,
        "llm_usage": Overwrite({}), "llm_events": Overwrite([]),
    }


def elapsed_s(state: RunState) -> float:
    return sum((state.get("timings") or {}).values())


def next_candidate_id(state: RunState) -> str:
    return f"a{len(state.get('candidates') or {}) + 1}"


def repair_depth(state: RunState, attempt_id: str) -> int:
    """How many repairs separate this attempt from its draft."""
    candidates, depth = state.get("candidates") or {}, 0
    parent = candidates[attempt_id].parent
    while parent is not None:
        depth += 1
        parent = candidates[parent].parent
    return depth


def lineage(state: RunState, attempt_id: str) -> list[Candidate]:
    """The candidate and its ancestors, newest first."""
    candidates, chain = state.get("candidates") or {}, []
    current: str | None = attempt_id
    while current is not None:
        chain.append(candidates[current])
        current = candidates[current].parent
    return chain
