"""Predict with a pipeline pipesmith exported: python predict.py INPUT OUTPUT

INPUT is CSV or Parquet with the feature columns of feature_schema.json (extra columns are
ignored); OUTPUT is CSV with a `prediction` column and, for classifiers, one `proba_<class>`
column per class. The input's schema is checked first: a missing column, or text where the
model was trained on numbers, stops with one line naming the column and exit code 2.

This file is copied into every bundle as predict.py and needs only the packages in the
bundle's requirements.txt. Inside pipesmith it is `pipesmith.bundle_predict`, which
`pipesmith serve` uses too, so both answer with the same code. It also holds the MLflow
pyfunc model class of the bundle's model/ folder.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TELEMETRY_OFF = {"MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true"}


class SchemaError(ValueError):
    """A row or column the model cannot take; `column` names the one at fault."""

    def __init__(self, column: str, message: str, row: int | None = None) -> None:
        where = "" if row is None else f" (row {row})"
        super().__init__(f"column {column!r}{where}: {message}")
        self.column = column
        self.row = row


def use_vendor(folder: Path) -> None:
    """Put the bundle's vendored modules (the pipeline's own classes) on the import path."""
    vendor = str(folder / "vendor")
    if (folder / "vendor").is_dir() and vendor not in sys.path:
        sys.path.insert(0, vendor)


def load_schema(path: Path) -> dict:
    return json.loads(Path(path).read_text())


def read_table(path: str | Path):
    import pandas as pd

    path = str(path)
    if path.endswith((".parquet", ".pq")):
        return pd.read_parquet(path)
    return pd.read_csv(path)


def check_schema(frame, schema: dict) -> None:
    """Raise SchemaError for the first feature column that is missing or of the wrong kind."""
    import pandas as pd

    for column in schema["columns"]:
        name = column["name"]
        if name not in frame.columns:
            raise SchemaError(name, "missing from the input")
        if column["kind"] != "numeric":
            continue
        values = frame[name]
        if not (pd.api.types.is_numeric_dtype(values) or values.isna().all()):
            numbers = pd.to_numeric(values, errors="coerce")
            bad = values[numbers.isna() & values.notna()]
            if len(bad):
                raise SchemaError(name, f"expected numbers, got {bad.iloc[0]!r}",
                                  row=int(frame.index.get_loc(bad.index[0])))


def features(frame, schema: dict):
    """The feature columns in training order, numbers as numbers."""
    import pandas as pd

    frame = frame[[column["name"] for column in schema["columns"]]].copy()
    for column in schema["columns"]:
        if column["kind"] == "numeric" and not pd.api.types.is_numeric_dtype(frame[column["name"]]):
            frame[column["name"]] = pd.to_numeric(frame[column["name"]])
    return frame


def predict_frame(model, frame, schema: dict):
    """`prediction`, and `proba_<class>` per class for classifiers, one row per input row."""
    import pandas as pd

    check_schema(frame, schema)
    X = features(frame, schema)
    out = pd.DataFrame({"prediction": model.predict(X)})
    if schema["task_type"] == "classification" and hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        for index, label in enumerate(model.classes_):
            out[f"proba_{label}"] = proba[:, index]
    return out


def load_model(folder: Path = HERE):
    """The fitted model of a bundle folder (model/artifacts/model.joblib)."""
    import joblib

    use_vendor(folder)
    return joblib.load(folder / "model" / "artifacts" / "model.joblib")


def write_csv(frame, path: str | Path) -> None:
    frame.to_csv(path, index=False)


class BundleModel:
    """The MLflow pyfunc model: the same predict_frame on the same fitted model."""

    def load_context(self, context) -> None:
        import joblib

        os.environ.update(TELEMETRY_OFF)
        use_vendor(Path(__file__).resolve().parent)
        self.model = joblib.load(context.artifacts["model"])
        self.schema = load_schema(context.artifacts["schema"])

    def predict(self, context, model_input, params=None):
        return predict_frame(self.model, model_input, self.schema)


def main(argv: list[str]) -> int:
    os.environ.update(TELEMETRY_OFF)
    if len(argv) != 2 or argv[0] in ("-h", "--help"):
        sys.stderr.write("usage: python predict.py INPUT OUTPUT\n")
        return 2
    source, target = argv
    if not Path(source).is_file():
        sys.stderr.write(f"error: no input file {source}\n")
        return 2
    schema = load_schema(HERE / "feature_schema.json")
    try:
        frame = read_table(source)
        check_schema(frame, schema)
    except SchemaError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except Exception as exc:  # an unreadable table is the user's input, not a crash
        sys.stderr.write(f"error: cannot read {source}: {exc}\n")
        return 2
    write_csv(predict_frame(load_model(HERE), frame, schema), target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
