"""Token and cost accounting per graph node, and the budget guard.

The ledger is the in-process record; each node hands its delta to the graph state
(`drain`), where routing reads the run's totals, so budgets survive checkpoints.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from pipesmith.agents.llm.config import Price

COUNTERS = ("calls", "cached_calls", "unmetered_calls", "input_tokens", "output_tokens",
            "total_tokens", "cached_tokens", "format_errors", "failures", "fallbacks")


class BudgetExhausted(RuntimeError):
    """No further live LLM call: the run's token or cost budget is spent."""


def empty_usage() -> dict[str, float]:
    return {name: 0 for name in COUNTERS} | {"cost_usd": 0.0, "llm_s": 0.0}


def add_usage(old: dict | None, new: dict | None) -> dict:
    """Reducer: per-node counters summed."""
    out = {node: dict(values) for node, values in (old or {}).items()}
    for node, values in (new or {}).items():
        row = out.setdefault(node, empty_usage())
        for key, value in values.items():
            row[key] = round(row.get(key, 0) + value, 6)
    return out


def totals(per_node: dict[str, dict]) -> dict[str, float]:
    return {key: round(sum(row.get(key, 0) for row in per_node.values()), 6)
            for key in empty_usage()}


def budget_reason(per_node: dict[str, dict], max_tokens: int | None,
                  max_cost: float | None) -> str | None:
    """Why no further live call may start, or None. Live tokens only: a replay from the
    cache costs nothing."""
    run = totals(per_node)
    if max_tokens is not None and run["total_tokens"] >= max_tokens:
        return f"token budget spent: {int(run['total_tokens'])} of {max_tokens} tokens"
    if max_cost is not None and run["cost_usd"] >= max_cost:
        return f"cost budget spent: ${run['cost_usd']:.4f} of ${max_cost:.4f}"
    return None


@dataclass
class Ledger:
    price: Price | None = None
    max_tokens_total: int | None = None
    max_cost: float | None = None
    per_node: dict[str, dict] = field(default_factory=dict)
    events: list[dict] = field(default_factory=list)
    _pending: dict[str, dict] = field(default_factory=dict)
    _pending_events: list[dict] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def prime(self, per_node: dict[str, dict]) -> None:
        """Start from a resumed run's totals, so the budget counts what was spent before."""
        with self._lock:
            self.per_node = add_usage({}, per_node)

    def count(self, node: str, **values: float) -> None:
        with self._lock:
            for target in (self.per_node, self._pending):
                row = target.setdefault(node, empty_usage())
                for key, value in values.items():
                    row[key] = round(row[key] + value, 6)

    def record_call(self, node: str, usage: dict | None, cached: bool, seconds: float) -> None:
        if cached:
            tokens = (usage or {}).get("total_tokens", 0)
            self.count(node, cached_calls=1, cached_tokens=tokens, llm_s=seconds)
            return
        if not usage:  # the server reported no usage: counted, flagged, not priced
            self.count(node, calls=1, unmetered_calls=1, llm_s=seconds)
            return
        tokens_in, tokens_out = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
        cost = self.price.cost(tokens_in, tokens_out) if self.price else 0.0
        self.count(node, calls=1, input_tokens=tokens_in, output_tokens=tokens_out,
                   total_tokens=usage.get("total_tokens", tokens_in + tokens_out),
                   cost_usd=cost, llm_s=seconds)

    def event(self, node: str, kind: str, detail: str) -> None:
        counter = {"format_error": "format_errors", "failure": "failures",
                   "fallback": "fallbacks"}.get(kind)
        if counter:
            self.count(node, **{counter: 1})
        with self._lock:
            entry = {"node": node, "kind": kind, "detail": detail[:500]}
            self.events.append(entry)
            self._pending_events.append(entry)

    def check_budget(self) -> None:
        with self._lock:
            reason = budget_reason(self.per_node, self.max_tokens_total, self.max_cost)
        if reason:
            raise BudgetExhausted(reason)

    def drain(self) -> dict:
        """The usage and events since the last drain, as a state update."""
        with self._lock:
            usage, events = self._pending, self._pending_events
            self._pending, self._pending_events = {}, []
        return {"llm_usage": usage, "llm_events": events} if usage or events else {}
