"""Live progress on the terminal: the node running now, each node's outcome, time vs budget."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.status import Status


def describe(node: str, update: dict[str, Any]) -> str:
    """One line saying what a finished node did, from its state update."""
    current = update.get("current")
    attempts = update.get("attempts") or {}
    if node == "profile":
        p = update["profile"]
        return (f"{p.n_rows} rows, {p.n_columns} features "
                f"({len(p.names('numeric'))} numeric, {len(p.names('categorical'))} categorical)")
    if node == "retrieve":
        return f"{len(update.get('past_runs') or [])} similar past runs"
    if node == "plan":
        fallback = [n for n in update["plan"].notes if n.startswith("offline plan:")]
        said = f" ({fallback[0]})" if fallback else ""  # the model's plan was not used
        return "candidates: " + ", ".join(c.name for c in update["plan"].candidates) + said
    if node in ("draft", "repair", "ensemble") and current is not None:
        parent = f" (repairs {current.parent}: {current.repair_action})" if current.parent else ""
        fault = f" [injected fault: {current.injected_fault}]" if current.injected_fault else ""
        return f"{current.id} {current.name}{parent}{fault}"
    if node == "repair":
        return "no new repair to try; moving on"
    if node == "ensemble":
        return "no ensemble beats the best single candidate"
    if node == "search":
        summary = update.get("search") or {}
        if "skipped" in summary:
            return f"skipped: {summary['skipped']}"
        winners = [n.split(", ")[-1] for n in (update.get("plan").notes if update.get("plan")
                                               else []) if n.startswith("search:")]
        return (f"{summary.get('trials', 0)} trials in {summary.get('seconds', 0):.1f}s"
                + (f", {winners[-1]}" if winners else ""))
    if node == "prevalidate":
        if not attempts:
            smoke = (update.get("smoke_s") or {})
            return "static checks and smoke run passed" if smoke else "static checks passed"
        a = next(iter(attempts.values()))
        if a.smoke:
            return f"{a.id} failed its smoke run on a sample ({a.status}, {a.smoke_s:.1f}s)"
        return f"{a.id} rejected: {a.issues[0].message}"
    if node == "execute":
        a = next(iter(attempts.values()))
        score = f" score={a.score:.4f}" if a.score is not None else ""
        sampled = update.get("inputs").cv_rows if update.get("inputs") else None
        rows = f"; cross-validated on a sample of {sampled:,} rows to fit the budget" \
            if sampled else ""
        return (f"{a.id} {a.candidate}: {a.status}{score} ({a.wall_s:.1f}s, "
                f"{a.peak_mem_mb:.0f} MB){rows}")
    if node == "diagnose":
        if not attempts:  # already judged on quality right after its run
            return "diagnosed by the quality check after the run"
        a = next(iter(attempts.values()))
        d = a.diagnosis
        return f"{a.id} {d.taxonomy_class}.{d.subclass} ({d.severity}): {d.summary[:90]}"
    if node == "report":
        e = update.get("ensemble")
        kept = ""
        if e and e.strategy != "none":
            kept = f"; ensemble {'kept' if e.kept else 'not kept'}"
        refit = update.get("refit")
        if refit is not None and refit.sampled_from:
            kept += f"; refit on {refit.n_dev:,} of {refit.sampled_from:,} rows to fit the budget"
        return f"written to {update.get('report_path')}{kept}"
    if node == "remember":
        recorded = (update.get("outcome") or {}).get("remembered")
        return "run recorded in the knowledge base" if recorded else \
            "run not recorded (no knowledge base, or it could not be written)"
    if node == "approve" and update.get("approved"):
        return "plan approved"
    return ""


SILENT_WHEN_EMPTY = ("approve", "setup")  # pass-through steps say nothing


def _update_dict(result: Any) -> dict[str, Any]:
    if isinstance(result, dict):
        return result
    return dict(result or [])


def event_line(event: dict[str, Any]) -> tuple[str, str] | None:
    """(node, what it did) for a finished task event; None for a start or a silent step."""
    name = event.get("name", "")
    if "result" not in event and "error" not in event:
        return None
    if event.get("error"):
        return name, f"failed: {event['error']}"
    line = describe(name, _update_dict(event.get("result")))
    if not line and name in SILENT_WHEN_EMPTY:
        return None
    return name, line


class Progress:
    """Consumes LangGraph "tasks" stream events and shows them with rich."""

    def __init__(self, budget_s: float, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.budget_s = budget_s
        self.started = time.monotonic()
        self.status: Status | None = None

    def _clock(self) -> str:
        return f"[{time.monotonic() - self.started:6.1f}s / {self.budget_s:.0f}s]"

    def __call__(self, event: dict[str, Any]) -> None:
        name = event.get("name", "")
        if "result" not in event and "error" not in event:  # a task starts
            self._spin(f"{name} …")
            return
        if event.get("error"):
            self.console.print(f"{self._clock()} [red]{name} failed: {event['error']}[/]",
                           soft_wrap=True)
            return
        line = describe(name, _update_dict(event.get("result")))
        if not line and name in SILENT_WHEN_EMPTY:
            return
        self.console.print(f"{self._clock()} [bold]{name:<11}[/] {line}", highlight=False,
                           soft_wrap=True)

    def _spin(self, text: str) -> None:
        if self.status is None:
            self.status = self.console.status(text)
            self.status.start()
        else:
            self.status.update(text)

    def close(self) -> None:
        if self.status is not None:
            self.status.stop()
