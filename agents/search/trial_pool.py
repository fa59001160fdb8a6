"""The supervisor's side of the persistent trial workers: one sandboxed worker per fold
(sandbox/trial_server.py), alive for the whole search, fed one trial at a time.

A `FoldWorker` starts an ordinary sandbox job (`Sandbox.run`, on a thread, with the
memory, disk, CPU-time and wall-clock limits every job has; the wall clock is the
search's deadline) whose only way to talk is the channel (sandbox/channel.py). It sees
that fold's training rows with labels, the rows to predict without theirs, the trials'
code (read-only) and the channel. A trial that crashes or hangs is a failed trial (the
worker's fork is the restart); a worker that dies or stops answering is replaced by a
fresh job, at most `MAX_RESTARTS` times per fold. Replies are size-capped and parsed with
`allow_pickle=False`; the search scores the predictions outside the sandbox.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np
import structlog

from pipesmith.core.safe_npz import SEARCH_LIMIT, load_npz_bytes
from pipesmith.sandbox.base import ExecJob, ExecResult, Sandbox
from pipesmith.sandbox.channel import (
    ChannelError,
    ChannelTimeout,
    make_channel,
    open_supervisor_side,
    receive,
    send,
)

log = structlog.get_logger(__name__)
SERVER = "pipesmith.sandbox.trial_server"
STARTUP_S = 90.0  # at most, for the worker to load the fold (and its imports) and say ready
REPLY_GRACE_S = 5.0  # beyond a trial's own timeout, before the worker counts as hung
MAX_RESTARTS = 2  # fresh jobs per fold after the first, before the fold gives up
THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def library_imports() -> list[str]:
    """What a worker imports before its first fit (each fit imports its candidate in its
    own child): the offline coder's scikit-learn modules and every installed family's
    library but the neural frameworks (imported by the first candidate that uses them)."""
    from importlib.util import find_spec

    from pipesmith.agents.families.registry import FAMILIES

    base = ["sklearn.compose", "sklearn.impute", "sklearn.pipeline", "sklearn.preprocessing"]
    modules = {f.module for f in FAMILIES if f.backend == "sklearn"
               and f.module.startswith("sklearn.")}
    boosters = {f.requires for f in FAMILIES if f.backend == "sklearn" and f.requires
                and find_spec(f.requires) is not None}
    return sorted({*base, *modules, *boosters})


class WorkerGone(Exception):
    """The worker job ended, or stopped answering, and was let go."""


class FoldWorker:
    """One fold's sandboxed worker: started on first use, restarted when it dies."""

    def __init__(self, sandbox: Sandbox, k: int, train: Path, X: Path, code_dir: Path,
                 folder: Path, job: dict, *, memory_mb: int, disk_mb: int,
                 deadline: float, max_payload: int) -> None:
        self.sandbox, self.k, self.train, self.X = sandbox, k, train, X
        self.code_dir, self.folder, self.job = code_dir, folder, job
        self.memory_mb, self.disk_mb, self.deadline = memory_mb, disk_mb, deadline
        self.max_payload = max_payload
        self.starts, self.startup_s, self.setup_s = 0, 0.0, 0.0
        self.results: list[ExecResult] = []
        self._fds: tuple[int, int] | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and self._fds is not None

    def _start(self) -> None:
        if self.starts > MAX_RESTARTS:
            raise WorkerGone(f"fold {self.k}: the worker died {self.starts} times")
        began = time.monotonic()
        base = self.folder / f"w{self.k}_{self.starts}"
        self.starts += 1
        channel = make_channel(base / "channel", getattr(self.sandbox, "job_uid", None))
        workdir = base / "work"
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "server_job.json").write_text(json.dumps({
            **self.job, "train_path": str(self.train), "predict_path": str(self.X),
            "channel": str(channel)}))
        self._fds = open_supervisor_side(channel)
        timeout_s = max(1.0, self.deadline - time.monotonic())
        job = ExecJob(command=[sys.executable, "-m", SERVER, "server_job.json"],
                      workdir=workdir, timeout_s=timeout_s, cpu_time_s=timeout_s + 10,
                      memory_mb=self.memory_mb, disk_mb=self.disk_mb,
                      read_paths=(self.train.parent, self.code_dir, channel), env=THREAD_ENV)
        self._thread = threading.Thread(target=self._run, args=(job,), daemon=True,
                                        name=f"trial-worker-{self.k}")
        self._thread.start()
        try:
            hello = self._reply(min(began + STARTUP_S, self.deadline))
        except WorkerGone:
            self._let_go()
            raise
        self.setup_s += float(hello[0].get("setup_s", 0.0))
        self.startup_s += time.monotonic() - began

    def _run(self, job: ExecJob) -> None:
        result = self.sandbox.run(job)
        self.results.append(result)
        if not result.ok:
            log.info("search.worker_ended", fold=self.k, status=result.status,
                     detail=result.detail, stderr=result.stderr[-300:])

    def _reply(self, deadline: float) -> tuple[dict, bytes]:
        """The next message, waiting in short slices so a worker that died is noticed."""
        assert self._fds is not None
        while True:
            try:
                return receive(self._fds[1], min(deadline, time.monotonic() + 0.5),
                               self.max_payload)
            except ChannelTimeout as exc:
                if time.monotonic() >= deadline:
                    raise WorkerGone(f"fold {self.k}: no answer in time") from exc
                if not self._thread.is_alive():
                    status = self.results[-1].status if self.results else "gone"
                    raise WorkerGone(f"fold {self.k}: the worker ended ({status})") from exc
            except ChannelError as exc:
                raise WorkerGone(f"fold {self.k}: {exc}") from exc

    def _let_go(self) -> None:
        """Close the channel: a live worker reads end-of-file (or fails to write) and
        exits; one that does not is ended by its job's wall clock."""
        if self._fds is not None:
            for fd in self._fds:
                os.close(fd)
            self._fds = None

    def ensure_started(self) -> bool:
        """Start the worker unless it is alive; False when it cannot start."""
        with self._lock:
            if self.alive:
                return True
            self._let_go()
            try:
                self._start()
            except (WorkerGone, OSError) as exc:
                log.info("worker.not_started", fold=self.k, error=str(exc)[:200])
                return False
            return True

    def trial(self, request: dict) -> tuple[dict, dict[str, np.ndarray]]:
        """Run one trial on this fold: (its reply, its arrays). A worker that dies during
        the trial fails the trial and is restarted for the next one."""
        with self._lock:
            if not self.alive:
                self._let_go()
                try:
                    self._start()
                except (WorkerGone, OSError) as exc:
                    return {"id": request["id"], "status": "error",
                            "error": str(exc)[:300]}, {}
            timeout_s = max(0.5, min(request["timeout_s"], self.deadline - time.monotonic()))
            try:
                send(self._fds[0], {**request, "op": "trial", "timeout_s": timeout_s})
                header, payload = self._reply(time.monotonic() + timeout_s + REPLY_GRACE_S)
            except (WorkerGone, OSError) as exc:
                self._let_go()
                return {"id": request["id"], "status": "error", "error": str(exc)[:300]}, {}
            if header.get("id") != request["id"]:  # out of step: start afresh next time
                self._let_go()
                return {"id": request["id"], "status": "error",
                        "error": "the worker answered another trial"}, {}
            if header.get("status") != "ok":
                return header, {}
            try:
                arrays = load_npz_bytes(payload, SEARCH_LIMIT)  # sizes checked first
            except Exception as exc:  # anything the worker wrote is untrusted input
                return {**header, "status": "error",
                        "error": f"unreadable predictions: {exc}"[:300]}, {}
            return header, arrays

    def stop(self) -> None:
        """Ask the worker to end and close the channel; its job then ends on its own."""
        with self._lock:
            if self._fds is not None:
                try:
                    send(self._fds[0], {"op": "stop"})
                except OSError:
                    pass
            self._let_go()

    def join(self, deadline: float) -> bool:
        if self._thread is not None:
            self._thread.join(max(0.0, deadline - time.monotonic()))
            return not self._thread.is_alive()
        return True


class WorkerPool:
    """One FoldWorker per fold, for the whole search."""

    def __init__(self, sandbox: Sandbox, folds, folder: Path, job: dict, *, memory_mb: int,
                 disk_mb: int, deadline: float) -> None:
        self.folder = folder
        self.code_dir = folder / "code"
        self.code_dir.mkdir(parents=True, exist_ok=True)
        n_pred = max(len(t) for t in folds.test_index)
        n_classes = len(folds.classes) if folds.classes is not None else 1
        max_payload = 64 * n_pred * (n_classes + 2) + (16 << 20)  # generous, bounded
        self.workers = [
            FoldWorker(sandbox, k, *folds.paths(k), self.code_dir, folder / "workers", job,
                       memory_mb=memory_mb, disk_mb=disk_mb, deadline=deadline,
                       max_payload=max_payload)
            for k in range(len(folds.test_index))]
        self.modules: dict[str, str] = {}  # code -> path of the module file

    def module(self, family: str, code: str) -> str:
        """The path of a learner's module (written once; the workers read it)."""
        if code not in self.modules:
            path = self.code_dir / f"{family}_{len(self.modules)}.py"
            path.write_text(code)
            self.modules[code] = str(path)
        return self.modules[code]

    def start(self, workers: int) -> bool:
        """Start every worker that is not alive, `workers` at a time; True when all are."""
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max(1, workers)) as threads:
            return all(threads.map(lambda w: w.ensure_started(), self.workers))

    @property
    def starts(self) -> int:
        return sum(w.starts for w in self.workers)

    @property
    def startup_s(self) -> float:
        return sum(w.startup_s for w in self.workers)

    def close(self, wait_s: float = 5.0) -> bool:
        """Stop every worker at once, then wait at most `wait_s` for their jobs to end (a
        job still ending finishes in the background); True when all have ended."""
        for worker in self.workers:
            worker.stop()
        deadline = time.monotonic() + wait_s
        return all([worker.join(deadline) for worker in self.workers])
