"""The supervisor's side of the persistent trial workers: one sandboxed worker per fold
(sandbox/trial_server.py), alive for the whole search, fed one trial at a time.

A `FoldWorker` is a served job (sandbox/served_job.py): an ordinary sandbox job, on a
thread, with the memory, disk, CPU-time and wall-clock limits every job has (the wall clock
is the search's deadline), whose only way to talk is the channel (sandbox/channel.py). It sees
that fold's training rows with labels, the rows to predict without theirs, the trials'
code (read-only) and the channel. A trial that crashes or hangs is a failed trial (the
worker's fork is the restart); a worker that dies or stops answering is replaced by a
fresh job, at most `MAX_RESTARTS` times per fold. Replies are size-capped and parsed with
`allow_pickle=False`; the search scores the predictions outside the sandbox.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import structlog

from pipesmith.core.safe_npz import SEARCH_LIMIT, load_npz_bytes
from pipesmith.sandbox.base import Sandbox
from pipesmith.sandbox.served_job import JobGone, ServedJob

log = structlog.get_logger(__name__)
SERVER = "pipesmith.sandbox.trial_server"
STARTUP_S = 90.0  # at most, for the worker to load the fold (and its imports) and say ready
REPLY_GRACE_S = 5.0  # beyond a trial's own timeout, before the worker counts as hung
MAX_RESTARTS = 2  # fresh jobs per fold after the first, before the fold gives up


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


class FoldWorker:
    """One fold's sandboxed worker (a ServedJob): started on first use, restarted when it
    dies, at most MAX_RESTARTS times."""

    def __init__(self, sandbox: Sandbox, k: int, train: Path, X: Path, code_dir: Path,
                 folder: Path, job: dict, *, memory_mb: int, disk_mb: int,
                 deadline: float, max_payload: int) -> None:
        self.k, self.deadline, self.max_payload = k, deadline, max_payload
        self.served = ServedJob(
            sandbox, folder / f"fold{k}", SERVER,
            {**job, "train_path": str(train), "predict_path": str(X)},
            name=f"trial-worker-{k}", memory_mb=memory_mb, disk_mb=disk_mb,
            read_paths=(train.parent, code_dir))
        self.startup_s, self.setup_s = 0.0, 0.0
        self._lock = threading.Lock()

    @property
    def starts(self) -> int:
        return self.served.starts

    @property
    def alive(self) -> bool:
        return self.served.alive

    def _start(self) -> None:
        if self.served.starts > MAX_RESTARTS:
            raise JobGone(f"fold {self.k}: the worker died {self.served.starts} times")
        began = time.monotonic()
        timeout_s = max(1.0, self.deadline - time.monotonic())  # the search's deadline
        hello = self.served.start(timeout_s, min(began + STARTUP_S, self.deadline),
                                  cpu_time_s=timeout_s + 10)
        self.setup_s += float(hello.get("setup_s", 0.0))
        self.startup_s += time.monotonic() - began

    def ensure_started(self) -> bool:
        """Start the worker unless it is alive; False when it cannot start."""
        with self._lock:
            if self.alive:
                return True
            try:
                self._start()
            except (JobGone, OSError) as exc:
                log.info("worker.not_started", fold=self.k, error=str(exc)[:200])
                return False
            return True

    def trial(self, request: dict) -> tuple[dict, dict[str, np.ndarray]]:
        """Run one trial on this fold: (its reply, its arrays). A worker that dies during
        the trial fails the trial and is restarted for the next one."""
        with self._lock:
            try:
                if not self.alive:
                    self._start()
                timeout_s = max(0.5, min(request["timeout_s"],
                                         self.deadline - time.monotonic()))
                header, payload = self.served.ask(
                    {**request, "op": "trial", "timeout_s": timeout_s},
                    reply_by=time.monotonic() + timeout_s + REPLY_GRACE_S,
                    max_payload=self.max_payload)
            except (JobGone, OSError) as exc:
                return {"id": request["id"], "status": "error", "error": str(exc)[:300]}, {}
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
            self.served.stop()

    def join(self, deadline: float) -> bool:
        return self.served.join(deadline)


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
