"""The model worker: applies a run's saved model to new rows, inside the sandbox.

Usage: python -m pipesmith.sandbox.model_server job.json

A saved model is a pickle, and a pickle made by generated code can run any code when it is
loaded (a `__setstate__` pickled by value). So no pipesmith process loads one: this worker
does, inside the sandbox, for `pipesmith predict`, `serve RUN`, the chat and the Python API
(pipesmith/core/model_host.py is the supervisor's side; sandbox/serve_loop.py is the loop).
The job names the model file
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

import io
import json
import os
import sys
import traceback
from pathlib import Path

import numpy as np

from pipesmith.sandbox.serve_loop import in_fork, serve

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
    reply, arrays, _usage = in_fork(lambda: _child(job, request, rows, out), rid,
                                    float(request.get("timeout_s", 60)),
                                    out / REPLY.format(id=rid), out / ARRAYS.format(id=rid),
                                    "the model")
    return reply, arrays


def main(argv: list[str]) -> int:
    job_path = Path(argv[1])

    def answerer(job: dict):
        return lambda request, rows: answer(job, request, rows, job_path.parent)

    return serve(job_path, ("predict", "describe"), answerer)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
