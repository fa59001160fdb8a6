"""The run's wall clock between nodes: what the budget counts besides the nodes' own time.

`elapsed_s(state)` sums the seconds recorded per node (so a resumed run does not count the
time it lay stopped). Time outside the nodes is real time the person waits for too: the
start-up before the first node (the data preparation, the agents, the graph), checkpoint
writes and routing between nodes. `timed` (graph/builder.py) records it under
OUTSIDE_NODES from the run's clock, which `core.driver.advance` starts afresh each time
it drives
the graph (so the wait for a plan's approval is never counted). A stopped clock (Deps'
default: a caller that drives the graph itself) counts nothing.
"""

from __future__ import annotations

import time

OUTSIDE_NODES = "outside nodes"


class RunClock:
    def __init__(self, started: float | None = None) -> None:
        self.mark: float | None = time.perf_counter() if started is None else started

    @classmethod
    def stopped(cls) -> RunClock:
        clock = cls()
        clock.mark = None
        return clock

    def since_mark(self, now: float) -> float | None:
        """Seconds since the mark; None on a stopped clock."""
        return None if self.mark is None else max(0.0, now - self.mark)

    def set(self, now: float) -> None:
        if self.mark is not None:  # a stopped clock stays stopped
            self.mark = now
