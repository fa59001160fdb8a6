"""Permuted-column predictions for permutation importance, made inside the refit job.

The refit job (sandbox/harness.py) already predicts the test features; when its job.json
asks (`importance`), it also predicts copies of a seeded sample of those rows with one
column shuffled at a time (a few times each on a small test part) and writes them to
`importance.npz`: `rows` (positions in predict.parquet), `columns` (the shuffled column of
each prediction set), `pred` (sets x rows) and, for classifiers with predict_proba,
`proba` (sets x rows x classes) and `classes`. No label is here: the
referee scores these outside (pipesmith/core/importance.py). The loop stops at the first
column that would start after its time allowance, so a slow predictor costs a bounded share
of the refit; a predictor that raises on a shuffled copy ends the loop, not the refit.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

IMPORTANCE_FILE = "importance.npz"


def allowance_s(spec: dict, fit_s: float) -> float:
    """Seconds the shuffled predictions may take: a share of the refit's fit, at least
    `min_s`, never more than `max_s` (the job's own time limit keeps its margin)."""
    return min(float(spec["max_s"]), max(float(spec["min_s"]), float(spec["share"]) * fit_s))


def sample_rows(n_rows: int, max_rows: int, seed: int) -> np.ndarray:
    """Sorted positions of at most `max_rows` rows, the same for every column."""
    if n_rows <= max_rows:
        return np.arange(n_rows)
    return np.sort(np.random.default_rng(seed).choice(n_rows, size=max_rows, replace=False))


def shuffles(n_rows: int, spec: dict) -> int:
    """Shuffles per column: up to `repeats` on a small test part (one shuffle of a few
    dozen rows is mostly noise), never more predicted rows in all than `rows` per column."""
    return max(1, min(int(spec["repeats"]), int(spec["rows"]) // max(n_rows, 1)))


def permuted_predictions(estimator, X: pd.DataFrame, spec: dict, fit_s: float,
                         with_proba: bool) -> tuple[dict, dict]:
    """The arrays for importance.npz and a note for diagnostics.json (columns done, why it
    stopped)."""
    rows = sample_rows(len(X), int(spec["rows"]), int(spec["seed"]))
    sample = X.iloc[rows].reset_index(drop=True)
    columns = list(X.columns)[: int(spec["columns"])]  # the first columns, in table order
    repeats = shuffles(len(rows), spec)
    rng = np.random.default_rng(int(spec["seed"]))
    limit, started = allowance_s(spec, fit_s), time.perf_counter()
    preds, probas, done, stopped = [], [], [], ""
    for column in columns:
        if time.perf_counter() - started > limit:
            stopped = f"time: {limit:.1f}s allowance spent"
            break
        try:
            pred, proba = [], []
            for _ in range(repeats):
                shuffled = sample.copy()
                # a permutation of the column's own values keeps its dtype (categories too)
                shuffled[column] = sample[column].iloc[rng.permutation(len(sample))].to_numpy()
                pred.append(np.asarray(estimator.predict(shuffled)))
                if with_proba:
                    proba.append(np.asarray(estimator.predict_proba(shuffled), dtype=float))
        except Exception as exc:  # the refit stands; the importance stops here
            stopped = f"predict raised {type(exc).__name__} on shuffled {column!r}"
            break
        preds += pred
        probas += proba
        done += [column] * repeats  # one entry per shuffle: `pred`'s first axis
    arrays = {"rows": rows, "columns": np.asarray(done, dtype=str)}
    if done:
        arrays["pred"] = np.stack(preds)
        if with_proba:
            arrays["proba"] = np.stack(probas)
            arrays["classes"] = np.asarray(estimator.classes_)
    note = {"columns": len(set(done)), "of": len(X.columns), "rows": len(rows),
            "repeats": repeats,
            "seconds": round(time.perf_counter() - started, 3), "stopped": stopped}
    return arrays, note
