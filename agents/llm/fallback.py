"""The one fallback policy of the LLM agents: what a model call's failure turns into.

A call is asked once more on a malformed answer (conversation.ask). What still fails is
recorded in the ledger as one event under the node (its kind says which failure) and the
agent's stand-in answer takes its place: the offline agent's, or nothing. A call that fails
outright (LLMError) falls back only when the settings allow it (`fallback = "offline"`);
otherwise it propagates, since broken infrastructure raises.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from pipesmith.agents.llm.conversation import ask
from pipesmith.agents.llm.gateway import FormatError, LLMError, Message
from pipesmith.agents.llm.ledger import BudgetExhausted, Ledger

T = TypeVar("T")


@dataclass(frozen=True)
class Failure:
    kind: Literal["format_error", "budget", "fallback"]  # the ledger event's kind
    reason: str  # one line: the format problem, or the error's message
    answer: str = ""  # the malformed answer as the model gave it (format errors only)


def ask_or_fall_back(call: Callable[[list[Message]], T], messages: list[Message],
                     ledger: Ledger, node: str, *, fallback: bool,
                     instead: Callable[[Failure], T], format_note: str = "",
                     fallback_note: str = "") -> T:
    """call's answer, or instead(failure) once the failure is recorded. The event's detail
    is the reason, with `format_note` after a format problem ("problem; note") and
    `fallback_note` before a failed call's error ("note: error"); a spent budget says only
    why."""
    try:
        return ask(call, messages, ledger, node)
    except FormatError as exc:
        failure = Failure("format_error", exc.problem, exc.answer)
        detail = f"{exc.problem}; {format_note}" if format_note else exc.problem
    except BudgetExhausted as exc:
        failure = Failure("budget", str(exc))
        detail = failure.reason
    except LLMError as exc:
        if not fallback:
            raise
        failure = Failure("fallback", str(exc))
        detail = f"{fallback_note}: {exc}" if fallback_note else failure.reason
    ledger.event(node, failure.kind, detail)
    return instead(failure)
