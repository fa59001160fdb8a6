"""The sandbox seam: Sandbox.run(job) -> ExecResult."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

ExecStatus = Literal[
    "ok", "error", "timeout", "cpu_timeout", "oom", "pids_exhausted",
    "disk_full", "denied", "killed", "infra",
]
OUTPUT_CAP_BYTES = 1 << 20
TRUNCATION_MARKER = "\n[... output truncated by the sandbox ...]\n"


class ExecJob(BaseModel):
    """A command to run inside `workdir`, the only place it may write."""

    model_config = ConfigDict(frozen=True)

    command: list[str]
    workdir: Path
    timeout_s: float = 120.0
    cpu_time_s: float | None = None
    memory_mb: int | None = None
    disk_mb: int | None = None  # the largest file the job may write
    max_pids: int | None = 256  # processes and threads together (where cgroups allow)
    env: dict[str, str] = Field(default_factory=dict)


class ExecResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    status: ExecStatus
    exit_code: int | None = None
    signal: int | None = None
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_mem_mb: float = 0.0
    stdout: str = ""
    stderr: str = ""
    files: list[str] = Field(default_factory=list)
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@runtime_checkable
class Sandbox(Protocol):
    def run(self, job: ExecJob) -> ExecResult: ...


def read_capped(path: Path, cap: int = OUTPUT_CAP_BYTES) -> str:
    """Read a log, keeping its head and tail when over the cap; invalid UTF-8 is replaced."""
    if not path.exists():
        return ""
    size = path.stat().st_size
    with path.open("rb") as handle:
        if size <= cap:
            return handle.read().decode("utf-8", errors="replace")
        head = handle.read(cap // 2)
        handle.seek(size - cap // 2)
        tail = handle.read()
    return (head.decode("utf-8", errors="replace") + TRUNCATION_MARKER
            + tail.decode("utf-8", errors="replace"))
