"""A run's saved model, applied to new rows without ever being loaded in this process.

model.joblib is a pickle that generated code wrote; loading it can run that code. So
`pipesmith predict`, `serve RUN`, the chat and `pipesmith.predict` hand the checked rows to
a sandboxed model worker (sandbox/model_server.py), which loads the model in a fresh fork
per request, and take back only arrays, checked here by type and size with the referee's
own rules: the right number of rows, finite values, labels among the training classes,
probability columns that are those classes (put in their order) and sum to 1.

One ModelHost is one worker job: started once (an interpreter and the libraries' imports),
then as many requests as the caller makes (`serve` keeps it for its life), restarted when it
dies. Everything the worker says that is not checked data is shown as text, one line.
"""

from __future__ import annotations

import io
import shutil
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import structlog
from pydantic import BaseModel, ConfigDict

from pipesmith.core import referee
from pipesmith.core.model_io import FeatureSchema
from pipesmith.core.safe_npz import load_npz_bytes
from pipesmith.errors import InputError
from pipesmith.sandbox.base import Sandbox
from pipesmith.sandbox.served_job import JobGone, ServedJob, one_line

log = structlog.get_logger(__name__)
SERVER = "pipesmith.sandbox.model_server"
STARTUP_S = 90.0  # for the worker's interpreter and imports
REPLY_GRACE_S = 5.0
MAX_STARTS = 3  # failed starts in a row before the host gives up
LIFETIME_S = 7 * 86400.0  # a serving worker's job clock
# a metric of each task, for the referee's prediction checks (labels-only for classifiers,
# so a model without predict_proba passes)
CHECK_METRIC = {"classification": "accuracy", "regression": "r2", "clustering": "silhouette"}


class Description(BaseModel):
    """What the worker measured of the fitted model (untrusted, checked against the schema)."""

    model_config = ConfigDict(frozen=True)

    predicts: bool
    read: list[str] | None  # the schema columns the pipeline reads; None: all of them


def model_sandbox() -> Sandbox:
    """The sandbox the settings name (PIPESMITH_SANDBOX_BACKEND); without bubblewrap the
    local backend refuses with one line saying what to install."""
    from pipesmith.sandbox.factory import sandbox_from_settings
    from pipesmith.settings import Settings

    return sandbox_from_settings(Settings())


class ModelHost:
    """Context manager: a sandboxed worker holding `model_path` (read-only) for `schema`'s
    rows. `imports`: libraries to import once before the first request (a server's)."""

    def __init__(self, model_path: Path, schema: FeatureSchema, sandbox: Sandbox | None = None,
                 *, memory_mb: int = 4096, timeout_s: float = 300.0, lifetime_s: float = 3600.0,
                 imports: tuple[str, ...] = ()) -> None:
        self.model_path, self.schema = Path(model_path).resolve(), schema
        self.sandbox = sandbox or model_sandbox()
        self.memory_mb, self.timeout_s, self.lifetime_s = memory_mb, timeout_s, lifetime_s
        self.imports = list(imports)
        self.folder = Path(tempfile.mkdtemp(prefix="pipesmith-model-"))
        self.served = ServedJob(
            self.sandbox, self.folder, SERVER,
            {"model": str(self.model_path), "task_type": schema.task_type,
             "imports": self.imports},
            name="the sandboxed model worker", memory_mb=memory_mb, disk_mb=256,
            read_paths=(self.model_path,))
        self.failed_starts, self.requests = 0, 0
        self._lock = threading.Lock()

    # --- the worker job -------------------------------------------------------------------

    def _start(self) -> None:
        if self.failed_starts >= MAX_STARTS:
            raise InputError(f"the sandboxed model worker failed to start {MAX_STARTS} times"
                             f"{self.served.last_words()}")
        began = time.monotonic()
        try:
            self.served.start(self.lifetime_s, began + STARTUP_S)
        except (JobGone, OSError) as exc:
            self.failed_starts += 1
            raise InputError(one_line(exc)) from None
        self.failed_starts = 0
        log.info("model_worker.ready", seconds=round(time.monotonic() - began, 2))

    def _request(self, header: dict, rows: bytes = b"",
                 max_payload: int = 1 << 20) -> tuple[dict, bytes]:
        with self._lock:
            if not self.served.alive:
                self._start()
            self.requests += 1
            request = {**header, "id": self.requests, "timeout_s": self.timeout_s}
            try:  # a worker that fails here is let go: the next request starts a fresh one
                return self.served.ask(request, rows, max_payload=max_payload,
                                       reply_by=time.monotonic() + self.timeout_s
                                       + REPLY_GRACE_S)
            except (JobGone, OSError) as exc:
                raise InputError(one_line(exc)) from None

    @property
    def starts(self) -> int:
        return self.served.starts

    def close(self) -> None:
        with self._lock:
            self.served.stop()
        self.served.join(time.monotonic() + 10)
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> ModelHost:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- what callers ask -------------------------------------------------------------------

    def _failure(self, reply: dict, doing: str) -> InputError:
        status = reply.get("status")
        if status == "timeout":
            return InputError(f"the model took longer than {self.timeout_s:.0f} s {doing}")
        if status == "no_predict":
            return InputError("this run's model cannot label new rows: it only clusters the "
                              "rows it was fitted on")
        return InputError(f"the model could not {doing.removeprefix('to ')}: "
                          f"{one_line(reply.get('error', 'no reason given'))}")

    def describe(self) -> Description:
        reply, _ = self._request({"op": "describe"})
        if reply.get("status") != "ok":
            raise self._failure(reply, "to load")
        read = reply.get("read")
        names = set(self.schema.names)
        if not isinstance(read, list) or not all(isinstance(c, str) for c in read):
            read = None  # not a list of names: every column counts
        return Description(predicts=reply.get("predicts") is True,
                           read=[c for c in read if c in names] if read is not None else None)

    def predict(self, X: pd.DataFrame) -> pd.DataFrame:
        """`prediction` (and `proba_<class>` for classifiers) for rows checked by
        model_io.check_frame, in their order and index; InputError when the model
        cannot predict them or answers with data that fails the checks."""
        buffer = io.BytesIO()
        X.reset_index(drop=True).to_parquet(buffer, index=False)
        classes = self.schema.classes or []
        limit = referee.returned_limit(len(X), len(classes))
        reply, payload = self._request({"op": "predict"}, buffer.getvalue(), limit)
        if reply.get("status") != "ok":
            raise self._failure(reply, "to predict these rows")
        try:
            checked = self._checked(load_npz_bytes(payload, limit), len(X))
        except Exception as exc:  # what the worker sent is untrusted input
            raise InputError(f"the model's predictions were refused: {one_line(exc)}") from None
        columns = {"prediction": checked["pred"]}
        if "proba" in checked:
            columns |= {f"proba_{label}": checked["proba"][:, i]
                        for i, label in enumerate(classes)}
        return pd.DataFrame(columns, index=X.index)

    def _checked(self, arrays: dict, n_rows: int) -> dict:
        task, classes = self.schema.task_type, self.schema.classes
        checked = referee.check_predictions(arrays, n_rows, task, CHECK_METRIC[task],
                                            y_train=np.asarray(classes) if classes else None)
        if task == "classification" and classes:
            by_text = {str(c): c for c in classes}
            unknown = sorted({str(p) for p in checked["pred"].tolist()} - set(by_text))
            if unknown:
                raise referee.ContractViolation(f"predicted labels {unknown[:5]} are not among "
                                                "the training classes")
            checked["pred"] = np.asarray([by_text[str(p)] for p in checked["pred"].tolist()],
                                         dtype=object if any(isinstance(c, str)
                                                             for c in classes) else None)
        return checked


def predict_run(run_dir: str | Path, X: pd.DataFrame, schema: FeatureSchema) -> pd.DataFrame:
    """A run's predictions for checked rows, from a worker started for this call."""
    from pipesmith.core.model_io import model_path

    with ModelHost(model_path(run_dir), schema) as host:
        return host.predict(X)
