"""The LLM coder: drafts and repairs written by the model, extracted from fenced blocks.

A malformed answer is fed back once; a second one becomes a failed attempt (the
pre-validator rejects it, the diagnostician classifies it). Ensembles (from the members'
code) and the search's trial modules are the offline coder's: they need no judgment.
"""

from __future__ import annotations

import json

from pipesmith.agents.families.registry import FAMILIES, get_family
from pipesmith.agents.llm.conversation import bullet_list, system, user
from pipesmith.agents.llm.fallback import Failure, ask_or_fall_back
from pipesmith.agents.llm.gateway import FormatError, Gateway
from pipesmith.agents.llm.ledger import Ledger
from pipesmith.agents.llm.parsing import code_problem, extract_code
from pipesmith.agents.protocols import Coder
from pipesmith.agents.repair.losses import dropped_keywords
from pipesmith.agents.schemas import (
    Candidate,
    CandidateSpec,
    CodeExample,
    DataProfile,
    RepairRequest,
    RunInputs,
)

REPAIR_ACTION = "llm_repair"


class LLMCoder:
    def __init__(self, gateway: Gateway, ledger: Ledger, offline: Coder, fallback: bool) -> None:
        self.gateway, self.ledger, self.offline, self.fallback = \
            gateway, ledger, offline, fallback

    def draft(self, candidate_id: str, spec: CandidateSpec, profile: DataProfile,
              inputs: RunInputs, examples: list[CodeExample] | None = None) -> Candidate | None:
        """None when the token or cost budget is spent: the run stops drafting. `examples`:
        code that worked on similar past tasks (the knowledge base), shown to the model. A
        search winner is its trials' module, bound by the offline coder: no judgment."""
        if spec.trial is not None:
            return self.offline.draft(candidate_id, spec, profile, inputs, examples)
        family = get_family(inputs.task_type, spec.family)
        dropped = [c.name for c in profile.columns if c.kind not in ("numeric", "categorical")]
        messages = [system("coder"), user(
            "draft.md", task_text=inputs.task_text, task_type=inputs.task_type,
            metric=inputs.metric, target=inputs.target, profile_summary=profile.summary(
                inputs.task_type), numeric=profile.names("numeric"),
            categorical=profile.names("categorical"), dropped=dropped, name=spec.name,
            family=spec.family, estimator=family.cls, module=family.module,
            params=json.dumps(spec.params), scale=spec.scale, encoding=spec.encoding,
            rationale=spec.rationale or "-", examples=_examples_text(examples or []))]
        made = self._write("draft", messages, [])
        if made is _OFFLINE:
            return self.offline.draft(candidate_id, spec, profile, inputs, examples)
        if made is None:
            return None
        carried = family_in_code(made, inputs.task_type)
        if carried is not None and carried != spec.family:  # the label follows the code
            self.ledger.event("draft", "relabelled",
                              f"{spec.name} was asked for {spec.family} but its code builds "
                              f"{carried}")
            spec = spec.model_copy(update={"name": carried, "family": carried})
        return Candidate(id=candidate_id, name=spec.name, phase="draft", code=made, spec=spec)

    def repair_options(self, candidate_id: str, request: RepairRequest,
                       profile: DataProfile | None, inputs: RunInputs | None,
                       limit: int = 1) -> list[Candidate]:
        """One repair: the model writes one answer per request (each costs tokens)."""
        repaired = self.repair(candidate_id, request, profile, inputs)
        return [repaired] if repaired is not None else []

    def repair(self, candidate_id: str, request: RepairRequest, profile: DataProfile | None,
               inputs: RunInputs | None) -> Candidate | None:
        failed, d = request.candidate, request.diagnosis
        script = failed.script is not None  # `pipesmith repair` of a plain training script
        messages = [system("coder"), user(
            "repair_script.md" if script else "repair.md",
            task_text=inputs.task_text if inputs else "-",
            task_type=inputs.task_type if inputs else "-",
            metric=inputs.metric if inputs else "-", target=inputs.target if inputs else "-",
            columns=request.columns, leaky_columns=request.leaky_columns or "none",
            taxonomy=f"{d.taxonomy_class}.{d.subclass}", severity=d.severity,
            summary=d.summary, line=d.line or "unknown", excerpt=d.excerpt or "-",
            evidence=bullet_list(d.evidence), explanation=d.explanation or "-",
            history=bullet_list([f"{h.taxonomy_class}.{h.subclass}: {h.summary}"
                                 for h in request.history]),
            actions=", ".join(d.repair_actions) or "none",
            past_fixes=", ".join(request.past_fixes) or "none",
            past_fix_diffs="\n\n".join(d for d in request.past_fix_diffs if d) or "none",
            tried=", ".join(request.tried) or "nothing", code=failed.code.rstrip())]
        made = self._write("repair", messages, request.lineage_codes, script)
        if made is _OFFLINE:
            return self.offline.repair(candidate_id, request, profile, inputs)
        if made is None:
            return None
        if made in request.lineage_codes:
            # An answer that repeats code already tried repairs nothing; the rule table's
            # patches cost no tokens and may still hold one (a model must never leave the
            # loop with fewer repairs than offline mode has).
            self.ledger.event("repair", "fallback", "the model's answer repeats code already "
                              "tried; the offline coder's patches were tried instead")
            return self.offline.repair(candidate_id, request, profile, inputs)
        return Candidate(id=candidate_id, name=failed.name, phase="repair", code=made,
                         parent=failed.id, spec=failed.spec, script=failed.script,
                         repair_action=REPAIR_ACTION,
                         repair_notes=dropped_keywords(failed.code, made))

    def ensemble(self, candidate_id: str, members: list[Candidate], profile: DataProfile,
                 inputs: RunInputs, strategy: str = "caruana",
                 weights: list[float] | None = None, n_clusters: int = 2,
                 class_weights: dict[str, float] | None = None,
                 level2: dict | None = None) -> Candidate | None:
        return self.offline.ensemble(candidate_id, members, profile, inputs, strategy=strategy,
                                     weights=weights, n_clusters=n_clusters,
                                     class_weights=class_weights, level2=level2)

    def searchable(self, spec: CandidateSpec, profile: DataProfile, inputs: RunInputs) -> str:
        return self.offline.searchable(spec, profile, inputs)

    def _write(self, node: str, messages, tried_codes: list[str], script: bool = False):
        """The code from the model; _OFFLINE when the offline coder takes this step; None
        when the budget is spent. A second malformed answer is returned as it is: it
        becomes an attempt that fails pre-validation."""

        def call(msgs):
            answer = self.gateway.text(node, "coder", msgs)
            problem = code_problem(answer, script)
            if problem is None and extract_code(answer) in tried_codes:
                problem = "this code is identical to a version that already failed"
            if problem:
                raise FormatError(problem, answer)
            return extract_code(answer)

        return ask_or_fall_back(call, messages, self.ledger, node, fallback=self.fallback,
                                instead=_instead, format_note="counted as a failed attempt",
                                fallback_note="offline coder used")


def family_in_code(code: str, task_type: str) -> str | None:
    """The model family whose estimator the code constructs first; None when it builds
    none of the known ones."""
    import re

    first: tuple[int, str] | None = None
    for family in FAMILIES:
        if family.task_type != task_type:
            continue
        found = re.search(rf"\b{re.escape(family.cls)}\s*\(", code)
        if found and (first is None or found.start() < first[0]):
            first = (found.start(), family.name)
    return first[1] if first else None


_OFFLINE = object()  # sentinel: hand this step to the offline coder


def _instead(failure: Failure):
    """A malformed answer as it is (a failed attempt), nothing when the budget is spent,
    the offline coder when the call failed."""
    if failure.kind == "format_error":
        return extract_code(failure.answer) or failure.answer
    return None if failure.kind == "budget" else _OFFLINE


MAX_EXAMPLES = 2  # prompt room: the nearest successful past code, not the whole store


def _examples_text(examples: list[CodeExample]) -> str:
    if not examples:
        return "none"
    return "\n\n".join(
        f"From a past run on {e.dataset} ({e.task_text}; family {e.family or '-'}, "
        f"gain over baseline {e.gain if e.gain is not None else '-'}):\n```python\n"
        f"{e.code.rstrip()}\n```" for e in examples[:MAX_EXAMPLES])
