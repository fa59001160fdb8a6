"""Prompt templates: files under prompts/, rendered strictly, identified by content hash."""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from string import Template

TEMPLATE_NAMES = ("system.md", "plan.md", "draft.md", "repair.md", "repair_script.md",
                  "explain.md", "format_error.md", "read_request.md", "answer.md",
                  "search_space.md")


@cache
def template_text(name: str) -> str:
    return resources.files("pipesmith.agents.llm").joinpath("prompts", name).read_text()


def render(template: str, /, **values: object) -> str:
    """A missing variable raises KeyError: no prompt ever goes out half-filled."""
    return Template(template_text(template)).substitute(**{k: str(v) for k, v in values.items()})


def template_hashes() -> dict[str, str]:
    """sha256 (first 16 hex digits) of every template, for the report: a replay with other
    prompts is a different run."""
    return {name: hashlib.sha256(template_text(name).encode()).hexdigest()[:16]
            for name in TEMPLATE_NAMES}
