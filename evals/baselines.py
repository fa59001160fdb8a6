"""Baselines on the pipeline's own split and budget: what users would pick instead.

- hgb: scikit-learn HistGradientBoosting with its defaults (string columns ordinal-encoded,
  low-cardinality ones declared categorical, so it can run at all).
- flaml: FLAML AutoML tuned on the suite metric, time_budget = the eval budget.
- autogluon: AutoGluon TabularPredictor, presets best_quality, time_limit = the budget.
  AutoGluon needs pandas < 3, so it lives in its own virtual environment (the `autogluon`
  extra); the job runs there as `python -m pipesmith.evals.baselines JOB_JSON` when
  PIPESMITH_AUTOGLUON_PYTHON names that environment's python (see docs/evals.md).

Every baseline fits in a child process with a hard wall limit (`wall_limit_s`: twice its
budget and two minutes, as a run may take for its refit), its process group killed past it:
a baseline that overruns its budget ten-fold (FLAML did, 35 min of 60 s, on a wide table)
becomes a `timeout` row instead of holding up the eval.

Every baseline selects and trains on the development part of the referee's split
(pipesmith/core/referee.py: the same seed, test share and prepared table as the pipeline's run)
and is scored with pipesmith's metric on the same untouched test part the run's
`test_score` uses. Clustering has no supervised baseline: its rows say so.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict

import numpy as np
import pandas as pd

BASELINES = ("hgb", "flaml", "autogluon")
MAX_CATEGORIES = 255  # HistGradientBoosting's limit for a categorical feature
FLAML_METRICS = {"accuracy": "accuracy", "roc_auc": "roc_auc", "log_loss": "log_loss",
                 "f1_macro": "macro_f1", "r2": "r2", "rmse": "rmse", "mae": "mae"}
AUTOGLUON_METRICS = {"accuracy": "accuracy", "balanced_accuracy": "balanced_accuracy",
                     "roc_auc": "roc_auc_ovo", "log_loss": "log_loss", "f1_macro": "f1_macro",
                     "r2": "r2", "rmse": "root_mean_squared_error",
                     "mae": "mean_absolute_error"}
AUTOGLUON_ENV = "PIPESMITH_AUTOGLUON_PYTHON"
LIMIT_FACTOR, LIMIT_SLACK_S = 2.0, 120.0  # the wall limit: budget x factor + slack


def wall_limit_s(job) -> float:
    return job.wall_limit_s or job.budget_s * LIMIT_FACTOR + LIMIT_SLACK_S


def split(spec, seed: int, test_size: float):
    """The run's development and test parts: X_dev, X_test, y_dev, y_test."""
    from pipesmith.core.datasets import Table, prepare
    from pipesmith.core.referee import split_development
    from pipesmith.evals.suite import load

    frame = prepare(Table(load(spec), spec.target, spec.name), spec.task)
    dev, test = split_development(frame, spec.target, spec.task, seed, test_size)
    target = spec.target
    return dev.drop(columns=[target]), test.drop(columns=[target]), dev[target], test[target]


def _encode_strings(X_train: pd.DataFrame, X_val: pd.DataFrame):
    """Ordinal codes for string columns (unknown and missing -> NaN) and the mask of those
    HistGradientBoosting may treat as categorical."""
    from sklearn.preprocessing import OrdinalEncoder

    strings = [c for c in X_train.columns if not pd.api.types.is_numeric_dtype(X_train[c])]
    X_train, X_val = X_train.copy(), X_val.copy()
    if strings:
        encoder = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=np.nan,
                                 encoded_missing_value=np.nan)
        X_train[strings] = encoder.fit_transform(X_train[strings].astype(str).where(
            X_train[strings].notna(), None))
        X_val[strings] = encoder.transform(X_val[strings].astype(str).where(
            X_val[strings].notna(), None))
    mask = [c in strings and X_train[c].nunique() <= MAX_CATEGORIES for c in X_train.columns]
    return X_train.astype(float), X_val.astype(float), mask


def fit_hgb(spec, X_train, y_train, X_val, seed, budget_s, n_jobs):
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    X_train, X_val, mask = _encode_strings(X_train, X_val)
    cls = HistGradientBoostingClassifier if spec.task == "classification" else \
        HistGradientBoostingRegressor
    model = cls(random_state=seed, categorical_features=np.array(mask, dtype=bool))
    model.fit(X_train, y_train)
    return model.predict(X_val), _proba(spec, model, X_val), []


def fit_flaml(spec, X_train, y_train, X_val, seed, budget_s, n_jobs):
    from flaml import AutoML

    automl = AutoML()
    metric = FLAML_METRICS.get(spec.metric, _balanced_accuracy_loss)
    automl.fit(X_train, y_train, task=spec.task, metric=metric, time_budget=budget_s,
               seed=seed, n_jobs=n_jobs, verbose=0)
    return automl.predict(X_val), _proba(spec, automl, X_val), [automl.best_estimator]


def _balanced_accuracy_loss(X_val, y_val, estimator, labels, X_train, y_train, *args, **kw):
    """FLAML's custom-metric signature: (loss to minimise, metrics to log)."""
    from sklearn.metrics import balanced_accuracy_score

    score = balanced_accuracy_score(y_val, estimator.predict(X_val))
    return 1 - score, {"balanced_accuracy": score}


def fit_autogluon(spec, X_train, y_train, X_val, seed, budget_s, n_jobs):
    """Runs in the AutoGluon environment itself (see run_baseline)."""
    import tempfile

    from autogluon.tabular import TabularPredictor

    train = X_train.assign(**{spec.target: y_train.to_numpy()})
    with tempfile.TemporaryDirectory(prefix="pipesmith-ag-") as path:
        predictor = TabularPredictor(label=spec.target, path=path, verbosity=0,
                                     problem_type=_ag_problem(spec, y_train),
                                     eval_metric=AUTOGLUON_METRICS[spec.metric])
        predictor.fit(train, presets="best_quality", time_limit=budget_s,
                      num_cpus=n_jobs, ag_args_fit={"random_seed": seed})
        board = predictor.leaderboard(silent=True)
        families = sorted({str(m).split("_")[0] for m in board["model"]})
        y_pred = predictor.predict(X_val).to_numpy()
        proba = predictor.predict_proba(X_val).to_numpy() if spec.task == "classification" \
            else None
    return y_pred, proba, families


def _ag_problem(spec, y) -> str:
    if spec.task == "regression":
        return "regression"
    return "binary" if y.nunique() == 2 else "multiclass"


def _proba(spec, model, X):
    if spec.task != "classification":
        return None
    return np.asarray(model.predict_proba(X), dtype=float)


FITTERS = {"hgb": fit_hgb, "flaml": fit_flaml, "autogluon": fit_autogluon}


def score_baseline(job, test_size: float = 0.2) -> dict:
    """Fit one baseline in this process and score it; the row for baselines.jsonl."""
    from threadpoolctl import threadpool_limits

    from pipesmith.core.metrics import get_metric

    spec = job.spec
    X_train, X_val, y_train, y_val = split(spec, job.seed, test_size)
    with threadpool_limits(limits=job.n_jobs):  # as many threads as a candidate run gets
        y_pred, proba, models = FITTERS[job.baseline](spec, X_train, y_train, X_val, job.seed,
                                                      job.budget_s, job.n_jobs)
    classes = np.asarray(sorted(pd.unique(y_train))) if proba is not None else None
    score = get_metric(spec.metric).score(np.asarray(y_val), np.asarray(y_pred), proba=proba,
                                          classes=classes)
    return {"score": round(float(score), 6), "models": models}


def run_baseline(job) -> dict:
    """The baseline's row: dataset, baseline, seed, status, score, wall_s, models."""
    started = time.perf_counter()
    row = {"dataset": job.spec.name, "baseline": job.baseline, "seed": job.seed}
    if job.spec.task == "clustering":
        return row | {"status": "not applicable", "score": None, "wall_s": 0.0, "models": []}
    try:
        result, status = in_child(job), "ok"
    except subprocess.TimeoutExpired:
        result = {"score": None, "models": []}
        status = f"timeout: over its wall limit of {wall_limit_s(job):.0f} s"
    except KeyboardInterrupt:
        raise
    except Exception as exc:
        result, status = {"score": None, "models": []}, f"error: {type(exc).__name__}: {exc}"
    return row | {"status": status[:500], **result,
                  "wall_s": round(time.perf_counter() - started, 2)}


def _has(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _python(job) -> str:
    """This interpreter, or for AutoGluon where it is not installed here, its own."""
    if job.baseline != "autogluon" or _has("autogluon.tabular"):
        return sys.executable
    python = os.environ.get(AUTOGLUON_ENV)
    if not python:
        raise RuntimeError(f"AutoGluon is not installed here; set {AUTOGLUON_ENV} to the "
                           "python of its own environment (docs/evals.md)")
    return python


def in_child(job) -> dict:
    """score_baseline in a child process of its own group, killed as a whole past the wall
    limit (subprocess.TimeoutExpired); tagged with this process, so that if this one is
    SIGKILLed the next pipesmith command's sweep ends the fit."""
    from pipesmith.sandbox.owner import OWNER_ENV, owner

    payload = json.dumps({"spec": asdict(job.spec), "baseline": job.baseline, "seed": job.seed,
                          "budget_s": job.budget_s, "n_jobs": job.n_jobs})
    # in a scratch folder: what a fit writes where it stands (AutoGluon's CatBoost leaves a
    # catboost_<time>/ folder) goes with it, not into the folder the eval was started from
    with tempfile.TemporaryDirectory(prefix="pipesmith-baseline-") as scratch:
        child = subprocess.Popen([_python(job), "-m", "pipesmith.evals.baselines", payload],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env={**os.environ, OWNER_ENV: owner()}, cwd=scratch,
                                 start_new_session=True)
        try:
            out, err = child.communicate(timeout=wall_limit_s(job))
        except BaseException:
            _kill_group(child.pid)
            child.communicate()
            raise
        _kill_group(child.pid)  # helpers the fit left behind
    if child.returncode != 0:
        raise RuntimeError(err.strip().splitlines()[-1] if err.strip()
                           else f"exit {child.returncode}")
    return json.loads(out.strip().splitlines()[-1])


def _kill_group(pid: int) -> None:
    import signal

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def main(argv: list[str]) -> int:
    """Entry point of the child process (in AutoGluon's own environment for AutoGluon): one
    job as JSON in, its result out."""
    from pipesmith.evals.jobs import BaselineJob
    from pipesmith.evals.suite import DataSpec

    raw = json.loads(argv[1])
    spec = raw.pop("spec")
    spec = DataSpec(**{k: tuple(v) if isinstance(v, list) else v for k, v in spec.items()})
    job = BaselineJob(spec=spec, out="", **raw)
    sys.stdout.write(json.dumps(score_baseline(job)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
