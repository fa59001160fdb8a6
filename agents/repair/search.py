"""The repair search: for one failure, several candidate edits from several operators, tried
side by side in the sandbox, keeping the best that runs.

The coder ranks the edits (past fixes of the same error signature first, actions the
lineage already saw fail last, an edit at the failing line before one elsewhere:
agents/coder/agent.py: Coder.repair_options); each is an ordinary sandbox run of the edited
code. The first, in rank order, that runs and carries no repair note wins; a working edit
that dropped or changed something (its notes say what) comes next: it is a partial repair
and is reported as one. When none runs, the top-ranked edit goes on, as without a search.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import structlog

from pipesmith.agents.schemas import Candidate

log = structlog.get_logger()

WIDTH = 4  # candidate edits tried per round, at most


def choose(options: list[Candidate], runs: Callable[[Candidate], bool],
           workers: int = WIDTH) -> Candidate | None:
    """The option to keep; `runs(option)` runs it in the sandbox and says whether it exited
    cleanly. A single option is returned untried (the loop's next run is its trial)."""
    options = options[:WIDTH]
    if len(options) <= 1:
        return options[0] if options else None
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(options)))) as pool:
        worked = list(pool.map(runs, options))
    faithful = [o for o, ok in zip(options, worked, strict=True) if ok and not o.repair_notes]
    partial = [o for o, ok in zip(options, worked, strict=True) if ok and o.repair_notes]
    chosen = (faithful or partial or options)[0]
    log.info("repair.search", tried=[o.repair_action for o in options], ran=worked,
             chosen=chosen.repair_action, partial=bool(chosen.repair_notes))
    return chosen
