"""Cgroup (v1) limits for one sandbox run, where the controllers are writable (root).

- pids: processes and threads together, so fork bombs and runaway thread pools stop;
- memory: resident memory (with page cache, which the kernel reclaims first), so the
  limit means what the resource predictor predicts. RLIMIT_AS is no substitute: a Python
  process with NumPy and scikit-learn maps over 2 GB of address space to use 230 MB.

- cpuacct: CPU seconds of the whole job.

Where a controller is not writable (no root, cgroup v2 only) the sandbox runs without
it and says so; the sandbox-hardening issue adds cgroup v2.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import select
import signal
import time
import uuid
from pathlib import Path

from pipesmith.sandbox.owner import tag

ROOT = Path("/sys/fs/cgroup")


@functools.cache  # the same for the whole life of this process
def writable(controller: str) -> bool:
    base = ROOT / controller
    return (base / "cgroup.procs").exists() and os.access(base, os.W_OK)


def new_name() -> str:
    """One name for a run's groups under every controller (Docker's cgroup_parent takes one),
    tagged with the supervisor and the run (sandbox/owner.py sweeps a dead owner's groups)."""
    return f"pipesmith-{tag()}-{uuid.uuid4().hex[:8]}"


class Cgroup:
    """One fresh cgroup under a v1 controller; join() from the child before exec."""

    controller = ""

    def __init__(self, name: str | None = None) -> None:
        self.name = name or new_name()
        self.path = ROOT / self.controller / self.name
        self.path.mkdir()

    def join(self) -> None:
        """Move the calling process, which must have one thread (a forked child), in:
        `0` into `tasks` moves the caller without the global threadgroup lock (whose
        write side waits for an RCU grace period) that writing a PID to cgroup.procs takes."""
        with open(self.path / "tasks", "w") as handle:
            handle.write("0")

    def _read(self, name: str) -> str:
        """The file's text; "" once the group is gone, or going: a group another thread is
        removing answers ENODEV (stop_all met one in CI)."""
        try:
            with open(os.path.join(self.path, name)) as handle:
                return handle.read()
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENODEV):
                return ""
            raise

    def pids(self) -> list[int]:
        return [int(pid) for pid in self._read("cgroup.procs").split()]

    def kill_all(self) -> None:
        """SIGKILL every process still in the group, including any that left the job's
        process group or session (setsid, double fork), and wait until it is empty:
        on pidfds, so the wait ends the moment the last one has exited (a namespace
        being torn down empties within a millisecond or so); polling where there are none."""
        pause = 0.0001
        for _ in range(500):
            pids = self.pids()
            if not pids:
                return
            exits = select.poll()
            fds = []
            for pid in pids:
                try:
                    fd = os.pidfd_open(pid)
                except ProcessLookupError:
                    continue
                except (AttributeError, OSError):  # no pidfds here: signal and poll
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                    continue
                fds.append(fd)
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(fd, signal.SIGKILL)
                exits.register(fd, select.POLLIN)
            try:
                if len(fds) == len(pids):  # every one has a pidfd: wait for them all
                    waiting, deadline = len(fds), time.monotonic() + 0.002
                    while waiting and (left := deadline - time.monotonic()) > 0:
                        for fd, _ in exits.poll(max(1, int(left * 1000))):
                            exits.unregister(fd)
                            waiting -= 1
                    continue
            finally:
                for fd in fds:
                    os.close(fd)
            time.sleep(pause)
            pause = min(pause * 2, 0.002)

    def remove(self) -> None:
        pause = 0.0005
        for _ in range(60):  # the last processes may still be exiting
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:
                pass
            try:
                for child in os.scandir(self.path):  # left by Docker under a cgroup_parent
                    if child.is_dir(follow_symlinks=False):
                        os.rmdir(child.path)
            except OSError:
                time.sleep(pause)
                pause = min(pause * 2, 0.02)


class RunGroups:
    """The pids, memory and cpuacct groups of one run, under one name, where writable."""

    def __init__(self, max_pids: int | None, memory_mb: int | None) -> None:
        self.name = new_name()
        self.pids = self.memory = self.cpu = None
        try:
            if writable("pids"):
                self.pids = PidsLimit(max_pids, self.name)
            if writable("memory"):
                self.memory = MemoryLimit(memory_mb, self.name)
            if writable("cpuacct"):
                self.cpu = CpuAccounting(self.name)
        except OSError:
            self.remove()
            raise

    @property
    def groups(self) -> list[Cgroup]:
        return [g for g in (self.pids, self.memory, self.cpu) if g is not None]

    def join(self) -> None:
        for group in self.groups:
            group.join()

    def kill_all(self) -> None:
        if self.pids is not None:
            self.pids.kill_all()

    def remove(self) -> None:
        for group in self.groups:
            group.remove()

    def observe(self, outcome) -> None:
        """Copy what the kernel counted into the run's Outcome."""
        outcome.pids_exhausted = outcome.pids_exhausted or bool(self.pids and self.pids.exhausted())
        outcome.oom_killed = outcome.oom_killed or bool(self.memory and self.memory.oom_killed())
        if self.memory is not None:
            outcome.peak_mem_mb = self.memory.peak_mb() or outcome.peak_mem_mb
        if self.cpu is not None:
            outcome.cpu_s = max(outcome.cpu_s, self.cpu.cpu_s())


class PidsLimit(Cgroup):
    controller = "pids"

    def __init__(self, max_pids: int | None, name: str | None = None) -> None:
        super().__init__(name)
        (self.path / "pids.max").write_text(str(max_pids) if max_pids else "max")

    def exhausted(self) -> bool:
        """True when a fork or thread start was refused for hitting the limit."""
        counts = dict(line.split() for line in self._read("pids.events").splitlines()
                      if line.strip())
        return int(counts.get("max", 0)) > 0


class MemoryLimit(Cgroup):
    controller = "memory"

    def __init__(self, limit_mb: int | None, name: str | None = None) -> None:
        super().__init__(name)
        if limit_mb:
            (self.path / "memory.limit_in_bytes").write_text(str(limit_mb << 20))

    def oom_killed(self) -> bool:
        counts = dict(line.split() for line in self._read("memory.oom_control").splitlines()
                      if line.strip())
        return int(counts.get("oom_kill", 0)) > 0

    def peak_mb(self) -> float:
        peak = self._read("memory.max_usage_in_bytes").strip()
        return int(peak) / (1 << 20) if peak else 0.0


class CpuAccounting(Cgroup):
    """CPU seconds of every process of the job, however deep (rusage through a wrapper
    that does not wait for its grandchildren misses them)."""

    controller = "cpuacct"

    def cpu_s(self) -> float:
        used = self._read("cpuacct.usage").strip()
        return int(used) / 1e9 if used else 0.0
