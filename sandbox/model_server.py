"""The model worker: applies a run's saved model to new rows, inside the sandbox.

Usage: python -m pipesmith.sandbox.model_server model_job.json

A saved model is a pickle, and a pickle made by generated code can run any code when it is
loaded (a `__setstate__` pickled by value). So no pipesmith process loads one: this worker
does, inside the sandbox, for `pipesmith predict`, `serve RUN`, the chat and the Python API
(pipesmith/core/model_host.py is the supervisor's side). The job names the model file
(read-only) and the channel (sandbox/channel.py). It imports the libraries once and says
`ready`; then per request it forks a child that loads the model and answers:

- {"op": "predict", "id", "timeout_s"} with the rows as Parquet bytes: the child writes
  `pred` (and for classifiers `proba` and `classes`) as .npz bytes;
- {"op": "describe", "id", "timeout_s"}: {"predicts": bool, "read": the columns the fitted
  pipeline reads, or null when its structure does not say}.

The fork is the restart: nothing one request's model does outlives its child, and the next
request loads the model afresh in a new child. What crosses back is checked by the
supervisor by type and size; nothing here is trusted.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from pipesmith.sandbox.channel import REPLIES, REQUESTS, ChannelError, receive, send
from pipesmith.sandbox.trial_server import wait_child

REPLY = "reply_{id}.json"
ARRAYS = "reply_{id}.npz"


def _savable(array) -> np.ndarray:
    array = np.asarray(array)
    return array.astype(str) if array.dtype == object else array


def _predict(model, rows: bytes, classify: bool, out: Path) -> dict:
    import pandas as pd

    if not callable(getattr(model, "predict", None)):
        return {"status": "no_predict"}
    X = pd.read_parquet(io.BytesIO(rows))
    arrays = {"pred": _savable(model.predict(X))}
    if classify and callable(getattr(model, "predict_proba", None)):
        arrays["proba"] = np.asarray(model.predict_proba(X), dtype=float)
        arrays["classes"] = _savable(getattr(model, "classes_", []))
    np.savez(out, **arrays)
    return {"status": "ok"}


def _describe(model) -> dict:
    from pipesmith.serve.rows import read_by

    read = read_by(model)
    return {"status": "ok", "predicts": callable(getattr(model, "predict", None)),
            "read": sorted(read) if read is not None else None}


def _child(job: dict, request: dict, rows: bytes, out: Path) -> None:
    """In the forked child: load the model, answer one request into files; never returns."""
    import joblib

    reply = {"status": "error", "error": "no answer"}
    try:
        model = joblib.load(job["model"])
        if request["op"] == "predict":
            reply = _predict(model, rows, job["task_type"] == "classification",
                             out / ARRAYS.format(id=request["id"]))
        else:
            reply = _describe(model)
    except BaseException as exc:  # the model's failure is the answer
        reply = {"status": "error", "error": f"{type(exc).__name__}: {exc}"[:500],
                 "traceback": traceback.format_exc()[-2000:]}
    try:
        (out / REPLY.format(id=request["id"])).write_text(json.dumps(reply, default=str))
    finally:
        os._exit(0)


def answer(job: dict, request: dict, rows: bytes, out: Path) -> tuple[dict, bytes]:
    """(reply header, .npz bytes) for one request, computed in a forked child."""
    rid = request["id"]
    pid = os.fork()
    if pid == 0:
        _child(job, request, rows, out)
    status, _usage = wait_child(pid, float(request.get("timeout_s", 60)))
    reply, arrays = out / REPLY.format(id=rid), out / ARRAYS.format(id=rid)
    try:
        if status is None:
            return {"id": rid, "status": "timeout"}, b""
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            why = " (likely the memory limit)" if sig == signal.SIGKILL else ""
            return {"id": rid, "status": "error",
                    "error": f"the model was killed by signal {sig}{why}"}, b""
        if not reply.exists():
            return {"id": rid, "status": "error",
                    "error": "the model exited without answering"}, b""
        header = {**json.loads(reply.read_text()), "id": rid}
        ok = header.get("status") == "ok" and arrays.exists()
        return header, arrays.read_bytes() if ok else b""
    finally:
        for path in (reply, arrays):
            path.unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    job_path = Path(argv[1])
    job = json.loads(job_path.read_text())
    started = time.perf_counter()
    requests = os.open(Path(job["channel"]) / REQUESTS, os.O_RDONLY)
    replies = os.open(Path(job["channel"]) / REPLIES, os.O_WRONLY)
    for name in job.get("imports", []):  # what loading a model imports, imported once
        try:
            importlib.import_module(name)
        except Exception:  # a model that needs it reports the failure itself
            pass
    send(replies, {"op": "ready", "setup_s": round(time.perf_counter() - started, 4)})
    while True:
        try:
            request, rows = receive(requests)
        except ChannelError:  # the supervisor closed the channel
            return 0
        if request.get("op") not in ("predict", "describe"):
            return 0
        send(replies, *answer(job, request, rows, job_path.parent))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
