"""The bundle's model/ folder: an MLflow pyfunc model (defined from code, with a signature
and an input example) around the run's fitted model and the bundle's predict_frame.

`python -m pipesmith.export.mlflow_model BUNDLE MODEL_JOBLIB SAMPLE PINS_JSON` writes
BUNDLE/model; `pipesmith export` runs it as a subprocess so that the bundle's predict.py and
vendored modules are imported there, never in pipesmith's own process. MLflow's telemetry is
switched off before mlflow is imported, here and in the model's own code.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

TELEMETRY_OFF = {"MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true"}


def import_mlflow():
    """mlflow, imported only after its telemetry is switched off."""
    os.environ.update(TELEMETRY_OFF)
    import mlflow

    return mlflow


def skip_requirement_check() -> None:
    """MLflow checks pip_requirements against the installed distributions only to warn, and
    reading every distribution's file list took a third of this job; the pins are the
    installed versions already (bundle.check_versions). Left as it is if MLflow renames it."""
    from mlflow.utils import environment

    if hasattr(environment, "warn_dependency_requirement_mismatches"):
        environment.warn_dependency_requirement_mismatches = lambda requirements: None


def save(bundle: Path, model_joblib: Path, sample: Path, pins: dict[str, str]) -> Path:
    mlflow = import_mlflow()
    skip_requirement_check()
    import joblib
    import pandas as pd
    from mlflow.models import infer_signature

    sys.path.insert(0, str(bundle))
    spec = importlib.util.spec_from_file_location("predict", bundle / "predict.py")
    predict = importlib.util.module_from_spec(spec)
    sys.modules["predict"] = predict
    spec.loader.exec_module(predict)
    predict.use_vendor(bundle)

    schema = predict.load_schema(bundle / predict.SCHEMA_FILE, bundle)
    example = pd.read_parquet(sample)
    output = predict.predict_frame(joblib.load(model_joblib), example, schema, bundle)
    code_paths = [str(bundle / "predict.py"), str(bundle / "vendor")]
    requirements = [f"{name}=={version}" for name, version in sorted(pins.items())]
    requirements.append(f"mlflow=={mlflow.__version__}")
    target = bundle / "model"
    mlflow.pyfunc.save_model(
        path=str(target),
        python_model=str(bundle / "mlflow_model.py"),
        artifacts={"model": str(model_joblib), "schema": str(bundle / predict.SCHEMA_FILE)},
        code_paths=code_paths,
        signature=infer_signature(example, output),
        input_example=example.head(5),
        pip_requirements=requirements,
    )
    return target


if __name__ == "__main__":
    bundle, model_joblib, sample, pins = sys.argv[1:5]
    save(Path(bundle), Path(model_joblib), Path(sample), json.loads(Path(pins).read_text()))
