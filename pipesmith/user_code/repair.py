"""`pipesmith repair FILE`: the run graph's own diagnose-repair loop on code the user brings.

FILE is either a candidate module (defines build_pipeline(task); the harness scores it
on the given data) or a plain training script (success means it exits 0 within the
limits). This module holds no loop of its own: it builds the loop's first state (the file
as the current candidate) and invokes graph/builder.py's build_repair_graph, whose nodes
check, run, diagnose and repair it with the offline agents and whose routing functions
decide each next step, as in a run. The output directory gets the repaired file, a unified
diff against the original, report.json (with why the loop stopped) and every attempt's code
and logs.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.agents.executor import PARALLEL_FOLDS, Executor
from pipesmith.agents.llm.gateway import LLMError
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.prevalidator.agent import Prevalidator
from pipesmith.agents.schemas import Attempt, Candidate, Diagnosis, Plan, RunInputs
from pipesmith.core.llm_report import LLMSummary, llm_summary
from pipesmith.core.referee import fold_rounds
from pipesmith.core.versions import library_versions
from pipesmith.errors import InputError
from pipesmith.graph.budget import RESERVE_SHARE
from pipesmith.knowledge_base.records import RepairRecord
from pipesmith.sandbox.base import Sandbox


class RepairAttempt(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    status: str
    repair_action: str | None
    parent: str | None = None  # the attempt this one repairs
    diagnosis: Diagnosis | None
    score: float | None = None
    wall_s: float = 0.0
    repair_notes: list[str] = []  # what the repair lost ("dropped keyword X: ...")


class RepairReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    file: str
    mode: Literal["module", "script"]
    # "repaired", "partial" (it runs, but a repair dropped something: `notes` says what),
    # "already_working" or "failed"
    status: str
    final_success: bool
    rounds_used: int
    stop_reason: str  # why the loop stopped, in words
    attempts: list[RepairAttempt]
    repaired_file: str | None
    diff_file: str | None
    notes: list[str] = []  # what the repairs behind the final code lost; non-empty: partial
    llm: LLMSummary | None = None  # LLM mode: the model, its calls and tokens


def is_module(code: str) -> bool:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return "def build_pipeline" in code
    return any(isinstance(n, ast.FunctionDef) and n.name == "build_pipeline" for n in tree.body)


def repair_file(path: Path, out: Path, rounds: int, sandbox: Sandbox,
                inputs: RunInputs | None, timeout_s: float = 120.0,
                on_event: Callable[[dict[str, Any]], None] | None = None,
                kb=None, budget_s: float | None = None, llm=None) -> RepairReport:
    """Run the graph's diagnose -> repair loop (graph/builder.py: build_repair_graph) on the
    file, then write what it did. With a knowledge base `kb`, past fixes of each error
    signature go first (best fix rate first) and every repair made here is recorded for the
    next time. budget_s: seconds the loop may spend in all; by default every round may run
    to its time limit. llm: an LLMSession (LLM mode): the model writes the repairs and
    explains the diagnoses, as in a run's LLM mode."""
    if not path.is_file():
        raise InputError(f"file not found: {path}")
    original = path.read_text()
    mode = "module" if is_module(original) else "script"
    if mode == "module" and inputs is None:
        raise InputError("a build_pipeline module needs data: pass --dataset or --data/--target")
    if budget_s is not None and budget_s <= 0:
        raise InputError("--budget must be a positive number of seconds")
    from pipesmith.graph.nodes import save_code

    state = _first_state(path, out, mode, original, rounds, inputs, timeout_s, budget_s)
    save_code(state, state["current"])  # as a run keeps its drafts' code
    final = _run_loop(state, sandbox, kb, rounds, on_event, llm)
    order = sorted(final["attempts"], key=lambda i: int(i.lstrip("a")))
    attempts = [_summary(final["attempts"][i]) for i in order]
    codes = [final["candidates"][i].code for i in order]
    if kb is not None:
        kb.add_repairs(_repair_records(out.name, path, attempts, codes))
    return _write(path, out, mode, original, codes[-1], attempts, final["stop_reason"],
                  llm_summary(final, llm.describe() if llm is not None else None))


def loop_budget_s(rounds: int, timeout_s: float, mode: str, cv_folds: int,
                  n_jobs: int) -> float:
    """With no budget given: what every round running to its time limit would take (a
    module's fold jobs run up to PARALLEL_FOLDS at a time, no more than n_jobs), plus the
    routing's reserve."""
    at_once = max(1, min(PARALLEL_FOLDS, n_jobs))
    per_round = timeout_s * (fold_rounds(cv_folds, at_once) if mode == "module" else 1)
    return (rounds + 1) * per_round / (1 - RESERVE_SHARE)


def _first_state(path: Path, out: Path, mode: str, code: str, rounds: int,
                 inputs: RunInputs | None, timeout_s: float, budget_s: float | None) -> dict:
    """The loop's input: the file as the current candidate, the run's inputs with the round
    limit, time limit and budget, and with data its profile. A script brought without data
    gets inputs that name no data (no node reads it: a script runs as it is)."""
    profile = None
    if inputs is not None:
        import pandas as pd

        frame = pd.read_parquet(inputs.data_path)
        profile = profile_table(frame, inputs.target, inputs.task_type)
    else:
        inputs = RunInputs(run_id=out.name, task_text=f"repair {path.name}", dataset=str(path),
                           data_path="", target=None, task_type="classification",
                           metric="none", out_dir=str(out))
    budget = budget_s or loop_budget_s(rounds, timeout_s, mode, inputs.cv_folds,
                                       inputs.n_jobs)
    inputs = inputs.model_copy(update={"max_repair_rounds": rounds, "run_timeout_s": timeout_s,
                                       "budget_s": budget})
    candidate = Candidate(id="a1", name=path.stem, phase="draft", code=code,
                          script=str(path) if mode == "script" else None)
    state = {"inputs": inputs, "current": candidate, "candidates": {"a1": candidate},
             "plan": Plan(candidates=[])}
    return state | ({"profile": profile} if profile is not None else {})


def _run_loop(state: dict, sandbox: Sandbox, kb, rounds: int,
              on_event: Callable[[dict[str, Any]], None] | None, llm=None) -> dict:
    """Invoke the compiled loop with the offline agents, or in LLM mode the session's over
    them; each attempt is reported once it is settled (it worked, or it has its
    diagnosis)."""
    from pipesmith.agents.ensembler.agent import Ensembler
    from pipesmith.agents.planner.agent import Planner
    from pipesmith.graph.builder import build_repair_graph
    from pipesmith.graph.context import Deps

    planner, coder, diagnostician = Planner(), Coder(), Diagnostician()
    if llm is not None:
        planner, coder, diagnostician = llm.agents(planner, coder, diagnostician)
    deps = Deps(planner=planner, coder=coder, prevalidator=Prevalidator(),
                executor=Executor(sandbox), diagnostician=diagnostician,
                ensembler=Ensembler(), kb=kb, topology="repair", llm=llm)
    config = {"recursion_limit": 10 + 5 * (rounds + 1)}  # 4 nodes a round, and the end
    told: set[str] = set()
    final: dict = state
    try:
        for final in build_repair_graph().stream(state, config, context=deps,
                                                 stream_mode="values"):
            for key, attempt in (final.get("attempts") or {}).items():
                if key not in told and (attempt.diagnosis is not None or attempt.succeeded):
                    told.add(key)
                    if on_event:
                        on_event({"name": "repair", "attempt": _summary(attempt)})
    except LLMError as exc:  # the model's endpoint failed: keep what was done, say why
        return final | {"stop_reason": f"the model failed: {exc}"}
    return final


def _summary(attempt: Attempt) -> RepairAttempt:
    return RepairAttempt(id=attempt.id, status=attempt.status, diagnosis=attempt.diagnosis,
                         parent=attempt.parent,
                         repair_action=attempt.repair_action, score=attempt.score,
                         wall_s=attempt.wall_s, repair_notes=attempt.repair_notes)


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


def lineage_notes(attempts: list[RepairAttempt]) -> list[str]:
    """What the repairs the final code descends from lost (a redraft starts afresh)."""
    by_id = {a.id: a for a in attempts}
    chain, at = [], attempts[-1] if attempts else None
    while at is not None:
        chain.append(at)
        at = by_id.get(at.parent) if at.parent and at.repair_action != "redraft" else None
    return [note for a in reversed(chain) for note in a.repair_notes]


def _write(path: Path, out: Path, mode: str, original: str, final: str,
           attempts: list[RepairAttempt], stop_reason: str,
           llm: LLMSummary | None = None) -> RepairReport:
    # (an attempt the loop stopped on before diagnosing it, when the model failed, is no
    # success: it must have run)
    success = attempts[-1].diagnosis is None and attempts[-1].status == "ok"
    changed = final != original
    notes = lineage_notes(attempts)
    repaired_file = diff_file = None
    if changed:
        repaired_file, diff_file = out / path.name, out / f"{path.stem}.diff"
        repaired_file.write_text(final)
        diff_file.write_text("".join(difflib.unified_diff(
            original.splitlines(keepends=True), final.splitlines(keepends=True),
            f"a/{path.name}", f"b/{path.name}")))
    report = RepairReport(
        file=str(path), mode=mode,
        status="failed" if not success else "already_working" if not changed
        else "partial" if notes else "repaired", notes=notes,
        final_success=success, rounds_used=len(attempts) - 1, stop_reason=stop_reason,
        attempts=attempts,
        repaired_file=str(repaired_file) if repaired_file else None,
        diff_file=str(diff_file) if diff_file else None, llm=llm)
    (out / "report.json").write_text(report.model_dump_json(indent=2))
    return report
