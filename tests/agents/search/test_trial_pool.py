"""The persistent trial worker: one sandboxed worker per fold runs trial after trial over
the channel; crashes, hangs, a killed worker and garbage on the channel are failed trials,
and the next trial runs (real local sandbox, real scikit-learn)."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from pipesmith.agents.search.runner import TrialRunner, make_folds
from pipesmith.agents.search.trial_pool import WorkerPool

# A module whose trials misbehave on request (params["mode"]), else a logistic regression.
UNRULY = '''
import os, signal, time, json
from pathlib import Path
from sklearn.linear_model import LogisticRegression

def build_pipeline(task):
    mode = task["params"].get("mode", "ok")
    if mode == "crash":
        os._exit(7)
    if mode == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if mode == "hang":
        while True:
            time.sleep(1)
    if mode == "kill_worker":
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(5)
    if mode == "garbage":
        job = json.loads(Path("job.json").read_text())
        with open(Path(job["channel"]) / "replies", "wb") as fh:
            fh.write(b"\\xff" * 64)
        time.sleep(5)
    if mode == "peek":
        job = json.loads(Path("job.json").read_text())
        other = job["train_path"].replace("fold0", "fold1")
        return open(other).read()
    return LogisticRegression(C=task["params"].get("C", 1.0), max_iter=200)
'''


@pytest.fixture
def folds(iris, tmp_path):
    inputs, _ = iris
    frame = pd.read_parquet(inputs.data_path)
    return inputs, make_folds(frame, inputs.target, inputs.task_type, 3, 0, tmp_path / "folds")


def _pool(sandbox, folds, tmp_path, deadline_s=120):
    inputs, f = folds
    return WorkerPool(sandbox, f, tmp_path / "pool", {"target": inputs.target,
                      "task_type": inputs.task_type, "seed": 0, "n_jobs": 1},
                      memory_mb=2048, disk_mb=256, deadline=time.monotonic() + deadline_s)


def test_one_worker_per_fold_runs_many_trials_like_a_batch(iris, folds, sandbox, tmp_path):
    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.families.registry import get_family
    from pipesmith.agents.schemas import CandidateSpec

    inputs, f = folds
    family = get_family(inputs.task_type, "logistic_regression")
    code = Coder().searchable(CandidateSpec(name="lr", family="logistic_regression",
                                            params=family.params, scale=family.scale,
                                            encoding=family.encoding), iris[1], inputs)
    trials = [{"id": i, "params": {"C": c}, "share": 1.0} for i, c in enumerate((0.1, 1, 10))]
    runners = {mode: TrialRunner(sandbox, f, target=inputs.target, task_type=inputs.task_type,
                                 metric=inputs.metric, seed=0, memory_mb=2048, disk_mb=256,
                                 persistent=mode == "persistent")
               for mode in ("persistent", "batched")}
    got = {}
    for mode, runner in runners.items():
        try:
            got[mode] = runner.run([("logistic_regression", code, trials[:2])],
                                   tmp_path / mode, time.monotonic() + 120)
            got[mode] |= runner.run([("logistic_regression", code, trials[2:])],
                                    tmp_path / mode, time.monotonic() + 120)
        finally:
            runner.close()
    assert runners["persistent"].jobs_run == 3  # one worker per fold, for both calls
    assert runners["batched"].jobs_run == 6  # one job per fold per call
    for i in range(3):
        a, b = got["persistent"][i], got["batched"][i]
        assert a["status"] == b["status"] == "ok"
        assert a["score"] == b["score"] and np.allclose(a["oof"]["proba"], b["oof"]["proba"])
    # three different C values, three different models: the params reached the pipeline
    assert len({round(got["persistent"][i]["oof"]["proba"].sum(axis=0)[0], 6)
                for i in range(3)}) == 3


def test_trials_run_one_after_another_on_every_fold_so_a_deadline_cuts_only_the_last(
        folds, sandbox, tmp_path):
    """Trial by trial: the first trial is whole (every fold) before a hanging one takes the
    rest of the time; fold by fold, the hang would have left no trial whole."""
    inputs, f = folds
    pool = _pool(sandbox, folds, tmp_path)
    try:
        assert pool.start(2)
        runner = TrialRunner(sandbox, f, target=inputs.target, task_type=inputs.task_type,
                             metric=inputs.metric, seed=0, memory_mb=2048, disk_mb=256,
                             pool=pool)
        trials = [{"id": 0, "params": {"C": 1.0}}, {"id": 1, "params": {"mode": "crash"}},
                  {"id": 2, "params": {"mode": "hang"}}, {"id": 3, "params": {"C": 2.0}}]
        got = runner.run([("unruly", UNRULY, trials)], tmp_path / "run",
                         time.monotonic() + 12)
    finally:
        pool.close()
    assert got[0]["status"] == "ok" and got[0]["oof"]["proba"].shape == (len(f.y), 3)
    assert got[1]["status"] == "error" and got[2]["status"] == "timeout"
    assert got[3]["status"] == "skipped"  # the hang took the time that was left


def test_crashes_and_hangs_are_failed_trials_and_the_worker_goes_on(folds, sandbox, tmp_path):
    pool = _pool(sandbox, folds, tmp_path)
    path = pool.module("unruly", UNRULY)
    worker = pool.workers[0]
    try:
        def trial(i, timeout_s=60, **params):
            return worker.trial({"id": i, "module": path, "params": params, "share": 1.0,
                                 "timeout_s": timeout_s})

        assert trial(0)[0]["status"] == "ok"
        crashed, _ = trial(1, mode="crash")
        assert crashed["status"] == "error" and "without an answer" in crashed["error"]
        segv, _ = trial(2, mode="segfault")
        assert segv["status"] == "error" and "signal 11" in segv["error"]
        began = time.monotonic()
        hung, _ = trial(3, timeout_s=2, mode="hang")
        assert hung["status"] == "timeout" and time.monotonic() - began < 15
        peek, _ = trial(4, mode="peek")  # another fold's rows are not in its sandbox
        assert peek["status"] == "error" and "No such file" in peek["error"]
        header, arrays = trial(5, C=0.5)
        assert header["status"] == "ok" and arrays["proba"].shape[1] == 3
        assert worker.starts == 1  # the fork was the restart each time
    finally:
        pool.close()


def test_a_killed_worker_or_garbage_on_the_channel_fails_the_trial_and_restarts(
        folds, sandbox, tmp_path):
    pool = _pool(sandbox, folds, tmp_path)
    path = pool.module("unruly", UNRULY)
    worker = pool.workers[1]
    try:
        def trial(i, **params):
            return worker.trial({"id": i, "module": path, "params": params, "share": 1.0,
                                 "timeout_s": 30})

        killed, _ = trial(0, mode="kill_worker")
        assert killed["status"] == "error" and "ended" in killed["error"]
        assert trial(1)[0]["status"] == "ok" and worker.starts == 2
        garbled, _ = trial(2, mode="garbage")
        assert garbled["status"] == "error" and "over the caps" in garbled["error"]
        assert trial(3)[0]["status"] == "ok" and worker.starts == 3
        assert all(r.status != "infra" for r in worker.served.results)
    finally:
        pool.close()
    assert all(w.join(time.monotonic()) for w in pool.workers)
