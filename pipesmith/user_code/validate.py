"""`pipesmith validate FILE`: the pre-validator's verdict on any module or script.

Static checks always; with data, a module also gets its smoke run on a sample and a
resource prediction for the full run. Nothing is repaired and no run directory is made.
"""

from __future__ import annotations

import ast
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.agents.executor import Executor
from pipesmith.agents.families.registry import FAMILIES
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.prevalidator.agent import Prevalidator, blocking
from pipesmith.agents.prevalidator.resources import ResourcePrediction, predict, sized_from_code
from pipesmith.agents.schemas import Candidate, CandidateSpec, Diagnosis, Issue, RunInputs
from pipesmith.sandbox.base import Sandbox
from pipesmith.sandbox.owner import temporary_folder
from pipesmith.user_code.repair import is_module


class SmokeOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    status: str
    rows: int
    wall_s: float
    peak_mem_mb: float
    diagnosis: Diagnosis | None


class ValidationReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    file: str
    mode: str  # "module" or "script"
    passed: bool  # no blocking issue and (when it ran) a clean smoke run
    issues: list[Issue]
    smoke: SmokeOutcome | None
    prediction: ResourcePrediction | None


def guess_spec(code: str, task_type: str) -> CandidateSpec | None:
    """The model family a module uses, read from the estimator classes it calls."""
    try:
        called = {getattr(n.func, "id", getattr(n.func, "attr", ""))
                  for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Call)}
    except SyntaxError:
        return None
    for family in FAMILIES:
        if family.task_type == task_type and family.cls in called:
            return CandidateSpec(name=family.name, family=family.name, params=family.params)
    return None


def validate_file(path: Path, sandbox: Sandbox, inputs: RunInputs | None,
                  history: list[dict]) -> ValidationReport:
    code = path.read_text()
    mode = "module" if is_module(code) else "script"
    checks = Prevalidator()
    profile = None
    if inputs is not None:
        import pandas as pd

        profile = profile_table(pd.read_parquet(inputs.data_path), inputs.target,
                                inputs.task_type)
    columns = profile.table_columns if profile else []
    issues = checks.check(code, columns, profile) if mode == "module" \
        else checks.check_script(code, columns, profile)
    smoke = prediction = None
    if mode == "module" and inputs is not None and not blocking(issues):
        candidate = Candidate(id="validate", name=path.stem, phase="draft", code=code)
        with temporary_folder("smoke") as workdir:  # owner-tagged: swept if killed
            result, _ = Executor(sandbox).smoke(candidate, inputs, workdir)
        smoke = SmokeOutcome(
            status=result.status, rows=min(inputs.smoke_rows, profile.n_rows),
            wall_s=result.wall_s, peak_mem_mb=result.peak_mem_mb,
            diagnosis=None if result.ok else Diagnostician().diagnose_result(result, code))
        measured = {"wall_s": smoke.wall_s, "peak_mem_mb": smoke.peak_mem_mb} \
            if result.ok else None
        spec = sized_from_code(guess_spec(code, inputs.task_type), code)
        prediction = predict(profile, spec, inputs.cv_folds, measured, inputs.smoke_rows,
                             history)
    passed = not blocking(issues) and (smoke is None or smoke.diagnosis is None)
    return ValidationReport(file=str(path), mode=mode, passed=passed, issues=issues,
                            smoke=smoke, prediction=prediction)
