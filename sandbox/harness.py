"""The fixed harness: the job that runs inside the sandbox for one fold (or the refit).

Usage: python -m pipesmith.sandbox.harness job.json

It reads only what its workdir holds: `train.parquet` (features and target of the rows it
may learn from), `predict.parquet` (features only, no target) and the candidate module.
It fits `build_pipeline(task)` and writes `predictions.npz` (`pred`, and for classifiers
`proba` and `classes`), `diagnostics.json` (fit seconds, warnings, loss curve summary, the
final step's class name) and,
for the refit, `model.joblib` and, when job.json asks (`importance`), `importance.npz`
(the test features' predictions with one column shuffled at a time,
pipesmith/sandbox/permutation.py) and, when asked (`contributions`), `contributions.npz`
(SHAP contributions where the family has a native method, pipesmith/sandbox/contributions.py).
It never splits or scores: the referee
(`pipesmith/core/referee.py`), outside the sandbox, scores the predictions. Nothing this job
writes is trusted as a score. Clustering: `pred` holds the labels of the training rows
(or, for the refit, of the rows to predict); internal indices are computed outside.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

CONTRACT_EXIT = 3  # the candidate broke the build_pipeline contract
TASK_KEYS = ("task_type", "target", "metric", "seed", "n_jobs")  # what build_pipeline sees


class ContractError(Exception):
    """The candidate module does not honour the build_pipeline(task) contract."""


def load_candidate(path: Path):
    spec = importlib.util.spec_from_file_location("candidate", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["candidate"] = module
    spec.loader.exec_module(module)
    if not callable(getattr(module, "build_pipeline", None)):
        raise ContractError("the module defines no callable build_pipeline(task)")
    return module


def build_estimator(module, task: dict, needs: str):
    estimator = module.build_pipeline(task)
    required = ("fit_predict",) if needs == "clusters" else ("fit", "predict")
    missing = [name for name in required if not callable(getattr(estimator, name, None))]
    if missing:
        raise ContractError(
            f"build_pipeline returned {type(estimator).__name__}, which lacks {', '.join(missing)}"
        )
    return estimator


def fit_recording_warnings(fit, *args) -> tuple[object, float, list[str]]:
    """Call fit; return its result, its seconds and the distinct warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        started = time.perf_counter()
        result = fit(*args)
        seconds = time.perf_counter() - started
    seen = dict.fromkeys(f"{w.category.__name__}: {str(w.message)[:200]}" for w in caught)
    return result, seconds, list(seen)[:5]


def loss_summary(estimator) -> dict | None:
    """First, last and lowest training loss when the model keeps a loss curve (MLPs and
    pipesmith's neural estimators do), so divergence can be told from a poor model."""
    final = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
    curve = getattr(final, "loss_curve_", None)
    if not curve:
        return None
    curve = np.asarray(curve, dtype=float)
    return {"first": float(curve[0]), "last": float(curve[-1]), "min": float(np.nanmin(curve)),
            "finite": bool(np.all(np.isfinite(curve)))}


def final_step(estimator) -> str:
    """The class name of what predicts: a pipeline's last step, else the estimator (what
    the report names beside the planned family; untrusted, sanitised by the reader)."""
    try:
        final = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
    except Exception:  # a `steps` that is not a pipeline's: name the estimator itself
        final = estimator
    return type(final).__name__


def run_supervised(job: dict, module, workdir: Path) -> tuple[dict, dict, object]:
    train = pd.read_parquet(workdir / "train.parquet")
    X_predict = pd.read_parquet(workdir / "predict.parquet")
    target = job["target"]
    X_train, y_train = train.drop(columns=[target]), train[target]
    estimator = build_estimator(module, task_of(job), job["needs"])
    _, fit_s, fit_warnings = fit_recording_warnings(estimator.fit, X_train, y_train)
    arrays = {"pred": np.asarray(estimator.predict(X_predict))}
    if job["task_type"] == "classification" and hasattr(estimator, "predict_proba"):
        arrays["proba"] = np.asarray(estimator.predict_proba(X_predict), dtype=float)
        arrays["classes"] = np.asarray(estimator.classes_)
    diagnostics = {"fit_s": round(fit_s, 3), "warnings": fit_warnings,
                   "loss": loss_summary(estimator), "n_train": len(train),
                   "estimator": final_step(estimator)}
    if job.get("importance"):  # the refit: shuffled-column predictions, scored outside
        diagnostics["importance"] = write_permuted(estimator, X_predict, job["importance"],
                                                   fit_s, "proba" in arrays, workdir)
    if job.get("contributions"):  # the refit: SHAP where the family has a method, checked outside
        diagnostics["contributions"] = write_contributions(estimator, X_train, X_predict,
                                                           job["contributions"], workdir)
    return arrays, diagnostics, estimator


def write_permuted(estimator, X_predict, spec: dict, fit_s: float, with_proba: bool,
                   workdir: Path) -> dict:
    from pipesmith.sandbox.permutation import IMPORTANCE_FILE, permuted_predictions

    arrays, note = permuted_predictions(estimator, X_predict, spec, fit_s, with_proba)
    np.savez(workdir / IMPORTANCE_FILE, **{k: _savable(v) for k, v in arrays.items()})
    return note


def write_contributions(estimator, X_train, X_predict, spec: dict, workdir: Path) -> dict:
    from pipesmith.sandbox.contributions import CONTRIBUTIONS_FILE, contributions

    try:
        arrays, note = contributions(estimator, X_train, X_predict, spec)
    except Exception as exc:  # the refit stands; only the contributions are lost
        return {"stopped": f"{type(exc).__name__}: {str(exc)[:160]}"}
    if arrays is not None:
        np.savez(workdir / CONTRIBUTIONS_FILE, **{k: _savable(v) for k, v in arrays.items()})
    return note


def run_clustering(job: dict, module, workdir: Path) -> tuple[dict, dict, object]:
    train = pd.read_parquet(workdir / "train.parquet")
    X = train.drop(columns=[job["target"]]) if job.get("target") in train else train
    estimator = build_estimator(module, task_of(job), "clusters")
    labels, fit_s, fit_warnings = fit_recording_warnings(estimator.fit_predict, X)
    predict_path = workdir / "predict.parquet"
    if predict_path.exists():  # the refit: labels for the rows to predict
        X_predict = pd.read_parquet(predict_path)
        labels = estimator.predict(X_predict) if callable(getattr(estimator, "predict", None)) \
            else build_estimator(module, task_of(job), "clusters").fit_predict(X_predict)
    labels = np.asarray(labels)
    diagnostics = {"fit_s": round(fit_s, 3), "warnings": fit_warnings, "n_train": len(train),
                   "n_clusters": int(len(set(labels.tolist()))),
                   "estimator": final_step(estimator)}
    return {"pred": labels}, diagnostics, estimator


def task_of(job: dict) -> dict:
    """The `task` build_pipeline receives: what the task is, never where data lives."""
    return {key: job.get(key) for key in TASK_KEYS}


def _savable(array):
    array = np.asarray(array)
    return array.astype(str) if array.dtype == object else array


def main(argv: list[str]) -> int:
    from pipesmith.core.model_io import save_model

    job_path = Path(argv[1]).resolve()
    job = json.loads(job_path.read_text())
    workdir = job_path.parent
    try:
        module = load_candidate(workdir / job["candidate"])
        runner = run_clustering if job["task_type"] == "clustering" else run_supervised
        arrays, diagnostics, estimator = runner(job, module, workdir)
    except ContractError as exc:
        print(f"pipesmith.harness.ContractError: {exc}", file=sys.stderr)  # noqa: T201
        return CONTRACT_EXIT
    except Exception:
        traceback.print_exc()
        return 1
    np.savez(workdir / "predictions.npz", **{k: _savable(v) for k, v in arrays.items()})
    (workdir / "diagnostics.json").write_text(json.dumps(diagnostics, indent=2, default=float))
    if job.get("save_model"):
        save_model(estimator, workdir / "model.joblib")  # loads outside the sandbox too
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
