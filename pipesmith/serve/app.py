"""`pipesmith serve BUNDLE_OR_RUN`: an HTTP prediction endpoint (FastAPI + uvicorn).

POST /predict with {"rows": [{column: value, ...}, ...]} answers
{"predictions": [...], "errors": [{"row", "column", "problem"}, ...]}: one prediction
({"prediction": ..., "proba_<class>": ...}, checked by the same model_io.check_frame as the
bundle's predict.py, and predicted by a sandboxed model worker: the model is generated code,
never loaded in the server's process) per row, null for a row the model cannot take, whose
problems are in `errors` (pipesmith/serve/rows.py). Every error answer has that shape.
GET /health says the server is up and which model it serves.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog
from pydantic import BaseModel, ConfigDict

from pipesmith.errors import InputError
from pipesmith.serve.rows import Problem, check_rows, required_columns

log = structlog.get_logger(__name__)


class Rows(BaseModel):
    """The body of POST /predict: one object per row, column name -> value."""

    model_config = ConfigDict(frozen=True)
    rows: list[dict[str, Any]]


@dataclass(frozen=True)
class Predictor:
    """What the server answers with: the feature schema (pipesmith.core.model_io.FeatureSchema),
    the columns a row must carry, rows -> predictions (raising a ValueError, e.g.
    InputError, for rows the model cannot take), and what stops it."""

    name: str
    schema: Any
    required: list[str]
    predict: Callable[[Any], Any]
    close: Callable[[], None] = lambda: None


def _is_bundle(folder: Path) -> bool:
    return (folder / "predict.py").is_file() and (folder / "schema.json").is_file()


def sandboxed_predictor(name: str, model: Path, schema) -> Predictor:
    """The model applied by a sandboxed worker that lives as long as the server
    (pipesmith/core/model_host.py): the model is generated code, never loaded here."""
    from pipesmith.agents.search.trial_pool import library_imports
    from pipesmith.core import model_io
    from pipesmith.core.model_host import LIFETIME_S, ModelHost

    host = ModelHost(model, schema, lifetime_s=LIFETIME_S,
                     imports=("joblib", "pandas", *library_imports()))
    try:
        described = host.describe()
    except BaseException:
        host.close()
        raise
    if not described.predicts:
        host.close()
        raise InputError(f"{name}'s model cannot label new rows: it only clusters the rows it "
                         "was fitted on")
    read = set(described.read) if described.read is not None else None
    return Predictor(name=name, schema=schema, required=required_columns(read, schema),
                     predict=lambda frame: host.predict(model_io.check_frame(schema, frame)[0]),
                     close=host.close)


def bundle_predictor(folder: Path) -> Predictor:
    """A bundle's model (model/artifacts/model.joblib) and schema.json, checked and applied
    as the bundle's predict.py does (both use pipesmith.core.model_io)."""
    from pipesmith.core.model_io import FeatureSchema
    from pipesmith.export.bundle_predict import MODEL_FILE

    folder = folder.resolve()
    if not (folder / MODEL_FILE).is_file():
        raise InputError(f"{folder} has no {MODEL_FILE}: not a complete bundle")
    schema = FeatureSchema.model_validate_json((folder / "schema.json").read_text())
    return sandboxed_predictor(folder.name, folder / MODEL_FILE, schema)


def run_predictor(run_dir: Path) -> Predictor:
    """A run folder's model, applied as `pipesmith predict` applies it."""
    from pipesmith.core import model_io

    model = model_io.model_path(run_dir)
    return sandboxed_predictor(Path(run_dir).resolve().name, model,
                               model_io.read_schema(run_dir))


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


def _error_body(problems: list[Problem]) -> dict:
    return {"predictions": [], "errors": [p.as_dict() for p in problems]}


def _validation_problems(exc) -> list[Problem]:
    """FastAPI's body errors in the server's one shape: ("body", "rows", i, ...) is row i."""
    problems = []
    for error in exc.errors():
        loc = [part for part in error.get("loc", ()) if part != "body"]
        row = loc[1] if len(loc) > 1 and loc[0] == "rows" and isinstance(loc[1], int) else None
        where = ".".join(map(str, loc)) or "body"
        problems.append(Problem(row, None, f"{where}: {error.get('msg', 'invalid')}"))
    return problems or [Problem(None, None, "the body must be {\"rows\": [{...}, ...]}")]


def create_app(predictor: Predictor):
    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.exceptions import HTTPException

    app = FastAPI(title="pipesmith prediction endpoint", version="1")

    # Every error the server answers has the /predict shape (docs/export.md).
    @app.exception_handler(RequestValidationError)
    async def invalid_body(request: Request, exc: RequestValidationError):
        return JSONResponse(_error_body(_validation_problems(exc)), status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException):
        return JSONResponse(_error_body([Problem(None, None, str(exc.detail))]),
                            status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def crashed(request: Request, exc: Exception):
        log.exception("serve.error")
        return JSONResponse(_error_body([Problem(None, None, f"server error: "
                                                 f"{type(exc).__name__}")]), status_code=500)

    @app.get("/health")
    def health() -> dict:
        return {"status": "ok", "model": predictor.name,
                "task_type": predictor.schema.task_type, "columns": predictor.schema.names,
                "required": predictor.required}

    @app.post("/predict")
    def predict(body: Rows):
        if not body.rows:
            return JSONResponse(_error_body([Problem(None, None, "no rows to predict")]),
                                status_code=422)
        frame, problems = check_rows(predictor.schema, body.rows, predictor.required)
        predictions: list = [None] * len(body.rows)
        if len(frame):
            try:
                out = predictor.predict(frame)
            except ValueError as exc:  # InputError: the model itself refused the rows
                return JSONResponse(_error_body([Problem(None, None, str(exc))]),
                                    status_code=422)
            records = json.loads(out.to_json(orient="records"))
            for position, record in zip(frame.index, records, strict=True):
                predictions[int(position)] = record
        return {"predictions": predictions, "errors": [p.as_dict() for p in problems]}

    return app


def serve_predictions(predictor: Predictor, sock) -> None:
    """Serve predictor's predictions on a bound, listening socket until interrupted."""
    import uvicorn

    log.info("serving", model=predictor.name, address=str(sock.getsockname()))
    server = uvicorn.Server(uvicorn.Config(create_app(predictor), log_level="warning",
                                           timeout_graceful_shutdown=2))
    try:
        server.run(sockets=[sock])
    finally:
        predictor.close()
