"""The fixed harness: project code that trains and scores a candidate inside the sandbox.

Usage: python -m pipesmith.sandbox.harness harness_job.json

The candidate only supplies build_pipeline(task). This harness loads the data,
splits it with the seed, fits, predicts, scores with the task metric and a
dummy baseline on the same split, and writes metrics.json, predictions.npz and
model.joblib. Nothing the candidate prints counts.
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

from pipesmith.metrics import get_metric

CONTRACT_EXIT = 3  # the candidate broke the build_pipeline contract


class ContractError(Exception):
    """The candidate module does not honour the build_pipeline(task) contract."""


def split_data(frame: pd.DataFrame, target: str, task_type: str, seed: int, test_size: float):
    """The one split every candidate, baseline and standalone script uses."""
    from sklearn.model_selection import train_test_split

    X, y = frame.drop(columns=[target]), frame[target]
    stratify = y if task_type == "classification" and y.value_counts().min() >= 2 else None
    return train_test_split(X, y, test_size=test_size, random_state=seed, stratify=stratify)


def sample_rows(frame: pd.DataFrame, job: dict) -> pd.DataFrame:
    """A seeded sample for the smoke run, stratified by class where every class can be."""
    from sklearn.model_selection import train_test_split

    target = job.get("target")
    y = frame[target] if target and job["task_type"] == "classification" else None
    stratify = y if y is not None and y.value_counts().min() >= 2 else None
    try:
        sample, _ = train_test_split(frame, train_size=job["sample_rows"],
                                     random_state=job["seed"], stratify=stratify)
    except ValueError:  # too many classes for the sample: fall back to a plain one
        sample = frame.sample(n=job["sample_rows"], random_state=job["seed"])
    return sample.reset_index(drop=True)


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


def fold_scores(estimator, X, y, job: dict, metric, budget_s: float) -> list[float]:
    """Cross-validated scores on the training split, for the spread in the reliability
    score; skipped (empty) when the folds would not fit in the time left."""
    from sklearn.base import clone
    from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score

    folds = job.get("cv_folds", 0)
    if folds < 2 or metric.scorer is None or budget_s <= 0:
        return []
    splitter = (StratifiedKFold if job["task_type"] == "classification" else KFold)(
        folds, shuffle=True, random_state=job["seed"])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scores = cross_val_score(clone(estimator), X, y, cv=splitter, scoring=metric.scorer,
                                     error_score="raise")
    except Exception:  # the spread is optional: a fold that cannot be fitted skips it
        return []
    return [round(metric.from_scorer(float(s)), 6) for s in scores]


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


def run_supervised(job: dict, frame: pd.DataFrame, module, out: Path) -> dict:
    from sklearn.dummy import DummyClassifier, DummyRegressor

    metric = get_metric(job["metric"])
    task_type = job["task_type"]
    X_train, X_val, y_train, y_val = split_data(
        frame, job["target"], task_type, job["seed"], job["test_size"])
    estimator = build_estimator(module, job, metric.needs)
    unfitted = _try_clone(estimator)
    _, fit_s, fit_warnings = fit_recording_warnings(estimator.fit, X_train, y_train)
    y_pred = np.asarray(estimator.predict(X_val))
    if y_pred.shape[0] != len(y_val):
        raise ContractError(f"predict returned {y_pred.shape[0]} rows for {len(y_val)} inputs")
    if task_type == "regression" and not np.all(np.isfinite(y_pred.astype(float))):
        raise ValueError("predictions contain NaN or infinity")
    proba = classes = None
    if task_type == "classification" and hasattr(estimator, "predict_proba"):
        proba = np.asarray(estimator.predict_proba(X_val), dtype=float)
        classes = np.asarray(estimator.classes_)
    if metric.needs == "proba" and proba is None:
        raise ContractError(f"metric {metric.name} needs predict_proba, which the model lacks")
    dummy = DummyClassifier(strategy="prior") if task_type == "classification" else DummyRegressor()
    dummy.fit(X_train, y_train)
    arrays = {"y_true": np.asarray(y_val), "y_pred": y_pred}
    if proba is not None:
        arrays.update(proba=proba, classes=classes)
    np.savez(out / "predictions.npz", **{k: _savable(v) for k, v in arrays.items()})
    return {
        "score": metric.score(np.asarray(y_val), y_pred, proba=proba, classes=classes),
        "baseline_score": metric.score(
            np.asarray(y_val), dummy.predict(X_val),
            proba=dummy.predict_proba(X_val) if task_type == "classification" else None,
            classes=getattr(dummy, "classes_", None)),
        "n_train": len(y_train),
        "n_val": len(y_val),
        "fit_s": round(fit_s, 3),
        "warnings": fit_warnings,
        "loss": loss_summary(estimator),
        "fold_scores": [] if unfitted is None else fold_scores(
            unfitted, X_train, y_train, job, metric,
            job.get("cv_budget_s", 0) - fit_s * job.get("cv_folds", 0)),
        "model": estimator,
    }


def run_clustering(job: dict, frame: pd.DataFrame, module, out: Path) -> dict:
    metric = get_metric(job["metric"])
    X = frame.drop(columns=[job["target"]]) if job.get("target") else frame
    estimator = build_estimator(module, job, "clusters")
    labels, fit_s, fit_warnings = fit_recording_warnings(estimator.fit_predict, X)
    labels = np.asarray(labels)
    # Internal indices are computed where the model clusters: after its preprocessing.
    features = estimator[:-1].transform(X) if hasattr(estimator, "steps") else X.to_numpy()
    rng = np.random.default_rng(job["seed"])
    sample = rng.choice(len(labels), size=min(len(labels), 5000), replace=False)
    n_clusters = max(2, len(set(labels.tolist())))
    random_labels = rng.integers(0, n_clusters, size=len(sample))
    np.savez(out / "predictions.npz", y_pred=labels)
    return {
        "score": metric.score(None, labels[sample], features=features[sample]),
        "baseline_score": metric.score(None, random_labels, features=features[sample]),
        "n_train": len(labels),
        "n_val": len(labels),
        "n_clusters": int(len(set(labels.tolist()))),
        "fit_s": round(fit_s, 3),
        "warnings": fit_warnings,
        "fold_scores": [],
        "model": estimator,
    }


def _try_clone(estimator):
    from sklearn.base import clone

    try:
        return clone(estimator)
    except Exception:  # not every estimator clones; it only costs the spread
        return None


def _savable(array):
    array = np.asarray(array)
    return array.astype(str) if array.dtype == object else array


def main(argv: list[str]) -> int:
    from pipesmith.model_io import save_model

    job_path = Path(argv[1])
    job = json.loads(job_path.read_text())
    out = job_path.parent
    frame = pd.read_parquet(job["data_path"])
    if job.get("sample_rows") and len(frame) > job["sample_rows"]:
        frame = sample_rows(frame, job)
    try:
        module = load_candidate(Path(job["candidate_path"]))
        runner = run_clustering if job["task_type"] == "clustering" else run_supervised
        result = runner(job, frame, module, out)
    except ContractError as exc:
        print(f"pipesmith.harness.ContractError: {exc}", file=sys.stderr)  # noqa: T201
        return CONTRACT_EXIT
    except Exception:
        traceback.print_exc()
        return 1
    save_model(result.pop("model"), out / "model.joblib")  # loads outside the sandbox too
    metrics = {"metric": job["metric"], **result}
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
