"""`pipesmith serve BUNDLE_OR_RUN`: an HTTP prediction endpoint (FastAPI + uvicorn).

POST /predict with {"rows": [{column: value, ...}, ...]} answers
{"predictions": [{"prediction": ..., "proba_<class>": ...}, ...]} computed by the same
predict_frame as the bundle's predict.py; a row the model cannot take gets 422 with the
column at fault. GET /health says the server is up and which model it serves.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from pipesmith.errors import InputError

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class Predictor:
    """What the server answers with: the feature schema, and rows -> predictions (raising
    `schema_error` for a row the model cannot take)."""

    name: str
    schema: dict
    predict: Callable[[Any], Any]
    schema_error: type[Exception]


def _is_bundle(folder: Path) -> bool:
    return (folder / "predict.py").is_file() and (folder / "feature_schema.json").is_file()


def bundle_predictor(folder: Path) -> Predictor:
    """A bundle's own predict.py, imported under a name of its own."""
    name = f"pipesmith_bundle_{abs(hash(str(folder.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, folder / "predict.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    model = module.load_model(folder)
    schema = module.load_schema(folder / "feature_schema.json")
    return Predictor(name=schema.get("run_id", folder.name), schema=schema,
                     predict=lambda frame: module.predict_frame(model, frame, schema),
                     schema_error=module.SchemaError)


def run_predictor(run_dir: Path) -> Predictor:
    """A run folder's saved model, through pipesmith's own copy of the bundle code."""
    import joblib

    from pipesmith import bundle_predict
    from pipesmith.run_source import feature_schema, load_run

    source = load_run(run_dir)
    workdir = str(source.candidate_path.parent)  # the model may name the run's `candidate`
    if workdir not in sys.path:
        sys.path.append(workdir)
    model = joblib.load(source.model_path)
    schema = feature_schema(source, [c.item() if hasattr(c, "item") else c
                                     for c in getattr(model, "classes_", [])])
    return Predictor(name=source.report.run_id, schema=schema,
                     predict=lambda frame: bundle_predict.predict_frame(model, frame, schema),
                     schema_error=bundle_predict.SchemaError)


def load_predictor(target: Path) -> Predictor:
    if importlib.util.find_spec("fastapi") is None or importlib.util.find_spec("uvicorn") is None:
        raise InputError('pipesmith serve needs FastAPI and uvicorn: '
                         'pip install "pipesmith[serve]"')
    target = Path(target)
    if not target.is_dir():
        raise InputError(f"no bundle or run folder {target}")
    if _is_bundle(target):
        return bundle_predictor(target)
    if (target / "report.json").is_file():
        return run_predictor(target)
    raise InputError(f"{target} is neither a bundle (predict.py, feature_schema.json) "
                     "nor a run folder (report.json)")


def create_app(predictor: Predictor):
    import pandas as pd
    from fastapi import FastAPI, HTTPException
    from pydantic import BaseModel, ConfigDict

    class Rows(BaseModel):
        model_config = ConfigDict(frozen=True)
        rows: list[dict[str, Any]]

    app = FastAPI(title="pipesmith prediction endpoint", version="1")

    @app.get("/health")
    def health() -> dict:
        return {"status": "ok", "model": predictor.name,
                "task_type": predictor.schema["task_type"],
                "columns": [c["name"] for c in predictor.schema["columns"]]}

    @app.post("/predict")
    def predict(body: Rows) -> dict:
        if not body.rows:
            raise HTTPException(422, detail={"column": None, "row": None,
                                              "message": "no rows to predict"})
        frame = pd.DataFrame.from_records(body.rows)
        try:
            out = predictor.predict(frame)
        except predictor.schema_error as exc:
            raise HTTPException(422, detail={"column": exc.column, "row": exc.row,
                                              "message": str(exc)}) from None
        return {"predictions": json.loads(out.to_json(orient="records"))}

    return app


def serve_predictions(target: Path, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve target's predictions until interrupted (InputError for a bad target)."""
    import uvicorn

    app = create_app(load_predictor(target))
    log.info("serving", target=str(target), host=host, port=port)
    uvicorn.run(app, host=host, port=port, log_level="warning")
