"""Profile a prepared table: column kinds, missing values, target statistics.

Column kinds decide preprocessing: ID-like and constant columns are
dropped by the offline coder; dates become numbers; categoricals are encoded; numerics
imputed.
"""

from __future__ import annotations

import re

import pandas as pd

from pipesmith.agents.schemas import ColumnKind, ColumnProfile, DataProfile

_ID_NAME = re.compile(r"(^|_)(id|uuid|guid|key|index)$", re.IGNORECASE)
_DATE_LIKE = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}([ T]\d{1,2}:\d{2}(:\d{2})?)?$")


def column_kind(series: pd.Series, n_unique: int | None = None) -> ColumnKind:
    """`n_unique`: the series' distinct non-missing values, when the caller has them."""
    values = series.dropna()
    n_unique = values.nunique() if n_unique is None else n_unique
    if n_unique <= 1:
        return "constant"
    if pd.api.types.is_datetime64_any_dtype(series):
        return "datetime"
    unique_share = n_unique / max(len(values), 1)
    if pd.api.types.is_numeric_dtype(series):
        is_integral = pd.api.types.is_integer_dtype(series)
        if is_integral and unique_share == 1.0 and _ID_NAME.search(str(series.name)):
            return "id"
        return "numeric"
    sample = values.astype(str).head(200)
    if len(sample) and sample.str.match(_DATE_LIKE).mean() > 0.9:
        return "datetime"
    if unique_share > 0.9 and len(values) > 50:
        # Nearly every row distinct: an identifier or free text, not a category.
        return "text" if sample.str.contains(" ").mean() > 0.5 else "id"
    return "categorical"


LEAK_CORRELATION = 0.99


def leak_suspects(frame: pd.DataFrame, target: str, task_type: str,
                  n_unique: dict[str, int] | None = None) -> list[str]:
    """Features that (nearly) determine the target on their own: a correlation of 0.99 or
    more with a numeric target, or, for classes, one class per feature value.
    `n_unique`: each column's distinct values, when the caller has counted them."""
    y = frame[target]
    suspects = []
    counts = n_unique or {}
    for name in frame.columns.drop(target):
        x = frame[name]
        distinct = counts[name] if name in counts else x.nunique()
        if distinct < 2:
            continue
        if pd.api.types.is_numeric_dtype(x) and pd.api.types.is_numeric_dtype(y) and \
                abs(x.corr(y)) >= LEAK_CORRELATION:
            suspects.append(name)
        elif task_type == "classification" and distinct <= 0.5 * len(x) and \
                frame.groupby(name, observed=True)[target].nunique().max() == 1:
            suspects.append(name)
    return suspects


def profile_table(frame: pd.DataFrame, target: str | None, task_type: str) -> DataProfile:
    features = [c for c in frame.columns if c != target]
    # counted once per column: hashing 800,000 distinct numbers takes 0.7 s, and the kind,
    # the profile and the leak check each counted them again
    n_unique = {name: int(frame[name].nunique()) for name in features}
    columns = [
        ColumnProfile(
            name=name,
            kind=column_kind(frame[name], n_unique[name]),
            dtype=str(frame[name].dtype),
            missing_share=round(float(frame[name].isna().mean()), 4),
            n_unique=n_unique[name],
        )
        for name in features
    ]
    stats: dict = {}
    if target is not None and task_type == "classification":
        shares = frame[target].value_counts(normalize=True)
        stats = {"n_classes": int(len(shares)), "minority_share": round(float(shares.min()), 4),
                 "leak_suspects": leak_suspects(frame, target, task_type, n_unique)}
    elif target is not None and task_type == "regression":
        y = frame[target]
        stats = {"target_mean": float(y.mean()), "target_std": float(y.std()),
                 "leak_suspects": leak_suspects(frame, target, task_type, n_unique)}
    return DataProfile(
        n_rows=int(frame.shape[0]),
        n_columns=len(features),
        columns=columns,
        target=target,
        **stats,
    )
