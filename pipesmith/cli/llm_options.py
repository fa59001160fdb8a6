"""`pipesmith run`'s LLM options turned into Settings overrides (only what was given)."""

from __future__ import annotations

from pathlib import Path

from pipesmith.errors import InputError


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
