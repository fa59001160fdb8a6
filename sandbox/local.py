"""Local sandbox: a new process group, a scrubbed environment, no network, time limits.

Hardening (cgroups, bubblewrap, disk caps) comes with the sandbox issue; this
backend already kills the whole process group on timeout and never leaves a
process behind.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import time

import structlog

from pipesmith.sandbox.base import ExecJob, ExecResult, read_capped
from pipesmith.sandbox.cgroups import MemoryLimit, PidsLimit, writable

log = structlog.get_logger(__name__)

ENV_ALLOW = ("PATH", "LANG", "LC_ALL", "TZ", "SYSTEMROOT")
SAFE_ENV = {
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "HF_HUB_OFFLINE": "1",
    "RAY_USAGE_STATS_ENABLED": "0",
    "ANONYMIZED_TELEMETRY": "False",
}
RLIMIT_AS_FLOOR_MB = 2048  # lower breaks torch and TensorFlow imports
KILL_GRACE_S = 2.0


def network_namespace_available() -> bool:
    """True when `unshare --net` can give a child a network namespace with no routes."""
    if shutil.which("unshare") is None:
        return False
    try:
        done = subprocess.run(["unshare", "--net", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


class LocalSandbox:
    """Runs a job as a child process group on this machine."""

    def __init__(self, isolate_network: bool | None = None, poll_s: float = 0.02) -> None:
        self.isolate_network = (
            network_namespace_available() if isolate_network is None else isolate_network
        )
        if not self.isolate_network:
            log.warning("sandbox.no_network_isolation", reason="unshare --net unavailable")
        self.limit_pids = writable("pids")
        self.limit_memory = writable("memory")
        if not (self.limit_pids and self.limit_memory):
            log.warning("sandbox.no_cgroup_limits", pids=self.limit_pids,
                        memory=self.limit_memory, fallback="RLIMIT_AS for memory")
        self.poll_s = poll_s

    def _environment(self, job: ExecJob) -> dict[str, str]:
        env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
        env.update(SAFE_ENV)
        env.update(HOME=str(job.workdir), TMPDIR=str(job.workdir / "tmp"))
        env.update(job.env)
        return env

    def _limits(self, job: ExecJob, groups: list):
        def apply() -> None:
            for group in groups:
                group.join()
            if job.cpu_time_s is not None:
                seconds = max(1, int(job.cpu_time_s))
                resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
            if job.disk_mb is not None:
                size = job.disk_mb << 20
                resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
            if job.memory_mb is not None and not self.limit_memory:
                limit = max(job.memory_mb, RLIMIT_AS_FLOOR_MB) << 20
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        return apply

    def run(self, job: ExecJob) -> ExecResult:
        workdir = job.workdir
        (workdir / "tmp").mkdir(parents=True, exist_ok=True)
        before = {p for p in workdir.rglob("*") if p.is_file()}
        stdout_path, stderr_path = workdir / "stdout.log", workdir / "stderr.log"
        command = (["unshare", "--net"] if self.isolate_network else []) + list(job.command)
        try:
            pids = PidsLimit(job.max_pids) if self.limit_pids and job.max_pids else None
            memory = MemoryLimit(job.memory_mb) if self.limit_memory and job.memory_mb else None
        except OSError as exc:
            return ExecResult(status="infra", detail=f"could not set up the cgroups: {exc}")
        groups = [g for g in (pids, memory) if g is not None]
        started = time.monotonic()
        try:
            with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
                proc = subprocess.Popen(
                    command, cwd=workdir, env=self._environment(job), stdin=subprocess.DEVNULL,
                    stdout=out, stderr=err, start_new_session=True,
                    preexec_fn=self._limits(job, groups),
                )
        except (OSError, subprocess.SubprocessError) as exc:
            for group in groups:
                group.remove()
            return ExecResult(status="infra", detail=f"could not start the job: {exc}")
        timed_out = False
        try:
            status, usage = self._wait(proc, started + job.timeout_s)
            if status is None:
                timed_out = True
                status, usage = self._terminate(proc)
        finally:
            _kill_group(proc.pid, signal.SIGKILL)  # stragglers the job left behind
        exhausted = pids is not None and pids.exhausted()
        oom_killed = memory is not None and memory.oom_killed()
        for group in groups:
            group.remove()
        wall = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        stderr = read_capped(stderr_path)
        return ExecResult(
            status="oom" if oom_killed and (exit_code or sig)
            else "pids_exhausted" if exhausted and (exit_code or sig)
            else _classify(timed_out, exit_code, sig, stderr),
            exit_code=exit_code,
            signal=sig,
            wall_s=round(wall, 3),
            cpu_s=round(usage.ru_utime + usage.ru_stime, 3),
            peak_mem_mb=round(usage.ru_maxrss / 1024, 1),
            stdout=read_capped(stdout_path),
            stderr=stderr,
            files=sorted(
                str(p.relative_to(workdir)) for p in workdir.rglob("*")
                if p.is_file() and p not in before and p not in (stdout_path, stderr_path)
            ),
        )

    def _wait(self, proc: subprocess.Popen, deadline: float):
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                return status, usage
            if time.monotonic() >= deadline:
                return None, None
            time.sleep(self.poll_s)

    def _terminate(self, proc: subprocess.Popen):
        _kill_group(proc.pid, signal.SIGTERM)
        status, usage = self._wait(proc, time.monotonic() + KILL_GRACE_S)
        if status is None:
            _kill_group(proc.pid, signal.SIGKILL)
            _, status, usage = os.wait4(proc.pid, 0)
        return status, usage


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _classify(timed_out: bool, exit_code: int | None, sig: int | None, stderr: str) -> str:
    if timed_out:
        return "timeout"
    if sig == signal.SIGXCPU:
        return "cpu_timeout"
    if sig == signal.SIGXFSZ or "File too large" in stderr[-4000:]:
        return "disk_full"
    if "MemoryError" in stderr[-4000:]:
        return "oom"
    if sig is not None:
        return "killed"
    return "ok" if exit_code == 0 else "error"
