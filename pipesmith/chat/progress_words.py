"""A run's progress in plain words for the web page: the stage, which candidate of how many,
and the time left against the budget. It reads the graph's "tasks" stream events (a task's
start carries the run's state as its input, its end the node's update); the terminal keeps
the node-by-node lines of pipesmith/runtime/progress.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# node -> (stage, what it is doing); "{c}" is "candidate k of n (name)"
STARTS: dict[str, tuple[str, str]] = {
    "profile": ("profiling", "Looking at the data"),
    "retrieve": ("planning", "Looking for similar past runs"),
    "plan": ("planning", "Choosing which models to try"),
    "draft": ("candidates", "Writing the code of {c}"),
    "prevalidate": ("candidates", "Checking {c} before it runs"),
    "execute": ("candidates", "Training and cross-validating {c}"),
    "diagnose": ("repair", "Working out why {c} failed"),
    "repair": ("repair", "Fixing {c}"),
    "search": ("search", "Tuning the settings of the best models"),
    "ensemble": ("ensemble", "Trying a blend of the best models"),
    "report": ("final fit", "Fitting the chosen model on all the training data, testing it "
                            "on the held-out part and writing the report"),
    "remember": ("report", "Saving what worked for the next runs"),
}
BEFORE_APPROVAL = ("profiling", "planning")  # the budget's clock starts at approval


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def clock(elapsed_s: float, budget_s: float | None) -> str | None:
    """'32s left of 45s', or 'over the 45s budget by 3s'; None without a budget."""
    if not budget_s:
        return None
    left = budget_s - elapsed_s
    if left < 0:
        return f"over the {budget_s:.0f}s budget by {-left:.0f}s"
    return f"{left:.0f}s left of {budget_s:.0f}s"


@dataclass
class PlainProgress:
    """Turns one run's task events into {"stage", "text", "left"}, or None for an event
    worth no line. It remembers the plan's candidates so a line can say "k of n"."""

    budget_s: float | None = None
    planned: list[str] = field(default_factory=list)

    def candidate(self, current: Any) -> str:
        name = _get(current, "name") or "a candidate"
        if _get(current, "phase") == "ensemble":
            return "the blend"
        if name in self.planned:
            k = self.planned.index(name) + 1
            return f"candidate {k} of {len(self.planned)} ({name})"
        return name

    def __call__(self, event: dict, elapsed_s: float) -> dict | None:
        node = event.get("name", "")
        if "result" not in event and "error" not in event:
            return self._start(node, event.get("input") or {}, elapsed_s)
        if event.get("error"):
            stage = STARTS.get(node, (node, ""))[0]
            return self._line(stage, f"A step failed ({node}): {event['error']}", elapsed_s)
        return self._end(node, event.get("result") or {}, elapsed_s)

    def _line(self, stage: str, text: str, elapsed_s: float) -> dict:
        left = None if stage in BEFORE_APPROVAL else clock(elapsed_s, self.budget_s)
        return {"stage": stage, "text": text, "left": left}

    def _start(self, node: str, state: dict, elapsed_s: float) -> dict | None:
        if node not in STARTS:
            return None
        inputs, plan = _get(state, "inputs"), _get(state, "plan")
        if inputs is not None:
            self.budget_s = _get(inputs, "budget_s", self.budget_s)
        if plan is not None:
            self.planned = [_get(c, "name") for c in _get(plan, "candidates", [])]
        current = _get(state, "current")
        if node == "draft":  # the next planned candidate, not yet `current`
            index = _get(state, "next_index", 0) or 0
            current = {"name": self.planned[index]} if index < len(self.planned) else None
        stage, words = STARTS[node]
        return self._line(stage, words.format(c=self.candidate(current)), elapsed_s)

    def _end(self, node: str, update: Any, elapsed_s: float) -> dict | None:
        """Only the outcomes a person wants to read: what the data is, the plan, scores."""
        if not isinstance(update, dict):
            update = dict(update or [])
        if node == "profile" and update.get("profile") is not None:
            p = update["profile"]
            return self._line("profiling", f"The data has {_get(p, 'n_rows')} rows and "
                              f"{_get(p, 'n_columns')} feature columns", elapsed_s)
        if node == "plan" and update.get("plan") is not None:
            self.planned = [_get(c, "name") for c in _get(update["plan"], "candidates", [])]
            return self._line("planning", f"Planned {len(self.planned)} candidate models: "
                              + ", ".join(self.planned), elapsed_s)
        if node == "execute" and update.get("attempts"):
            a = next(iter(update["attempts"].values()))
            which = self.candidate({"name": _get(a, "candidate"), "phase": _get(a, "phase")})
            score = _get(a, "score")
            if _get(a, "status") == "ok" and score is not None:
                said = f"{which[0].upper()}{which[1:]} scored {score:.4f}"
            else:
                said = f"{which[0].upper()}{which[1:]} did not finish ({_get(a, 'status')})"
            return self._line("candidates", f"{said} in {_get(a, 'wall_s', 0.0):.0f}s",
                              elapsed_s)
        if node == "report" and update.get("report_path"):
            return self._line("report", "The report is ready", elapsed_s)
        return None
