"""The LLM diagnostician: the taxonomy's rules classify; the model explains.

The classification, severity and repair actions stay rule-based (they route the graph
and key the knowledge base); the model adds an explanation and a suggested fix that
the repair prompt carries.
"""

from __future__ import annotations

from pipesmith.agents.llm.conversation import bullet_list, system, user
from pipesmith.agents.llm.fallback import ask_or_fall_back
from pipesmith.agents.llm.gateway import Gateway
from pipesmith.agents.llm.ledger import Ledger
from pipesmith.agents.llm.schemas import DiagnosisExplanation
from pipesmith.agents.protocols import Diagnostician
from pipesmith.agents.schemas import DataProfile, Diagnosis, Issue
from pipesmith.sandbox.base import ExecResult

NODE = "diagnose"


class LLMDiagnostician:
    def __init__(self, gateway: Gateway, ledger: Ledger, offline: Diagnostician,
                 fallback: bool) -> None:
        self.gateway, self.ledger, self.offline, self.fallback = \
            gateway, ledger, offline, fallback

    def diagnose_issues(self, issues: list[Issue], code: str) -> Diagnosis:
        return self._explain(self.offline.diagnose_issues(issues, code))

    def diagnose_result(self, result: ExecResult, code: str,
                        source_name: str = "candidate.py") -> Diagnosis:
        return self._explain(self.offline.diagnose_result(result, code, source_name))

    def judge_quality(self, metrics: dict, profile: DataProfile, metric: str) -> Diagnosis | None:
        return self.offline.judge_quality(metrics, profile, metric)  # numbers, not judgment

    def _explain(self, d: Diagnosis) -> Diagnosis:
        messages = [system("diagnostician"), user(
            "explain.md", taxonomy=f"{d.taxonomy_class}.{d.subclass}", severity=d.severity,
            summary=d.summary, line=d.line or "unknown", excerpt=d.excerpt or "-",
            evidence=bullet_list(d.evidence))]

        def call(msgs):
            return self.gateway.structured(NODE, "diagnostician", msgs, DiagnosisExplanation)[0]

        answer = ask_or_fall_back(call, messages, self.ledger, NODE, fallback=self.fallback,
                                  instead=lambda failure: None, format_note="no explanation",
                                  fallback_note="rule-based diagnosis only")
        if answer is None:  # the rules' diagnosis stands alone
            return d
        return d.model_copy(update={
            "explanation": f"{answer.explanation} Suggested fix: {answer.suggested_fix}"})
