"""Loading and checking the user's table: bundled datasets, CSV and Parquet.

Everything here runs before a run directory exists, so bad input never leaves
a half-written report behind.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pipesmith.core.metrics import METRICS
from pipesmith.errors import InputError

BUNDLED = {
    "iris": "load_iris",
    "wine": "load_wine",
    "breast_cancer": "load_breast_cancer",
    "digits": "load_digits",
    "diabetes": "load_diabetes",
}
TASK_TYPES = ("classification", "regression", "clustering")
DEFAULT_METRIC = {"regression": "r2", "clustering": "silhouette"}


@dataclass(frozen=True)
class Table:
    frame: pd.DataFrame
    target: str | None
    source: str  # dataset name or file path


def load_bundled(name: str) -> Table:
    if name not in BUNDLED:
        raise InputError(f"unknown dataset {name!r}; known: {', '.join(sorted(BUNDLED))}")
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, BUNDLED[name])(as_frame=True)
    frame = bunch.frame.copy()
    frame.columns = [str(c) for c in frame.columns]
    return Table(frame=frame, target="target", source=name)


def load_file(path: str | Path, target: str | None) -> Table:
    path = Path(path)
    if not path.exists():
        raise InputError(f"data file not found: {path}")
    if not path.is_file():
        raise InputError(f"data path is not a file: {path}")
    suffix = path.suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            frame = pd.read_parquet(path)
        elif suffix in (".csv", ".txt", ".tsv"):
            frame = pd.read_csv(path, sep=None if suffix != ".csv" else ",", engine="python")
        else:
            raise InputError(f"unsupported data format {suffix!r}: use .csv or .parquet")
    except InputError:
        raise
    except pd.errors.EmptyDataError:
        raise InputError(f"data file is empty: {path}") from None
    except Exception as exc:  # any parser failure is the file's fault
        raise InputError(f"cannot read {path}: {type(exc).__name__}: {exc}") from None
    frame.columns = [str(c) for c in frame.columns]
    return Table(frame=frame, target=target, source=str(path))


def check_table(table: Table, task_type: str | None) -> None:
    """Raise InputError for a table no pipeline can be trained on."""
    frame = table.frame
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise InputError(f"the table from {table.source} is empty")
    if frame.columns.duplicated().any():
        dupes = sorted(set(frame.columns[frame.columns.duplicated()]))
        raise InputError(f"duplicate column names: {', '.join(dupes)}")
    if task_type is not None and task_type not in TASK_TYPES:
        raise InputError(f"unknown task {task_type!r}; choose one of {', '.join(TASK_TYPES)}")
    if table.target is None:
        if task_type != "clustering":
            raise InputError("no target column given: pass --target COLUMN (or --task clustering)")
        return
    if table.target not in frame.columns:
        raise InputError(
            f"target column {table.target!r} not in the table; columns: "
            + ", ".join(list(frame.columns)[:20])
        )
    y = frame[table.target]
    if y.notna().sum() == 0:
        raise InputError(f"target column {table.target!r} has no values")
    if frame.shape[1] < 2:
        raise InputError("the table has no feature columns besides the target")
    if task_type == "classification" and y.dropna().nunique() < 2:
        raise InputError(f"target column {table.target!r} has a single class; nothing to classify")
    if task_type == "regression" and not pd.api.types.is_numeric_dtype(y):
        raise InputError(f"target column {table.target!r} is not numeric; regression needs numbers")


def infer_task_type(y: pd.Series | None) -> str:
    """Numeric targets with many distinct values are regression; the rest classification."""
    if y is None:
        return "clustering"
    y = y.dropna()
    if not pd.api.types.is_numeric_dtype(y) or pd.api.types.is_bool_dtype(y):
        return "classification"
    n_unique = y.nunique()
    is_integral = bool((y == y.round()).all())
    if is_integral and n_unique <= 20:
        return "classification"
    return "regression"


def infer_metric(task_type: str, y: pd.Series | None) -> str:
    """Accuracy for balanced classes, balanced accuracy when a class is rare."""
    if task_type != "classification":
        return DEFAULT_METRIC[task_type]
    shares = y.dropna().value_counts(normalize=True)
    return "balanced_accuracy" if shares.min() < 0.5 / len(shares) else "accuracy"


def check_metric(task_type: str, metric: str) -> None:
    if metric not in METRICS:
        raise InputError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}")
    if METRICS[metric].task_type != task_type:
        raise InputError(f"metric {metric!r} is for {METRICS[metric].task_type}, not {task_type}")


def prepare(table: Table, task_type: str) -> pd.DataFrame:
    """The table the harness trains on: rows with a missing target dropped, bools as 0/1."""
    frame = table.frame
    if table.target is not None and task_type != "clustering":
        frame = frame[frame[table.target].notna()]
    bools = [c for c in frame.columns if pd.api.types.is_bool_dtype(frame[c])]
    if bools:
        frame = frame.astype({c: "int8" for c in bools})
    return frame.reset_index(drop=True)
