"""Local sandbox: the job runs on this machine, as contained as the machine allows.

Layers, each used where available and reported where not:
- bubblewrap (`bwrap --unshare-all --die-with-parent`): new network, PID, mount, IPC and
  UTS namespaces, all capabilities dropped, a read-only view of the host runtime, no
  home, the workdir the only writable place; the job's /proc shows only its own
  processes, and when the job exits every process it left behind dies with the namespace.
  Without bwrap the backend refuses to run anything (SandboxUnavailable: one line, exit 2)
  unless the caller opted in with `allow_unsafe` (`--sandbox unsafe-local`): then
  `unshare --net` (no network, but the host filesystem stays visible).
- cgroups (v1, root): a pids limit (fork bombs) and a memory limit (real resident memory);
  the pids group also finds and kills every straggler, however it detached itself.
  Without them: RLIMIT_AS with a 2 GB floor (lower breaks torch/TensorFlow imports).
- a size-capped tmpfs standing in for the workdir (root); otherwise RLIMIT_FSIZE per file.
- the job dies with its supervisor: bwrap's --die-with-parent, PR_SET_PDEATHSIG on the
  child in every mode, the pids cgroup killed as a whole; what a SIGKILLed supervisor
  leaves is tagged with its owner and swept by the next command (sandbox/owner.py).
- rlimits for CPU time (SIGXCPU) and file size; a new process group; a wall-clock
  timeout that sends SIGTERM to the job, then SIGKILL to everything after a grace period.
- an allow-listed environment (no API keys or tokens; HOME is the workdir).
Output travels through pipes into capped buffers, never onto the host disk.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import os
import resource
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Literal

import structlog

from pipesmith.errors import InputError
from pipesmith.sandbox.base import ExecJob, ExecResult
from pipesmith.sandbox.bwrap import bwrap_available, bwrap_command
from pipesmith.sandbox.capture import PipeDrain, open_pipe
from pipesmith.sandbox.cgroups import RunGroups, writable
from pipesmith.sandbox.outcome import Outcome, files_changed, snapshot
from pipesmith.sandbox.runtime import job_environment
from pipesmith.sandbox.scratch import ScratchDisk, tmpfs_available
from pipesmith.sandbox.seccomp import filter_fd, seccomp_available

log = structlog.get_logger(__name__)

Isolation = Literal["bwrap", "unshare", "none"]
PR_SET_PDEATHSIG = 1
NO_BWRAP = ("bubblewrap is not installed, so pipesmith will not run generated code: "
            "install it (apt-get install bubblewrap), or use --sandbox docker, or accept "
            "running it unisolated with --sandbox unsafe-local")


class SandboxUnavailable(InputError):
    """The local backend cannot isolate a job here and the user did not opt out."""
RLIMIT_AS_FLOOR_MB = 2048  # lower breaks torch and TensorFlow imports
WRAPPERS = ("bwrap", "unshare")
LAUNCH_TOOLS = ("sh", "setpriv")  # else a Python preexec_fn does the same, more slowly
JOIN_FAILED = "pipesmith-sandbox: could not set up the job"
# Arguments: CPU soft and hard seconds, file-size blocks, address-space KiB ("-": none),
# the cgroups' `tasks` files to join, "--", the command. The shell (one thread) moves
# itself by writing 0 to each and then becomes the job by exec, so every process of the
# job starts inside the groups and under the limits. `0 > tasks` (the calling thread), not
# `$$ > cgroup.procs`: the kernel moves the caller without taking the global threadgroup
# lock, whose write side waits for an RCU grace period (~10 ms of wall time per launch).
LAUNCH_SCRIPT = (
    'c=$1 h=$2 f=$3 v=$4; shift 4; '
    f'fail() {{ echo "{JOIN_FAILED}: $1" >&2; exit 125; }}; '
    'for g do [ "$g" = -- ] && break; { echo 0 > "$g"; } 2>/dev/null || fail "$g"; shift; '
    'done; shift; '
    '[ "$c" = - ] || { ulimit -S -t "$c" && ulimit -H -t "$h"; } || fail "ulimit -t"; '
    '[ "$f" = - ] || ulimit -f "$f" || fail "ulimit -f"; '
    '[ "$v" = - ] || ulimit -v "$v" || fail "ulimit -v"; '
    'exec "$@"')


def network_namespace_available() -> bool:
    """True when `unshare --net` can give a child a network namespace with no routes."""
    if shutil.which("unshare") is None:
        return False
    try:
        done = subprocess.run(["unshare", "--net", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def best_isolation() -> Isolation:
    if bwrap_available():
        return "bwrap"
    return "unshare" if network_namespace_available() else "none"


class LocalSandbox:
    """Runs a job as a child process group on this machine."""

    name = "local"

    def __init__(self, isolation: Isolation | None = None, poll_s: float = 0.02,
                 cap_disk: bool | None = None, allow_unsafe: bool = False) -> None:
        self.isolation: Isolation = isolation or best_isolation()
        if self.isolation != "bwrap" and not allow_unsafe:
            raise SandboxUnavailable(NO_BWRAP)
        if self.isolation != "bwrap":
            log.warning("sandbox.weak_isolation", isolation=self.isolation,
                        missing="bubblewrap: the host filesystem is visible to the job")
        self.isolate_network = self.isolation != "none"
        self.limit_pids = writable("pids")
        self.limit_memory = writable("memory")
        if not (self.limit_pids and self.limit_memory):
            log.warning("sandbox.no_cgroup_limits", pids=self.limit_pids,
                        memory=self.limit_memory, fallback="RLIMIT_AS for memory")
        self.cap_disk = tmpfs_available() if cap_disk is None else cap_disk
        if not self.cap_disk:
            log.warning("sandbox.no_disk_cap", fallback="RLIMIT_FSIZE (per file)")
        self.poll_s = poll_s
        self.seccomp = self.isolation == "bwrap" and seccomp_available()
        self.exec_launch = all(shutil.which(tool) for tool in LAUNCH_TOOLS)
        self.shared_etc = True  # one bind of a copy of the /etc files (sandbox/bwrap.py)
        _libc()  # loaded here, never first in a forked child

    def _preexec(self, job: ExecJob, groups: RunGroups | None):
        def apply() -> None:
            _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with the supervisor
            if groups is not None:
                groups.join()
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

    def _launcher(self, job: ExecJob, groups: RunGroups | None) -> list[str]:
        """What `_preexec` does, without running Python in a forked child (so subprocess
        can vfork: a large supervisor starts jobs quickly): one POSIX shell joins the
        cgroups and sets the rlimits, then becomes the job by exec. Without bwrap (whose
        --die-with-parent does it) setpriv sets the parent-death signal."""
        joins = [str(group.path / "tasks") for group in groups.groups] if groups else []
        cpu = hard = fsize = address = "-"
        if job.cpu_time_s is not None:
            seconds = max(1, int(job.cpu_time_s))
            cpu, hard = str(seconds), str(seconds + 5)
        if job.disk_mb is not None:
            fsize = str(job.disk_mb << 11)  # 512-byte blocks (POSIX ulimit -f)
        if job.memory_mb is not None and not self.limit_memory:
            address = str(max(job.memory_mb, RLIMIT_AS_FLOOR_MB) << 10)  # KiB
        chain = ["sh", "-c", LAUNCH_SCRIPT, "sh", cpu, hard, fsize, address, *joins, "--"]
        if self.isolation != "bwrap":
            chain += ["setpriv", "--pdeathsig", "KILL", "--"]
        return chain

    def _command(self, job: ExecJob, workdir: Path, writable_source: Path,
                 seccomp_fd: int | None = None) -> list[str]:
        if self.isolation == "bwrap":
            return bwrap_command(job.command, workdir, writable_source, job.read_paths,
                                 seccomp_fd, self.shared_etc)
        if self.isolation == "unshare":
            return ["unshare", "--net", *job.command]
        return list(job.command)

    def run(self, job: ExecJob) -> ExecResult:
        workdir = job.workdir.resolve()
        (workdir / "tmp").mkdir(parents=True, exist_ok=True)
        before = snapshot(workdir)
        tmpfs = bool(self.cap_disk and job.disk_mb and self.isolation == "bwrap")
        memory_mb = job.memory_mb
        if tmpfs and memory_mb:  # the tmpfs's pages are charged here too: not to the job's share
            memory_mb += job.disk_mb
        try:
            groups = RunGroups(job.max_pids, memory_mb) if self.limit_pids else None
        except OSError as exc:
            return ExecResult(status="infra", backend=self.name,
                              detail=f"could not set up the cgroups: {exc}")
        scratch = ScratchDisk(workdir, job.disk_mb) if tmpfs else None
        try:
            with scratch or contextlib.nullcontext():
                outcome = self._supervise(job, workdir, scratch.path if scratch else workdir,
                                          groups)
        except OSError as exc:
            outcome = Outcome(infra=f"could not prepare the workdir: {exc}")
        except BaseException:  # interrupted (SIGINT, SIGTERM): leave no cgroup behind
            if groups is not None:
                groups.kill_all()
                groups.remove()
            raise
        outcome.settle(groups, scratch)
        return outcome.result(self.name, files_changed(workdir, before))

    def _supervise(self, job: ExecJob, workdir: Path, writable_source: Path,
                   groups: RunGroups | None) -> Outcome:
        seccomp_fd = filter_fd() if self.seccomp else None
        command = self._command(job, workdir, writable_source, seccomp_fd)
        preexec = self._preexec(job, groups)
        if self.exec_launch:
            command, preexec = self._launcher(job, groups) + command, None
        out_r, out_w = open_pipe()
        err_r, err_w = open_pipe()
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                command, cwd=writable_source, env=job_environment(job),
                stdin=subprocess.DEVNULL, stdout=out_w, stderr=err_w, start_new_session=True,
                preexec_fn=preexec,
                pass_fds=() if seccomp_fd is None else (seccomp_fd,),
            )
        except (OSError, subprocess.SubprocessError) as exc:
            for fd in (out_r, out_w, err_r, err_w):
                os.close(fd)
            return Outcome(infra=f"could not start the job: {exc}")
        finally:
            if seccomp_fd is not None:
                os.close(seccomp_fd)
        os.close(out_w)
        os.close(err_w)
        drain = PipeDrain((out_r, err_r), job.output_cap_bytes)
        outcome = Outcome(wrapped=self.isolation == "bwrap")
        _RUNNING[proc.pid] = groups
        try:
            status, usage = self._wait(proc, started + job.timeout_s, drain)
            if status is None:
                outcome.timed_out = True
                status, usage, outcome.ignored_sigterm = self._terminate(proc, job.kill_grace_s,
                                                                         drain)
        except BaseException:
            drain.close()
            raise
        finally:
            _RUNNING.pop(proc.pid, None)
            _kill_group(proc.pid, signal.SIGKILL)  # stragglers left in the process group
            if groups is not None:
                groups.kill_all()  # and those that left it
            if proc.returncode is None:  # interrupted before it was reaped
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(proc.pid, 0)
        outcome.wall_s = time.monotonic() - started
        outcome.set_status(status, usage)
        outcome.stdout, outcome.stderr = drain.finish()
        if outcome.exit_code == 125 and JOIN_FAILED in outcome.stderr.text():
            outcome.infra = outcome.stderr.text().strip()[:300]
        return outcome

    def _wait(self, proc: subprocess.Popen, deadline: float, drain: PipeDrain):
        """Wait for the job's exit or the deadline, reading its output meanwhile; woken
        the moment it exits (a pidfd in the same poll as the pipes; else every poll_s)."""
        with _pidfd(proc.pid) as pidfd:
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    proc.returncode = os.waitstatus_to_exitcode(status)
                    return status, usage
                left = deadline - time.monotonic()
                if left <= 0:
                    return None, None
                drain.poll(left if pidfd is not None else min(left, self.poll_s), pidfd)

    def _terminate(self, proc: subprocess.Popen, grace_s: float, drain: PipeDrain):
        """SIGTERM to the job's processes (not to the wrapper, whose death would SIGKILL
        them at once), then SIGKILL to the whole group after the grace period."""
        for pid in _job_processes(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        status, usage = self._wait(proc, time.monotonic() + grace_s, drain)
        if status is not None:
            return status, usage, False
        _kill_group(proc.pid, signal.SIGKILL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        return status, usage, True


_RUNNING: dict[int, RunGroups | None] = {}  # process group -> cgroups, of jobs running now


def stop_all() -> int:
    """SIGKILL every job this process is running (from any thread), and their cgroups;
    for the supervisor's own exit paths. Returns how many jobs were stopped."""
    running = list(_RUNNING.items())
    for pgid, groups in running:
        _kill_group(pgid, signal.SIGKILL)
        if groups is not None:
            groups.kill_all()
    return len(running)


@functools.cache
def _libc():
    return ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


@contextlib.contextmanager
def _pidfd(pid: int):
    """A pidfd for `pid` (readable once it exits), or None where the kernel has none."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        yield None
        return
    try:
        yield fd
    finally:
        os.close(fd)


def _job_processes(pgid: int) -> list[int]:
    """The processes of the job's process group, minus the isolation wrappers."""
    members = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            if int(fields[2]) != pgid:
                continue
            exe = os.path.basename(os.readlink(f"/proc/{entry.name}/exe"))
        except (OSError, IndexError, ValueError):
            continue
        if exe not in WRAPPERS:
            members.append(int(entry.name))
    return members


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass
