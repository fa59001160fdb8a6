"""`pipesmith run --mlflow-dir DIR`: log a finished run to a local MLflow store in DIR
(mlflow.db, SQLite, and artifacts/ as plain files).

One MLflow run per pipesmith run (experiment "pipesmith"): the run's inputs as params, its
scores as metrics, one nested MLflow run per attempt (candidate, phase, status, score,
measured resources), report.json and report.md as artifacts, and the chosen model as the
same MLflow pyfunc model `pipesmith export --format mlflow` writes. No server, no network:
the tracking URI is a local SQLite file and MLflow's telemetry is off before mlflow is imported.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import structlog

from pipesmith.core.report import Report
from pipesmith.export.mlflow_model import import_mlflow

log = structlog.get_logger(__name__)
EXPERIMENT = "pipesmith"


def tracking_uri(store: Path) -> str:
    """MLflow's local SQLite backend in the folder (its plain-file backend is in maintenance
    mode and refuses new stores); artifacts are plain files beside it."""
    return f"sqlite:///{Path(store).resolve() / 'mlflow.db'}"


def _metrics(values: dict) -> dict[str, float]:
    return {key: float(value) for key, value in values.items() if value is not None}


def attempt_metrics(attempt) -> dict[str, float]:
    return _metrics({"score": attempt.score, "baseline_score": attempt.baseline_score,
                     "wall_s": attempt.wall_s, "cpu_s": attempt.cpu_s,
                     "peak_mem_mb": attempt.peak_mem_mb,
                     "predicted_mem_mb": attempt.predicted_mem_mb,
                     "predicted_wall_s": attempt.predicted_wall_s})


def log_run(report: Report, mlflow_dir: Path) -> str:
    """Log report's run to the file store in mlflow_dir; returns the MLflow run id."""
    import_mlflow()  # telemetry off first
    from mlflow.tracking import MlflowClient

    store = Path(mlflow_dir).resolve()
    store.mkdir(parents=True, exist_ok=True)
    client = MlflowClient(tracking_uri=tracking_uri(store))
    experiment = client.get_experiment_by_name(EXPERIMENT)
    experiment_id = (experiment.experiment_id if experiment else client.create_experiment(
        EXPERIMENT, artifact_location=(store / "artifacts").as_uri()))
    params = {"run_id": report.run_id, "dataset": report.dataset, "target": report.target,
              "task_type": report.task_type, "metric": report.metric, "seed": report.seed,
              "budget_s": report.budget_s, "topology": report.topology,
              "final_candidate": report.final_candidate, "status": report.status}
    parent = client.create_run(experiment_id, run_name=report.run_id,
                               tags={"pipesmith.run_dir": report.out_dir})
    run_id = parent.info.run_id
    for key, value in params.items():
        client.log_param(run_id, key, value)
    scores = {"score": report.score, "baseline_score": report.baseline_score,
              "test_score": getattr(report, "test_score", None),
              "test_baseline_score": getattr(report, "test_baseline_score", None),
              "reliability": report.reliability.score, "elapsed_s": report.elapsed_s,
              "attempts": len(report.attempts)}
    for key, value in _metrics(scores).items():
        client.log_metric(run_id, key, value)
    for attempt in report.attempts:
        child = client.create_run(experiment_id, run_name=f"{report.run_id}/{attempt.id}",
                                  tags={"mlflow.parentRunId": run_id})
        for key, value in {"attempt": attempt.id, "candidate": attempt.candidate,
                           "phase": attempt.phase, "status": attempt.status,
                           "parent": attempt.parent or "",
                           "repair_action": attempt.repair_action or ""}.items():
            client.log_param(child.info.run_id, key, value)
        for key, value in attempt_metrics(attempt).items():
            client.log_metric(child.info.run_id, key, value)
        client.set_terminated(child.info.run_id,
                              "FINISHED" if attempt.status == "ok" else "FAILED")
    out_dir = Path(report.out_dir)
    for name in ("report.json", "report.md"):
        if (out_dir / name).is_file():
            client.log_artifact(run_id, str(out_dir / name))
    if report.final_success:
        from pipesmith.export.bundle import export

        with tempfile.TemporaryDirectory(prefix="pipesmith-mlflow-") as scratch:
            model = export(out_dir, Path(scratch) / "model", fmt="mlflow")
            client.log_artifacts(run_id, str(model), artifact_path="model")
    client.set_terminated(run_id, "FINISHED" if report.final_success else "FAILED")
    log.info("mlflow_logged", run=report.run_id, mlflow_run=run_id, store=str(store))
    return run_id
