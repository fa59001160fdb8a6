"""A real run in this process that pauses at a named point, so a test can kill it there.

    python tests/graph/durability_driver.py POINT OUT KB READY

POINT: report (the report is written, its checkpoint not yet saved), kb-before (the
report is checkpointed, nothing recorded yet), kb-inside (the repairs are recorded, the
run not yet). The driver writes READY when it reaches the point and waits to be killed.
The components are the real ones; only the moment is chosen.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def pause_then(call, ready: Path, before: bool):
    def paused(*args, **kwargs):
        if before:
            ready.write_text(str(os.getpid()))
            time.sleep(120)
        result = call(*args, **kwargs)
        if not before:
            ready.write_text(str(os.getpid()))
            time.sleep(120)
        return result

    return paused


def main(point: str, out: str, kb: str, ready: str) -> int:
    from pipesmith import api
    from pipesmith.core import report
    from pipesmith.knowledge_base.store import KnowledgeBase
    from pipesmith.logs import configure_logging
    from pipesmith.settings import Settings

    configure_logging(level="warning")
    flag = Path(ready)
    if point == "report":
        report.write_report = pause_then(report.write_report, flag, before=False)
    elif point == "kb-before":
        KnowledgeBase.add_repairs = pause_then(KnowledgeBase.add_repairs, flag, before=True)
    elif point == "kb-inside":
        KnowledgeBase.add_run = pause_then(KnowledgeBase.add_run, flag, before=True)
    else:
        raise SystemExit(f"unknown point {point}")
    # budget: an upper bound (a run that succeeds ends sooner), as in test_durability.py
    settings = Settings(kb_dir=Path(kb), max_candidates=1, fault_rate=1.0, budget_s=90,
                        n_jobs=1, cv_folds=2)
    try:
        api.run(dataset="iris", out=out, settings=settings)
    except api.RunInterrupted as exc:
        sys.stderr.write(f"interrupted; continue with: pipesmith resume {exc.run_dir}\n")
        return 128 + exc.signum
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
