"""`pipesmith run --mlflow-dir DIR`: log a finished run to a local MLflow store in DIR
(mlflow.db, SQLite, and artifacts/ as plain files).

One MLflow run per pipesmith run (experiment "pipesmith"): the run's inputs and the chosen
pipeline's hyperparameters (`model.<step>.<param>` as fitted, `plan.<param>` as planned)
as params, its scores as metrics named after the run's metric
(`cv_roc_auc`, `test_roc_auc`), report.json, report.md and the bundle's pipeline.yaml and
MODEL_CARD.md as artifacts, and the chosen model as an MLflow logged model (the pyfunc model
`pipesmith export --format mlflow` writes), registered when a model name is given. One
nested MLflow run per attempt: its candidate, status, scores and measured resources, and its
files (code, fold diagnostics, a summary of its outcome) as artifacts.

No server, no network: the tracking URI is a local SQLite file and MLflow's telemetry is off
before mlflow is imported. The model export (two sandbox jobs) runs in a thread while this
process imports mlflow and opens the store, the two slow parts, so they overlap.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import structlog

from pipesmith.core.report import Report
from pipesmith.errors import InputError
from pipesmith.export.mlflow_model import import_mlflow
from pipesmith.sandbox.safe_files import UnsafeFile, copy_regular

log = structlog.get_logger(__name__)
EXPERIMENT = "pipesmith"
REGISTER_ENV = "PIPESMITH_MLFLOW_REGISTER"
PARAM_CHARS = 6000  # MLflow's limit on a param value
KEY_CHARS = 250  # ... and on a key
PARAMS_PER_CALL = 100  # ... on params and tags in one log_batch
MODEL_PARAMS = 300  # the fitted pipeline's params kept (a wide ColumnTransformer ...)
ATTEMPT_FILE_BYTES = 256 << 10  # per file of an attempt's folder
ATTEMPT_BYTES = 2 << 20  # per attempt, all its files together
ATTEMPT_SUFFIXES = (".py", ".json", ".txt", ".log", ".md")  # text only: no predictions
Step = Callable[[str], None]


def tracking_uri(store: Path) -> str:
    """MLflow's local SQLite backend in the folder (its plain-file backend is in maintenance
    mode and refuses new stores); artifacts are plain files beside it."""
    return f"sqlite:///{Path(store).resolve() / 'mlflow.db'}"


def key(name: str) -> str:
    """A valid MLflow param or metric key: other characters become _, and no leading dot
    (MLflow refuses keys that normalise to another path, such as `..x`)."""
    return re.sub(r"[^\w.\-]", "_", name).lstrip(".")[:KEY_CHARS] or "_"


def _metrics(values: dict) -> dict[str, float]:
    return {key(name): float(value) for name, value in values.items() if value is not None}


def _params(values: dict, prefix: str = "") -> dict[str, str]:
    return {key(prefix + str(name)): str(value)[:PARAM_CHARS] for name, value in values.items()}


def run_metrics(report: Report) -> dict[str, float]:
    """The run's scores under its metric's name: cv_ = CV on the development part (the
    selection), test_ = the refit on the untouched test part."""
    m = report.metric
    return _metrics({f"cv_{m}": report.score,
                     f"cv_{m}_std": report.cv_score.std if report.cv_score else None,
                     f"cv_baseline_{m}": report.baseline_score,
                     f"test_{m}": report.test_score,
                     f"test_baseline_{m}": report.test_baseline_score,
                     "reliability": report.reliability.score, "elapsed_s": report.elapsed_s,
                     "attempts": len(report.attempts)})


def attempt_metrics(attempt, metric: str) -> dict[str, float]:
    """An attempt's CV scores (attempts are never scored on the test part) and resources."""
    return _metrics({f"cv_{metric}": attempt.score, f"cv_{metric}_std": attempt.cv_std,
                     f"cv_baseline_{metric}": attempt.baseline_score,
                     "wall_s": attempt.wall_s, "cpu_s": attempt.cpu_s,
                     "peak_mem_mb": attempt.peak_mem_mb,
                     "predicted_mem_mb": attempt.predicted_mem_mb,
                     "predicted_wall_s": attempt.predicted_wall_s})


def run_params(report: Report) -> dict[str, str]:
    spec = planned(report, report.final_candidate)
    return _params({"run_id": report.run_id, "dataset": report.dataset,
                    "target": report.target, "task_type": report.task_type,
                    "metric": report.metric, "seed": report.seed, "budget_s": report.budget_s,
                    "topology": report.topology, "final_candidate": report.final_candidate,
                    "final_estimator": report.final_estimator,
                    "family": spec.family if spec else None, "status": report.status}
                   ) | plan_params(report, report.final_candidate)


def planned(report: Report, name: str | None):
    """The plan's entry for a candidate (None for an ensemble or a user's script)."""
    return next((c for c in report.plan.candidates if c.name == name), None)


def plan_params(report: Report, name: str | None) -> dict[str, str]:
    """`plan.<param>`: the candidate's hyperparameters as planned (a search winner's are its
    trial's configuration); what ran may differ (a resource adjustment shrinks a model)."""
    spec = planned(report, name)
    return _params(spec.params, "plan.") if spec else {}


def model_params(spec: dict) -> dict[str, str]:
    """`model.<step>.<param>`: the chosen pipeline's parameters as fitted, read from the
    model by the export's probe (the bundle's pipeline.yaml `steps`), defaults included."""
    found = {}
    for step in spec.get("steps") or []:
        for name, value in (step.get("params") or {}).items():
            found[f"{step.get('name')}.{name}"] = value
    return _params(dict(list(found.items())[:MODEL_PARAMS]), "model.")


def log_values(client, run_id: str, params: dict[str, str] | None = None,
               metrics: dict[str, float] | None = None,
               tags: dict[str, str] | None = None) -> None:
    """Params, metrics and tags in as few calls as MLflow allows (one call each was most of
    the logging time once the store was open)."""
    from mlflow.entities import Metric, Param, RunTag

    now = int(time.time() * 1000)
    metrics = metrics or {}
    entities = ([Param(k, v) for k, v in (params or {}).items()]
                + [RunTag(k, v) for k, v in (tags or {}).items()])
    for start in range(0, max(len(entities), 1), PARAMS_PER_CALL):
        chunk = entities[start:start + PARAMS_PER_CALL]
        client.log_batch(run_id, params=[e for e in chunk if isinstance(e, Param)],
                         tags=[e for e in chunk if isinstance(e, RunTag)],
                         metrics=[Metric(k, v, now, 0) for k, v in metrics.items()]
                         if start == 0 else [])


def attempt_summary(attempt) -> dict:
    """What the attempt's nested run says in attempt.json: its outcome and, when it failed,
    why (the sandbox keeps no log file: the end of stderr is in the report)."""
    diagnosis = attempt.diagnosis
    return {"id": attempt.id, "candidate": attempt.candidate, "phase": attempt.phase,
            "status": attempt.status, "parent": attempt.parent,
            "repair_action": attempt.repair_action, "repair_notes": attempt.repair_notes,
            "injected_fault": attempt.injected_fault, "warnings": attempt.warnings,
            "issues": [i.model_dump() for i in attempt.issues],
            "diagnosis": diagnosis.model_dump(include={"taxonomy_class", "subclass", "severity",
                                                       "summary", "line", "excerpt"})
            if diagnosis else None,
            "error_tail": attempt.error_tail}


def copy_attempt_files(workdir: Path, attempts: Path, into: Path) -> list[str]:
    """Copy the attempt folder's text files into `into`, each and all together size-capped;
    returns what was skipped. The folder is written by generated code: only regular files
    are read, never through a symlink, and a folder outside the run's attempts/ is refused."""
    if workdir.is_symlink() or not workdir.is_dir() or \
            not workdir.resolve().is_relative_to(attempts.resolve()):
        return [f"{workdir}: not a folder under {attempts}"]
    skipped, left = [], ATTEMPT_BYTES
    for folder, dirs, names in os.walk(workdir, followlinks=False):
        dirs.sort()  # os.walk lists symlinked folders here but never enters them
        for name in sorted(names):
            path = Path(folder) / name
            rel = path.relative_to(workdir)
            if path.suffix not in ATTEMPT_SUFFIXES:
                continue
            target = into / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                copy_regular(path, target, min(ATTEMPT_FILE_BYTES, left))
            except (UnsafeFile, OSError) as exc:
                skipped.append(f"{rel}: {exc}")
                continue
            left -= target.stat().st_size
    return skipped


def log_attempt(client, experiment_id: str, parent_id: str, report: Report, attempt,
                scratch: Path) -> None:
    child = client.create_run(experiment_id, run_name=f"{report.run_id}/{attempt.id}",
                              tags={"mlflow.parentRunId": parent_id})
    child_id = child.info.run_id
    log_values(client, child_id, _params(
        {"attempt": attempt.id, "candidate": attempt.candidate, "phase": attempt.phase,
         "status": attempt.status, "parent": attempt.parent or "",
         "repair_action": attempt.repair_action or ""}) | plan_params(report, attempt.candidate),
        attempt_metrics(attempt, report.metric))
    folder = scratch / "attempts" / attempt.id
    folder.mkdir(parents=True)
    summary = attempt_summary(attempt)
    if attempt.workdir:
        summary["skipped_files"] = copy_attempt_files(
            Path(attempt.workdir), Path(report.out_dir) / "attempts", folder / "files")
    (folder / "attempt.json").write_text(json.dumps(summary, indent=2, default=str))
    client.log_artifacts(child_id, str(folder))
    client.set_terminated(child_id, "FINISHED" if attempt.status == "ok" else "FAILED")


def export_bundle(report: Report, scratch: Path) -> Path:
    """The run's deployment bundle in scratch (its model/ is the MLflow model; its
    pipeline.yaml holds the fitted pipeline's parameters)."""
    from pipesmith.export.bundle import export

    return export(Path(report.out_dir), scratch / "bundle", fmt="bundle")


def open_store(store: Path):
    """A client on the store and the experiment's id; the first use of a folder creates
    MLflow's tables (its schema migrations: most of the time of a first log)."""
    import_mlflow()  # telemetry off first
    from mlflow.tracking import MlflowClient

    store.mkdir(parents=True, exist_ok=True)
    client = MlflowClient(tracking_uri=tracking_uri(store), registry_uri=tracking_uri(store))
    experiment = client.get_experiment_by_name(EXPERIMENT)
    return client, (experiment.experiment_id if experiment else client.create_experiment(
        EXPERIMENT, artifact_location=(store / "artifacts").as_uri()))


def log_model(client, experiment_id: str, run_id: str, model_dir: Path,
              params: dict[str, str]) -> str:
    """The MLflow model as a logged model of the run (MLflow 3's model entity: listed under
    the run's outputs, loadable as models:/<id>); returns its id."""
    from mlflow.entities import LoggedModelOutput, LoggedModelStatus

    model = client.create_logged_model(experiment_id, name="model", source_run_id=run_id,
                                       params=params, model_type="pipesmith")
    client.log_model_artifacts(model.model_id, str(model_dir))
    client.finalize_logged_model(model.model_id, LoggedModelStatus.READY)
    client.log_outputs(run_id, [LoggedModelOutput(model.model_id, step=0)])
    return model.model_id


def register(client, name: str, model_id: str, run_id: str) -> str:
    """A new version of the registered model `name` (created on first use); its number.
    The source is the logged model's artifact folder, not models:/<id>: MLflow resolves that
    URI with a client on the global tracking URI, not this store."""
    from mlflow.exceptions import MlflowException

    try:
        client.create_registered_model(name)
    except MlflowException as exc:
        if exc.error_code != "RESOURCE_ALREADY_EXISTS":
            raise
    source = client.get_logged_model(model_id).artifact_location
    # the SQL registry keeps no model id of its own: a tag says which logged model it is
    return client.create_model_version(name, source=source, run_id=run_id, model_id=model_id,
                                       tags={"pipesmith.model_id": model_id}).version


def log_bundle(client, experiment_id: str, run_id: str, bundle: Path,
               register_as: str | None, step: Step) -> None:
    """The bundle's spec as params and artifacts, its model as a logged (and registered)
    model."""
    import yaml

    spec = yaml.safe_load((bundle / "pipeline.yaml").read_text())
    fitted = model_params(spec)
    log_values(client, run_id, fitted)
    for name in ("pipeline.yaml", "MODEL_CARD.md"):
        client.log_artifact(run_id, str(bundle / name))
    model_id = log_model(client, experiment_id, run_id, bundle / "model", fitted)
    step(f"logged model {model_id}")
    if register_as:
        version = register(client, register_as, model_id, run_id)
        log_values(client, run_id, tags={"pipesmith.registered_model": register_as,
                                         "pipesmith.registered_version": str(version)})
        step(f"registered {register_as} version {version}")


def _stepper(on_step: Step | None, run: str) -> Step:
    """A progress line per step (seconds since the logging began), and a structlog event."""
    started = time.monotonic()

    def step(text: str) -> None:
        seconds = time.monotonic() - started
        log.info("mlflow_step", run=run, step=text, seconds=round(seconds, 1))
        if on_step is not None:
            on_step(f"{text} ({seconds:.1f}s)")
    return step


def log_run(report: Report, mlflow_dir: Path, register_as: str | None = None,
            on_step: Step | None = None) -> str:
    """Log report's run to the store in mlflow_dir, registering its model as `register_as`
    when given; `on_step(line)` hears each step. Returns the MLflow run id."""
    step = _stepper(on_step, report.run_id)
    store = Path(mlflow_dir).resolve()
    with tempfile.TemporaryDirectory(prefix="pipesmith-mlflow-") as scratch, \
            ThreadPoolExecutor(1, thread_name_prefix="mlflow-export") as pool:
        exporting: Future | None = None
        if report.final_success:
            step("exporting the model (sandbox jobs)")
            exporting = pool.submit(export_bundle, report, Path(scratch))
        step(f"opening the store {store}")
        client, experiment_id = open_store(store)
        parent = client.create_run(experiment_id, run_name=report.run_id,
                                   tags={"pipesmith.run_dir": report.out_dir})
        run_id = parent.info.run_id
        log_values(client, run_id, run_params(report), run_metrics(report))
        step(f"logging {len(report.attempts)} attempts")
        for attempt in report.attempts:
            log_attempt(client, experiment_id, run_id, report, attempt, Path(scratch))
        out_dir = Path(report.out_dir)
        for name in ("report.json", "report.md"):
            if (out_dir / name).is_file():
                client.log_artifact(run_id, str(out_dir / name))
        if exporting is not None:
            step("waiting for the model export")
            try:
                log_bundle(client, experiment_id, run_id, exporting.result(), register_as, step)
            except (InputError, RuntimeError, OSError) as exc:  # the run is logged regardless
                log.warning("mlflow_model_not_logged", run=report.run_id, error=str(exc)[:300])
                log_values(client, run_id, tags={"pipesmith.model_error": str(exc)[:5000]})
                step(f"model not logged: {str(exc)[:200]}")
        client.set_terminated(run_id, "FINISHED" if report.final_success else "FAILED")
    step(f"logged run {run_id}")
    return run_id
