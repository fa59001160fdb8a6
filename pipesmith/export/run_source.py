"""A finished run's folder, read for export and serving: its report, fitted model, final
code and the feature schema new rows must follow."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from pipesmith.core.report import Report, load_report
from pipesmith.errors import InputError


@dataclass(frozen=True)
class RunSource:
    run_dir: Path
    report: Report

    @property
    def model_path(self) -> Path:
        return self.run_dir / self.report.files.get("model", "model.joblib")

    @property
    def pipeline_path(self) -> Path:
        return self.run_dir / self.report.files.get("pipeline", "pipeline.py")

    @property
    def data_path(self) -> Path:
        return self.run_dir / self.report.files.get("data", "data.parquet")

    @property
    def final(self):
        return next(a for a in self.report.attempts if a.id == self.report.final_attempt)

    @property
    def schema(self):
        """The run's feature schema (pipesmith.core.model_io.FeatureSchema, from schema.json)."""
        from pipesmith.core.model_io import read_schema

        return read_schema(self.run_dir)

    @property
    def feature_columns(self) -> list[str]:
        return self.schema.names


def load_run(run_dir: Path) -> RunSource:
    """The run in run_dir; InputError (one line) when it is missing, unreadable or failed."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise InputError(f"no run folder {run_dir}")
    if not (run_dir / "report.json").is_file():
        raise InputError(f"{run_dir} has no report.json: not a finished pipesmith run")
    try:
        report = load_report(run_dir / "report.json")
    except (ValidationError, ValueError) as exc:
        raise InputError(f"{run_dir}/report.json cannot be read: {str(exc).splitlines()[0]}") \
            from None
    if report.status != "succeeded" or report.final_attempt is None:
        raise InputError(f"run {report.run_id} failed: it has no model to export")
    source = RunSource(run_dir, report)
    if not source.model_path.is_file():
        raise InputError(f"{source.model_path} is missing: the run has no saved model")
    if report.task_type == "clustering":
        raise InputError("a clustering run has no predict step to export")
    return source
