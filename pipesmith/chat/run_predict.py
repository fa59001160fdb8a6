"""Apply a finished run's model to a new data file (the chat's "predict on new.csv"), through
pipesmith.core.model_io; the predictions go to NAME.predictions.csv in the run directory."""

from __future__ import annotations

from pathlib import Path

from pipesmith.core.datasets import load_file


def predict_to_csv(run_dir: Path, data: Path) -> tuple[Path, int]:
    """(the predictions file, rows predicted); InputError for unreadable or unfit data."""
    from pipesmith.core.model_io import predict

    predictions = predict(run_dir, load_file(data, None).frame)
    out = run_dir / f"{data.stem}.predictions.csv"
    predictions.to_csv(out, index=False)
    return out, len(predictions)
