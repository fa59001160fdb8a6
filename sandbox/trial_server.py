"""The persistent trial worker: project code that stays alive inside the sandbox for one
fold and runs trial after trial as the search asks for them.

Usage: python -m pipesmith.sandbox.trial_server server_job.json

The job names the fold's training rows with their labels, the rows to predict without
theirs, and the channel (sandbox/channel.py): two FIFOs in a read-only folder. It loads
the fold once and says `ready`; then per request {"op": "trial", "id", "module" (a
candidate module's path), "params", "share", "timeout_s"} it forks a child that imports
the module, builds the pipeline with `task["params"]` (with "permute_seed", on shuffled
training labels), fits and predicts
(`trial_worker.run_trial`), and replies with the trial's status and its predictions
(.npz bytes). The fork is the restart: a trial that crashes, is killed for memory or runs
past `timeout_s` (SIGKILLed here) is a failed trial, and the next one starts from the same
loaded interpreter; candidate code never runs in the worker itself, so nothing it does
outlives its child. The job's "imports" (the libraries candidates use) are imported once,
before `ready`. {"op": "stop"} or the supervisor closing the channel ends it. It
scores nothing; the search scores the predictions outside.
"""

from __future__ import annotations

import importlib
import json
import os
import select
import signal
import sys
import time
import traceback
from pathlib import Path

import pandas as pd

from pipesmith.core.permutation import shuffle_labels
from pipesmith.sandbox.channel import REPLIES, REQUESTS, ChannelError, receive, send
from pipesmith.sandbox.harness import load_candidate
from pipesmith.sandbox.trial_worker import run_trial

RESULT = "result_{id}.json"


class Fold:
    """The fold's rows, loaded once. Candidate code never runs here, only in the forked
    children: what one candidate's code does to its process ends with its child."""

    def __init__(self, job: dict, out: Path) -> None:
        self.job, self.out = job, out
        train = pd.read_parquet(job["train_path"])
        self.X_pred = pd.read_parquet(job["predict_path"])
        self.X, self.y = train.drop(columns=[job["target"]]), train[job["target"]]


def _child(fold: Fold, request: dict) -> None:
    """In the forked child: import the candidate, one trial, its outcome in a file; never
    returns. A request's `permute_seed` shuffles the training labels first (the permutation
    control): the child, not the worker, so later fits see the fold as it is."""
    status = 1
    try:
        y = fold.y if request.get("permute_seed") is None else \
            shuffle_labels(fold.y, int(request["permute_seed"]))
        module = load_candidate(Path(request["module"]))
        row = run_trial(module, fold.job, request, fold.X, y, fold.X_pred, fold.out)
        status = 0
    except BaseException as exc:  # the trial's failure is its result
        row = {"id": request["id"], "status": "error",
               "error": f"{type(exc).__name__}: {exc}"[:500],
               "traceback": traceback.format_exc()[-4000:]}
    try:
        (fold.out / RESULT.format(id=request["id"])).write_text(json.dumps(row))
    finally:
        os._exit(status)


def wait_child(pid: int, timeout_s: float) -> tuple[int | None, dict]:
    """The child's wait status (None when it outlived `timeout_s`: then it is killed) and
    what it used (CPU seconds, peak resident memory)."""
    deadline = time.monotonic() + max(0.0, timeout_s)
    fd = os.pidfd_open(pid)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                return status, {"cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
                                "peak_mem_mb": round(usage.ru_maxrss / 1024, 1)}
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None, {}
            poller.poll(max(1, int(left * 1000)))
    finally:
        os.close(fd)


def run_one(fold: Fold, request: dict) -> tuple[dict, bytes]:
    """(reply header, predictions .npz bytes) for one trial request."""
    tid = request["id"]
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        _child(fold, request)
    status, usage = wait_child(pid, float(request.get("timeout_s", 3600)))
    result = fold.out / RESULT.format(id=tid)
    arrays = fold.out / f"trial_{tid}.npz"
    try:
        if status is None:
            return {"id": tid, "status": "timeout",
                    "error": f"the trial ran past its {request.get('timeout_s')} s"}, b""
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            why = " (likely the memory limit)" if sig == signal.SIGKILL else ""
            return {"id": tid, "status": "error",
                    "error": f"the trial was killed by signal {sig}{why}"}, b""
        if not result.exists():
            return {"id": tid, "status": "error",
                    "error": f"the trial exited ({os.waitstatus_to_exitcode(status)}) "
                             "without a result"}, b""
        row = json.loads(result.read_text())
        row.update(usage, wall_s=round(time.perf_counter() - started, 4))
        payload = arrays.read_bytes() if row.get("status") == "ok" and arrays.exists() else b""
        return row, payload
    finally:
        for path in (result, arrays):
            path.unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    job_path = Path(argv[1])
    job = json.loads(job_path.read_text())
    started = time.perf_counter()
    channel = Path(job["channel"])
    requests = os.open(channel / REQUESTS, os.O_RDONLY)
    replies = os.open(channel / REPLIES, os.O_WRONLY)
    fold = Fold(job, job_path.parent)
    for name in job.get("imports", []):  # the libraries candidates use, imported once
        try:
            importlib.import_module(name)
        except Exception:  # a candidate that needs it reports the failure itself
            pass
    send(replies, {"op": "ready", "setup_s": round(time.perf_counter() - started, 4),
                   "pid": os.getpid()})
    while True:
        try:
            request, _ = receive(requests)
        except ChannelError:  # the supervisor closed the channel
            return 0
        if request.get("op") != "trial":
            return 0
        header, payload = run_one(fold, request)
        send(replies, header, payload)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
