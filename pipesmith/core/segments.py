"""Per-segment errors on the test part, computed by the referee outside the sandbox.

From the refit's checked test predictions and the test labels only the referee holds: for
each input column, the rows are cut into segments (each category of a categorical column,
the quartiles of a numeric or date column; a column with few distinct values is treated as
categories) and each segment gets its row count, its error (the share of wrong labels for
classification, the mean absolute error for regression: defined on any non-empty segment)
and the run's metric where the segment allows it (ROC AUC needs both classes). The worst
segments are those of at least MIN_ROWS rows whose error is above the whole test part's,
largest first: where the model makes its mistakes (on a seeded sample of MAX_ROWS test rows
when the test part is larger). A classification also gets one segment
per true class (its error is 1 - the class's recall). Clustering has no labels: skipped.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import structlog

from pipesmith.agents.schemas import RunInputs, SegmentError
from pipesmith.core import referee

log = structlog.get_logger(__name__)

MAX_COLUMNS = 30  # the first input columns, in table order
MAX_CATEGORIES = 20  # the most frequent categories of a column; the rest are left out
ID_SHARE = 0.5  # a text column with more distinct values than this share of rows is an ID
QUARTILES = 4
MIN_ROWS = 20  # a worst segment has at least this many rows (fewer is mostly noise)
WORST = 5
MISSING = "(missing)"
# A seeded sample of the test part beyond this many rows: the metric per segment goes
# through scikit-learn's input checks, 25 s for 89 segments of 200,000 rows; a segment's
# error on 20,000 rows is within about a percentage point
MAX_ROWS = 20_000


def segment_errors(test: pd.DataFrame, inputs: RunInputs, checked: dict
                   ) -> tuple[list[SegmentError], str]:
    """Every segment of every (capped) input column, in column order, and a note."""
    if inputs.task_type == "clustering":
        return [], "skipped: clustering has no labels to count errors against"
    n_test = len(test)
    if len(test) > MAX_ROWS:
        rows = np.sort(np.random.default_rng(inputs.seed).choice(len(test), MAX_ROWS,
                                                                  replace=False))
        test = test.iloc[rows]
        checked = {k: (v[rows] if k in ("pred", "proba") else v) for k, v in checked.items()}
    y = test[inputs.target].to_numpy()
    wrong = _row_errors(y, checked["pred"], inputs.task_type)
    columns = [c for c in test.columns if c != inputs.target][:MAX_COLUMNS]
    out: list[SegmentError] = []
    skipped: list[str] = []
    for column in columns:
        groups = cut(test[column])
        if groups is None:
            skipped.append(column)
            continue
        labels, kind = groups
        for segment in _segments_in_order(labels, kind):
            mask = (labels == segment).to_numpy()
            out.append(SegmentError(
                column=str(column), segment=segment, kind=kind, rows=int(mask.sum()),
                error=round(float(wrong[mask].mean()), 6),
                score=_metric(inputs.metric, y[mask], checked, mask)))
    classes = _per_class(y, wrong, inputs, checked) if inputs.task_type == "classification" \
        else []
    out += classes
    measure = "share of wrong labels" if inputs.task_type == "classification" else \
        "mean absolute error"
    left = f"; not segmented (ID-like or unsupported): {', '.join(map(str, skipped))}" \
        if skipped else ""
    per_class = f"; and per true class ({len(classes)}: error = 1 - recall)" if classes else ""
    sampled = " (a seeded sample)" if len(test) < n_test else ""
    return out, (f"{len(columns) - len(skipped)} columns{per_class} on {len(test)} test "
                 f"rows{sampled}; "
                 "error = "
                 f"{measure} (overall {float(wrong.mean()):.4f}); worst segments have at least "
                 f"{MIN_ROWS} rows{left}")


def _per_class(y: np.ndarray, wrong: np.ndarray, inputs: RunInputs, checked: dict
               ) -> list[SegmentError]:
    """One segment per true class of the test part (kind "class", column: the target): the
    share of its rows predicted wrong, which is 1 - the class's recall."""
    out = []
    for value in referee.true_classes(y):
        mask = y == value
        out.append(SegmentError(
            column=str(inputs.target), segment=str(value), kind="class", rows=int(mask.sum()),
            error=round(float(wrong[mask].mean()), 6),
            score=_metric(inputs.metric, y[mask], checked, mask)))
    return out


def overall_error(segments: list[SegmentError]) -> float | None:
    """The whole test part's error, from the column whose segments cover the most rows
    (every row, unless each column left rare categories out)."""
    by_column: dict[str, list[SegmentError]] = {}
    for s in segments:
        by_column.setdefault(s.column, []).append(s)
    if not by_column:
        return None
    group = max(by_column.values(), key=lambda g: sum(s.rows for s in g))
    rows = sum(s.rows for s in group)
    return sum(s.error * s.rows for s in group) / rows if rows else None


def worst_segments(segments: list[SegmentError], min_rows: int = MIN_ROWS,
                   n: int = WORST) -> list[SegmentError]:
    """Segments of at least `min_rows` rows with more error than the whole test part,
    worst first (larger segments first among equals)."""
    overall = overall_error(segments)
    if overall is None:
        return []
    worse = [s for s in segments if s.rows >= min_rows and s.error > overall + 1e-12]
    return sorted(worse, key=lambda s: (-s.error, -s.rows))[:n]


def cut(values: pd.Series) -> tuple[pd.Series, str] | None:
    """Each row's segment label and the kind of cut; None for a column not segmented."""
    distinct = values.nunique(dropna=True)
    if distinct == 0:
        return None
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    dated = pd.api.types.is_datetime64_any_dtype(values)
    if (numeric or dated) and distinct > QUARTILES:
        bins = pd.qcut(values, QUARTILES, duplicates="drop")
        names = {i: f"({_edge(i.left)}, {_edge(i.right)}]" for i in bins.cat.categories}
        labels = bins.astype(object).map(names).where(bins.notna(), MISSING)
        return labels.astype(object), "quartile"
    if not (numeric or dated) and distinct > max(QUARTILES, ID_SHARE * len(values)):
        return None  # an ID or free text: one row per segment says nothing
    labels = values.astype(object).where(values.notna(), MISSING).astype(str)
    return labels, "category"


def _edge(value) -> str:
    """A quartile's edge as people read it: 4 significant digits, or the day."""
    if isinstance(value, pd.Timestamp):
        return str(value.date())
    return f"{float(value):.4g}"


def _segments_in_order(labels: pd.Series, kind: str) -> list[str]:
    """Quartiles in value order; categories most frequent first, at most MAX_CATEGORIES."""
    counts = labels.value_counts()
    if kind == "quartile":
        return sorted(counts.index, key=_interval_start)
    return list(counts.index[:MAX_CATEGORIES])


def _interval_start(label: str) -> tuple[int, float | str]:
    if label == MISSING:
        return (1, 0.0)
    start = label[1:].split(",")[0].strip()
    try:
        return (0, float(start))
    except ValueError:
        return (0, start)  # dates sort as their ISO text


def _row_errors(y: np.ndarray, pred: np.ndarray, task_type: str) -> np.ndarray:
    if task_type == "classification":
        return (np.asarray(pred).astype(str) != np.asarray(y).astype(str)).astype(float)
    return np.abs(np.asarray(pred, dtype=float) - np.asarray(y, dtype=float))


def _metric(metric: str, y: np.ndarray, checked: dict, mask: np.ndarray) -> float | None:
    subset = {"pred": checked["pred"][mask]}
    if "proba" in checked:
        subset |= {"proba": checked["proba"][mask], "classes": checked["classes"]}
    try:
        with warnings.catch_warnings():  # ROC AUC on one class warns and gives nan
            warnings.simplefilter("ignore")
            value = referee.score(metric, y, subset)
    except referee.ContractViolation:  # a metric that refuses the segment's rows
        return None
    return round(value, 6) if np.isfinite(value) else None
