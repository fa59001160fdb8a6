"""The report's `llm` section: model, settings, prompt hashes, tokens and cost per node."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from pipesmith.agents.llm.ledger import budget_reason, totals


class LLMSummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    provider: str
    model: str
    base_url: str | None
    agents: dict[str, dict[str, Any]]  # per-agent model settings as run
    price: dict[str, float] | None  # USD per 1M input / output tokens
    fallback: str
    cache: str | None
    max_tokens_total: int | None
    max_cost: float | None
    prompt_templates: dict[str, str]  # template file -> sha256 prefix
    usage: dict[str, dict[str, float]]  # per node: calls, tokens, cost, format errors, ...
    total: dict[str, float]
    events: list[dict[str, str]]  # format errors, failures, fallbacks, budget stops
    stopped_by_budget: str | None  # why the run stopped calling the model early, if it did


def llm_summary(state: dict, described: dict | None) -> LLMSummary | None:
    if described is None:
        return None
    usage = state.get("llm_usage") or {}
    return LLMSummary(**described, usage=usage, total=totals(usage),
                      events=state.get("llm_events") or [],
                      stopped_by_budget=budget_reason(usage, described["max_tokens_total"],
                                                      described["max_cost"]))


def markdown_lines(summary: LLMSummary | None) -> list[str]:
    if summary is None:
        return []
    t = summary.total
    cost = f", ${t['cost_usd']:.4f}" if summary.price else ""
    lines = ["", "## Model", "",
             f"{summary.provider}:{summary.model} at {summary.base_url or 'api.openai.com'}: "
             f"{int(t['calls'])} calls ({int(t['cached_calls'])} from the cache), "
             f"{int(t['input_tokens'])} input + {int(t['output_tokens'])} output tokens{cost}"]
    if summary.stopped_by_budget:
        lines.append(f"- stopped early: {summary.stopped_by_budget}")
    lines += [f"- {e['node']}: {e['kind']} — {e['detail']}" for e in summary.events]
    return lines
