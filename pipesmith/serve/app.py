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
from pydantic import BaseModel, ConfigDict

from pipesmith.errors import InputError

log = structlog.get_logger(__name__)


class Rows(BaseModel):
    """The body of POST /predict: one object per row, column name -> value."""

    model_config = ConfigDict(frozen=True)
    rows: list[dict[str, Any]]


@dataclass(frozen=True)
class Predictor:
    """What the server answers with: the feature schema (pipesmith.core.model_io.FeatureSchema),
    rows -> predictions (raising a ValueError, e.g. InputError, for rows the model cannot
    take), and which column a bad frame fails on."""

    name: str
    schema: Any
    predict: Callable[[Any], Any]
    bad_column: Callable[[Any], tuple[str, str] | None]


def _is_bundle(folder: Path) -> bool:
    return (folder / "predict.py").is_file() and (folder / "schema.json").is_file()


def bundle_predictor(folder: Path) -> Predictor:
    """A bundle's own predict.py (imported under a name of its own) and vendored model_io."""
    folder = folder.resolve()
    name = f"pipesmith_bundle_{abs(hash(str(folder)))}"
    spec = importlib.util.spec_from_file_location(name, folder / "predict.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    model = module.load_model(folder)
    schema = module.load_schema(folder / module.SCHEMA_FILE, folder)
    return Predictor(name=folder.name, schema=schema,
                     predict=lambda frame: module.predict_frame(model, frame, schema, folder),
                     bad_column=lambda frame: module.bad_column(schema, frame, folder))


def run_predictor(run_dir: Path) -> Predictor:
    """A run folder's model through pipesmith.core.model_io, as `pipesmith predict` applies it."""
    from pipesmith.core import model_io
    from pipesmith.export import bundle_predict

    model_io.model_path(run_dir)
    model = model_io.load_model(run_dir)
    schema = model_io.read_schema(run_dir)
    return Predictor(name=Path(run_dir).resolve().name, schema=schema,
                     predict=lambda frame: model_io.apply_model(
                         model, schema, model_io.check_frame(schema, frame)[0]),
                     bad_column=lambda frame: bundle_predict.bad_column(schema, frame))


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
    raise InputError(f"{target} is neither a bundle (predict.py, schema.json) "
                     "nor a run folder (report.json)")


def create_app(predictor: Predictor):
    import pandas as pd
    from fastapi import FastAPI, HTTPException

    app = FastAPI(title="pipesmith prediction endpoint", version="1")

    @app.get("/health")
    def health() -> dict:
        return {"status": "ok", "model": predictor.name,
                "task_type": predictor.schema.task_type, "columns": predictor.schema.names}

    @app.post("/predict")
    def predict(body: Rows) -> dict:
        if not body.rows:
            raise HTTPException(422, detail={"column": None, "message": "no rows to predict"})
        frame = pd.DataFrame.from_records(body.rows)
        bad = predictor.bad_column(frame)
        if bad is not None:
            raise HTTPException(422, detail={"column": bad[0], "message": bad[1]})
        try:
            out = predictor.predict(frame)
        except ValueError as exc:  # InputError: rows the model cannot take
            raise HTTPException(422, detail={"column": None, "message": str(exc)}) from None
        return {"predictions": json.loads(out.to_json(orient="records"))}

    return app


def serve_predictions(target: Path, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve target's predictions until interrupted (InputError for a bad target)."""
    import uvicorn

    app = create_app(load_predictor(target))
    log.info("serving", target=str(target), host=host, port=port)
    uvicorn.run(app, host=host, port=port, log_level="warning")
