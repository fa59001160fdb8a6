"""The unit of work of an eval: one dataset x topology x seed run, or one baseline fit.

Jobs are plain frozen dataclasses and run_job a module-level function, so the same job
runs inline, in a worker process or as a Ray task on another machine; everything a job
writes lies under its own folder of the eval's output directory.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from pipesmith.evals.suite import DataSpec, load


@dataclass(frozen=True)
class PipelineJob:
    spec: DataSpec
    topology: str
    seed: int
    fault_rate: float
    budget_s: float
    out: str  # the eval's output directory
    n_jobs: int = 1
    max_repair_rounds: int = 3
    kb_dir: str | None = None  # a knowledge base shared by the jobs; None: a fresh one each
    fault_model: str = "drafts"  # or every_generation (Settings.fault_model)

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.spec.name, self.topology, self.seed)

    @property
    def folder(self) -> Path:
        return Path(self.out) / "jobs" / f"{self.spec.name}__{self.topology}__s{self.seed}"


@dataclass(frozen=True)
class BaselineJob:
    spec: DataSpec
    baseline: str
    seed: int
    budget_s: float
    out: str
    n_jobs: int = 1
    wall_limit_s: float | None = None  # None: evals/baselines.py's default for the budget

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.spec.name, self.baseline, self.seed)


def run_job(job: PipelineJob | BaselineJob) -> dict:
    """A results row; never raises for a failure of the job itself (that is a row too)."""
    if isinstance(job, BaselineJob):
        from pipesmith.evals.baselines import run_baseline

        return run_baseline(job)
    return run_pipeline(job)


def job_settings(job: PipelineJob):
    from pipesmith.settings import Settings

    return Settings(topology=job.topology, fault_rate=job.fault_rate, seed=job.seed,
                    fault_model=job.fault_model,
                    kb_dir=Path(job.kb_dir) if job.kb_dir else job.folder / "kb",
                    runs_dir=job.folder, n_jobs=job.n_jobs,
                    max_repair_rounds=job.max_repair_rounds)


def run_pipeline(job: PipelineJob) -> dict:
    from pipesmith.api import run
    from pipesmith.evals.measure import error_row, row_from_report

    started = time.perf_counter()
    spec = job.spec
    shutil.rmtree(job.folder, ignore_errors=True)  # a half-finished earlier try
    job.folder.mkdir(parents=True)
    try:
        frame = load(spec)
        labels = None
        if spec.task == "clustering":  # the labels score the run; the pipeline never sees them
            labels = frame[spec.target].to_numpy()
            frame = frame.drop(columns=[spec.target])
        data = job.folder / "input.parquet"
        frame.to_parquet(data, index=False)
        settings = job_settings(job)
        report = run(data=data, target=None if labels is not None else spec.target,
                     task=spec.task, metric=spec.pipeline_metric, budget_s=job.budget_s,
                     seed=job.seed, out=job.folder / "run", settings=settings,
                     task_text=f"{spec.task} of {spec.target} on {spec.name}")
        return row_from_report(report, dataset=spec.name, topology=job.topology,
                               seed=job.seed, metric=spec.metric, labels=labels,
                               wall_s=time.perf_counter() - started)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # the harness broke on this job: record it, resume retries it
        return error_row(dataset=spec.name, topology=job.topology, seed=job.seed,
                         error=f"{type(exc).__name__}: {exc}"[:500],
                         wall_s=time.perf_counter() - started)


def crash_row(job: PipelineJob | BaselineJob, error: BaseException) -> dict:
    """The row of a job whose worker died before it could write one."""
    from pipesmith.evals.measure import error_row

    message = f"{type(error).__name__}: {error}"[:500]
    if isinstance(job, BaselineJob):
        return {"dataset": job.spec.name, "baseline": job.baseline, "seed": job.seed,
                "status": f"error: {message}", "score": None, "wall_s": 0.0, "models": []}
    return error_row(dataset=job.spec.name, topology=job.topology, seed=job.seed,
                     error=message, wall_s=0.0)
