"""The Python API, doors only: run(), resume(), repair() and validate() (predict() and
build_graph() are re-exported by the package). What they share lives in pipesmith/core:
inputs.py (a run's inputs), run_folder.py (its folder), driver.py (its graph)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog

from pipesmith.core.driver import (  # noqa: F401  (the doors' errors, part of the API)
    Event,
    LLMRunError,
    OutOfSpace,
    RunInterrupted,
    default_deps,
    drive,
)
from pipesmith.core.inputs import load_table, new_run_id, resolve
from pipesmith.core.report import Report
from pipesmith.core.run_folder import (
    check_llm,
    check_out_dir,
    make_dirs,
    read_source,
    sandbox_for,
    start_run,
)
from pipesmith.errors import InputError
from pipesmith.settings import Settings

log = structlog.get_logger(__name__)


def run(*, dataset: str | None = None, data: str | Path | None = None,
        target: str | None = None, task: str | None = None, metric: str | None = None,
        budget_s: float | None = None, seed: int | None = None, out: str | Path | None = None,
        llm: str | None = None, task_text: str | None = None, settings: Settings | None = None,
        deps=None, on_event: Event | None = None,
        on_start: Callable[[Any], None] | None = None) -> Report:
    """Run the whole graph on a dataset; bad input raises InputError before anything is written.
    The budget's clock starts here: preparing the data counts. on_start(inputs): called with
    the resolved RunInputs (the task's words read) before the graph starts."""
    started = time.perf_counter()
    out, inputs, settings = start_run(
        dataset=dataset, data=data, target=target, task=task, metric=metric,
        budget_s=budget_s, seed=seed, out=out, llm=llm, task_text=task_text, settings=settings,
        deps=deps)
    if on_start is not None:
        on_start(inputs)
    return drive(out, {"inputs": inputs}, settings, deps, on_event, started)


def resume(run_dir: str | Path, *, deps=None, on_event: Event | None = None) -> Report:
    """Continue an interrupted run from its last checkpoint."""
    run_dir = Path(run_dir)
    saved = run_dir / "run.json"
    if not saved.exists():
        raise InputError(f"{run_dir} is not a pipesmith run directory (no run.json)")
    try:
        settings = Settings(**json.loads(saved.read_text())["settings"])
    except (OSError, ValueError) as exc:  # unreadable, not JSON, or not our settings
        raise InputError(f"cannot read {saved}: {str(exc).splitlines()[0][:200]}") from None
    return drive(run_dir, None, settings, deps, on_event)


def repair(file: str | Path, *, dataset: str | None = None, data: str | Path | None = None,
           target: str | None = None, task: str | None = None, metric: str | None = None,
           rounds: int = 3, out: str | Path | None = None, seed: int = 0,
           settings: Settings | None = None, sandbox=None, on_event: Event | None = None,
           budget_s: float | None = None, http_client=None):
    """Diagnose and repair a user's module or script with the graph's repair loop; returns
    the RepairReport. budget_s: seconds the loop may spend (default: every round may run to
    its time limit). With `settings.llm` "openai" the configured model writes the repairs
    (http_client: the one its client uses, as for `run`)."""
    from pipesmith.user_code.repair import repair_file

    settings = settings or Settings()
    file = Path(file)
    read_source(file)
    if rounds < 0:
        raise InputError("--rounds must be 0 or more")
    if budget_s is not None and budget_s <= 0:
        raise InputError("--budget must be a positive number of seconds")
    table = None if dataset is None and data is None else load_table(dataset, data, target)
    run_id = new_run_id(file.stem)
    out = Path(out) if out is not None else settings.runs_dir / f"repair-{run_id}"
    check_out_dir(out)
    config = check_llm(settings)  # LLM mode: the configured model writes the repairs
    inputs = tables = None
    if table is not None:
        inputs, tables = resolve(table, task, metric, settings, settings.budget_s, seed, out,
                                  run_id, f"repair {file.name}", test_part=False)
    sandbox = sandbox or sandbox_for(settings, None)
    make_dirs(out)
    if tables is not None:
        tables.write(out)
    kb = None
    if settings.use_kb:
        from pipesmith.knowledge_base.store import KnowledgeBase

        try:
            kb = KnowledgeBase.from_settings(settings)
        except OSError as exc:
            log.warning("kb.unavailable", path=str(settings.kb_dir), error=str(exc)[:200])
    session = None
    if config is not None:
        from pipesmith.agents.llm.session import LLMSession

        session = LLMSession.open(config, http_client=http_client)
    return repair_file(file.resolve(), out.resolve(), rounds, sandbox, inputs,
                       timeout_s=settings.run_timeout_s, on_event=on_event, kb=kb,
                       budget_s=budget_s, llm=session)


def validate(file: str | Path, *, dataset: str | None = None, data: str | Path | None = None,
             target: str | None = None, task: str | None = None, metric: str | None = None,
             seed: int = 0, settings: Settings | None = None, sandbox=None):
    """Static checks, and with data a smoke run and a resource prediction; nothing written."""
    from pipesmith.sandbox.owner import temporary_folder
    from pipesmith.user_code.validate import validate_file

    settings = settings or Settings()
    file = Path(file)
    read_source(file)
    history = past_executions(settings)
    table = None if dataset is None and data is None else load_table(dataset, data, target)
    sandbox = sandbox or sandbox_for(settings, None)
    if table is None:
        return validate_file(file, sandbox, None, history)
    with temporary_folder("validate") as out:
        inputs, tables = resolve(table, task, metric, settings, settings.budget_s, seed, out,
                                  "validate", f"validate {file.name}")
        tables.write(out)
        return validate_file(file, sandbox, inputs, history)


def past_executions(settings: Settings) -> list:
    """Past executions for the resource predictor; none when the store cannot be read."""
    if not settings.use_kb or not settings.kb_dir.exists():
        return []
    from pipesmith.knowledge_base.store import KnowledgeBase

    try:
        return KnowledgeBase(settings.kb_dir).executions()
    except OSError as exc:
        log.warning("kb.unavailable", path=str(settings.kb_dir), error=str(exc)[:200])
        return []
