"""LLM configuration as data: endpoint, per-agent model settings, prices and budgets."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

AgentName = Literal["planner", "coder", "diagnostician"]
AGENTS: tuple[AgentName, ...] = ("planner", "coder", "diagnostician")


class ModelSettings(BaseModel):
    """What one agent sends with each request, and how patiently it waits."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float = 0.0
    max_tokens: int = 2048
    timeout_s: float = 60.0
    max_retries: int = 2  # the OpenAI client retries 408/409/429/5xx and lost connections
    stream: bool = False


# Sensible starting points: the planner and the explanations are short and deterministic;
# code needs room.
DEFAULT_AGENT_SETTINGS: dict[str, ModelSettings] = {
    "planner": ModelSettings(max_tokens=1024),
    "coder": ModelSettings(max_tokens=4096, timeout_s=120.0),
    "diagnostician": ModelSettings(max_tokens=512),
}


class Price(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float  # USD per 1M prompt tokens
    output: float  # USD per 1M completion tokens

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


class LLMConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: Literal["openai"] = "openai"
    model: str
    base_url: str | None = None
    api_key: SecretStr | None = Field(None, exclude=True)
    agents: dict[str, ModelSettings] = Field(default_factory=lambda: dict(DEFAULT_AGENT_SETTINGS))
    price: Price | None = None
    cache_path: Path | None = None
    fallback: Literal["none", "offline"] = "none"
    max_tokens_total: int | None = None
    max_cost: float | None = None

    def for_agent(self, agent: str) -> ModelSettings:
        return self.agents.get(agent) or DEFAULT_AGENT_SETTINGS[agent]


def from_settings(settings) -> LLMConfig:
    """The LLMConfig a run's Settings describe; ValueError names what is wrong."""
    if not settings.llm_model:
        raise ValueError("--llm openai needs --model NAME (or PIPESMITH_LLM_MODEL)")
    key = settings.llm_api_key if settings.llm_api_key and \
        settings.llm_api_key.get_secret_value() else None  # an empty variable is no key
    if key is None and not settings.llm_base_url:
        raise ValueError("no API key for api.openai.com: set OPENAI_API_KEY, or point "
                         "--base-url at a local server")
    unknown = set(settings.llm_agents) - set(AGENTS)
    if unknown:
        raise ValueError(f"unknown agent(s) in llm_agents: {', '.join(sorted(unknown))}; "
                         f"use {', '.join(AGENTS)}")
    agents = {
        name: ModelSettings.model_validate({
            **DEFAULT_AGENT_SETTINGS[name].model_dump(),
            **({"stream": True} if settings.llm_stream and name == "coder" else {}),
            **settings.llm_agents.get(name, {})})
        for name in AGENTS
    }
    price = settings.llm_prices.get(settings.llm_model)
    if settings.max_cost is not None and price is None:
        raise ValueError(f"--max-cost needs a price for model {settings.llm_model!r} "
                         "(--price-input/--price-output or PIPESMITH_LLM_PRICES)")
    if settings.max_tokens_total is not None and settings.max_tokens_total <= 0:
        raise ValueError("--max-tokens-total must be a positive number of tokens")
    if settings.max_cost is not None and settings.max_cost <= 0:
        raise ValueError("--max-cost must be a positive amount in USD")
    if settings.llm_fallback not in ("none", "offline"):
        raise ValueError("--fallback must be 'none' or 'offline'")
    return LLMConfig(
        model=settings.llm_model, base_url=settings.llm_base_url, api_key=key,
        agents=agents, price=Price(**price) if price else None, cache_path=settings.llm_cache,
        fallback=settings.llm_fallback, max_tokens_total=settings.max_tokens_total,
        max_cost=settings.max_cost)
