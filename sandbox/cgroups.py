"""A cgroup (v1) process-count limit for one sandbox run, where the controller is writable.

Threads count as processes here, so the limit stops fork bombs and runaway thread
pools alike. Where the controller is not writable (no root, cgroup v2 only) the
sandbox runs without it and says so; the sandbox issue adds v2 and memory.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

PIDS_ROOT = Path("/sys/fs/cgroup/pids")


def pids_controller_writable() -> bool:
    return (PIDS_ROOT / "cgroup.procs").exists() and os.access(PIDS_ROOT, os.W_OK)


class PidsLimit:
    """Create with a limit, call join() in the child before exec, then exhausted(), remove()."""

    def __init__(self, max_pids: int) -> None:
        self.path = PIDS_ROOT / f"pipesmith-{uuid.uuid4().hex[:12]}"
        self.path.mkdir()
        (self.path / "pids.max").write_text(str(max_pids))

    def join(self) -> None:
        (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def exhausted(self) -> bool:
        """True when a fork or thread start was refused for hitting the limit."""
        events = self.path / "pids.events"
        if not events.exists():
            return False
        counts = dict(line.split() for line in events.read_text().splitlines() if line.strip())
        return int(counts.get("max", 0)) > 0

    def remove(self) -> None:
        for _ in range(50):  # the last processes may still be exiting
            try:
                self.path.rmdir()
                return
            except OSError:
                time.sleep(0.02)
