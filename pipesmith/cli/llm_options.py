"""The LLM options of `pipesmith run` and `pipesmith repair`, written once, and their
Settings overrides (only what was given)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pipesmith.errors import InputError

Llm = Annotated[str | None, typer.Option(help="'offline' (built-in agents) or 'openai' (any OpenAI-compatible endpoint; docs/llm.md) [default: offline, or PIPESMITH_LLM].")]
Model = Annotated[str | None, typer.Option(help="Model name for --llm openai (PIPESMITH_LLM_MODEL).")]
BaseUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (OPENAI_BASE_URL). The key comes from OPENAI_API_KEY.")]
LlmCache = Annotated[Path | None, typer.Option(help="Persistent LLM response cache (SQLite): a rerun with the same prompts replays it exactly, with no network.")]
Fallback = Annotated[str | None, typer.Option(help="'offline': when a model call fails, the offline agent does that step (the report says so) [default: none].")]
MaxTokensTotal = Annotated[int | None, typer.Option(help="Stop calling the model once the run has spent this many tokens; the best result so far is kept.")]
MaxCost = Annotated[float | None, typer.Option(help="Stop calling the model once the run has spent this many USD (needs --price-input/--price-output).")]
PriceInput = Annotated[float | None, typer.Option(help="USD per 1M input tokens of --model, for cost accounting.")]
PriceOutput = Annotated[float | None, typer.Option(help="USD per 1M output tokens of --model.")]
LlmStream = Annotated[bool, typer.Option("--llm-stream", help="Stream the coder's answers (server-sent events).")]


def llm_overrides(*, llm: str | None, model: str | None, base_url: str | None,
                  cache: Path | None, fallback: str | None, max_tokens_total: int | None,
                  max_cost: float | None, price_input: float | None,
                  price_output: float | None, stream: bool) -> dict:
    given = {"llm": llm, "llm_model": model, "llm_base_url": base_url, "llm_cache": cache,
             "llm_fallback": fallback, "max_tokens_total": max_tokens_total,
             "max_cost": max_cost}
    out = {key: value for key, value in given.items() if value is not None}
    if stream:
        out["llm_stream"] = True
    if (price_input is None) != (price_output is None):
        raise InputError("give both --price-input and --price-output (USD per 1M tokens)")
    if price_input is not None:
        if model is None:
            raise InputError("--price-input/--price-output need --model")
        out["llm_prices"] = {model: {"input": price_input, "output": price_output}}
    return out
