"""LLM mode's search plan: the model proposes the learners to search, their hyperparameter
ranges and feature ideas (prompt `search_space.md`, schema `SearchProposal`); every range
is checked against the installed estimator (agents/search/space_check.py) and what fails is
dropped with a log line. The search and the ensembler then run as offline."""

from __future__ import annotations

import json

import structlog

from pipesmith.agents.families.registry import SPACES, cost_of, families_for
from pipesmith.agents.llm.conversation import bullet_list, system, user
from pipesmith.agents.llm.fallback import Failure, ask_or_fall_back
from pipesmith.agents.llm.gateway import FormatError, Gateway
from pipesmith.agents.llm.ledger import Ledger
from pipesmith.agents.llm.schemas import ProposedRange, SearchProposal
from pipesmith.agents.planner.agent import allowed as allowed_families
from pipesmith.agents.planner.llm import describe_columns
from pipesmith.agents.schemas import DataProfile, RunInputs, SearchPlan
from pipesmith.agents.search.space import default_plan
from pipesmith.agents.search.space_check import check_space

log = structlog.get_logger(__name__)
NODE = "search"


def offered(inputs: RunInputs, n_rows: int) -> list[str]:
    """The learners the model may choose: scikit-learn and the installed boosting ones
    (the searchable template renders them all) that the person allowed, cheapest first."""
    names = [f.name for f in allowed_families(families_for(inputs.task_type, n_rows), inputs)]
    return sorted(dict.fromkeys(names), key=cost_of)


def _range(r: ProposedRange) -> tuple:
    if r.kind == "cat":
        return ("cat", list(r.choices))
    return (r.kind, r.low, r.high, r.log)


def accepted(proposal: SearchProposal, task_type: str, allowed: list[str]) -> SearchPlan:
    """The proposal as a search plan: known learners only, each range checked; a learner
    whose every range fails keeps its default space (or is dropped when it has none)."""
    families, spaces, dropped = [], {}, []
    for space in proposal.families:
        if space.family not in allowed or space.family in spaces:
            dropped.append(f"{space.family}: not one of the offered learners, or repeated")
            continue
        ranges = {r.name: _range(r) for r in space.ranges}
        kept, why = check_space(task_type, space.family, ranges)
        dropped += why
        if not kept and space.family not in SPACES:
            dropped.append(f"{space.family}: no valid range and no default space; not searched")
            continue
        families.append(space.family)
        spaces[space.family] = kept or dict(SPACES[space.family])
    for line in dropped:
        log.info("search.range_dropped", reason=line)
    features = [f"{f.name}: {f.description}" + (f" ({', '.join(f.columns)})" if f.columns
                                                 else "") for f in proposal.features]
    return SearchPlan(families=families, spaces=spaces, features=features, dropped=dropped,
                      source="llm")


def propose_search(gateway: Gateway, ledger: Ledger, inputs: RunInputs, profile: DataProfile,
                   families: list[str], fallback: bool) -> SearchPlan:
    """The model's search plan over `families` (the offline default learners), or the
    offline default plan when the model fails to give a usable one."""
    allowed = offered(inputs, profile.n_rows)
    described = [f"{name}: {_class(inputs.task_type, name)}; "
                 + (json.dumps(SPACES[name]) if name in SPACES else "none")
                 for name in allowed]
    messages = [system("planner"), user(
        "search_space.md", task_text=inputs.task_text, task_type=inputs.task_type,
        metric=inputs.metric, profile_summary=profile.summary(inputs.task_type),
        columns=describe_columns(profile), families=bullet_list(described))]

    def call(msgs):
        proposal, answer = gateway.structured(NODE, "planner", msgs, SearchProposal)
        made = accepted(proposal, inputs.task_type, allowed)
        if not made.families:
            raise FormatError("no learner with a valid space: name learners from the list "
                              "and only parameters their estimator takes", answer)
        return made

    def default(failure: Failure) -> SearchPlan:
        why = "malformed search plan twice" if failure.kind == "format_error" \
            else failure.reason
        return default_plan(families).model_copy(update={"source": f"defaults ({why})"})

    return ask_or_fall_back(call, messages, ledger, NODE, fallback=fallback, instead=default)


def _class(task_type: str, name: str) -> str:
    from pipesmith.agents.families.registry import get_family

    return get_family(task_type, name).cls
