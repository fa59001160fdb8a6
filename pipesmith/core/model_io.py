"""A run's fitted model and feature schema: save, load, and apply to new rows.

save_model() pickles a fitted estimator so that `joblib.load` reads it back in any process
with pipesmith (and the model's libraries) installed, from any directory: classes of
installed packages (scikit-learn, pipesmith.estimators, torch, ...) are pickled by
reference, classes defined in a generated candidate module or a script (not installed
anywhere) by value, with cloudpickle. "Installed" is read from where a module's file lies
(under the interpreter's prefix or site-packages), not from package metadata, which costs
0.2-1 s to read. The feature schema (schema.json, written when the
data is prepared) says which columns the model takes and of what type, so predict() can
check new rows before the model sees them. Loading a model runs pickle, which can run the
code that made it: pipesmith never loads one itself; pipesmith/core/model_host.py applies
it in the sandbox. `apply_model` is what a bundle's predict.py runs in its container.
"""

from __future__ import annotations

import functools
import json
import os
import pickle
import sys
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
import structlog
from pydantic import BaseModel, ConfigDict

from pipesmith.errors import InputError

log = structlog.get_logger(__name__)
MODEL_FILE = "model.joblib"
SCHEMA_FILE = "schema.json"
SCHEMA_VERSION = 1
MAX_CATEGORIES = 200  # more distinct values than this: no list of them in schema.json


class FeatureColumn(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    dtype: str  # the pandas dtype the model was trained on
    kind: str  # numeric, categorical, datetime, id, constant or text (agents/planner/profiler.py)
    # categorical columns: the values seen in training (None above MAX_CATEGORIES, and in
    # schemas written before this field), so a server can name an unseen one
    categories: list[bool | int | float | str] | None = None


class FeatureSchema(BaseModel):
    """What a run's model takes (docs/report-schema.md, schema.json)."""

    model_config = ConfigDict(frozen=True)

    schema_version: int = SCHEMA_VERSION
    task_type: Literal["classification", "regression", "clustering"]
    target: str | None
    target_dtype: str | None
    classes: list[int | float | str] | None  # classifiers: the target's classes, sorted
    features: list[FeatureColumn]

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.features]


# --- saving and loading ------------------------------------------------------------------


@functools.cache
def _install_roots() -> tuple[str, ...]:
    import site

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages(),
             site.getusersitepackages()}
    roots |= {os.path.realpath(root) for root in roots}
    return tuple(os.path.join(root, "") for root in roots)


def _installed(file: str, roots: tuple[str, ...]) -> bool:
    return file.startswith(roots) or os.path.realpath(file).startswith(roots)


def _uninstalled_modules() -> list:
    """Loaded modules a fresh process might not import by name: not the standard library,
    not pipesmith, and with a file outside the interpreter's installation (site-packages)
    -- a generated candidate module, a script, a source checkout on the path. Pickling
    their objects by value costs nothing where they would have loaded by reference."""
    roots = _install_roots()
    found = []
    for name, module in list(sys.modules.items()):
        top = name.partition(".")[0]
        if module is None or top.startswith("_") or top == "pipesmith" \
                or top in sys.stdlib_module_names or top in sys.builtin_module_names \
                or sys.modules.get(getattr(module, "__name__", None)) is not module:
            continue
        # extension submodules have no file of their own (or a made-up relative one):
        # their package's decides
        file = getattr(module, "__file__", None)
        if not isinstance(file, str) or not os.path.isabs(file):
            file = getattr(sys.modules.get(top), "__file__", None)
        if file and not _installed(file, roots):
            found.append(module)
    return found


def save_model(estimator, path: str | Path) -> Path:
    """Pickle `estimator` to `path` (atomically) so that `joblib.load(path)` works in any
    process with pipesmith installed; returns the path."""
    import cloudpickle

    path = Path(path)
    by_value = _uninstalled_modules()
    for module in by_value:
        cloudpickle.register_pickle_by_value(module)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as handle:
            cloudpickle.dump(estimator, handle, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(path)
    finally:
        for module in by_value:
            cloudpickle.unregister_pickle_by_value(module)
        tmp.unlink(missing_ok=True)
    return path


def model_path(run_dir: str | Path) -> Path:
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise InputError(f"run folder not found: {run_dir}")
    path = run_dir / MODEL_FILE
    if not path.is_file():
        raise InputError(f"{run_dir} has no {MODEL_FILE}: not a pipesmith run folder, or a run "
                         "that found no working pipeline")
    return path


# --- the feature schema ------------------------------------------------------------------


def _categories(series: pd.Series) -> list | None:
    values = series.dropna().unique()
    if len(values) > MAX_CATEGORIES:
        return None
    return sorted((v.item() if hasattr(v, "item") else v for v in values), key=str)


def feature_schema(frame: pd.DataFrame, target: str | None, task_type: str) -> FeatureSchema:
    """The schema of a prepared table (the one the model is trained on)."""
    from pipesmith.agents.planner.profiler import column_kind
    from pipesmith.core.referee import true_classes

    features = []
    for name in frame.columns:
        if name != target:
            kind = column_kind(frame[name])
            features.append(FeatureColumn(
                name=name, dtype=str(frame[name].dtype), kind=kind,
                categories=_categories(frame[name]) if kind == "categorical" else None))
    classes = None
    if task_type == "classification" and target is not None:
        classes = [value.item() if hasattr(value, "item") else value
                   for value in true_classes(frame[target].dropna().to_numpy())]
    return FeatureSchema(task_type=task_type, target=target,
                         target_dtype=str(frame[target].dtype) if target else None,
                         classes=classes, features=features)


def write_schema(run_dir: str | Path, frame: pd.DataFrame, target: str | None,
                 task_type: str) -> Path:
    path = Path(run_dir) / SCHEMA_FILE
    path.write_text(feature_schema(frame, target, task_type).model_dump_json(indent=2))
    return path


def read_schema(run_dir: str | Path) -> FeatureSchema:
    """The run's schema.json; for a run made before schema.json existed, derived from its
    report.json and data.parquet."""
    run_dir = Path(run_dir)
    path = run_dir / SCHEMA_FILE
    if path.is_file():
        return FeatureSchema.model_validate_json(path.read_text())
    report, data = run_dir / "report.json", run_dir / "data.parquet"
    if not (report.is_file() and data.is_file()):
        raise InputError(f"{run_dir} has no {SCHEMA_FILE}: not a pipesmith run folder")
    facts = json.loads(report.read_text())
    return feature_schema(pd.read_parquet(data), facts.get("target"), facts["task_type"])


# --- checking and predicting ---------------------------------------------------------------


def _first_bad(series: pd.Series, converted: pd.Series) -> str | None:
    bad = series.notna() & converted.isna()
    if not bad.any():
        return None
    position = int(np.flatnonzero(bad.to_numpy())[0])
    return f"{series.iloc[position]!r} (row {position + 1})"


def _coerce(column: FeatureColumn, series: pd.Series) -> pd.Series:
    """The column as the model saw it in training; InputError when a value cannot be."""
    dtype = np.dtype(column.dtype) if column.dtype not in ("category", "string") else None
    if dtype is not None and dtype.kind in "iufb":
        converted = pd.to_numeric(series, errors="coerce")
        bad = _first_bad(series, converted)
        if bad:
            raise InputError(f"column {column.name!r} must be numeric ({column.dtype}), "
                             f"not {bad}")
        whole = converted.notna().all() and (converted == converted.round()).all()
        return converted.astype(column.dtype) if dtype.kind != "f" and whole \
            else converted.astype("float64")
    if dtype is not None and dtype.kind == "M":
        converted = pd.to_datetime(series, errors="coerce")
        bad = _first_bad(series, converted)
        if bad:
            raise InputError(f"column {column.name!r} must be a date/time, not {bad}")
        return converted
    # strings and categories: compare as text, keeping missing values missing
    return series.astype(object).where(series.isna(), series.astype(str))


def check_frame(schema: FeatureSchema, frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The model's input built from `frame`, and the columns it ignored (target excepted).

    InputError (one line) for an empty table, a missing feature column, or a value that
    cannot be coerced to the column's training type."""
    if len(frame) == 0 or frame.shape[1] == 0:
        raise InputError("the data has no rows")
    frame = frame.copy()
    frame.columns = [str(c) for c in frame.columns]
    missing = [name for name in schema.names if name not in frame.columns]
    if missing:
        shown = ", ".join(repr(m) for m in missing[:10])
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        raise InputError(f"missing feature column{'s' if len(missing) > 1 else ''} the model "
                         f"needs: {shown}{more}")
    ignored = [c for c in frame.columns if c not in schema.names and c != schema.target]
    X = pd.DataFrame({c.name: _coerce(c, frame[c.name]) for c in schema.features},
                     index=frame.index)
    return X, ignored


def apply_model(model, schema: FeatureSchema, X: pd.DataFrame) -> pd.DataFrame:
    """Predictions for checked rows: `prediction`, and `proba_<class>` for classifiers."""
    if not callable(getattr(model, "predict", None)):
        raise InputError(f"this run's model ({type(model).__name__}) cannot label new rows: "
                         "it only clusters the rows it was fitted on")
    try:
        columns = {"prediction": np.asarray(model.predict(X))}
        if schema.task_type == "classification" and hasattr(model, "predict_proba"):
            proba = np.asarray(model.predict_proba(X), dtype=float)
            columns |= {f"proba_{label}": proba[:, i]
                        for i, label in enumerate(np.asarray(model.classes_).tolist())}
    except Exception as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise InputError(f"the model could not predict these rows: {type(exc).__name__}: "
                         f"{message}") from None
    return pd.DataFrame(columns, index=X.index)


def predict(run_dir: str | Path, frame: pd.DataFrame) -> pd.DataFrame:
    """Apply a run's model to new rows: a frame in `frame`'s row order (and index) with a
    `prediction` column and, for classifiers, one `proba_<class>` column per class. The
    target column may be present; it is ignored. Raises InputError for rows that do not
    fit the run's schema or a folder without a model."""
    from pipesmith.core.model_host import predict_run

    model_path(run_dir)
    schema = read_schema(run_dir)
    X, ignored = check_frame(schema, frame)
    if ignored:
        log.info("predict.ignored_columns", columns=ignored)
    return predict_run(run_dir, X, schema)  # in the sandbox: the model is generated code
