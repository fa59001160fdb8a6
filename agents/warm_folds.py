"""The run's warm fold workers: a candidate's fold fits as forks of a worker that holds the
fold's data and the imported libraries, instead of a fresh interpreter per fold.

One sandboxed worker per fold of the run's K-fold plan (the persistent trial workers of
the search, agents/search/trial_pool.py and sandbox/trial_server.py): it sees that fold's
training rows with labels and the rows it predicts without theirs, as the fold job does.
Each fit is a fork of the worker, killed past the fold's time limit; the predictions come
back through the channel, size-capped and read with `allow_pickle=False`, and the referee
scores them outside, exactly as it scores a fold job's. Only successes are taken from the
warm path: any fold that fails is run again as an ordinary fold job, so that the
diagnosis reads the real job's exit, output and limits (a warm fork shares its worker's
memory limit; docs/sandbox.md).
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import structlog

from pipesmith.agents.schemas import Candidate, RunInputs
from pipesmith.core import referee
from pipesmith.sandbox.base import ExecResult, Sandbox

log = structlog.get_logger(__name__)
LIFETIME_FACTOR = 2.0  # a worker job's wall clock: this many budgets (closed long before)
LIFETIME_SLACK_S = 120.0


class WarmFolds:
    """The warm workers of one fold plan (the run's data, K and seed)."""

    def __init__(self, sandbox: Sandbox, dev: pd.DataFrame, inputs: RunInputs,
                 folds: list[referee.Fold], folder: Path, threads: int) -> None:
        from pipesmith.agents.search.runner import make_folds
        from pipesmith.agents.search.trial_pool import WorkerPool, library_imports

        self.key = key_of(inputs, len(folds), threads)
        plan = [(f.train, f.predict) for f in folds]
        self.files = files = make_folds(dev, inputs.target, inputs.task_type, len(folds),
                                        inputs.seed, folder / "data", plan=plan)
        job = {"target": inputs.target, "task_type": inputs.task_type, "seed": inputs.seed,
               "metric": inputs.metric, "n_jobs": threads, "imports": library_imports()}
        deadline = time.monotonic() + LIFETIME_FACTOR * inputs.budget_s + LIFETIME_SLACK_S
        self.pool = WorkerPool(sandbox, files, folder, job, memory_mb=inputs.memory_mb,
                               disk_mb=inputs.disk_mb, deadline=deadline)

    def fit(self, candidate: Candidate, jobs: list[Path], timeout_s: float,
            workers: int, permute_seeds: list[int] | None = None
            ) -> tuple[ExecResult, float] | None:
        """Fit the candidate on every fold; each fold's predictions and diagnostics go to
        its folder (as a fold job writes them). Returns the merged result and what one
        fold would cost as a fresh job (the slowest fork plus a worker's start: what the
        budget keeps for the refit). A fold past its time limit makes the result a timeout;
        None when a fold failed otherwise: the caller runs the candidate as fold jobs.
        `jobs` may be fewer than the folds (the first ones); `permute_seeds`, one per job,
        has each child shuffle its training labels (the permutation control)."""
        module = self.pool.module(candidate.id, candidate.code)
        if not self.pool.start(workers):  # the first fit starts them (once per run)
            return None
        started = time.perf_counter()  # the fits alone: what the next candidate will cost

        def one(k: int) -> tuple[dict, dict]:
            request = {"id": f"{candidate.id}-{k}", "module": module, "params": {},
                       "share": 1.0, "timeout_s": timeout_s, "diagnostics": True}
            if permute_seeds is not None:
                request |= {"id": f"{candidate.id}-p{k}", "permute_seed": permute_seeds[k]}
            return self.pool.workers[k].trial(request)

        with ThreadPoolExecutor(max(1, workers)) as threads:
            replies = list(threads.map(one, range(len(jobs))))
        failed = [h for h, _ in replies if h.get("status") != "ok"]
        timed_out = [h for h in failed if h.get("status") == "timeout"]
        if timed_out:  # run again, it would only time out again: the limit is the verdict
            return ExecResult(status="timeout", backend="warm", wall_s=round(
                time.perf_counter() - started, 3), detail=str(timed_out[0].get("error"))), 0.0
        if failed:
            log.info("warm.fallback", candidate=candidate.id, status=failed[0].get("status"),
                     error=str(failed[0].get("error", ""))[:200])
            return None
        for folder, (header, arrays) in zip(jobs, replies, strict=True):
            write_fold_output(folder, header, arrays)
        result = ExecResult(
            status="ok", exit_code=0, backend="warm",
            wall_s=round(time.perf_counter() - started, 3),
            cpu_s=round(sum(float(h.get("cpu_s") or 0.0) for h, _ in replies), 3),
            peak_mem_mb=max(float(h.get("peak_mem_mb") or 0.0) for h, _ in replies))
        start_s = self.pool.startup_s / max(1, self.pool.starts)
        return result, max(float(h.get("wall_s") or 0.0) for h, _ in replies) + start_s

    def close(self) -> None:
        self.pool.close(wait_s=2.0)


def key_of(inputs: RunInputs, k: int, threads: int) -> tuple:
    return inputs.data_path, k, inputs.seed, inputs.cv_rows, threads


def same_plan(key: tuple, inputs: RunInputs) -> bool:
    """Whether warm workers of `key` hold this run's folds (threads aside)."""
    return key[:4] == (inputs.data_path, inputs.cv_folds, inputs.seed, inputs.cv_rows)


def write_fold_output(folder: Path, header: dict, arrays: dict[str, np.ndarray]) -> None:
    """predictions.npz and diagnostics.json as the harness writes them, from checked data."""
    folder.mkdir(parents=True, exist_ok=True)
    renamed = {("pred" if name == "y_pred" else name): value for name, value in arrays.items()}
    np.savez(folder / "predictions.npz", **renamed)
    diagnostics = {"fit_s": header.get("fit_s_model", header.get("fit_s")),
                   "warnings": header.get("warnings", []), "loss": header.get("loss"),
                   "n_train": header.get("n_fit")}
    (folder / "diagnostics.json").write_text(json.dumps(diagnostics, default=float))
