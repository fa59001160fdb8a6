"""Search: Optuna (TPE) over learner x hyperparameters, with successive halving on rows.

Each bracket asks Optuna for a batch of trials (learner and its hyperparameters; the first
trials are the warm start: configurations that won on similar past datasets, then the
bundled portfolio, cheap learners first), runs them all on a share of the training rows,
and promotes the best third to all the rows (successive halving, eta 3); the others are
told to Optuna as pruned. Trials run in the sandbox through one persistent worker per
fold (agents/search/trial_pool.py, sandbox/trial_server.py), alive for the whole search and fed
one trial at a time, seeing only that fold's training rows and the rows to predict, never
their labels; the search scores the out-of-fold predictions here, outside the sandbox.
Folds run `workers` at a time (two on a 2-core machine).

The search's winners become planned candidates: drafted, checked and scored by the
referee, diagnosed and repaired like any other, and offered to the ensembler; a winner
whose trial fitted every fold of the run's plan adopts that trial's predictions instead
of being fitted again (agents/search/adopt.py).
"""

from __future__ import annotations

import json
import math
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import structlog

from pipesmith.agents.families.registry import SPACES, cost_of, families_for
from pipesmith.agents.schemas import SearchPlan, SearchTrial
from pipesmith.agents.search.adopt import EVIDENCE, fold_plan_key, save_evidence
from pipesmith.agents.search.space import as_distributions, default_plan, searchable, suggest
from pipesmith.core.metrics import get_metric
from pipesmith.core.safe_npz import SEARCH_LIMIT, load_npz
from pipesmith.sandbox.base import ExecJob, Sandbox
from pipesmith.sandbox.safe_files import read_regular

log = structlog.get_logger(__name__)
WORKER = "pipesmith.sandbox.trial_worker"
ETA = 3  # successive halving keeps the best 1/ETA of a rung
LOW_SHARE = 0.3  # the first rung's share of the training rows ...
HALVING_FROM_ROWS = 2000  # ... used only when there are at least this many rows
BATCH = 6  # trials per bracket
FIRST_BATCH = 4  # the first bracket, before any trial's cost is known
MAX_FAILURES = 3  # trials of a learner that may fail before the learner is dropped
TRIALS_LOG_LIMIT = 16 << 20  # trials.json, read only up to this
MEASURED = ("fit_s", "wall_s", "cpu_s", "peak_mem_mb")  # what a fold's reply says it used


@dataclass(frozen=True)
class Folds:
    """The fold files the trial jobs read, and the labels that stay outside the sandbox.

    Out-of-fold predictions cover the rows some fold predicts (every development row with
    K folds; the held-out share with a single holdout fold), in `rows` order."""

    folder: Path
    y: np.ndarray  # labels of the predicted rows, in `rows` order
    test_index: list[np.ndarray]  # per fold, where its predictions go in `rows` order
    classes: np.ndarray | None
    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    key: str = ""  # agents/search/adopt.fold_plan_key: which rows and folds these are

    def paths(self, k: int) -> tuple[Path, Path]:
        return self.folder / f"fold{k}" / "train.parquet", self.folder / f"fold{k}" / "X.parquet"


def kfold_plan(frame: pd.DataFrame, target: str, task_type: str, k: int,
               seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(training rows, rows to predict) per fold: stratified K-fold where classes allow."""
    from sklearn.model_selection import KFold, StratifiedKFold

    y = frame[target].to_numpy()
    if task_type == "classification" and pd.Series(y).value_counts().min() >= k:
        return list(StratifiedKFold(k, shuffle=True, random_state=seed).split(frame, y))
    return list(KFold(k, shuffle=True, random_state=seed).split(frame))


def make_folds(frame: pd.DataFrame, target: str, task_type: str, k: int, seed: int,
               folder: Path, plan: list[tuple[np.ndarray, np.ndarray]] | None = None) -> Folds:
    """The fold files: per fold, its training rows with labels and the rows to predict
    without them. `plan` gives the folds (the run's own, from the referee); by default a
    seeded K-fold."""
    plan = plan if plan is not None else kfold_plan(frame, target, task_type, k, seed)
    rows = np.concatenate([np.asarray(test) for _, test in plan])
    where = {int(r): i for i, r in enumerate(rows.tolist())}
    tests = []
    for i, (train, test) in enumerate(plan):
        (folder / f"fold{i}").mkdir(parents=True, exist_ok=True)
        frame.iloc[train].to_parquet(folder / f"fold{i}" / "train.parquet", index=False)
        frame.iloc[test].drop(columns=[target]).to_parquet(folder / f"fold{i}" / "X.parquet",
                                                           index=False)
        tests.append(np.array([where[int(r)] for r in np.asarray(test).tolist()]))
    y = frame[target].to_numpy()[rows]
    classes = np.unique(frame[target].to_numpy()) if task_type == "classification" else None
    return Folds(folder, y, tests, classes, rows, fold_plan_key(frame, plan))


def measured_figures(reply: dict) -> dict[str, float]:
    """What a fold's reply says its fit used (MEASURED), finite non-negative numbers only:
    the reply comes from a job that ran generated code, and it feeds the search's sums and
    the budget (a string in `fit_s` would stop the search with a TypeError; a negative or
    infinite time would bend the time kept after it)."""
    return {m: float(v) for m, v in reply.items() if m in MEASURED
            and isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v) and v >= 0}


@dataclass
class TrialResult:
    number: int
    family: str
    params: dict[str, Any]
    share: float
    status: str  # ok, error, skipped, pruned
    score: float | None = None
    error: str = ""
    fit_s: float = 0.0
    at_s: float = 0.0  # seconds since the search started, when the result came back
    oof: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    # per fold: (what its fit measured: fit_s, wall_s, cpu_s, peak_mem_mb; its predictions
    # as the worker returned them), kept so a winner's cross-validation can be adopted
    folds: dict[int, tuple[dict, dict]] = field(default_factory=dict, repr=False)
    evidence: SearchTrial | None = None  # a winner's, when its trial may be adopted

    def record(self) -> dict:
        return {k: v for k, v in self.__dict__.items()
                if k not in ("oof", "folds", "evidence")}


class TrialRunner:
    """Runs trials of the learners' code on every fold, in the sandbox.

    `persistent` (the default): one worker per fold stays alive for the whole search
    (agents/search/trial_pool.py) and runs trial after trial, so a trial pays neither an
    interpreter nor the imports nor the data loading. Otherwise one sandbox job per fold
    runs a whole batch (sandbox/trial_worker.py), as before."""

    def __init__(self, sandbox: Sandbox, folds: Folds, *, target: str, task_type: str,
                 metric: str, seed: int, memory_mb: int, disk_mb: int, workers: int = 2,
                 persistent: bool = True, pool=None):
        self.sandbox, self.folds = sandbox, folds
        self.target, self.task_type, self.metric = target, task_type, get_metric(metric)
        self.metric_name, self.seed = metric, seed
        self.memory_mb, self.disk_mb, self.workers = memory_mb, disk_mb, workers
        self.persistent = persistent
        # the persistent workers: the run's warm workers when given (not closed here),
        # else started with the first trials
        self.pool, self._own_pool = pool, pool is None
        self._lock = threading.Lock()
        self.jobs_run, self.job_s, self.setup_s = 0, 0.0, 0.0  # for the overhead figures

    def _job_spec(self) -> dict:
        from pipesmith.agents.search.trial_pool import library_imports

        return {"target": self.target, "task_type": self.task_type, "seed": self.seed,
                "n_jobs": 1, "imports": library_imports()}

    def run(self, batches: list[tuple[str, str, list[dict]]], folder: Path,
            deadline: float) -> dict[int, dict]:
        """`batches`: (learner, candidate code, trials). Every trial runs on every fold;
        returns per trial number its status, out-of-fold predictions (over all folds),
        score and fit seconds."""
        folder.mkdir(parents=True, exist_ok=True)
        folds = range(len(self.folds.test_index))
        if self.persistent:
            outputs = self._pool_trials(batches, folder, deadline)
        else:
            with ThreadPoolExecutor(max(1, self.workers)) as pool:
                outputs = list(pool.map(self._batch_fold(batches, folder, deadline), folds))
        merged: dict[int, dict] = {}
        trial_ids = [t["id"] for _, _, trials in batches for t in trials]
        for k, (status, per_trial) in zip(folds, outputs, strict=True):
            for tid in trial_ids:
                got = per_trial.get(tid, {"status": status if status != "ok" else "error",
                                          "error": f"no result from fold {k} ({status})"})
                entry = merged.setdefault(tid, {"status": "ok", "folds": {}, "fit_s": 0.0,
                                                "error": ""})
                if got.get("status") != "ok":  # the first fold's failure names the trial's
                    if entry["status"] == "ok":
                        entry["status"] = got.get("status", "error")
                    entry["error"] = entry["error"] or got.get("error", status)
                    continue
                measured = measured_figures(got)
                entry["fit_s"] += measured.get("fit_s", 0.0)
                entry["folds"][k] = (measured, got["arrays"])
        for entry in merged.values():
            if entry["status"] == "ok":
                try:
                    entry["oof"] = self._assemble({k: a for k, (_, a) in entry["folds"].items()})
                    entry["score"] = self.score(entry["oof"])
                except Exception as exc:  # predictions of the wrong shape or kind
                    entry.update(status="error", error=f"unusable predictions: {exc}"[:300])
                    entry.pop("oof", None)
            if entry["status"] != "ok":
                entry.pop("folds")
        if self.pool is not None:
            self.jobs_run = self.pool.starts
            self.setup_s = sum(w.setup_s for w in self.pool.workers)
        return merged

    def _pool_trials(self, batches, folder: Path, deadline: float) -> list[tuple[str, dict]]:
        """Trial by trial, each on every fold (`workers` fold fits at a time): a trial is
        whole before the next one starts, so the deadline cuts only the trials in flight.
        (Fold by fold, a deadline inside a bracket left every trial of it without its last
        folds: 6 of 66 searches at 60 s ended with no result at all.) A trial that fails on
        one fold is not fitted on the folds it has not reached."""
        from pipesmith.agents.search.trial_pool import WorkerPool

        if self.pool is None:
            self.pool = WorkerPool(self.sandbox, self.folds, folder, self._job_spec(),
                                   memory_mb=self.memory_mb, disk_mb=self.disk_mb,
                                   deadline=deadline)
        n_folds = len(self.folds.test_index)
        per_fold: list[dict[int, dict]] = [{} for _ in range(n_folds)]
        failed: set[int] = set()

        def one(job: tuple[str, dict, int]) -> None:
            path, trial, k = job
            if trial["id"] in failed or deadline - time.monotonic() < 0.5:
                per_fold[k][trial["id"]] = {"status": "skipped"}  # time is up, or no use
                return
            started = time.perf_counter()
            header, arrays = self.pool.workers[k].trial(
                {"id": trial["id"], "module": path, "params": trial["params"],
                 "share": trial.get("share", 1.0), "timeout_s": deadline - time.monotonic()})
            with self._lock:
                self.job_s += time.perf_counter() - started
                if header.get("status") != "ok":
                    failed.add(trial["id"])
            per_fold[k][trial["id"]] = {**header, "arrays": arrays}

        modules = [(self.pool.module(family, code), trials) for family, code, trials in batches]
        jobs = [(path, trial, k) for path, trials in modules for trial in trials
                for k in range(n_folds)]
        with ThreadPoolExecutor(max(1, self.workers)) as threads:  # taken in this order
            list(threads.map(one, jobs))
        return [("ok", trials) for trials in per_fold]

    def close(self, wait_s: float = 5.0) -> None:
        """Stop the persistent workers (a no-op for batches)."""
        if self.pool is not None and self._own_pool:
            self.pool.close(wait_s)

    def _batch_fold(self, batches, folder: Path, deadline: float):
        first = min(t["id"] for _, _, trials in batches for t in trials)
        modules = []
        for family, code, trials in batches:
            path = folder / "code" / f"b{first}_{family}.py"  # only code: mounted read-only
            path.parent.mkdir(exist_ok=True)
            path.write_text(code)
            modules.append({"candidate_path": str(path), "trials": trials})
        return lambda k: self._job(modules, k, folder / f"b{first}_f{k}", deadline)

    def _job(self, modules: list[dict], k: int, workdir: Path, deadline: float):
        workdir.mkdir(parents=True, exist_ok=True)
        timeout_s = max(1.0, deadline - time.monotonic())
        train, X = self.folds.paths(k)
        job = {"modules": modules, "train_path": str(train), "predict_path": str(X),
               **self._job_spec(), "deadline_s": max(0.5, timeout_s - 3.0)}
        (workdir / "trial_job.json").write_text(json.dumps(job))
        started = time.perf_counter()
        result = self.sandbox.run(ExecJob(
            command=[sys.executable, "-m", WORKER, "trial_job.json"], workdir=workdir,
            timeout_s=timeout_s, cpu_time_s=timeout_s + 10, memory_mb=self.memory_mb,
            disk_mb=self.disk_mb, read_paths=(train.parent, Path(modules[0]["candidate_path"])
                                              .parent),
            env={"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}))
        with self._lock:
            self.jobs_run += 1
            self.job_s += time.perf_counter() - started
        per_trial: dict[int, dict] = {}
        log_path = workdir / "trials.json"
        if log_path.exists():
            try:  # the job wrote it: a regular file of bounded size, or nothing
                rows = json.loads(read_regular(log_path, TRIALS_LOG_LIMIT))
            except (OSError, ValueError):
                rows = None
            if not (isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows)
                    and isinstance(rows[0].get("setup_s", 0.0), (int, float))):
                rows = [{}]  # malformed: no trial of this job counts
            with self._lock:
                self.setup_s += rows[0].get("setup_s", 0.0)
            for row in rows[1:]:
                if not isinstance(row.get("id"), int):
                    continue
                if row.get("status") == "ok":
                    try:
                        row["arrays"] = load_npz(workdir / f"trial_{row['id']}.npz",
                                                 SEARCH_LIMIT)  # no link, no bomb
                    except Exception as exc:  # what the job wrote is untrusted
                        row.update(status="error", error=f"unreadable predictions: {exc}")
                per_trial[row["id"]] = row
        if not result.ok:
            log.info("search.job_failed", fold=k, status=result.status,
                     stderr=result.stderr[-300:])
        return ("ok" if result.ok else result.status), per_trial

    def _assemble(self, folds: dict[int, dict]) -> dict[str, np.ndarray]:
        """Out-of-fold predictions over every development row, classes aligned."""
        n = len(self.folds.y)
        y_pred = np.empty(n, dtype=object if self.task_type == "classification" else float)
        proba = None
        if self.folds.classes is not None and all("proba" in f for f in folds.values()):
            proba = np.zeros((n, len(self.folds.classes)))
        index = {c: i for i, c in enumerate(self.folds.classes.tolist())} \
            if self.folds.classes is not None else {}
        for k, fold in folds.items():
            rows = self.folds.test_index[k]
            pred = fold["y_pred"]
            y_pred[rows] = pred
            if proba is not None:
                cols = [index.get(_native(c, self.folds.classes)) for c in fold["classes"]]
                for j, col in enumerate(cols):
                    if col is not None:
                        proba[np.ix_(rows, [col])] = fold["proba"][:, [j]]
        out = {"y_true": self.folds.y, "y_pred": y_pred.astype(self.folds.y.dtype)
               if self.task_type == "classification" else y_pred}
        if proba is not None:
            out.update(proba=proba, classes=self.folds.classes)
        return out

    def score(self, oof: dict[str, np.ndarray]) -> float:
        """The referee's figure: the mean of the fold scores (a candidate's CV score), so a
        trial and a candidate with the same predictions have the same score."""
        from pipesmith.core.referee import score

        proba, classes = oof.get("proba"), oof.get("classes")
        return float(np.mean([
            score(self.metric_name, oof["y_true"][rows],
                  {"pred": oof["y_pred"][rows], "classes": classes,
                   **({"proba": proba[rows]} if proba is not None else {})})
            for rows in self.folds.test_index]))


def _native(value, classes: np.ndarray):
    """A class read back from a file (strings stay strings) as the labels' own type."""
    try:
        return classes.dtype.type(value).item() if classes.dtype.kind in "iuf" else value
    except (TypeError, ValueError):
        return value


class Search:
    """Brackets of successive halving over an Optuna study (TPE, seeded)."""

    def __init__(self, runner: TrialRunner, families: list[str],
                 code_for: Callable[[str], str], metric: str, seed: int, folder: Path,
                 n_rows: int, warm: list[tuple[str, dict]] | None = None,
                 batch: int = BATCH, shares: tuple[float, ...] | None = None,
                 spaces: dict[str, dict] | None = None) -> None:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.runner, self.code_for, self.folder = runner, code_for, folder
        self.spaces = SPACES if spaces is None else spaces
        self.families = searchable(families, self.spaces)
        self.greater = get_metric(metric).greater_is_better
        self.batch = batch
        self.shares = shares or ((LOW_SHARE, 1.0) if n_rows >= HALVING_FROM_ROWS else (1.0,))
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # multivariate/group/constant_liar: experimental
            sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True,
                                                 constant_liar=True, n_startup_trials=8)
        self.study = optuna.create_study(
            direction="maximize" if self.greater else "minimize", sampler=sampler)
        self.results: list[TrialResult] = []
        self.failures: dict[str, int] = {}
        self.trial_wall: float | None = None  # wall seconds per trial at full share, so far
        self.started = time.monotonic()
        for family, params in warm or []:
            if family in self.families:
                self.study.enqueue_trial(as_distributions(family, params, self.spaces),
                                         skip_if_exists=True)

    def _ask(self):
        families = [f for f in self.families if self.failures.get(f, 0) < MAX_FAILURES]
        trial = self.study.ask()
        family = trial.suggest_categorical("family", self.families)
        if family not in families:  # a dropped learner: tell Optuna it failed
            self.study.tell(trial, state=_states().FAIL)
            return None
        return trial, family, suggest(trial, family, self.spaces)

    def bracket(self, deadline: float) -> list[TrialResult]:
        """One bracket: a batch at the lowest share, the best 1/ETA promoted to the next.
        Returns the results at full share."""
        left = deadline - time.monotonic()
        size = min(self.batch, FIRST_BATCH)  # until a bracket has measured what a trial costs
        if self.trial_wall:  # cost aware: only as many trials as the time left can finish
            size = min(self.batch, int(0.8 * left / (self.trial_wall * sum(self.shares))))
            if size < 1:
                return []
        asked = [a for a in (self._ask() for _ in range(size)) if a is not None]
        if not asked:
            return []
        alive = asked
        finished: list[TrialResult] = []
        for rung, share in enumerate(self.shares):
            left = deadline - time.monotonic()
            if left < 2.0 or not alive:
                for trial, _, _ in alive:
                    self.study.tell(trial, state=_states().PRUNED)
                return finished
            results = self._evaluate(alive, share, left)
            ranked = sorted((r for r in results if r.score is not None),
                            key=lambda r: r.score, reverse=self.greater)
            last = rung == len(self.shares) - 1
            keep = {r.number for r in ranked[:max(1, math.ceil(len(alive) / ETA))]}
            next_alive = []
            for (trial, family, params), result in zip(alive, results, strict=True):
                if result.score is None:
                    self.failures[family] = self.failures.get(family, 0) + 1
                    self.study.tell(trial, state=_states().FAIL)
                elif last:
                    self.study.tell(trial, result.score)
                    finished.append(result)
                elif trial.number in keep:
                    trial.report(result.score, rung)
                    next_alive.append((trial, family, params))
                else:
                    trial.report(result.score, rung)
                    self.study.tell(trial, state=_states().PRUNED)
            alive = next_alive
        return finished

    def _evaluate(self, alive, share: float, left: float) -> list[TrialResult]:
        by_family: dict[str, list[dict]] = {}
        for trial, family, params in alive:
            by_family.setdefault(family, []).append(
                {"id": trial.number, "params": params, "share": share})
        batches = [(f, self.code_for(f), trials) for f, trials in by_family.items()]
        began = time.monotonic()
        got = self.runner.run(batches, self.folder / "jobs", began + left)
        per_trial = (time.monotonic() - began) / len(alive) / share
        self.trial_wall = per_trial if self.trial_wall is None else \
            0.5 * self.trial_wall + 0.5 * per_trial
        now = round(time.monotonic() - self.started, 3)
        out = []
        for trial, family, params in alive:
            entry = got.get(trial.number, {"status": "error", "error": "no result"})
            result = TrialResult(trial.number, family, params, share, entry["status"],
                                 entry.get("score"), str(entry.get("error", ""))[:300],
                                 round(entry.get("fit_s", 0.0), 3), now,
                                 entry.get("oof", {}), entry.get("folds", {}))
            self.results.append(result)
            with (self.folder / "trials.jsonl").open("a") as fh:
                fh.write(json.dumps(result.record(), default=float) + "\n")
            out.append(result)
        return out

    def run(self, deadline: float,
            end_for: Callable[[list[TrialResult]], float] | None = None) -> None:
        """Brackets until `deadline`; `end_for(winners so far)`, when given, may bring the
        end forward between brackets (what the time after the search must hold grows
        with what its winners cost)."""
        while deadline - time.monotonic() > 3.0:
            before = len(self.results)
            self.bracket(deadline)
            if len(self.results) == before:  # nothing could run: learners dropped, no time
                break
            if end_for is not None:
                deadline = min(deadline, end_for(self.best(WINNERS)))

    def best(self, n: int, distinct: bool = True) -> list[TrialResult]:
        return best_trials(self.results, n, self.greater, distinct)

    def curve(self) -> list[tuple[float, float]]:
        """Best full-share score over time: (seconds since the start, best so far)."""
        best, points = None, []
        for r in sorted((r for r in self.results if r.share == 1.0 and r.score is not None),
                        key=lambda r: r.at_s):
            if best is None or (r.score > best if self.greater else r.score < best):
                best = r.score
                points.append((r.at_s, round(best, 6)))
        return points

    def summary(self) -> dict:
        statuses: dict[str, int] = {}
        for r in self.results:
            statuses[r.status] = statuses.get(r.status, 0) + 1
        return {"trials": len({r.number for r in self.results}),
                "evaluations": len(self.results), "statuses": statuses,
                "jobs": self.runner.jobs_run, "shares": list(self.shares),
                "families": self.families, "curve": self.curve(),
                "best": [r.record() for r in self.best(3)],
                "seconds": round(time.monotonic() - self.started, 2)}


def _states():
    from optuna.trial import TrialState

    return TrialState


def space_families() -> set[str]:
    return set(SPACES)


def best_trials(results: list[TrialResult], n: int, greater: bool,
                distinct: bool = True) -> list[TrialResult]:
    """The best trials, at most one per learner when `distinct`: full-share ones first,
    then, where the time ran out before enough of them reached the full share (a slow or
    loaded machine), the best at the largest share they reached. Scores at different shares
    are never compared: each winner is run as a candidate and scored in full."""
    sign = -1.0 if greater else 1.0
    ranked = sorted((r for r in results if r.score is not None),
                    key=lambda r: (-r.share, sign * r.score))
    out, families, numbers = [], set(), set()
    for result in ranked:
        if (distinct and result.family in families) or result.number in numbers:
            continue
        families.add(result.family)
        numbers.add(result.number)
        out.append(result)
        if len(out) == n:
            break
    return out


# --- the run's search: from the plan and the warm start to the winners' specs ---------------

PORTFOLIO = "portfolio.json"  # bundled, learnt by benchmarks/learn_portfolio.py
WINNERS = 3  # the best trials (one per learner) that become planned candidates


def bundled_portfolio(task_type: str) -> list[tuple[str, dict]]:
    from importlib import resources

    path = resources.files("pipesmith.agents.search").joinpath("data", PORTFOLIO)
    if not path.is_file():
        return []
    rows = json.loads(path.read_text()).get(task_type, [])
    return [(row["family"], row["params"]) for row in rows]


def warm_configs(past_runs, task_type: str) -> tuple[list[tuple[str, dict]], str]:
    """The configurations that won on the nearest past datasets (knowledge base), or the
    bundled portfolio when the knowledge base has none; and which it was."""
    from pipesmith.agents.planner.agent import family_warm_params

    warm = [(family, params) for family, (params, _) in family_warm_params(past_runs).items()]
    if warm:
        return warm, "knowledge base"
    return bundled_portfolio(task_type), "bundled portfolio"


def search_families(plan_families: list[str], task_type: str, n_rows: int) -> list[str]:
    """The plan's learners (the planner's or the LLM's choice) and the installed
    gradient-boosting ones, where a search space exists."""
    eligible = families_for(task_type, n_rows)
    known = {f.name for f in eligible}
    boost = [f.name for f in eligible if f.boosting and f.requires]  # the boost extra's
    return searchable([f for f in dict.fromkeys([*plan_families, *boost]) if f in known])


def permitted_families(inputs, n_rows: int) -> set[str]:
    """The learners the person allows the search ("only tree models", "no xgboost"): the
    boosting ones the search adds obey the person's words too."""
    from pipesmith.agents.planner.agent import allowed

    return {f.name for f in allowed(list(families_for(inputs.task_type, n_rows)), inputs)}


def run_search(*, sandbox: Sandbox, inputs, profile, plan_families: list[str], past_runs,
               coder, prevalidator, deadline: float, folder: Path,
               n_winners: int = WINNERS, warm: bool = True, folds: Folds | None = None,
               workers: int = 2, portfolio: list[tuple[str, dict]] | None = None,
               plan: SearchPlan | None = None, pool=None,
               end_for: Callable[[list[TrialResult]], float] | None = None,
               ) -> tuple[list[TrialResult], dict]:
    """Search until `deadline` (time.monotonic()); the best trials (one per learner) and a
    summary for the report. `plan`: the learners and their spaces (by default the plan's
    learners and the installed boosting ones, with the default spaces). The trials' code
    is checked once per learner before any runs. `pool` and `folds`: the run's warm
    workers and their fold files (agents/warm_folds.py), so no worker starts here.
    `end_for`: brings the deadline forward as the winners become known (Search.run)."""
    from pipesmith.agents.families.registry import get_family
    from pipesmith.agents.prevalidator.agent import blocking
    from pipesmith.agents.schemas import CandidateSpec

    folder.mkdir(parents=True, exist_ok=True)
    codes: dict[str, str] = {}
    rejected: dict[str, str] = {}
    if plan is None:
        plan = default_plan(search_families(plan_families, inputs.task_type, profile.n_rows))
    permitted = permitted_families(inputs, profile.n_rows)
    for name in [f for f in plan.families if f in permitted]:
        family = get_family(inputs.task_type, name)
        spec = CandidateSpec(name=name, family=name, params=family.params,
                             scale=family.scale, encoding=family.encoding)
        code = coder.searchable(spec, profile, inputs)
        problems = blocking(prevalidator.check(code, profile.table_columns))
        if problems:
            rejected[name] = problems[0].message
            continue
        codes[name] = code
    if not codes:
        return [], {"trials": 0, "rejected": rejected, "curve": []}
    if folds is None:
        dev = _development_rows(inputs)
        folds = make_folds(dev, inputs.target, inputs.task_type, inputs.cv_folds, inputs.seed,
                           folder / "folds", plan=run_folds(dev, inputs))
    configs, source = warm_configs(past_runs, inputs.task_type) if warm else ([], "cold")
    if source == "bundled portfolio":  # no evidence about this data: cheap learners first
        configs = sorted(configs, key=lambda c: cost_of(c[0]))
    # the planned candidates not drafted (the portfolio's defaults), cheap first, after the
    # warm start's configurations
    configs = [*configs, *sorted(portfolio or [], key=lambda c: cost_of(c[0]))]
    runner = TrialRunner(sandbox, folds, target=inputs.target, task_type=inputs.task_type,
                         metric=inputs.metric, seed=inputs.seed, memory_mb=inputs.memory_mb,
                         disk_mb=inputs.disk_mb, workers=workers, pool=pool)
    search = Search(runner, list(codes), codes.__getitem__, inputs.metric, inputs.seed,
                    folder, profile.n_rows, warm=configs, spaces=plan.spaces)
    try:
        search.run(deadline, end_for)
    finally:  # the workers' jobs end on their own: the budget does not wait for them
        runner.close(wait_s=0.5)
    start_s = runner.pool.startup_s / max(1, runner.pool.starts) if runner.pool else 0.0
    ranked = search.best(WINNERS)
    for winner in ranked:  # what the winners' candidates may adopt instead of refitting
        winner.evidence = save_evidence(winner, folds, codes[winner.family],
                                        folder / EVIDENCE, start_s)
    winners = extra_winners(ranked, n_winners)
    summary = {**search.summary(), "warm_start": source, "warm_configs": len(configs),
               "rejected": rejected, "job_s": round(runner.job_s, 2),
               "space_source": plan.source, "spaces": plan.spaces,
               "dropped_ranges": plan.dropped, "feature_ideas": plan.features,
               "per_trial_overhead_s": _overhead(search, runner),
               "adoptable": [w.number for w in winners if w.evidence is not None]}
    (folder / "summary.json").write_text(json.dumps(summary, indent=2, default=float))
    return winners, summary


def extra_winners(ranked: list[TrialResult], n_winners: int) -> list[TrialResult]:
    """The first `n_winners` (what the time left can run as candidates), then those beyond
    whose trial can be adopted: they need no fit, only scoring (routing still drafts each
    one only when the time left allows)."""
    return [*ranked[:n_winners], *(w for w in ranked[n_winners:] if w.evidence is not None)]


def _overhead(search: Search, runner: TrialRunner) -> float | None:
    """Sandbox seconds per trial evaluation beyond the fits themselves (start-up, imports,
    data loading, transfer), averaged over the search."""
    evaluations = sum(1 for r in search.results if r.status in ("ok", "error"))
    if not evaluations:
        return None
    fit_s = sum(r.fit_s for r in search.results)
    return round((runner.job_s - fit_s) / evaluations, 4)


def _development_rows(inputs) -> pd.DataFrame:
    """The rows selection may use: the referee's development part (the run's data_path,
    or its cross-validation sample); the test part never reaches the search."""
    from pipesmith.agents.executor import cv_development

    return cv_development(inputs)


def run_folds(dev: pd.DataFrame, inputs) -> list[tuple[np.ndarray, np.ndarray]]:
    """The run's own folds (the referee's plan, same K and seed), so the search's
    out-of-fold rows are the candidates' out-of-fold rows."""
    from pipesmith.core.referee import fold_plan

    return [(f.train, f.predict) for f in fold_plan(dev, inputs.target, inputs.task_type,
                                                    inputs.cv_folds, inputs.seed)]
