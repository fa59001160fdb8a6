"""What a backend observed about one run, and the one rule that turns it into a status.

Both backends fill an Outcome; `classify` is shared so that the same behaviour gets the
same status everywhere. Infrastructure failures are `infra` and never the candidate's.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass, field
from pathlib import Path

from pipesmith.sandbox.base import ExecResult, ExecStatus
from pipesmith.sandbox.capture import CappedStream

DISK_FULL_SIGNS = ("No space left on device", "File too large", "Disk quota exceeded")
TAIL = 4000  # the part of stderr where the fatal exception is


@dataclass
class Outcome:
    infra: str | None = None  # set when the sandbox, not the job, failed
    wrapped: bool = False  # an exit code 128+N from the wrapper means the job died of signal N
    timed_out: bool = False
    ignored_sigterm: bool = False
    oom_killed: bool = False
    pids_exhausted: bool = False
    disk_full: bool = False  # the size-capped workdir was full when the job ended
    exit_code: int | None = None
    signal: int | None = None
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_mem_mb: float = 0.0
    stdout: CappedStream | None = None
    stderr: CappedStream | None = None
    notes: list[str] = field(default_factory=list)

    def set_status(self, status: int, usage=None) -> None:
        """From a wait status (and its rusage)."""
        if os.WIFSIGNALED(status):
            self.signal = os.WTERMSIG(status)
        else:
            self.set_exit_code(os.WEXITSTATUS(status))
        if usage is not None:
            self.cpu_s = usage.ru_utime + usage.ru_stime
            self.peak_mem_mb = usage.ru_maxrss / 1024

    def set_exit_code(self, code: int) -> None:
        if self.wrapped and code > 128 and (code - 128) in signal.valid_signals():
            self.signal = code - 128
        else:
            self.exit_code = code

    def settle(self, groups, scratch) -> None:
        """After the run: read what the cgroups counted, release them, and note any file
        the size-capped workdir could not hand back (FIFOs, sockets)."""
        if groups is not None:
            groups.observe(self)
            groups.remove()
        if scratch is not None and scratch.full:
            self.disk_full = True
        if scratch is not None and scratch.copy_errors:
            self.notes.append(f"not copied back: {'; '.join(scratch.copy_errors[:3])}")

    def result(self, backend: str, files: list[str]) -> ExecResult:
        stdout = self.stdout.text() if self.stdout else ""
        stderr = self.stderr.text() if self.stderr else ""
        status = classify(self, stderr)
        notes = list(self.notes)
        if self.infra:
            notes.insert(0, self.infra)
        if self.timed_out:
            notes.append("SIGKILLed after ignoring SIGTERM for the grace period"
                         if self.ignored_sigterm else "stopped by SIGTERM at the time limit")
        return ExecResult(
            status=status, exit_code=self.exit_code, signal=self.signal,
            wall_s=round(self.wall_s, 3), cpu_s=round(self.cpu_s, 3),
            peak_mem_mb=round(self.peak_mem_mb, 1), stdout=stdout, stderr=stderr,
            stdout_truncated=bool(self.stdout and self.stdout.truncated),
            stderr_truncated=bool(self.stderr and self.stderr.truncated),
            files=files, backend=backend, detail="; ".join(notes),
        )


def classify(outcome: Outcome, stderr: str) -> ExecStatus:
    """Most specific cause first: a limit the sandbox saw being hit beats the symptom."""
    if outcome.infra:
        return "infra"
    failed = outcome.signal is not None or outcome.exit_code != 0
    tail = stderr[-TAIL:]
    if failed and outcome.disk_full:  # tmpfs pages count as memory: the cap is the cause
        return "disk_full"
    if failed and outcome.oom_killed:
        return "oom"
    if failed and outcome.pids_exhausted:
        return "pids_exhausted"
    if outcome.timed_out:
        return "timeout"
    if outcome.signal == signal.SIGXCPU:
        return "cpu_timeout"
    if outcome.signal == signal.SIGXFSZ or (failed and any(s in tail for s in DISK_FULL_SIGNS)):
        return "disk_full"
    if failed and "MemoryError" in tail:
        return "oom"
    if outcome.signal is not None:
        return "killed"
    return "ok" if outcome.exit_code == 0 else "error"


def snapshot(workdir: Path) -> dict[str, tuple[int, int]]:
    """Size and mtime of every file under workdir (symlinks not followed)."""
    seen = {}
    for root, _, names in os.walk(workdir):
        for name in names:
            path = os.path.join(root, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            seen[os.path.relpath(path, workdir)] = (info.st_size, info.st_mtime_ns)
    return seen


def files_changed(workdir: Path, before: dict[str, tuple[int, int]]) -> list[str]:
    after = snapshot(workdir)
    return sorted(name for name, stamp in after.items() if before.get(name) != stamp)
