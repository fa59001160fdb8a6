"""The persistent trial worker: project code that stays alive inside the sandbox for one
fold and runs trial after trial as the search asks for them.

Usage: python -m pipesmith.sandbox.trial_server job.json

A served job (sandbox/serve_loop.py is its loop). The job names the fold's training rows
with their labels, the rows to predict without theirs, and the channel (sandbox/channel.py):
two FIFOs in a read-only folder. It loads the fold once and says `ready`; then per request
{"op": "trial", "id", "module" (a candidate module's path), "params", "share", "timeout_s"}
it forks a child that imports the module, builds the pipeline with `task["params"]` (with
"permute_seed", on shuffled training labels), fits and predicts (`trial_worker.run_trial`),
and replies with the trial's status and its predictions (.npz bytes). The fork is the
restart: a trial that crashes, is killed for memory or runs past `timeout_s` (SIGKILLed
there) is a failed trial, and the next one starts from the same loaded interpreter. The
job's "imports" (the libraries candidates use) are imported once, before `ready`.
{"op": "stop"} or the supervisor closing the channel ends it. It scores nothing; the search
scores the predictions outside.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path

import pandas as pd

from pipesmith.core.permutation import shuffle_labels
from pipesmith.sandbox.harness import load_candidate
from pipesmith.sandbox.serve_loop import in_fork, serve
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


def run_one(fold: Fold, request: dict) -> tuple[dict, bytes]:
    """(reply header, predictions .npz bytes) for one trial request."""
    tid = request["id"]
    started = time.perf_counter()
    row, payload, usage = in_fork(lambda: _child(fold, request), tid,
                                  float(request.get("timeout_s", 3600)),
                                  fold.out / RESULT.format(id=tid),
                                  fold.out / f"trial_{tid}.npz", "the trial")
    if usage:  # the child ended (a timed-out one was killed, its use unknown)
        row.update(usage, wall_s=round(time.perf_counter() - started, 4))
    return row, payload


def main(argv: list[str]) -> int:
    job_path = Path(argv[1])

    def answer(job: dict):
        fold = Fold(job, job_path.parent)
        return lambda request, _payload: run_one(fold, request)

    return serve(job_path, ("trial",), answer)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
