"""The supervisor's side of a served job: a sandbox job that stays alive and answers requests
over the channel (sandbox/channel.py), one at a time.

The fold workers of a run (agents/search/trial_pool.py) and the model worker that applies a
saved model (pipesmith/core/model_host.py) are both one of these. The job is an ordinary
`Sandbox.run(job)` on a thread, with every limit a job has; its only way to talk is the
channel. A job that ends, stalls or answers out of step is let go (its channel closed: a live
server reads end-of-file and exits; one that does not is ended by its own wall clock) and the
caller decides whether to start a fresh one. The server's side is sandbox/serve_loop.py.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import structlog

from pipesmith.sandbox.base import ExecJob, ExecResult, Sandbox
from pipesmith.sandbox.channel import (
    ChannelError,
    ChannelTimeout,
    make_channel,
    open_supervisor_side,
    readable,
    receive,
    send,
)

log = structlog.get_logger(__name__)
JOB_FILE = "job.json"  # the server reads its job from here (argv[1])
# one thread per library: jobs share the machine, and BLAS's own pool would oversubscribe it
THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


class JobGone(Exception):
    """The served job ended, stopped answering or broke the protocol, and was let go."""


def one_line(text: object, limit: int = 300) -> str:
    """Untrusted text shown to a user: its first line, printable, capped."""
    line = (str(text).strip().splitlines() or [""])[0]
    return "".join(ch if ch.isprintable() else "?" for ch in line)[:limit]


class ServedJob:
    """One server module (`python -m server job.json`) run as a sandbox job in `folder`.

    `job` is what the server reads besides its channel; `read_paths` what it may read."""

    def __init__(self, sandbox: Sandbox, folder: Path, server: str, job: dict, *,
                 name: str, memory_mb: int, disk_mb: int, read_paths: tuple[Path, ...]) -> None:
        self.sandbox, self.folder, self.server, self.job = sandbox, folder, server, job
        self.name, self.memory_mb, self.disk_mb = name, memory_mb, disk_mb
        self.read_paths = tuple(read_paths)
        self.starts = 0
        self.results: list[ExecResult] = []
        self._fds: tuple[int, int] | None = None
        self._thread: threading.Thread | None = None

    @property
    def alive(self) -> bool:
        return self._fds is not None and self._thread is not None and self._thread.is_alive()

    def start(self, timeout_s: float, ready_by: float, cpu_time_s: float | None = None) -> dict:
        """Start a fresh job (wall clock `timeout_s`) and wait until `ready_by` for its
        `ready` message, which is returned; JobGone when it does not come."""
        self.let_go()
        base = self.folder / f"w{self.starts}"
        self.starts += 1
        channel = make_channel(base / "channel", getattr(self.sandbox, "job_uid", None))
        workdir = base / "work"
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / JOB_FILE).write_text(json.dumps({**self.job, "channel": str(channel)}))
        self._fds = open_supervisor_side(channel)
        job = ExecJob(command=[sys.executable, "-m", self.server, JOB_FILE], workdir=workdir,
                      timeout_s=timeout_s, cpu_time_s=cpu_time_s, memory_mb=self.memory_mb,
                      disk_mb=self.disk_mb, read_paths=(*self.read_paths, channel),
                      env=THREAD_ENV)
        self._thread = threading.Thread(target=self._run, args=(job,), daemon=True,
                                        name=self.name)
        self._thread.start()
        try:
            return self._reply(ready_by)[0]
        except JobGone:
            self.let_go()
            raise

    def _run(self, job: ExecJob) -> None:
        result = self.sandbox.run(job)
        self.results.append(result)
        if not result.ok:
            log.info("served_job.ended", job=self.name, status=result.status,
                     detail=result.detail, stderr=result.stderr[-300:])

    def last_words(self) -> str:
        """How the last job ended, when it failed: ' (status: first line)', else ''."""
        if not self.results or self.results[-1].ok:
            return ""
        result = self.results[-1]
        return f" ({result.status}: {one_line(result.detail or result.stderr.strip()[-300:])})"

    def _reply(self, deadline: float, max_payload: int = 1 << 20) -> tuple[dict, bytes]:
        """The next message. Its start is awaited in short slices, so that a job that ended
        is noticed; a message that has begun is read whole, to the deadline (a slice ending
        mid-message would leave the rest to be read as the next header)."""
        assert self._fds is not None
        while not readable(self._fds[1], min(deadline, time.monotonic() + 0.5)):
            if time.monotonic() >= deadline:
                raise JobGone(f"{self.name}: no answer in time")
            if self._thread is None or not self._thread.is_alive():
                raise JobGone(f"{self.name}: the job ended{self.last_words()}")
        try:
            return receive(self._fds[1], deadline, max_payload)
        except ChannelTimeout as exc:
            raise JobGone(f"{self.name}: no whole answer in time") from exc
        except ChannelError as exc:
            raise JobGone(f"{self.name}: {one_line(exc)}") from exc

    def ask(self, request: dict, payload: bytes = b"", *, reply_by: float,
            max_payload: int = 1 << 20) -> tuple[dict, bytes]:
        """Send one request (it carries an "id") and return the reply to it. JobGone when
        the job fails to answer it; the job is then let go."""
        if not self.alive:
            raise JobGone(f"{self.name}: not running")
        try:
            send(self._fds[0], request, payload)
            reply, data = self._reply(reply_by, max_payload)
        except (JobGone, OSError) as exc:
            self.let_go()
            raise JobGone(str(exc)) from None
        if reply.get("id") != request["id"]:  # out of step: nothing it says can be matched
            self.let_go()
            raise JobGone(f"{self.name}: it answered another request")
        return reply, data

    def let_go(self) -> None:
        """Close the channel: the server reads end-of-file (or fails to write) and exits."""
        if self._fds is not None:
            for fd in self._fds:
                os.close(fd)
            self._fds = None

    def stop(self) -> None:
        """Ask the server to end and close the channel; its job then ends on its own."""
        if self._fds is not None:
            try:
                send(self._fds[0], {"op": "stop"})
            except OSError:
                pass
        self.let_go()

    def join(self, deadline: float) -> bool:
        """Wait until `deadline` for the job to end; True when it has."""
        if self._thread is not None:
            self._thread.join(max(0.0, deadline - time.monotonic()))
            return not self._thread.is_alive()
        return True
