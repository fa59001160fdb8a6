"""The sandbox seam: Sandbox.run(job) -> ExecResult, the same contract for every backend."""

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
KILL_GRACE_S = 2.0  # between SIGTERM and SIGKILL when a run overstays its time


class ExecJob(BaseModel):
    """A command to run inside `workdir`, the only place it may write."""

    model_config = ConfigDict(frozen=True)

    command: list[str]
    workdir: Path
    timeout_s: float = 120.0
    cpu_time_s: float | None = None
    memory_mb: int | None = None
    disk_mb: int | None = None  # what the job may write in all (per file where no tmpfs)
    max_pids: int | None = 256  # processes and threads together (where cgroups allow)
    env: dict[str, str] = Field(default_factory=dict)
    read_paths: tuple[Path, ...] = ()  # files or folders outside workdir it may read (data)
    output_cap_bytes: int = OUTPUT_CAP_BYTES  # per stream; head and tail are kept
    kill_grace_s: float = KILL_GRACE_S


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
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    files: list[str] = Field(default_factory=list)  # written or changed, relative to workdir
    backend: str = ""
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@runtime_checkable
class Sandbox(Protocol):
    """Runs one job to completion and reports what happened; never raises for the job's
    own failures, and leaves no process of the job behind."""

    name: str

    @property
    def isolate_network(self) -> bool: ...

    def run(self, job: ExecJob) -> ExecResult: ...
