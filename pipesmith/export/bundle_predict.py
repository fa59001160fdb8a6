"""Predict with a pipeline pipesmith exported: python predict.py INPUT OUTPUT

INPUT is CSV or Parquet with the feature columns of schema.json (extra columns, and the
target, are ignored); OUTPUT is CSV with a `prediction` column and, for classifiers, one
`proba_<class>` column per class: the same bytes `pipesmith predict RUN --data INPUT --out
OUTPUT` writes. The rows are checked against the schema first: a missing column, or a value
that cannot be converted to its column's training type, stops with one line naming the
column and exit code 2, and nothing is written.

It loads model/artifacts/model.joblib, a pickle of code pipesmith generated: loading it runs
that code with this process's rights. Run it in the bundle's container (Dockerfile), not on a
machine with secrets; `pipesmith predict` and `pipesmith serve` apply the model in their
sandbox instead.

This file is copied into every bundle as predict.py; inside pipesmith it is
`pipesmith.export.bundle_predict`. The checking and predicting is pipesmith's own
`pipesmith.core.model_io` (check_frame, apply_model), which the bundle carries in vendor/, so
the bundle and `pipesmith predict` cannot drift apart. It also holds the class behind the
bundle's MLflow pyfunc model (model/).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TELEMETRY_OFF = {"MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true"}
SCHEMA_FILE = "schema.json"
MODEL_FILE = Path("model") / "artifacts" / "model.joblib"


def use_vendor(folder: Path) -> None:
    """Put the bundle's vendored modules (pipesmith.core.model_io and the classes the model
    names) on the import path."""
    vendor = folder / "vendor"
    if vendor.is_dir() and str(vendor) not in sys.path:
        sys.path.insert(0, str(vendor))


def model_io(folder: Path = HERE):
    use_vendor(folder)
    from pipesmith.core import model_io as module

    return module


def read_table(path: str | Path):
    """A CSV or Parquet table, read exactly as `pipesmith predict` reads it
    (pipesmith.core.datasets.load_file)."""
    import pandas as pd

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        frame = pd.read_parquet(path)
    elif suffix in (".csv", ".txt", ".tsv"):
        frame = pd.read_csv(path, sep=None if suffix != ".csv" else ",", engine="python")
    else:
        raise ValueError(f"unsupported data format {suffix!r}: use .csv or .parquet")
    frame.columns = [str(c) for c in frame.columns]
    return frame


def load_schema(path: Path, folder: Path = HERE):
    return model_io(folder).FeatureSchema.model_validate_json(Path(path).read_text())


def load_model(folder: Path = HERE):
    import joblib

    use_vendor(folder)
    return joblib.load(folder / MODEL_FILE)


def predict_frame(model, frame, schema, folder: Path = HERE):
    """Check the rows, then `prediction` (and `proba_<class>`) for each; raises
    pipesmith.errors.InputError for rows the model cannot take."""
    io = model_io(folder)
    X, _ignored = io.check_frame(schema, frame)
    return io.apply_model(model, schema, X)


def write_csv(frame, path: str | Path) -> None:
    frame.to_csv(path, index=False)


class BundleModel:
    """The MLflow pyfunc model: the same checks and predictions on the same fitted model."""

    def load_context(self, context) -> None:
        import joblib

        os.environ.update(TELEMETRY_OFF)
        self.folder = Path(__file__).resolve().parent
        use_vendor(self.folder)
        self.model = joblib.load(context.artifacts["model"])
        self.schema = load_schema(Path(context.artifacts["schema"]), self.folder)

    def predict(self, context, model_input, params=None):
        return predict_frame(self.model, model_input, self.schema, self.folder)


def main(argv: list[str]) -> int:
    os.environ.update(TELEMETRY_OFF)
    if len(argv) != 2 or argv[0] in ("-h", "--help"):
        sys.stderr.write("usage: python predict.py INPUT OUTPUT\n")
        return 2
    source, target = Path(argv[0]), Path(argv[1])
    if not source.is_file():
        sys.stderr.write(f"error: data file not found: {source}\n")
        return 2
    try:
        frame = read_table(source)
        schema = load_schema(HERE / SCHEMA_FILE)
        predictions = predict_frame(load_model(HERE), frame, schema)
    except ValueError as exc:  # InputError is a ValueError: the input's fault, one line
        sys.stderr.write(f"error: {str(exc).strip().splitlines()[0]}\n")
        return 2
    write_csv(predictions, target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
