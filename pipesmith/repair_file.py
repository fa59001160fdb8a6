"""`pipesmith repair FILE`: the diagnose-repair loop on code the user brings.

FILE is either a candidate module (defines build_pipeline(task); the harness scores it
on the given data) or a plain training script (success means it exits 0 within the
limits). Each round runs the code in the sandbox, diagnoses a failure with the
taxonomy and patches the code with the offline repair rules. The output directory
gets the repaired file, a unified diff against the original, report.json and every
attempt's code and logs.
"""

from __future__ import annotations

import ast
import difflib
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from pipesmith.agents.coder import Coder
from pipesmith.agents.diagnostician import Diagnostician
from pipesmith.agents.executor import Executor
from pipesmith.agents.prevalidator import Prevalidator, blocking
from pipesmith.agents.profiler import profile_table
from pipesmith.agents.reformulate import repair_request
from pipesmith.agents.schemas import Candidate, Diagnosis, RunInputs
from pipesmith.errors import InputError
from pipesmith.graph.routing import repair_stop
from pipesmith.knowledge_base.records import RepairRecord
from pipesmith.sandbox.base import ExecJob, Sandbox
from pipesmith.versions import library_versions

COPY_LIMIT_BYTES = 100 << 20  # a script's sibling files are copied next to it up to this


class RepairAttempt(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    status: str
    repair_action: str | None
    diagnosis: Diagnosis | None
    score: float | None = None
    wall_s: float = 0.0


class RepairReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    file: str
    mode: Literal["module", "script"]
    status: str  # "repaired", "already_working" or "failed"
    final_success: bool
    rounds_used: int
    stop_reason: str  # why the loop stopped, in words
    attempts: list[RepairAttempt]
    repaired_file: str | None
    diff_file: str | None


def is_module(code: str) -> bool:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return "def build_pipeline" in code
    return any(isinstance(n, ast.FunctionDef) and n.name == "build_pipeline" for n in tree.body)


def repair_file(path: Path, out: Path, rounds: int, sandbox: Sandbox,
                inputs: RunInputs | None, timeout_s: float = 120.0,
                on_event: Callable[[dict[str, Any]], None] | None = None,
                kb=None) -> RepairReport:
    """With a knowledge base `kb`, past fixes of each error signature go first (best fix
    rate first) and every repair made here is recorded for the next time."""
    if not path.is_file():
        raise InputError(f"file not found: {path}")
    original = path.read_text()
    mode = "module" if is_module(original) else "script"
    if mode == "module" and inputs is None:
        raise InputError("a build_pipeline module needs data: pass --dataset or --data/--target")
    profile = None
    if inputs is not None:
        import pandas as pd

        frame = pd.read_parquet(inputs.data_path)
        profile = profile_table(frame, inputs.target, inputs.task_type)
    # A module sees the features only; a script reads the whole table, target included.
    columns = [] if profile is None else \
        [c.name for c in profile.columns] if mode == "module" else profile.table_columns
    doctor, coder, checks = Diagnostician(), Coder(), Prevalidator()
    candidate = Candidate(id="a1", name=path.stem, phase="draft", code=original)
    attempts: list[RepairAttempt] = []
    chain: list[Candidate] = []  # newest first, as the graph's lineage
    diagnoses: dict[str, Diagnosis | None] = {}
    codes: list[str] = []
    stop_reason = ""
    for round_ in range(rounds + 1):
        codes.append(candidate.code)
        workdir = out / "attempts" / candidate.id
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / path.name).write_text(candidate.code)
        issues = blocking(checks.check(candidate.code, profile.table_columns if profile else [],
                                       profile)
                          if mode == "module"
                          else checks.check_script(candidate.code))
        score, wall = None, 0.0
        if issues:
            status, diagnosis = "rejected", doctor.diagnose_issues(issues, candidate.code)
        elif mode == "module":
            result, metrics = Executor(sandbox).run(candidate, inputs, workdir, timeout_s)
            status, wall, diagnosis = result.status, result.wall_s, None
            if result.ok:
                score = metrics["score"]
                diagnosis = doctor.judge_quality(metrics, profile, inputs.metric)
                status = "poor" if diagnosis else "ok"
            else:
                diagnosis = doctor.diagnose_result(result, candidate.code)
        else:
            _copy_siblings(path, workdir)
            (workdir / path.name).write_text(candidate.code)
            result = sandbox.run(ExecJob(command=[sys.executable, path.name], workdir=workdir,
                                         timeout_s=timeout_s, memory_mb=4096, disk_mb=1024))
            status, wall = result.status, result.wall_s
            diagnosis = None if result.ok else doctor.diagnose_result(
                result, candidate.code, source_name=path.name)
        attempt = RepairAttempt(id=candidate.id, status=status, diagnosis=diagnosis,
                                repair_action=candidate.repair_action, score=score,
                                wall_s=wall)
        attempts.append(attempt)
        chain.insert(0, candidate)
        diagnoses[candidate.id] = diagnosis
        if on_event:
            on_event({"name": "repair", "attempt": attempt})
        if diagnosis is None:
            stop_reason = "it works as it is" if round_ == 0 else \
                f"it works after {round_} repair round(s)"
            break
        key = f"{diagnosis.taxonomy_class}.{diagnosis.subclass}"
        stop = repair_stop(diagnosis.severity, round_, rounds)
        if stop is not None:
            stop_reason = f"{key} remains and {stop}"
            break
        request = repair_request(chain, diagnoses, diagnosis, columns=columns,
                                 leaky_columns=profile.leak_suspects if profile else [], kb=kb)
        repaired = coder.repair(f"a{len(attempts) + 1}", request, profile, inputs)
        if repaired is None:
            stop_reason = _nothing_left(key, diagnosis, request.tried, candidate)
            break
        candidate = repaired
    if kb is not None:
        kb.add_repairs(_repair_records(out.name, path, attempts, codes))
    return _write(path, out, mode, original, candidate.code, attempts, stop_reason)


def _nothing_left(key: str, diagnosis: Diagnosis, tried: list[str],
                  candidate: Candidate) -> str:
    """Why the coder had no repair to offer, in words."""
    done = [t.split("@")[0] for t in tried if t.endswith("@" + diagnosis.signature)]
    patches = [a for a in diagnosis.repair_actions if a != "redraft"]
    text = f"no repair left for {key}: "
    text += f"already tried {', '.join(done)}; " if done else ""
    untried = [a for a in patches if a not in done]
    text += (f"{', '.join(untried)} changed nothing or repeated earlier code"
             if untried else "the rule table has no patch for it")
    if "redraft" in diagnosis.repair_actions and candidate.spec is None:
        text += "; code without a plan cannot be redrafted offline"
    return text


def _repair_records(run_id: str, path: Path, attempts: list[RepairAttempt],
                    codes: list[str]) -> list[RepairRecord]:
    """One record per repair: the failure it answered and whether that failure went away."""
    versions = library_versions()
    records = []
    for before, after, code_before, code_after in zip(attempts, attempts[1:], codes, codes[1:],
                                                      strict=False):
        if before.diagnosis is None or not after.repair_action:
            continue
        same = after.diagnosis is not None and \
            after.diagnosis.signature == before.diagnosis.signature
        records.append(RepairRecord(
            run_id=run_id, attempt=after.id, signature=before.diagnosis.signature,
            taxonomy=f"{before.diagnosis.taxonomy_class}.{before.diagnosis.subclass}",
            action=after.repair_action, fixed=not same, succeeded=after.diagnosis is None,
            diff="".join(difflib.unified_diff(code_before.splitlines(keepends=True),
                                              code_after.splitlines(keepends=True),
                                              f"{before.id}/{path.name}",
                                              f"{after.id}/{path.name}")),
            versions=versions))
    return records


def _copy_siblings(path: Path, workdir: Path) -> None:
    """A script reads its data relative to itself: give it its folder's files."""
    budget = COPY_LIMIT_BYTES
    for sibling in sorted(path.parent.iterdir()):
        if sibling.is_file() and sibling != path and sibling.stat().st_size <= budget:
            budget -= sibling.stat().st_size
            shutil.copy2(sibling, workdir / sibling.name)


def _write(path: Path, out: Path, mode: str, original: str, final: str,
           attempts: list[RepairAttempt], stop_reason: str) -> RepairReport:
    success = attempts[-1].diagnosis is None
    changed = final != original
    repaired_file = diff_file = None
    if changed:
        repaired_file, diff_file = out / path.name, out / f"{path.stem}.diff"
        repaired_file.write_text(final)
        diff_file.write_text("".join(difflib.unified_diff(
            original.splitlines(keepends=True), final.splitlines(keepends=True),
            f"a/{path.name}", f"b/{path.name}")))
    report = RepairReport(
        file=str(path), mode=mode,
        status="failed" if not success else "repaired" if changed else "already_working",
        final_success=success, rounds_used=len(attempts) - 1, stop_reason=stop_reason,
        attempts=attempts,
        repaired_file=str(repaired_file) if repaired_file else None,
        diff_file=str(diff_file) if diff_file else None)
    (out / "report.json").write_text(report.model_dump_json(indent=2))
    return report
