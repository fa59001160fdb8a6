"""Docker sandbox (docker SDK): each job in a fresh container that is removed afterwards.

The container has no network (`network_disabled`), a read-only root, tmpfs scratch,
memory/CPU/pids limits, all capabilities dropped, no-new-privileges, and runs as a
non-root user; in host runtime mode pipesmith's seccomp filter is stacked on Docker's
profile and the bundled data sets are hidden, as in the local backend. The workdir is the
one writable bind mount (a size-capped tmpfs copy of it where this process may mount one,
as in the local backend).

Two image modes:
- host runtime (default): a minimal image built with `docker import` from busybox-static
  (.ci/docker-engine.sh image); the host's /usr, Python prefix, virtual environment and
  this project's packages are bind-mounted read-only at their own paths, so the command
  runs unchanged and no registry is needed.
- image: any image with Python and this project installed (sandbox/Dockerfile); the host
  interpreter path in the command is replaced by `python`.

When this process is root on the engine's machine with cgroup v1, the container is
placed under a cgroup parent of ours, which keeps counting CPU, peak memory, OOM kills
and refused forks after Docker has removed the container's own group. The engine being
unreachable, or a container that cannot be created, is `infra`, never the candidate's.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from pathlib import Path

import structlog

from pipesmith.sandbox.base import ExecJob, ExecResult
from pipesmith.sandbox.capture import CappedStream
from pipesmith.sandbox.cgroups import RunGroups, writable
from pipesmith.sandbox.container_sweep import owner_labels
from pipesmith.sandbox.outcome import Outcome, files_changed, snapshot
from pipesmith.sandbox.runtime import (
    ETC_FILES,
    bundled_data_paths,
    job_environment,
    runtime_read_paths,
)
from pipesmith.sandbox.scratch import ScratchDisk, tmpfs_available
from pipesmith.sandbox.seccomp import seccomp_available
from pipesmith.sandbox.seccomp_exec import SETUP_FAILED

log = structlog.get_logger(__name__)

DEFAULT_IMAGE = "pipesmith-sandbox:host-runtime"
SANDBOX_UID = 65534  # nobody, when the host side runs as root
TMPFS_MB = 64
PIDS_SIGNS = ("Resource temporarily unavailable", "can't start new thread")


class DockerSandbox:
    name = "docker"
    isolate_network = True

    def __init__(self, image: str = DEFAULT_IMAGE, base_url: str | None = None,
                 host_runtime: bool = True, cpus: float | None = None,
                 cap_disk: bool | None = None) -> None:
        self.image = image
        self.base_url = base_url or os.environ.get("DOCKER_HOST")
        self.host_runtime = host_runtime
        self.cpus = cpus
        self.cap_disk = tmpfs_available() if cap_disk is None else cap_disk
        self.local_engine = (self.base_url or "unix://").startswith("unix://")
        self.account = self.local_engine and writable("pids") and writable("memory")
        self.limit_pids = self.limit_memory = True
        # pipesmith's filter on top of Docker's profile, and the bundled data sets hidden,
        # as in the local backend: both need the host's runtime (and so this package)
        self.seccomp = host_runtime and seccomp_available()
        self._client = None

    def client(self):
        """The engine connection, made on first use (constructing a sandbox needs no engine)."""
        if self._client is None:
            import docker

            self._client = (docker.DockerClient(base_url=self.base_url, timeout=60)
                            if self.base_url else docker.from_env(timeout=60))
        return self._client

    def available(self) -> bool:
        try:
            return bool(self.client().ping())
        except Exception:  # any failure to reach the engine means "no"
            return False

    @property
    def job_uid(self) -> int | None:
        """The user the job runs as, when not ours (files it must open are lent to it)."""
        return SANDBOX_UID if os.geteuid() == 0 else None

    def _user(self) -> str:
        return f"{SANDBOX_UID}:{SANDBOX_UID}" if os.geteuid() == 0 else \
            f"{os.getuid()}:{os.getgid()}"

    def _volumes(self, job: ExecJob, workdir: Path, source: Path) -> dict:
        volumes = {}
        if self.host_runtime:
            volumes["/usr"] = {"bind": "/usr", "mode": "ro"}
            for name in ETC_FILES:
                path = Path("/etc") / name
                if path.exists():
                    volumes[str(path)] = {"bind": str(path), "mode": "ro"}
            for path in runtime_read_paths():
                volumes[str(path)] = {"bind": str(path), "mode": "ro"}
        for path in (Path(p).resolve() for p in job.read_paths):
            if path.exists():
                volumes[str(path)] = {"bind": str(path), "mode": "ro"}
        volumes[str(source)] = {"bind": str(workdir), "mode": "rw"}
        return volumes

    def _command(self, job: ExecJob) -> list[str]:
        command = list(job.command)
        if not self.host_runtime and command and command[0] == sys.executable:
            command[0] = "python"
        if self.seccomp:
            command = [sys.executable, "-m", "pipesmith.sandbox.seccomp_exec", *command]
        return command

    def _tmpfs(self) -> dict[str, str]:
        """/tmp, and an empty read-only page over each bundled data set (sandbox/runtime.py):
        a model must not look its rows up in the library's copy."""
        hidden = bundled_data_paths() if self.host_runtime else []
        return {"/tmp": f"size={TMPFS_MB}m", **{str(p): "size=4k,mode=0555" for p in hidden}}

    def run(self, job: ExecJob) -> ExecResult:
        workdir = job.workdir.resolve()
        (workdir / "tmp").mkdir(parents=True, exist_ok=True)
        before = snapshot(workdir)
        try:
            client = self.client()
            client.ping()
        except Exception as exc:  # the engine is down or unreachable: not the job's fault
            return ExecResult(status="infra", backend=self.name,
                              detail=f"docker engine unreachable: {exc}")
        try:
            groups = RunGroups(job.max_pids, job.memory_mb) if self.account else None
        except OSError as exc:
            return ExecResult(status="infra", backend=self.name,
                              detail=f"could not set up the cgroups: {exc}")
        scratch = ScratchDisk(workdir, job.disk_mb) if self.cap_disk and job.disk_mb else None
        try:
            with contextlib.ExitStack() as stack:  # unwinds: give the tree back, copy back
                source = stack.enter_context(scratch).path if scratch else workdir
                if os.geteuid() == 0:
                    stack.enter_context(_lent_to(source, SANDBOX_UID))
                outcome = self._supervise(client, job, workdir, source, groups)
        except OSError as exc:
            outcome = Outcome(infra=f"could not prepare the workdir: {exc}")
        except BaseException:  # interrupted (SIGINT, SIGTERM): leave no cgroup behind
            if groups is not None:
                groups.kill_all()
                groups.remove()
            raise
        outcome.settle(groups, scratch)
        if not outcome.pids_exhausted and outcome.stderr is not None and not outcome.infra:
            tail = outcome.stderr.text()[-4000:]
            outcome.pids_exhausted = any(sign in tail for sign in PIDS_SIGNS)
        return outcome.result(self.name, files_changed(workdir, before))

    def _supervise(self, client, job: ExecJob, workdir: Path, source: Path,
                   groups: RunGroups | None) -> Outcome:
        from docker.errors import DockerException
        from docker.types import LogConfig, Ulimit

        ulimits = []
        if job.cpu_time_s is not None:
            seconds = max(1, int(job.cpu_time_s))
            ulimits.append(Ulimit(name="cpu", soft=seconds, hard=seconds + 5))
        if job.disk_mb is not None:
            ulimits.append(Ulimit(name="fsize", soft=job.disk_mb << 20, hard=job.disk_mb << 20))
        memory = f"{job.memory_mb}m" if job.memory_mb else None
        try:
            container = client.containers.create(
                self.image, self._command(job), working_dir=str(workdir),
                environment=job_environment(job), user=self._user(),
                network_disabled=True, read_only=True,
                tmpfs=self._tmpfs(), shm_size=f"{TMPFS_MB}m",
                volumes=self._volumes(job, workdir, source),
                mem_limit=memory, memswap_limit=memory, pids_limit=job.max_pids or -1,
                nano_cpus=int(self.cpus * 1e9) if self.cpus else None,
                ulimits=ulimits, cap_drop=["ALL"], security_opt=["no-new-privileges"],
                log_config=LogConfig(type="none"), labels=owner_labels(),
                cgroup_parent=f"/{groups.name}" if groups else None,
                hostname="sandbox", init=True,  # tini as PID 1 forwards SIGTERM, reaps
            )
        except DockerException as exc:
            return Outcome(infra=f"could not create the container: {exc}")
        outcome = Outcome()
        try:
            return self._attend(container, job, outcome)
        except DockerException as exc:
            outcome.infra = f"the docker engine failed during the run: {exc}"
            return outcome
        finally:
            try:
                container.remove(force=True)
            except DockerException as exc:
                log.warning("sandbox.docker_remove_failed", error=str(exc))

    def _attend(self, container, job: ExecJob, outcome: Outcome) -> Outcome:
        import requests

        outcome.stdout = CappedStream(job.output_cap_bytes)
        outcome.stderr = CappedStream(job.output_cap_bytes)
        frames = container.attach(stdout=True, stderr=True, stream=True, demux=True)
        reader = threading.Thread(target=_drain, args=(frames, outcome), daemon=True)
        reader.start()
        started = time.monotonic()
        container.start()
        try:
            status = container.wait(timeout=job.timeout_s)
        except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError):
            outcome.timed_out = True
            container.kill("SIGTERM")
            try:
                status = container.wait(timeout=job.kill_grace_s)
            except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError):
                outcome.ignored_sigterm = True
                container.kill("SIGKILL")
                status = container.wait(timeout=30)
        outcome.wall_s = time.monotonic() - started
        reader.join(5)
        container.reload()
        state = container.attrs.get("State", {})
        outcome.oom_killed = bool(state.get("OOMKilled"))
        code = int(status.get("StatusCode", state.get("ExitCode", -1)))
        outcome.wrapped = True  # Docker reports a death by signal N as 128+N
        outcome.set_exit_code(code)
        if code == 125 and SETUP_FAILED in outcome.stderr.text():  # no filter: not the job's
            outcome.infra = outcome.stderr.text().strip()[:300]
        return outcome


def _drain(frames, outcome: Outcome) -> None:
    try:
        for out, err in frames:
            if out:
                outcome.stdout.feed(out)
            if err:
                outcome.stderr.feed(err)
    except Exception:  # the stream ends with the container, however it ends
        pass


@contextlib.contextmanager
def _lent_to(root: Path, uid: int):
    """The tree belongs to uid (the container's user) for the run, then to its owner again."""
    info = root.stat()
    _chown_tree(root, uid, uid)
    try:
        yield
    finally:
        _chown_tree(root, info.st_uid, info.st_gid)


def _chown_tree(root: Path, uid: int, gid: int) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
            try:
                os.chown(name, uid, gid, follow_symlinks=False)
            except OSError:
                pass
