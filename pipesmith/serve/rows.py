"""Per-row checks for POST /predict: which rows the model can take, and for each one it
cannot, the column and the problem, so one bad row does not cost the others their
predictions (docs/export.md, "pipesmith serve")."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from pipesmith.estimators.decision import ClassWeightedClassifier


@dataclass(frozen=True)
class Problem:
    """One entry of a response's `errors`: row (0-based position in `rows`, None for the
    request as a whole), column (None when no one column is at fault) and what is wrong."""

    row: int | None
    column: str | None
    problem: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _value_problem(column: Any, value: Any) -> str | None:
    """Why `value` cannot be a value of `column` (a FeatureColumn), or None."""
    if _missing(value):
        return None  # a missing value is imputed, as in training
    if isinstance(value, dict | list):
        return f"must be one value, not {type(value).__name__} {value!r}"
    dtype = column.dtype
    kind = pd.api.types.pandas_dtype(dtype).kind
    if kind in ("i", "u", "f", "b"):
        if kind == "b" and isinstance(value, bool):
            return None
        if isinstance(value, bool) or pd.isna(pd.to_numeric(pd.Series([value]),
                                                           errors="coerce").iloc[0]):
            return f"must be numeric ({dtype}), not {value!r}"
        return None
    if kind == "M" or column.kind == "datetime":
        try:
            pd.to_datetime(str(value), format="mixed", utc=True)
        except (ValueError, TypeError, OverflowError):
            return f"must be a date/time, not {value!r}"
        return None
    return _unseen(column, str(value))


def _unseen(column: Any, value: Any) -> str | None:
    """Categories are checked only when the schema lists the training ones (runs made
    before schema.json carried them do not)."""
    seen = getattr(column, "categories", None)
    if column.kind != "categorical" or not seen:
        return None
    known = {str(c) for c in seen} | {str(float(c)) for c in seen
                                      if isinstance(c, int | float) and not isinstance(c, bool)}
    if str(value) in known:
        return None
    shown = ", ".join(map(str, seen[:10])) + (" ..." if len(seen) > 10 else "")
    return f"unseen category {value!r}; training saw: {shown}"


def read_by(estimator: Any) -> set[str] | None:
    """The columns a fitted estimator reads, when its structure says so: a ColumnTransformer
    that drops the remainder and names its columns, first in a Pipeline, or in each member
    of a voting or stacking ensemble, or inside the class-weighted decision rule. None when it
    does not say (then every column counts)."""
    if hasattr(estimator, "transformers_"):
        if getattr(estimator, "remainder", None) != "drop":
            return None
        read: set[str] = set()
        for name, transformer, columns in estimator.transformers_:
            if name == "remainder" or transformer == "drop":
                continue
            if isinstance(columns, str):
                columns = [columns]
            if not isinstance(columns, list | tuple) or not all(isinstance(c, str)
                                                                for c in columns):
                return None
            read |= set(columns)
        return read
    if hasattr(estimator, "steps"):
        return read_by(estimator.steps[0][1])
    if isinstance(estimator, ClassWeightedClassifier):  # a decision rule over one model
        return read_by(getattr(estimator, "estimator_", None))
    members = getattr(estimator, "estimators_", None)
    if isinstance(members, list) and members:
        parts = [read_by(member) for member in members]
        return None if any(p is None for p in parts) else set().union(*parts)
    return None


def required_columns(read: set[str] | None, schema: Any) -> list[str]:
    """The schema's feature columns the model reads (`read`, from read_by; None: all of
    them): the ones a request must carry. The others (e.g. an ID column the pipeline
    drops) may be left out."""
    return [name for name in schema.names if read is None or name in read]


def check_rows(schema: Any, rows: list[dict[str, Any]],
               required: list[str]) -> tuple[pd.DataFrame, list[Problem]]:
    """The good rows as a frame of the schema's feature columns (index: their positions in
    `rows`; a column left out that is not `required` is missing), and every problem of the
    others."""
    problems: list[Problem] = []
    good: dict[int, dict[str, Any]] = {}
    for position, row in enumerate(rows):
        found = []
        values = {}
        for column in schema.features:
            if column.name not in row:
                if column.name in required:
                    found.append(Problem(position, column.name, "missing column"))
                values[column.name] = None
                continue
            value = row[column.name]
            problem = _value_problem(column, value)
            if problem:
                found.append(Problem(position, column.name, problem))
            elif pd.api.types.pandas_dtype(column.dtype).kind == "M" and not _missing(value):
                value = pd.Timestamp(value)  # one parse per value: rows may mix formats
            values[column.name] = value
        problems += found
        if not found:
            good[position] = values
    frame = pd.DataFrame.from_dict(good, orient="index", columns=schema.names)
    return frame, problems
