"""Cgroup (v1) limits for one sandbox run, where the controllers are writable (root).

- pids: processes and threads together, so fork bombs and runaway thread pools stop;
- memory: resident memory (with page cache, which the kernel reclaims first), so the
  limit means what the resource predictor predicts. RLIMIT_AS is no substitute: a Python
  process with NumPy and scikit-learn maps over 2 GB of address space to use 230 MB.

Where a controller is not writable (no root, cgroup v2 only) the sandbox runs without
it and says so; the sandbox-hardening issue adds cgroup v2.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")


def writable(controller: str) -> bool:
    base = ROOT / controller
    return (base / "cgroup.procs").exists() and os.access(base, os.W_OK)


class Cgroup:
    """One fresh cgroup under a v1 controller; join() from the child before exec."""

    controller = ""

    def __init__(self) -> None:
        self.path = ROOT / self.controller / f"pipesmith-{uuid.uuid4().hex[:12]}"
        self.path.mkdir()

    def join(self) -> None:
        (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def _read(self, name: str) -> str:
        target = self.path / name
        return target.read_text() if target.exists() else ""

    def remove(self) -> None:
        for _ in range(50):  # the last processes may still be exiting
            try:
                self.path.rmdir()
                return
            except OSError:
                time.sleep(0.02)


class PidsLimit(Cgroup):
    controller = "pids"

    def __init__(self, max_pids: int) -> None:
        super().__init__()
        (self.path / "pids.max").write_text(str(max_pids))

    def exhausted(self) -> bool:
        """True when a fork or thread start was refused for hitting the limit."""
        counts = dict(line.split() for line in self._read("pids.events").splitlines()
                      if line.strip())
        return int(counts.get("max", 0)) > 0


class MemoryLimit(Cgroup):
    controller = "memory"

    def __init__(self, limit_mb: int) -> None:
        super().__init__()
        (self.path / "memory.limit_in_bytes").write_text(str(limit_mb << 20))

    def oom_killed(self) -> bool:
        counts = dict(line.split() for line in self._read("memory.oom_control").splitlines()
                      if line.strip())
        return int(counts.get("oom_kill", 0)) > 0
