"""The executor: run a candidate through the fixed harness inside a sandbox."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pipesmith.agents.schemas import Candidate, RunInputs
from pipesmith.sandbox.base import ExecJob, ExecResult, Sandbox

HARNESS = "pipesmith.sandbox.harness"
SMOKE_TIMEOUT_S = 30.0


class Executor:
    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    def smoke(self, candidate: Candidate, inputs: RunInputs, workdir: Path,
              timeout_s: float = SMOKE_TIMEOUT_S) -> tuple[ExecResult, dict | None]:
        """The same harness on a small stratified sample, no cross-validation: catches
        shape, dtype and API errors in seconds, before the full run."""
        return self.run(candidate, inputs, workdir, timeout_s,
                        sample_rows=inputs.smoke_rows, cv_folds=0)

    def run(self, candidate: Candidate, inputs: RunInputs, workdir: Path,
            timeout_s: float, sample_rows: int | None = None, cv_folds: int | None = None,
            memory_mb: int | None = None) -> tuple[ExecResult, dict | None]:
        """Run the harness on the candidate; metrics are None unless the harness wrote them."""
        workdir.mkdir(parents=True, exist_ok=True)
        code_path = workdir / "candidate.py"
        code_path.write_text(candidate.code)
        job = {
            "data_path": inputs.data_path,
            "candidate_path": str(code_path),
            "target": inputs.target,
            "task_type": inputs.task_type,
            "metric": inputs.metric,
            "seed": inputs.seed,
            "test_size": inputs.test_size,
            "n_jobs": inputs.n_jobs,
            "cv_folds": inputs.cv_folds if cv_folds is None else cv_folds,
            "sample_rows": sample_rows,
            "cv_budget_s": 0.4 * timeout_s,
        }
        (workdir / "harness_job.json").write_text(json.dumps(job, indent=2))
        threads = str(max(1, inputs.n_jobs))
        result = self.sandbox.run(ExecJob(
            command=[sys.executable, "-m", HARNESS, "harness_job.json"],
            workdir=workdir,
            timeout_s=timeout_s,
            cpu_time_s=timeout_s * max(1, inputs.n_jobs) + 10,
            memory_mb=memory_mb or inputs.memory_mb,
            disk_mb=inputs.disk_mb,
            read_paths=(Path(inputs.data_path),),  # the prepared table, read-only
            env={"OMP_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads,
                 "MKL_NUM_THREADS": threads},
        ))
        metrics_path = workdir / "metrics.json"
        if not result.ok:
            return result, None
        if not metrics_path.exists():
            return result.model_copy(update={
                "status": "error", "detail": "the harness exited 0 without writing metrics.json",
            }), None
        return result, json.loads(metrics_path.read_text())
