"""Permutation importance on the test part, scored by the referee outside the sandbox.

The refit job predicts copies of (a seeded sample of) the test features with one column
shuffled at a time (pipesmith/sandbox/permutation.py) and writes them to importance.npz;
no label ever enters the job. Here that file is read with every size checked
(pipesmith/core/safe_npz.py), each column's predictions are checked like any prediction
(referee.check_predictions) and scored with the referee's metric against the true test
labels it holds. A feature's importance is the unshuffled score minus the shuffled one
(the mean over its shuffles), sign-adjusted so that positive always means the feature
helps (for error metrics such as rmse the shuffled score is the larger). A value near
zero or below is within noise. Clustering has no labels to score against: skipped.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import structlog

from pipesmith.agents.schemas import FeatureImportance, RunInputs
from pipesmith.core import referee
from pipesmith.core.metrics import get_metric
from pipesmith.core.safe_npz import load_npz
from pipesmith.sandbox.permutation import IMPORTANCE_FILE

log = structlog.get_logger(__name__)

MAX_COLUMNS = 30  # the first 30 feature columns, in table order
MAX_ROWS = 5000  # a seeded sample of the test rows
REPEATS = 5  # shuffles per column, at most, while the rows shuffled stay within MAX_ROWS
MAX_CELLS = MAX_COLUMNS * MAX_ROWS  # predicted rows in importance.npz, all shuffles together
TIME_SHARE = 0.5  # of the refit's fit seconds ...
MIN_S = 2.0  # ... but at least this (a fast fit still gets its importances) ...
MAX_SHARE_OF_TIMEOUT = 0.25  # ... and at most this share of the refit job's time limit


def job_request(inputs: RunInputs, timeout_s: float,
                within_s: float | None = None) -> dict | None:
    """What the refit's job.json asks for (`importance`); None for clustering. `within_s`:
    the seconds the run's budget leaves it (at most)."""
    if inputs.task_type == "clustering":
        return None
    max_s = MAX_SHARE_OF_TIMEOUT * timeout_s
    return {"columns": MAX_COLUMNS, "rows": MAX_ROWS, "repeats": REPEATS, "seed": inputs.seed,
            "share": TIME_SHARE, "min_s": MIN_S,
            "max_s": max_s if within_s is None else min(max_s, within_s)}


def permutation_importance(workdir: Path, test: pd.DataFrame, inputs: RunInputs,
                           checked: dict, y_dev, job_note: dict | None = None,
                           ) -> tuple[list[FeatureImportance], str]:
    """The features' importances, largest first, and a note saying what they cover; an
    empty list and the reason when the job wrote nothing usable (the refit stands).
    `job_note`: what the job said of its loop (diagnostics.json), only ever quoted."""
    if inputs.task_type == "clustering":
        return [], "skipped: clustering has no labels to score a shuffled column against"
    stopped = str((job_note or {}).get("stopped") or "")[:160]
    features = [c for c in test.columns if c != inputs.target]
    # the classes once: each shuffle's check would sort every development label again
    # (0.4 s a check on 800,000 text labels, 48 s for 22 columns x 5 shuffles)
    classes = referee.true_classes(y_dev) if y_dev is not None else None
    n_classes = len(classes) if classes is not None else 0
    try:
        arrays = load_npz(workdir / IMPORTANCE_FILE,
                          referee.returned_limit(MAX_CELLS, n_classes))
        rows, columns = _rows_and_columns(arrays, len(test), features)
        y = test[inputs.target].to_numpy()[rows]
        base = referee.score(inputs.metric, y, _subset(checked, rows))
        sign = 1.0 if get_metric(inputs.metric).greater_is_better else -1.0
        drops: dict[str, list[float]] = {}
        for i, column in enumerate(columns):
            returned = {"pred": arrays["pred"][i]}
            if "proba" in arrays:
                returned |= {"proba": arrays["proba"][i], "classes": arrays["classes"]}
            shuffled = referee.check_predictions(returned, len(rows), inputs.task_type,
                                                 inputs.metric, y_train=classes)
            drops.setdefault(column, []).append(
                sign * (base - referee.score(inputs.metric, y, shuffled)))
        scores = [FeatureImportance(feature=c, importance=round(float(np.mean(d)), 6))
                  for c, d in drops.items()]
    except FileNotFoundError:
        return [], "not computed: the refit job wrote no importance.npz"
    except (referee.ContractViolation, ValueError, OSError, KeyError, IndexError) as exc:
        log.info("importance.unusable", error=str(exc)[:200])
        why = f"{exc}; the job: {stopped}" if stopped else str(exc)
        return [], f"not computed: importance.npz is unusable ({why[:240]})"
    scores.sort(key=lambda s: -s.importance)
    capped = f" (the first {len(drops)} of {len(features)}" + \
        (f"; stopped early, {stopped})" if stopped else ")") \
        if len(drops) < len(features) else ""
    times = len(columns) // len(drops)
    return scores, (f"{len(drops)} features{capped}, each shuffled {times} time(s) on "
                    f"{len(rows)} test rows (seed {inputs.seed}); importance = the mean "
                    f"{inputs.metric} drop, positive = the feature helps")


def _rows_and_columns(arrays: dict, n_test: int, features: list[str]) -> tuple[np.ndarray, list]:
    """The sampled rows and shuffled columns, checked against the test part they claim."""
    rows = np.asarray(arrays["rows"])
    columns = [str(c) for c in np.asarray(arrays["columns"]).tolist()]
    if rows.dtype.kind not in "iu" or rows.ndim != 1 or len(rows) == 0 or \
            len(np.unique(rows)) != len(rows) or rows.min() < 0 or rows.max() >= n_test:
        raise referee.ContractViolation("importance.npz rows are not distinct test rows")
    if not columns:
        raise referee.ContractViolation("no column was shuffled")
    if len(set(columns)) > MAX_COLUMNS or not set(columns) <= set(features) or \
            len(columns) * len(rows) > MAX_CELLS:
        raise referee.ContractViolation("importance.npz columns are not test features")
    if np.asarray(arrays["pred"]).shape[:2] != (len(columns), len(rows)):
        raise referee.ContractViolation("importance.npz pred is not columns x rows")
    return rows, columns


def _subset(checked: dict, rows: np.ndarray) -> dict:
    """The unshuffled test predictions of the sampled rows."""
    out = {"pred": checked["pred"][rows]}
    if "proba" in checked:
        out |= {"proba": checked["proba"][rows], "classes": checked["classes"]}
    return out
