"""The LLM planner: the model proposes candidates; the family table keeps them runnable."""

from __future__ import annotations

import json

from pipesmith.agents.coder.agent import identifier
from pipesmith.agents.families.backends import planned_backends
from pipesmith.agents.families.registry import families_for
from pipesmith.agents.llm.conversation import bullet_list, system, user
from pipesmith.agents.llm.fallback import Failure, ask_or_fall_back
from pipesmith.agents.llm.gateway import FormatError, Gateway
from pipesmith.agents.llm.ledger import Ledger
from pipesmith.agents.llm.schemas import PlanProposal
from pipesmith.agents.planner.agent import allowed
from pipesmith.agents.protocols import Planner
from pipesmith.agents.schemas import (
    CandidateSpec,
    DataProfile,
    PastRun,
    Plan,
    RunInputs,
    SearchPlan,
)

NODE = "plan"


def describe_columns(profile: DataProfile) -> str:
    return bullet_list([f"{c.name}: {c.kind} ({c.dtype}), missing {c.missing_share:.2f}, "
                        f"{c.n_unique} distinct" for c in profile.columns])


def describe_past_runs(past_runs: list[PastRun]) -> str:
    return bullet_list([f"{r.summary} -> " + ", ".join(
        f"{family} {gain:+.3f}" for family, gain in r.family_scores.items())
        for r in past_runs])


class LLMPlanner:
    def __init__(self, gateway: Gateway, ledger: Ledger, offline: Planner,
                 fallback: bool) -> None:
        self.gateway, self.ledger, self.offline, self.fallback = \
            gateway, ledger, offline, fallback

    def plan(self, inputs: RunInputs, profile: DataProfile, past_runs: list[PastRun]) -> Plan:
        backends = planned_backends(inputs.backend, profile.n_rows)  # honours --backend
        families = {f.name: f for f in allowed(
            families_for(inputs.task_type, profile.n_rows, backends), inputs)}
        messages = [system("planner"), user(
            "plan.md", max_candidates=inputs.max_candidates, task_text=inputs.task_text,
            task_type=inputs.task_type, metric=inputs.metric,
            profile_summary=profile.summary(inputs.task_type),
            columns=describe_columns(profile),
            families=bullet_list([f"{f.name}: {f.cls}, {json.dumps(f.params)}"
                                  for f in families.values()]),
            past_runs=describe_past_runs(past_runs))]

        def call(msgs):
            proposal, answer = self.gateway.structured(NODE, "planner", msgs, PlanProposal)
            specs = self._specs(proposal, families, inputs.max_candidates)
            if not specs:
                raise FormatError("no candidate names one of the listed families: "
                                  + ", ".join(families), answer)
            return Plan(candidates=specs,
                        notes=[*proposal.notes, f"planned by {self.gateway.config.model}"])

        def instead(failure: Failure) -> Plan:
            why = "malformed plan twice" if failure.kind == "format_error" else failure.reason
            return self._offline(inputs, profile, past_runs, why)

        return ask_or_fall_back(call, messages, self.ledger, NODE, fallback=self.fallback,
                                instead=instead)

    def search_plan(self, inputs: RunInputs, profile: DataProfile,
                    families: list[str]) -> SearchPlan:
        """The model's learners, ranges and feature ideas for the search, checked against
        the installed estimators (agents/search/llm.py)."""
        from pipesmith.agents.search.llm import propose_search

        return propose_search(self.gateway, self.ledger, inputs, profile, families,
                              self.fallback)

    def _offline(self, inputs, profile, past_runs, why: str) -> Plan:
        made = self.offline.plan(inputs, profile, past_runs)
        return made.model_copy(update={"notes": [*made.notes, f"offline plan: {why}"]})

    @staticmethod
    def _specs(proposal: PlanProposal, families: dict, limit: int) -> list[CandidateSpec]:
        """Candidates naming a known family, with unique names, at most `limit`."""
        specs, names = [], set()
        for c in proposal.candidates:
            name = identifier(c.name)  # it names a folder under attempts/
            if c.family not in families or name in names:
                continue
            names.add(name)
            specs.append(CandidateSpec(name=name, family=c.family, params=c.params,
                                       scale=c.scale, encoding=c.encoding,
                                       rationale=c.rationale))
        return specs[:limit]
