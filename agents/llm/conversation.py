"""The format-error loop shared by the LLM agents: a malformed answer is fed back once."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from pipesmith.agents.llm import prompts
from pipesmith.agents.llm.gateway import FormatError, Message
from pipesmith.agents.llm.ledger import Ledger

T = TypeVar("T")


def system(role: str) -> Message:
    return {"role": "system", "content": prompts.render("system.md", role=role)}


# Tracebacks name files under the run directory, which differs from run to run; a prompt
# that names it could never be replayed from the cache by another run.
_RUN_PATH = re.compile(r"[^\s\"']*/attempts/")


def without_run_paths(text: str) -> str:
    return _RUN_PATH.sub("<run>/attempts/", text)


def user(template: str, **values: object) -> Message:
    return {"role": "user", "content": without_run_paths(prompts.render(template, **values))}


def ask(call: Callable[[list[Message]], T], messages: list[Message], ledger: Ledger,
        node: str) -> T:
    """call(messages); on a FormatError, once more with the answer and the problem appended.
    A second FormatError propagates: the caller counts it as a failed attempt."""
    try:
        return call(messages)
    except FormatError as exc:
        ledger.event(node, "format_error", exc.problem)
        retry = messages + [{"role": "assistant", "content": exc.answer},
                            user("format_error.md", problem=exc.problem)]
        return call(retry)


def bullet_list(items: list[str], empty: str = "none") -> str:
    return "\n".join(f"- {item}" for item in items) if items else empty
