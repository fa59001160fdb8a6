"""Apply a finished run's model to new rows (the chat's "predict on new.csv").

Uses pipesmith.model_io (issue #13's loader) when it is installed, else the run's
model.joblib directly. Writes predictions next to the input: NAME.predictions.csv in the
run directory."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from pipesmith.datasets import load_file
from pipesmith.errors import InputError


def predict_frame(run_dir: Path, frame: pd.DataFrame) -> pd.DataFrame:
    try:
        from pipesmith.model_io import predict  # type: ignore[import-not-found]
    except ImportError:
        predict = None
    if predict is not None:
        return predict(run_dir, frame)
    import joblib

    model_path = run_dir / "model.joblib"
    if not model_path.exists():
        raise InputError(f"the run in {run_dir} has no fitted model")
    inputs = json.loads((run_dir / "run.json").read_text())["inputs"]
    features = [c for c in pd.read_parquet(run_dir / "data.parquet").columns
                if c != inputs.get("target")]
    missing = [c for c in features if c not in frame.columns]
    if missing:
        raise InputError("the new data lacks the column(s) " + ", ".join(missing[:10]))
    model = joblib.load(model_path)
    rows = frame[features]
    out = pd.DataFrame({"prediction": model.predict(rows)})
    if hasattr(model, "predict_proba") and inputs.get("task_type") == "classification":
        proba = model.predict_proba(rows)
        for i, label in enumerate(getattr(model, "classes_", range(proba.shape[1]))):
            out[f"proba_{label}"] = proba[:, i]
    return out


def predict_to_csv(run_dir: Path, data: Path) -> tuple[Path, int]:
    """(the predictions file, rows predicted); InputError for unreadable or unfit data."""
    table = load_file(data, None)
    predictions = predict_frame(run_dir, table.frame)
    out = run_dir / f"{data.stem}.predictions.csv"
    predictions.to_csv(out, index=False)
    return out, len(predictions)
