"""The chat in LLM mode: the model reads requests (a structured-output schema) and answers
questions the rules do not cover. What the model says is checked against the data: a target
or dropped column that is not a column, an unknown metric, family or dataset is left out, so
the offline checks downstream see only real names. A failed call falls back to the rules."""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from pipesmith.chat.task_text import TaskRequest, find_file, parse_request

log = structlog.get_logger(__name__)
NODE = "chat"


def read_request(session, text: str, columns: Sequence[str] = ()) -> TaskRequest:
    """The model's reading of the request, checked; the offline reading when it fails."""
    from pipesmith.agents.families.registry import FAMILIES
    from pipesmith.agents.llm.conversation import ask, bullet_list, system, user
    from pipesmith.agents.llm.gateway import FormatError, LLMError
    from pipesmith.agents.llm.ledger import BudgetExhausted
    from pipesmith.agents.llm.schemas import RequestReading
    from pipesmith.core.datasets import BUNDLED
    from pipesmith.core.metrics import METRICS

    families = sorted({f.name for f in FAMILIES})
    messages = [system("chat assistant"), user(
        "read_request.md", text=text, columns=bullet_list(list(columns)),
        datasets=", ".join(BUNDLED), metrics=", ".join(METRICS), families=", ".join(families))]

    def call(msgs):
        reading, _ = session.gateway.structured(NODE, "planner", msgs, RequestReading)
        return reading

    try:
        reading = ask(call, messages, session.ledger, NODE)
    except (LLMError, FormatError, BudgetExhausted) as exc:  # the rules read it instead
        log.warning("chat.read_request_failed", error=str(exc))
        return parse_request(text, columns)
    known = set(columns)
    return TaskRequest(
        data_path=reading.data_path if reading.data_path and reading.data_path in text
        else find_file(text),
        dataset=reading.dataset if reading.dataset in BUNDLED else None,
        target=reading.target if reading.target in known else None,
        task_type=reading.task_type,
        metric=reading.metric if reading.metric in METRICS else None,
        budget_s=reading.budget_s if reading.budget_s and reading.budget_s > 0 else None,
        drop_columns=[c for c in reading.drop_columns if c in known],
        families=[f for f in reading.families if f in families],
        exclude_families=[f for f in reading.exclude_families if f in families])


def answer_question(session, report_markdown: str, question: str) -> str | None:
    """The model's answer from the report; None when the call fails."""
    from pipesmith.agents.llm.conversation import system, user
    from pipesmith.agents.llm.gateway import LLMError
    from pipesmith.agents.llm.ledger import BudgetExhausted

    try:
        return session.gateway.text(NODE, "diagnostician", [
            system("chat assistant"),
            user("answer.md", question=question, report=report_markdown)]).strip()
    except (LLMError, BudgetExhausted) as exc:
        log.warning("chat.answer_failed", error=str(exc))
        return None
