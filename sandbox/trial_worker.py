"""The trial worker: project code that runs many search trials of one candidate's code on
one fold, inside the sandbox, in one interpreter.

Usage: python -m pipesmith.sandbox.trial_worker trial_job.json

The job names the fold's training rows with their labels and the rows to predict without
theirs, and per learner a candidate module (code checked once, imported once) with a batch
of trials (hyperparameters and a share of the training rows). For each trial it builds the pipeline
with `task["params"]`, fits on the (sub-sampled) training rows and writes the predictions
(and class probabilities) to trial_<id>.npz. It scores nothing: the labels of the predicted
rows never enter the sandbox, and the search scores outside. A failing trial is recorded
with its traceback and the batch goes on. Paying the interpreter and the imports once per
batch, not once per trial, is the point (benchmarks/search_overhead.py measures it).
"""

from __future__ import annotations

import json
import sys
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from pipesmith.sandbox.harness import (
    ContractError,
    build_estimator,
    fit_recording_warnings,
    load_candidate,
    loss_summary,
    task_of,
)


def subsample(X: pd.DataFrame, y: pd.Series, share: float, seed: int, classify: bool):
    """A seeded share of the training rows, stratified where every class can be."""
    if share >= 1.0:
        return X, y
    from sklearn.model_selection import train_test_split

    n = max(20, int(round(share * len(y))))
    if n >= len(y):
        return X, y
    stratify = y if classify and y.value_counts().min() >= 2 else None
    try:
        X_s, _, y_s, _ = train_test_split(X, y, train_size=n, random_state=seed,
                                          stratify=stratify)
    except ValueError:
        X_s, _, y_s, _ = train_test_split(X, y, train_size=n, random_state=seed)
    return X_s, y_s


def run_trial(module, job: dict, trial: dict, X, y, X_pred, out: Path) -> dict:
    classify = job["task_type"] == "classification"
    task = {**task_of(job), "params": trial["params"]}  # what a fold job's candidate sees
    started = time.perf_counter()
    estimator = build_estimator(module, task, "predict")
    X_fit, y_fit = subsample(X, y, trial.get("share", 1.0), job["seed"], classify)
    extra = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if trial.get("diagnostics"):  # a candidate's fold fit: what the harness records
            _, fit_s, caught = fit_recording_warnings(estimator.fit, X_fit, y_fit)
            extra = {"warnings": caught, "loss": loss_summary(estimator),
                     "fit_s_model": round(fit_s, 4)}
        else:
            estimator.fit(X_fit, y_fit)
        arrays = {"y_pred": np.asarray(estimator.predict(X_pred))}
        if classify and hasattr(estimator, "predict_proba"):
            arrays["proba"] = np.asarray(estimator.predict_proba(X_pred), dtype=float)
            arrays["classes"] = np.asarray(estimator.classes_)
    if arrays["y_pred"].shape[0] != len(X_pred):
        raise ContractError(f"predict returned {arrays['y_pred'].shape[0]} rows for "
                            f"{len(X_pred)} inputs")
    np.savez(out / f"trial_{trial['id']}.npz",
             **{k: v.astype(str) if v.dtype == object else v for k, v in arrays.items()})
    return {"id": trial["id"], "status": "ok", "fit_s": round(time.perf_counter() - started, 4),
            "n_fit": len(y_fit), **extra}


def main(argv: list[str]) -> int:
    job_path = Path(argv[1])
    out = job_path.parent
    job = json.loads(job_path.read_text())
    started = time.perf_counter()
    train = pd.read_parquet(job["train_path"])
    X_pred = pd.read_parquet(job["predict_path"])
    X, y = train.drop(columns=[job["target"]]), train[job["target"]]
    results = [{"setup_s": round(time.perf_counter() - started, 4)}]
    deadline = started + job.get("deadline_s", float("inf"))
    for entry in job["modules"]:  # one candidate module per learner, each imported once
        try:
            module = load_candidate(Path(entry["candidate_path"]))
        except Exception as exc:
            failed = {"status": "error", "error": f"{type(exc).__name__}: {exc}"[:500],
                      "traceback": traceback.format_exc()[-4000:]}
            results += [{"id": t["id"], **failed} for t in entry["trials"]]
            continue
        for trial in entry["trials"]:
            if time.perf_counter() > deadline:  # the batch's time is up: the rest wait
                results.append({"id": trial["id"], "status": "skipped"})
                continue
            try:
                results.append(run_trial(module, job, trial, X, y, X_pred, out))
            except Exception as exc:  # one trial's failure is that trial's result
                results.append({"id": trial["id"], "status": "error",
                                "error": f"{type(exc).__name__}: {exc}"[:500],
                                "traceback": traceback.format_exc()[-4000:]})
            (out / "trials.json").write_text(json.dumps(results))
    (out / "trials.json").write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
