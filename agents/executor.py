"""The executor: run a candidate's fold jobs in the sandbox and have the referee score them.

Each cross-validation fold is its own sandbox job (`sandbox/harness.py`) whose workdir holds
only that fold's training rows (with labels), the rows to predict (without labels) and the
candidate. The predictions come back and are checked and scored here, outside the sandbox
(`pipesmith/core/referee.py`). The out-of-fold predictions are kept in the attempt folder as
`oof.npz` (`index`, `y_true`, `pred`, and for classifiers `proba`, `classes`).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import structlog

from pipesmith.agents.schemas import Attempt, Candidate, HeldOutPredictions, RunInputs
from pipesmith.core import contributions, importance, referee, segments
from pipesmith.core.metrics import get_metric
from pipesmith.sandbox.base import ExecJob, ExecResult, Sandbox
from pipesmith.sandbox.safe_files import read_regular

log = structlog.get_logger(__name__)

HARNESS = "pipesmith.sandbox.harness"
CONTRACT_EXIT = 3
SMOKE_TIMEOUT_S = 30.0
OOF_FILE = "oof.npz"
PARALLEL_FOLDS = 2  # fold jobs at once, when the cores allow
DIAGNOSTICS_LIMIT = 1 << 20  # diagnostics.json, read only up to this
COPY_LIMIT_BYTES = 100 << 20  # the files a script names are copied next to it up to this


def fold_workers(n_jobs: int, n_jobs_queued: int, cores: int) -> int:
    """Sandbox jobs at once: two where there are two cores, never more processes than the
    run's CPU allowance (n_jobs), so a benchmark that grants every system one core gives
    pipesmith one too."""
    return min(PARALLEL_FOLDS, n_jobs_queued, max(1, n_jobs)) if cores >= 2 else 1


class Executor:
    def __init__(self, sandbox: Sandbox, cores: int | None = None, warm: bool = False) -> None:
        self.sandbox = sandbox
        self.cores = cores or os.cpu_count() or 1
        self.warm = warm  # fold fits as forks of the run's warm workers (agents/warm_folds.py)
        self._warm = None  # the WarmFolds of the current fold plan, started on first use
        self._warm_lock = threading.Lock()

    def close(self) -> None:
        """Stop the warm workers (the run ended, or its refit needs the memory)."""
        with self._warm_lock:
            if self._warm is not None:
                self._warm.close()
                self._warm = None

    def warm_workers(self, inputs: RunInputs):
        """The warm workers of the run's fold plan when they are running (the search runs
        its trials on them), else None."""
        from pipesmith.agents.warm_folds import same_plan

        with self._warm_lock:
            warm = self._warm
        return warm if warm is not None and same_plan(warm.key, inputs) else None

    def _warm_folds(self, dev: pd.DataFrame, inputs: RunInputs, folds, threads: int):
        """The warm workers of this fold plan; those of another plan (K changed) are
        stopped. None when they cannot start (the fold jobs run as before)."""
        from pipesmith.agents.warm_folds import WarmFolds, key_of

        with self._warm_lock:
            if self._warm is not None and self._warm.key != key_of(inputs, len(folds), threads):
                self._warm.close()
                self._warm = None
            if self._warm is None:
                folder = Path(inputs.out_dir) / "workers" / f"k{len(folds)}"
                try:
                    self._warm = WarmFolds(self.sandbox, dev, inputs, folds, folder, threads)
                except OSError as exc:
                    log.warning("warm.unavailable", error=str(exc)[:200])
                    self.warm = False
            return self._warm

    def smoke(self, candidate: Candidate, inputs: RunInputs, workdir: Path,
              timeout_s: float = SMOKE_TIMEOUT_S) -> tuple[ExecResult, dict | None]:
        """One holdout job on a small stratified sample of the development part: catches
        shape, dtype and API errors in seconds, before the full run."""
        return self.run(candidate, inputs, workdir, timeout_s,
                        sample_rows=inputs.smoke_rows, cv_folds=1)

    def run(self, candidate: Candidate, inputs: RunInputs, workdir: Path,
            timeout_s: float, sample_rows: int | None = None, cv_folds: int | None = None,
            memory_mb: int | None = None) -> tuple[ExecResult, dict | None]:
        """Cross-validate the candidate on the development part; metrics are None unless
        every fold returned predictions that honour the contract. `timeout_s` is per fold."""
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "candidate.py").write_text(candidate.code)
        dev = cv_development(inputs)
        if sample_rows and len(dev) > sample_rows:
            dev = sample(dev, inputs, sample_rows)
        k = inputs.cv_folds if cv_folds is None else cv_folds
        folds = referee.fold_plan(dev, inputs.target, inputs.task_type, k, inputs.seed)
        jobs = [workdir / "folds" / str(n) if len(folds) > 1 else workdir / "fold"
                for n in range(len(folds))]
        workers = fold_workers(inputs.n_jobs, len(jobs), self.cores)  # each with its threads
        threads = max(1, inputs.n_jobs // workers)
        if self.warm and len(folds) > 1 and not sample_rows and \
                inputs.task_type != "clustering" and inputs.out_dir:
            warm = self._warm_folds(dev, inputs, folds, threads)
            fitted = warm.fit(candidate, jobs, timeout_s, workers) if warm else None
            if fitted is not None:
                return self._scored(*fitted, dev, folds, jobs, inputs, workdir)
        for folder, fold in zip(jobs, folds, strict=True):  # a fold job per fold
            referee.write_fold(folder, dev, inputs.target, fold, inputs.task_type)

        stop = threading.Event()  # a fold failed (or the run was interrupted): skip the rest
        first_failure: list[ExecResult] = []  # in time: the one that stopped the others

        def one(folder: Path) -> ExecResult | None:
            if stop.is_set():
                return None
            result = self._job(candidate, inputs, folder, timeout_s, memory_mb, threads)
            if not result.ok and not stop.is_set():
                stop.set()
                first_failure.append(result)
            return result

        started = time.perf_counter()
        pool = ThreadPoolExecutor(max_workers=workers)
        try:
            results = [r for r in pool.map(one, jobs) if r is not None]
        except BaseException:  # KeyboardInterrupt included: do not start the queued folds
            stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        merged = merge_results(results, time.perf_counter() - started,
                               first_failure[0] if first_failure else None)
        return self._scored(merged, max(r.wall_s for r in results), dev, folds, jobs, inputs,
                            workdir)

    def _scored(self, result: ExecResult, fold_wall_s: float, dev: pd.DataFrame, folds,
                jobs: list[Path], inputs: RunInputs,
                workdir: Path) -> tuple[ExecResult, dict | None]:
        """The referee's verdict on the folds' predictions, whichever way they were made;
        `fold_wall_s`: what one fold costs as a fresh job (the refit's reserve)."""
        if not result.ok:
            return result, None
        try:
            metrics = self._score_folds(dev, folds, jobs, inputs, workdir)
        except referee.ContractViolation as exc:
            return contract_failure(result, str(exc)), None
        metrics["fold_wall_s"] = round(fold_wall_s, 3)
        return result, metrics

    def permuted(self, candidate: Candidate, inputs: RunInputs, workdir: Path,
                 timeout_s: float, memory_mb: int | None = None
                 ) -> tuple[ExecResult, dict | None]:
        """The permutation control's fits (pipesmith/core/permutation.py), within `timeout_s`
        in all: the candidate on the run's first folds (permutation.FOLDS on the warm
        workers, COLD_FOLDS as fold jobs, which pay an interpreter each) with each fold's
        training labels shuffled, scored here against the true labels: `score`,
        `baseline_score`, and `null_mean`, `null_sd`: the score of label-blind predictions.
        On the warm workers each child shuffles its fold's labels; a fold job's
        train.parquet holds the shuffled labels.
        A table over permutation.MAX_ROWS rows is controlled on a seeded sample of that many.
        The predicted rows' labels never enter the sandbox."""
        from pipesmith.core import permutation

        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "candidate.py").write_text(candidate.code)
        dev = cv_development(inputs)  # a sampled run's control fits no more than its folds
        sampled = len(dev) > permutation.MAX_ROWS
        if sampled:  # the sample's own folds: the warm workers hold the run's
            dev = sample(dev, inputs, permutation.MAX_ROWS)
        plan = referee.fold_plan(dev, inputs.target, inputs.task_type, inputs.cv_folds,
                                 inputs.seed)
        warm = self.warm_workers(inputs) if len(plan) > 1 and not sampled else None
        folds = plan[:permutation.FOLDS if warm is not None else permutation.COLD_FOLDS]
        seeds = [permutation.fold_seed(inputs.seed, k) for k in range(len(folds))]
        jobs = [workdir / "folds" / str(n) for n in range(len(folds))]
        workers = fold_workers(inputs.n_jobs, len(jobs), self.cores)
        threads = max(1, inputs.n_jobs // workers)
        # `timeout_s` bounds the whole control; folds that wait for a free worker share it
        # (leaf_flavia at 300 s, one worker: two folds of 45 s each ran 91 s of a 45 s limit)
        timeout_s = timeout_s / referee.fold_rounds(len(jobs), workers)
        started = time.perf_counter()
        fitted = warm.fit(candidate, jobs, timeout_s, workers, permute_seeds=seeds) \
            if warm is not None else None
        if fitted is not None:
            result = fitted[0]
        else:
            for folder, fold, seed in zip(jobs, folds, seeds, strict=True):
                referee.write_fold(folder, dev, inputs.target, fold, inputs.task_type,
                                   permute_seed=seed)
            with ThreadPoolExecutor(max_workers=workers) as pool:
                results = list(pool.map(lambda folder: self._job(
                    candidate, inputs, folder, timeout_s, memory_mb, threads), jobs))
            result = merge_results(results, time.perf_counter() - started)
        if not result.ok:
            return result, None
        try:
            return result, self._score_permuted(dev, folds, jobs, inputs)
        except referee.ContractViolation as exc:
            return contract_failure(result, str(exc)), None

    def _score_permuted(self, dev: pd.DataFrame, folds: list[referee.Fold],
                        jobs: list[Path], inputs: RunInputs) -> dict:
        from pipesmith.core import permutation

        y = dev[inputs.target].to_numpy()
        classify = inputs.task_type == "classification"
        checked, scores, baselines = [], [], []
        for fold, folder in zip(folds, jobs, strict=True):
            y_train = y[fold.train] if classify else None
            checked.append(referee.check_predictions(
                referee.load_returned(folder, len(fold.predict), n_classes(y_train)),
                len(fold.predict), inputs.task_type, inputs.metric, y_train=y_train))
            scores.append(referee.score(inputs.metric, y[fold.predict], checked[-1]))
            # the shuffle keeps the training labels' counts: the same dummy as the run's
            baselines.append(referee.baseline(inputs.metric, y[fold.train], y[fold.predict]))
        null_mean, null_sd = permutation.null_spread(
            inputs.metric, [y[f.predict] for f in folds], checked,
            permutation.fold_seed(inputs.seed, -1))
        return {"score": float(np.mean(scores)), "baseline_score": float(np.mean(baselines)),
                "null_mean": null_mean, "null_sd": null_sd, "folds": len(folds),
                "n_val": int(sum(len(f.predict) for f in folds))}

    def adopt(self, candidate: Candidate, inputs: RunInputs,
              workdir: Path) -> tuple[ExecResult, dict] | str:
        """A search winner's cross-validation from its trial (agents/search/adopt.py): the
        trial's fold predictions, scored here exactly as fold jobs' are, when the candidate
        is the trial's module with its parameters bound and the run's folds are the
        trial's. Otherwise why not (the caller runs it as fold jobs)."""
        from pipesmith.agents.search.adopt import adopted_wall_s, fold_plan_key, refusal

        if inputs.task_type == "clustering":
            return "clustering is not searched"
        dev = cv_development(inputs)
        folds = referee.fold_plan(dev, inputs.target, inputs.task_type, inputs.cv_folds,
                                  inputs.seed)
        why = refusal(candidate, fold_plan_key(dev, [(f.train, f.predict) for f in folds]))
        if why is not None:
            return why
        trial = candidate.spec.trial
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "candidate.py").write_text(candidate.code)
        jobs = [workdir / "folds" / str(n) for n in range(len(folds))]
        for n, folder in enumerate(jobs):
            folder.mkdir(parents=True, exist_ok=True)
            for name in ("predictions.npz", "diagnostics.json"):
                shutil.copyfile(Path(trial.folder) / f"fold{n}" / name, folder / name)
        try:
            metrics = self._score_folds(dev, folds, jobs, inputs, workdir)
        except referee.ContractViolation as exc:
            shutil.rmtree(workdir / "folds", ignore_errors=True)
            (workdir / OOF_FILE).unlink(missing_ok=True)
            return f"the referee rejected trial {trial.number}'s predictions: {exc}"[:300]
        # the trial's measured fits, arranged as this executor runs folds (a few at once)
        workers = fold_workers(inputs.n_jobs, len(folds), self.cores)
        walls = trial.fold_wall_s
        metrics["fold_wall_s"] = round(max(walls) + trial.worker_start_s, 3)
        result = ExecResult(status="ok", exit_code=0, backend="search-trial",
                            wall_s=round(adopted_wall_s(walls, workers), 3),
                            cpu_s=round(sum(trial.fold_cpu_s), 3),
                            peak_mem_mb=trial.peak_mem_mb,
                            detail=f"cross-validation adopted from search trial {trial.number}")
        log.info("execute.adopted", candidate=candidate.id, trial=trial.number,
                 score=metrics["score"])
        return result, metrics

    def combine(self, candidate: Candidate, members: list[Attempt], weights: list[float],
                inputs: RunInputs, workdir: Path,
                class_weights: dict[str, float] | None = None,
                strategy: str = "caruana") -> tuple[ExecResult, dict] | str:
        """An ensemble's cross-validation from its members' out-of-fold predictions, with no
        fit: each member fitted these very folds, so each fold's vote (agents/ensembler/
        compose.py `voted`) is what the composed module's fold fits would predict; a
        stacking's level-2 model is learnt from the other folds' rows (`stacked`), as the
        composed module's is from every row's. The predictions are written as the folds'
        and scored here exactly as fold jobs' are; the times are the members' (a refit fits
        them all). Otherwise why not (it is run)."""
        from pipesmith.agents.ensembler.compose import stacked, voted

        dev = cv_development(inputs)
        folds = referee.fold_plan(dev, inputs.target, inputs.task_type, inputs.cv_folds,
                                  inputs.seed)
        index = np.sort(np.concatenate([f.predict for f in folds]))
        stored = []
        for member in members:
            try:
                oof = load_oof(member.workdir)
            except (OSError, ValueError) as exc:
                return f"{member.id} has no out-of-fold predictions to vote with: {exc}"[:300]
            if not np.array_equal(oof["index"], index):
                return f"{member.id}'s out-of-fold predictions are not on this run's folds"
            if inputs.task_type == "classification" and "proba" not in oof:
                return f"{member.id} stored no probabilities to vote with"
            stored.append(oof)
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "candidate.py").write_text(candidate.code)
        jobs = [workdir / "folds" / str(n) for n in range(len(folds))]

        def rows(positions: np.ndarray) -> list[dict]:
            at = np.searchsorted(index, positions)
            return [{k: v[at] if k != "classes" else v for k, v in oof.items()}
                    for oof in stored]

        for fold, folder in zip(folds, jobs, strict=True):
            try:
                vote = stacked(rows(np.setdiff1d(index, fold.predict)), rows(fold.predict),
                               class_weights) if strategy == "stacking" else \
                    voted(rows(fold.predict), weights, class_weights)
            except (ValueError, KeyError) as exc:  # e.g. a label none of the members knew
                return f"the stacking's level-2 model could not be cross-fitted: {exc}"[:300]
            folder.mkdir(parents=True, exist_ok=True)
            np.savez(folder / "predictions.npz", **{k: _savable(v) for k, v in vote.items()})
        try:
            metrics = self._score_folds(dev, folds, jobs, inputs, workdir)
        except referee.ContractViolation as exc:
            return f"the referee rejected the vote's predictions: {exc}"[:300]
        # what its refit fits: the slowest member's fold job and one fit of each other one
        workers = fold_workers(inputs.n_jobs, len(folds), self.cores)
        rounds = referee.fold_rounds(len(folds), workers)
        fits = [m.wall_s / rounds for m in members]
        metrics["fold_wall_s"] = round(max(m.fold_wall_s for m in members)
                                       + sum(fits) - max(fits), 3)
        how = "stacked" if strategy == "stacking" else "voted"
        result = ExecResult(status="ok", exit_code=0, backend="vote",
                            wall_s=round(sum(m.wall_s for m in members), 3),
                            cpu_s=round(sum(m.cpu_s for m in members), 3),
                            peak_mem_mb=max(m.peak_mem_mb for m in members),
                            detail=f"cross-validation {how} from the members' out-of-fold "
                                   f"predictions ({', '.join(m.id for m in members)})")
        log.info("execute.voted", candidate=candidate.id, members=[m.id for m in members],
                 score=metrics["score"])
        return result, metrics

    def run_script(self, candidate: Candidate, workdir: Path, timeout_s: float,
                   memory_mb: int, disk_mb: int) -> ExecResult:
        """A plain script (`pipesmith repair`): `python <its name>` in the sandbox, in a
        workdir holding the files its code names relative to its folder (it reads its data
        relative to itself), not the whole folder: every attempt gets its own copy."""
        source = Path(candidate.script or "")
        workdir.mkdir(parents=True, exist_ok=True)
        left_out = copy_read_files(source, candidate.code, workdir)
        if left_out:
            log.info("script.files_left_out", files=left_out[:10], limit=COPY_LIMIT_BYTES)
        (workdir / source.name).write_text(candidate.code)
        return self.sandbox.run(ExecJob(command=[sys.executable, source.name], workdir=workdir,
                                        timeout_s=timeout_s, memory_mb=memory_mb,
                                        disk_mb=disk_mb))

    def refit(self, candidate: Candidate, inputs: RunInputs, workdir: Path, timeout_s: float,
              memory_mb: int | None = None, rows: int | None = None,
              explain_s: float | None = None) -> tuple[ExecResult, dict | None]:
        """Fit the chosen pipeline on every development row (or a seeded stratified sample
        of `rows`, when the budget allows no more) in the sandbox, predict the test
        features, and score the test part here: test_score and test_baseline_score, and
        `held_out` (the checked predictions, for the report's plots). The fitted model is
        workdir/model.joblib. `explain_s`: the seconds the explanations (permutation
        importance, then SHAP) may take in all, half each."""
        self.close()  # the folds are done: the refit gets the warm workers' memory
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "candidate.py").write_text(candidate.code)
        dev, test = pd.read_parquet(inputs.data_path), pd.read_parquet(inputs.test_path)
        n_development = len(dev)
        if rows and len(dev) > rows:
            dev = sample(dev, inputs, rows)
        referee.write_refit(workdir, dev, test, inputs.target, inputs.task_type)
        half = None if explain_s is None else explain_s / 2
        asked = importance.job_request(inputs, timeout_s, half)
        result = self._job(candidate, inputs, workdir, timeout_s, memory_mb,
                           max(1, inputs.n_jobs), save_model=True, importance=asked,
                           contributions=contributions.job_request(inputs, timeout_s, half))
        if not result.ok:
            return result, None
        y_dev = dev[inputs.target] if inputs.task_type == "classification" else None
        try:
            checked = referee.check_predictions(
                referee.load_returned(workdir, len(test), n_classes(y_dev)), len(test),
                inputs.task_type, inputs.metric, y_train=y_dev)
            if not is_regular(workdir / "model.joblib"):
                raise referee.ContractViolation("the refit job wrote no model.joblib")
            if inputs.task_type == "clustering":
                features = test.drop(columns=[inputs.target]) if inputs.target else test
                test_score, test_baseline = referee.cluster_scores(
                    inputs.metric, features, checked["pred"], inputs.seed)
            else:
                test_score = referee.score(inputs.metric, test[inputs.target], checked)
                test_baseline = referee.baseline(inputs.metric, dev[inputs.target],
                                                 test[inputs.target])
        except referee.ContractViolation as exc:
            return contract_failure(result, str(exc)), None
        # optional: whatever importance.npz holds, the refit and its test score stand
        ranked, note = importance.permutation_importance(
            workdir, test, inputs, checked, y_dev,
            job_note=read_diagnostics(workdir).get("importance"))
        segmented, segments_note = segments.segment_errors(test, inputs, checked)
        shap, shap_note = contributions.shap_contributions(
            workdir, test, inputs, checked, read_diagnostics(workdir).get("contributions"))
        return result, {"test_score": test_score, "test_baseline_score": test_baseline,
                        "n_test": len(test), "n_dev": len(dev),
                        "sampled_from": n_development if len(dev) < n_development else None,
                        "feature_importance": ranked, "importance_note": note,
                        "segments": segmented, "segments_note": segments_note,
                        "contributions": shap, "contributions_note": shap_note,
                        "held_out": held_out(inputs, test, checked),
                        "estimator": read_diagnostics(workdir).get("estimator")}

    def _job(self, candidate: Candidate, inputs: RunInputs, folder: Path, timeout_s: float,
             memory_mb: int | None, threads: int, save_model: bool = False,
             importance: dict | None = None, contributions: dict | None = None
             ) -> ExecResult:
        (folder / "candidate.py").write_text(candidate.code)
        job = {"candidate": "candidate.py", "task_type": inputs.task_type,
               "target": inputs.target, "metric": inputs.metric,
               "needs": get_metric(inputs.metric).needs, "seed": inputs.seed,
               "n_jobs": threads, "save_model": save_model,
               **({"importance": importance} if importance else {}),
               **({"contributions": contributions} if contributions else {})}
        (folder / "job.json").write_text(json.dumps(job, indent=2))
        return self.sandbox.run(ExecJob(
            command=[sys.executable, "-m", HARNESS, "job.json"],
            workdir=folder,
            timeout_s=timeout_s,
            cpu_time_s=timeout_s * threads + 10,
            memory_mb=memory_mb or inputs.memory_mb,
            disk_mb=inputs.disk_mb,
            read_paths=(),  # the job reads only its workdir: this fold's files
            env={"OMP_NUM_THREADS": str(threads), "OPENBLAS_NUM_THREADS": str(threads),
                 "MKL_NUM_THREADS": str(threads)},
        ))

    def _score_folds(self, dev: pd.DataFrame, folds: list[referee.Fold], jobs: list[Path],
                     inputs: RunInputs, workdir: Path) -> dict:
        task_type, metric = inputs.task_type, inputs.metric
        scores, baselines, returned, diagnostics = [], [], [], []
        y = dev[inputs.target].to_numpy() if task_type != "clustering" else None
        for fold, folder in zip(folds, jobs, strict=True):
            y_train = y[fold.train] if task_type == "classification" else None
            checked = referee.check_predictions(
                referee.load_returned(folder, len(fold.predict), n_classes(y_train)),
                len(fold.predict), task_type, metric, y_train=y_train)
            returned.append(checked)
            diagnostics.append(read_diagnostics(folder))
            if task_type == "clustering":
                features = dev.drop(columns=[inputs.target]) if inputs.target else dev
                score, base = referee.cluster_scores(metric, features, checked["pred"],
                                                     inputs.seed)
            else:
                score = referee.score(metric, y[fold.predict], checked)
                base = referee.baseline(metric, y[fold.train], y[fold.predict])
            scores.append(score)  # unrounded: a dummy must tie its baseline exactly
            baselines.append(base)
        save_oof(workdir / OOF_FILE, dev, folds, returned, inputs)
        warnings = list(dict.fromkeys(w for d in diagnostics for w in d.get("warnings", [])))
        losses = [d["loss"] for d in diagnostics if d.get("loss")]
        return {
            "score": float(np.mean(scores)),
            "cv_std": float(np.std(scores)),
            "fold_scores": [round(s, 6) for s in scores],
            "baseline_score": float(np.mean(baselines)),
            "n_train": int(np.mean([len(f.train) for f in folds])),
            "n_val": int(sum(len(f.predict) for f in folds)),
            "folds": len(folds),
            "fit_s": round(sum(float(d.get("fit_s") or 0.0) for d in diagnostics), 3),
            "warnings": warnings[:5],
            "loss": worst_loss(losses),
            **({"n_clusters": diagnostics[0].get("n_clusters")}
               if task_type == "clustering" else {}),
        }


def held_out(inputs: RunInputs, test: pd.DataFrame, checked: dict) -> HeldOutPredictions:
    """The checked test predictions with what the plots compare them to: the test labels,
    or for clusterings the referee's own view of the test rows (never a label)."""
    if inputs.task_type == "clustering":
        features = test.drop(columns=[inputs.target]) if inputs.target else test
        return HeldOutPredictions(task_type="clustering", pred=checked["pred"],
                                  features=referee.cluster_features(features))
    return HeldOutPredictions(task_type=inputs.task_type, pred=checked["pred"],
                              y_true=test[inputs.target].to_numpy(),
                              proba=checked.get("proba"), classes=checked.get("classes"))


def read_files(code: str, folder: Path) -> list[Path]:
    """The files a script reads, as far as its text tells: string literals that name an
    existing file (or a folder's files) relative to its folder, `pd.read_csv("data/x.csv")`.
    Anything that resolves outside the folder is left out."""
    import ast

    try:
        literals = {n.value for n in ast.walk(ast.parse(code))
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)
                    and 0 < len(n.value) < 300 and "\n" not in n.value}
    except SyntaxError:
        return []
    root, found = folder.resolve(), []
    for text in sorted(literals):
        try:
            target = (root / text).resolve()
            if not target.is_relative_to(root) or target == root:
                continue
            if target.is_file():
                found.append(target)
            elif target.is_dir():
                found += sorted(p for p in target.rglob("*") if p.is_file())
        except (OSError, ValueError):  # not a path on this system
            continue
    return list(dict.fromkeys(found))


def copy_read_files(path: Path, code: str, workdir: Path) -> list[str]:
    """Copy the files the script reads (read_files) into its workdir at the same relative
    paths, COPY_LIMIT_BYTES in all; returns those left out for the cap."""
    budget, left_out = COPY_LIMIT_BYTES, []
    root = path.parent.resolve()
    for source in read_files(code, path.parent):
        if source == path.resolve():
            continue
        size = source.stat().st_size
        if size > budget:
            left_out.append(str(source.relative_to(root)))
            continue
        budget -= size
        target = workdir / source.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    return left_out


def cv_development(inputs: RunInputs) -> pd.DataFrame:
    """The rows cross-validation uses: the development part, or the run's one seeded
    sample of `cv_rows` when the budget allowed no more (graph/rows.py), the same for
    every candidate and search trial so their out-of-fold predictions line up."""
    dev = pd.read_parquet(inputs.data_path)
    if inputs.cv_rows and len(dev) > inputs.cv_rows and inputs.task_type != "clustering":
        dev = sample(dev, inputs, inputs.cv_rows)
    return dev


def sample(dev: pd.DataFrame, inputs: RunInputs, rows: int) -> pd.DataFrame:
    """A seeded sample of the development part, stratified where every class can be."""
    from sklearn.model_selection import train_test_split

    y = dev[inputs.target] if inputs.target and inputs.task_type == "classification" else None
    stratify = referee.stratify_codes(y.to_numpy()) \
        if y is not None and y.value_counts().min() >= 2 else None
    try:
        part, _ = train_test_split(dev, train_size=rows, random_state=inputs.seed,
                                   stratify=stratify)
    except ValueError:  # too many classes for the sample: fall back to a plain one
        part = dev.sample(n=rows, random_state=inputs.seed)
    return part.reset_index(drop=True)


def n_classes(y_train) -> int:
    return 0 if y_train is None else len(referee.true_classes(y_train))


def is_regular(path: Path) -> bool:
    """A regular file, not a symlink the job left in its place (never followed)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def read_diagnostics(folder: Path) -> dict:
    """What the job reported about its fit (never a score); anything malformed is dropped,
    and the file is read only when it is a regular file of at most 1 MiB."""
    try:
        raw = json.loads(read_regular(folder / "diagnostics.json", DIAGNOSTICS_LIMIT))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    out: dict = {}
    if isinstance(raw.get("warnings"), list):
        out["warnings"] = [str(w)[:300] for w in raw["warnings"][:5]]
    loss = raw.get("loss")
    if isinstance(loss, dict) and all(isinstance(loss.get(k), (int, float))
                                      for k in ("first", "last", "min")):
        out["loss"] = {k: float(loss[k]) for k in ("first", "last", "min")} | {
            "finite": bool(loss.get("finite", True))}
    for key in ("fit_s", "n_clusters"):
        if isinstance(raw.get(key), (int, float)):
            out[key] = raw[key]
    if isinstance(raw.get("importance"), dict):  # the refit's shuffle loop: why it stopped
        out["importance"] = {"stopped": str(raw["importance"].get("stopped") or "")[:200]}
    if isinstance(raw.get("estimator"), str):
        out["estimator"] = class_name(raw["estimator"])
    shap = raw.get("contributions")
    if isinstance(shap, dict):  # the refit's SHAP: the method it used, or why it stopped
        from pipesmith.sandbox.contributions import METHODS

        out["contributions"] = {
            "method": shap.get("method") if shap.get("method") in METHODS else None,
            "estimator": class_name(str(shap.get("estimator") or "")),
            "stopped": str(shap.get("stopped") or "")[:200]}
    return out


ESTIMATOR_CHARS = 60


def class_name(text: str) -> str:
    """A job's claim of its estimator's class, as a report may show it: identifier
    characters only, at most ESTIMATOR_CHARS (the job wrote it; it is not evidence)."""
    import re

    return re.sub(r"[^A-Za-z0-9_.]", "", text)[:ESTIMATOR_CHARS] or "?"


def worst_loss(losses: list[dict]) -> dict | None:
    """The fold whose training diverged most, if any fold kept a loss curve."""
    if not losses:
        return None
    return max(losses, key=lambda loss: (not loss["finite"],
                                         loss["last"] / max(loss["first"], 1e-12)))


def save_oof(path: Path, dev: pd.DataFrame, folds: list[referee.Fold], returned: list[dict],
             inputs: RunInputs) -> None:
    """The out-of-fold predictions, ordered by development-row position (`index`)."""
    index = np.concatenate([f.predict for f in folds])
    order = np.argsort(index, kind="stable")
    arrays = {"index": index[order],
              "pred": _savable(np.concatenate([r["pred"] for r in returned])[order])}
    if inputs.target and inputs.target in dev:
        arrays["y_true"] = _savable(dev[inputs.target].to_numpy()[index[order]])
    if all("proba" in r for r in returned) and returned:
        classes = returned[0]["classes"]
        if all(np.array_equal(r["classes"], classes) for r in returned):
            arrays["proba"] = np.concatenate([r["proba"] for r in returned])[order]
            arrays["classes"] = _savable(classes)
    np.savez(path, **arrays)


def load_oof(attempt_dir: str | Path) -> dict:
    with np.load(Path(attempt_dir) / OOF_FILE, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def _savable(array):
    array = np.asarray(array)
    return array.astype(str) if array.dtype == object else array


def merge_results(results: list[ExecResult], wall_s: float,
                  failure: ExecResult | None = None) -> ExecResult:
    """One ExecResult for the fold jobs: the failure that stopped them (its status and
    output), total CPU, the largest peak, and the wall time of all of them together."""
    first = failure or next((r for r in results if not r.ok), None) or results[0]
    wall = max(wall_s, max(r.wall_s for r in results))
    return first.model_copy(update={
        "wall_s": round(wall, 3),
        "cpu_s": round(sum(r.cpu_s for r in results), 3),
        "peak_mem_mb": max(r.peak_mem_mb for r in results),
        "files": sorted({f for r in results for f in r.files}),
        "stdout": first.stdout[-20_000:],
    })


def contract_failure(result: ExecResult, message: str) -> ExecResult:
    """A run whose predictions break the contract: an error the taxonomy classifies."""
    return result.model_copy(update={
        "status": "error", "exit_code": CONTRACT_EXIT,
        "stderr": (result.stderr + f"\npipesmith.harness.ContractError: {message}\n")[-20_000:],
        "detail": message,
    })
