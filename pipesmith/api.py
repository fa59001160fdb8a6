"""The Python API: run() and resume(), each returning the Report."""

from __future__ import annotations

import errno
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import structlog

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

from pipesmith.agents.families.backends import check_backend
from pipesmith.core.datasets import (
    Table,
    check_metric,
    check_table,
    infer_metric,
    infer_task_type,
    load_bundled,
    load_file,
    prepare,
)
from pipesmith.core.model_io import write_schema
from pipesmith.core.referee import (
    DEV_FILE,
    TEST_FILE,
    TEST_FOLDER,
    choose_folds,
    save_split,
    split_positions,
)
from pipesmith.core.report import Report, load_report
from pipesmith.errors import InputError
from pipesmith.runtime import run_lock
from pipesmith.settings import Settings

log = structlog.get_logger(__name__)
Event = Callable[[dict[str, Any]], None]
LLM_MODES = ("offline", "openai")


class LLMRunError(RuntimeError):
    """A model call failed mid-run (no --fallback); the run is checkpointed in run_dir."""

    def __init__(self, run_dir: Path, reason: str) -> None:
        super().__init__(f"LLM call failed: {reason}")
        self.run_dir = run_dir


def llm_config(settings: Settings):
    """The checked LLM configuration of LLM-mode settings; InputError says what is wrong."""
    from pipesmith.agents.llm.config import from_settings

    try:
        return from_settings(settings)
    except ValueError as exc:
        raise InputError(str(exc)) from None


class RunInterrupted(KeyboardInterrupt):
    """The run was interrupted (SIGINT, or SIGTERM: `signum`); its last checkpoint is in
    run_dir, ready for resume(), and nothing of its sandbox jobs is left running."""

    def __init__(self, run_dir: Path, signum: int = 2) -> None:
        super().__init__(f"run interrupted; resume it from {run_dir}")
        self.run_dir = run_dir
        self.signum = signum


class OutOfSpace(RuntimeError):
    """The disk under the run directory is full; the last checkpoint is intact, and the run
    resumes once space is freed."""

    def __init__(self, run_dir: Path, reason: str) -> None:
        super().__init__(f"no space left on the disk of {run_dir} ({reason})")
        self.run_dir = run_dir


NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


def default_deps(settings: Settings, sandbox=None, kb=None, http_client=None):
    """The offline agents (or, with settings.llm == "openai", the LLM agents over them),
    the configured sandbox (local by default) and the embedded knowledge base.
    http_client: an httpx.Client for the model calls (tests and benchmarks measure the
    round trip with it)."""
    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.diagnostician.agent import Diagnostician
    from pipesmith.agents.ensembler.agent import Ensembler
    from pipesmith.agents.executor import Executor
    from pipesmith.agents.planner.agent import Planner
    from pipesmith.agents.prevalidator.agent import Prevalidator
    from pipesmith.graph.context import Deps
    from pipesmith.graph.topologies import get_topology
    from pipesmith.knowledge_base.store import KnowledgeBase
    from pipesmith.sandbox.factory import sandbox_from_settings

    if kb is None and settings.use_kb and get_topology(settings.topology).uses_kb:
        try:
            kb = KnowledgeBase.from_settings(settings)
        except OSError as exc:  # degrade: run without it, and say so
            log.warning("kb.unavailable", path=str(settings.kb_dir), error=str(exc)[:200],
                        effect="this run neither reads nor records the knowledge base")
    sandbox = sandbox or sandbox_from_settings(settings)
    coder = Coder()
    if settings.fault_rate > 0:
        from pipesmith.agents.coder.faults import FaultInjectingCoder

        coder = FaultInjectingCoder(coder, settings.fault_rate, settings.seed,
                                    network_isolated=getattr(sandbox, "isolate_network", False),
                                    every_generation=settings.fault_model == "every_generation")
    planner, diagnostician, session = Planner(), Diagnostician(), None
    if settings.llm == "openai":
        from pipesmith.agents.llm.session import LLMSession

        session = LLMSession.open(llm_config(settings), http_client=http_client)
        planner, coder, diagnostician = session.agents(planner, coder, diagnostician)
    return Deps(planner=planner, coder=coder, prevalidator=Prevalidator(),
                executor=Executor(sandbox), diagnostician=diagnostician,
                ensembler=Ensembler(), kb=kb, topology=settings.topology, llm=session,
                settings=settings)


def _load(dataset: str | None, data: str | Path | None, target: str | None) -> Table:
    if (dataset is None) == (data is None):
        raise InputError("give exactly one of --dataset NAME or --data PATH")
    if dataset is not None:
        table = load_bundled(dataset)
        return table if target is None else Table(table.frame, target, table.source)
    return load_file(data, target)


def _resolve(table: Table, task: str | None, metric: str | None, settings: Settings,
             budget_s: float, seed: int, out: Path, run_id: str, task_text: str | None,
             test_part: bool = True):
    """The run's inputs and its tables. test_part=False (`pipesmith repair`, which refits
    nothing and scores no test part): every row is development, and nothing is split off."""
    import numpy as np

    from pipesmith.agents.schemas import RunInputs

    inferred = []
    if task is None:
        y = table.frame[table.target] if table.target in table.frame.columns else None
        task = infer_task_type(y)
        inferred.append("task_type")
    check_table(table, task)
    target = table.target if task != "clustering" or table.target in table.frame else None
    if metric is None:
        metric = infer_metric(task, table.frame[target] if target else None)
        inferred.append("metric")
    check_metric(task, metric)
    if budget_s <= 0:
        raise InputError("--budget must be a positive number of seconds")
    frame = prepare(table, task)
    dev_rows, test_rows = split_positions(frame, target, task, seed, settings.test_size) \
        if test_part else (np.arange(len(frame)), np.arange(0))
    dev_targets = frame[target].iloc[dev_rows] if target else None
    min_class = int(dev_targets.value_counts().min()) if task == "classification" else None
    inputs = RunInputs(
        run_id=run_id,
        task_text=task_text or f"{task} of {target or 'clusters'} on {table.source}",
        dataset=table.source, data_path=str((out / DEV_FILE).resolve()),
        test_path=str((out / TEST_FOLDER / TEST_FILE).resolve()) if test_part else "",
        target=target,
        task_type=task, metric=metric, inferred=inferred, budget_s=budget_s, seed=seed,
        out_dir=str(out.resolve()), max_candidates=candidate_cap(settings),
        max_repair_rounds=settings.max_repair_rounds, run_timeout_s=settings.run_timeout_s,
        n_jobs=settings.n_jobs, test_size=settings.test_size, memory_mb=settings.memory_mb,
        disk_mb=settings.disk_mb,
        cv_folds=choose_folds(len(dev_rows), budget_s, settings.cv_folds, min_class),
        fault_rate=settings.fault_rate,
        smoke_rows=settings.smoke_rows, backend=settings.backend,
        search_share=settings.search_share,
        rows_dropped_missing_target=len(table.frame) - len(frame),
        llm=settings.llm, llm_model=settings.llm_model if settings.llm != "offline" else None,
        max_tokens_total=settings.max_tokens_total, max_cost=settings.max_cost,
    )
    return inputs, Tables(frame, dev_rows, test_rows)


class Tables(NamedTuple):
    """The prepared table and the rows of the referee's development and test parts."""

    frame: pd.DataFrame
    dev_rows: np.ndarray
    test_rows: np.ndarray

    @property
    def dev(self) -> pd.DataFrame:
        return self.frame.iloc[self.dev_rows].reset_index(drop=True)

    def write(self, out: Path) -> None:
        """data.parquet (the whole prepared table, for pipeline.py), development.parquet
        (what agents profile and folds are cut from) and referee/ (the test part)."""
        self.frame.to_parquet(out / "data.parquet", index=False)
        save_split(out, self.frame, self.dev_rows, self.test_rows)


def candidate_cap(settings: Settings) -> int:
    """The settings' candidate limit, capped by the topology's own (single-pass: one)."""
    from pipesmith.graph.topologies import TOPOLOGIES

    if settings.topology not in TOPOLOGIES:
        raise InputError(f"unknown topology {settings.topology!r}; known: "
                         + ", ".join(TOPOLOGIES))
    cap = TOPOLOGIES[settings.topology].max_candidates
    return settings.max_candidates if cap is None else min(cap, settings.max_candidates)


def prepare_inputs(folder: Path, *, dataset: str | None = None, data: str | Path | None = None,
                   target: str | None = None, task: str | None = None,
                   metric: str | None = None, seed: int = 0, settings: Settings | None = None):
    """RunInputs and the prepared table, written to folder/data.parquet: what a run's graph
    starts from, for benchmarks and tools that drive the agents directly."""
    settings = settings or Settings()
    table = _load(dataset, data, target)
    folder.mkdir(parents=True, exist_ok=True)
    inputs, tables = _resolve(table, task, metric, settings, settings.budget_s, seed, folder,
                              new_run_id(table.source), None)
    tables.write(folder)
    write_schema(folder, tables.frame, inputs.target, inputs.task_type)
    return inputs, tables.dev


def check_out_dir(out: Path, what: str = "output directory") -> None:
    """InputError unless `out` is (or can be made) an empty, writable directory; nothing
    is created here."""
    if out.exists():
        if not out.is_dir():
            raise InputError(f"{what} {out} is a file")
        if any(out.iterdir()):
            raise InputError(f"{what} {out} is not empty")
        if not os.access(out, os.W_OK | os.X_OK):
            raise InputError(f"{what} {out} is not writable")
        return
    parent = out.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"cannot create {what} {out}: {parent} is a file")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"cannot create {what} {out}: {parent} is not writable")


def read_source(file: Path) -> str:
    """The text of a user's Python file; InputError if it is missing, unreadable or not
    UTF-8 (before anything is written)."""
    if not file.is_file():
        raise InputError(f"file not found: {file}")
    try:
        return file.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{file} is not UTF-8 text (byte {exc.start}): "
                         "save it as UTF-8") from None
    except OSError as exc:
        raise InputError(f"cannot read {file}: {exc.strerror or exc}") from None


def _make_dirs(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create output directory {out}: {exc.strerror or exc}") from None


def _sandbox(settings: Settings, deps):
    """The run's sandbox, built before anything is written: without bubblewrap the local
    backend refuses here (one line, exit 2)."""
    from pipesmith.sandbox.factory import sandbox_from_settings

    return None if deps is not None else sandbox_from_settings(settings)


def new_run_id(source: str) -> str:
    stem = Path(source).stem.replace(" ", "_")[:24]
    return f"{datetime.now():%Y%m%d-%H%M%S}-{stem}-{secrets.token_hex(2)}"


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
    return _drive(out, {"inputs": inputs}, settings, deps, on_event, started)


class Asked(NamedTuple):
    """A run's request once the task's words are read (explicit options win) and the
    dropped columns are taken off the table."""

    table: Table
    task: str | None
    metric: str | None
    budget_s: float | None
    drop_columns: list[str]
    families: list[str]
    target_from_words: bool  # the words named the target: the CLI says which column it took


def _from_words(table: Table, task_text: str | None, task, metric, budget_s, drops,
                families) -> Asked:
    """What the task in words asks for (explicit options win). The target comes from the
    words only for a data file without --target (InputError naming the columns when they do
    not say); metric, budget, drops and families whenever there are words."""
    from pipesmith.chat.task_text import parse_request

    columns = list(table.frame.columns)
    needs_target = table.target is None and task != "clustering"
    named = ", ".join(map(str, columns[:20])) + (" ..." if len(columns) > 20 else "")
    if not task_text:
        if needs_target:
            raise InputError("--data needs --target COLUMN, a task in words (e.g. \"predict "
                             f"{columns[-1]}\") or --task clustering; columns: {named}")
        return Asked(table, task, metric, budget_s, list(drops or []), list(families or []),
                     False)
    asked = parse_request(task_text, columns)
    task = task or asked.task_type
    target = table.target
    if needs_target and task != "clustering":
        if asked.target is None:
            raise InputError(f"cannot tell which column to predict from {task_text!r}; "
                             f"name one of: {named}")
        target = asked.target
    drops = drops or [c for c in asked.drop_columns if c != target]
    return Asked(Table(table.frame, target if task != "clustering" else None, table.source),
                 task, metric or asked.metric,
                 budget_s if budget_s is not None else asked.budget_s, list(drops),
                 list(families or asked.families), needs_target and target is not None)


def read_request(*, dataset: str | None = None, data: str | Path | None = None,
                 target: str | None = None, task: str | None = None,
                 metric: str | None = None, budget_s: float | None = None,
                 task_text: str | None = None, drop_columns: list[str] | None = None,
                 families: list[str] | None = None) -> Asked:
    """The table and what is asked of it, words read and drops applied; nothing written."""
    table = _load(dataset, data, target)
    asked = _from_words(table, task_text, task, metric, budget_s, drop_columns, families)
    if asked.drop_columns:
        frame = asked.table.frame
        missing = [c for c in asked.drop_columns if c not in frame.columns]
        if missing:
            raise InputError(f"no column named {', '.join(missing)} to drop; columns: "
                             + ", ".join(list(frame.columns)[:20]))
        asked = asked._replace(table=Table(frame.drop(columns=asked.drop_columns),
                                           asked.table.target, asked.table.source))
    return asked


def start_run(*, dataset: str | None = None, data: str | Path | None = None,
              target: str | None = None, task: str | None = None, metric: str | None = None,
              budget_s: float | None = None, seed: int | None = None,
              out: str | Path | None = None, llm: str | None = None,
              task_text: str | None = None, drop_columns: list[str] | None = None,
              families: list[str] | None = None, settings: Settings | None = None,
              deps=None):
    """Check the request and write the run directory (the prepared table and run.json):
    (out, RunInputs, settings), ready for the graph. InputError before anything is written."""
    settings = settings or Settings()
    if not 0.0 <= settings.fault_rate <= 1.0:
        raise InputError("--fault-rate must be between 0 and 1")
    if llm is not None and llm != settings.llm:
        settings = settings.model_copy(update={"llm": llm})
    if settings.llm not in LLM_MODES:
        raise InputError(f"--llm {settings.llm!r} is not available yet; use one of "
                         f"{', '.join(LLM_MODES)}")
    if settings.llm != "offline":
        llm_config(settings)  # bad model settings fail here, before anything is written
    check_backend(settings.backend)
    asked = read_request(dataset=dataset, data=data, target=target, task=task, metric=metric,
                         budget_s=budget_s, task_text=task_text, drop_columns=drop_columns,
                         families=families)
    table, task, metric, budget_s = asked.table, asked.task, asked.metric, asked.budget_s
    drop_columns, families = asked.drop_columns, asked.families
    run_id = new_run_id(table.source)
    out = Path(out) if out is not None else settings.runs_dir / run_id
    check_out_dir(out)
    inputs, tables = _resolve(table, task, metric, settings,
                              settings.budget_s if budget_s is None else budget_s,
                              settings.seed if seed is None else seed, out, run_id, task_text)
    inputs = inputs.model_copy(update={
        "dropped_columns": list(drop_columns or []), "families": list(families or []),
        "inferred": inputs.inferred + (["target"] if asked.target_from_words else [])})
    _sandbox(settings, deps)  # without bubblewrap: refused here, before anything is written
    _make_dirs(out)
    with run_lock.held(out):  # another run given the same --out at the same moment stops here
        if run_lock.others(out):
            raise InputError(f"output directory {out} is not empty")
        tables.write(out)
        write_schema(out, tables.frame, inputs.target, inputs.task_type)
        (out / "run.json").write_text(json.dumps({
            "inputs": inputs.model_dump(),
            "settings": json.loads(settings.model_dump_json()),
        }, indent=2))
    log.info("run.start", run_id=run_id, out=str(out))
    return out, inputs, settings


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
    return _drive(run_dir, None, settings, deps, on_event)


def _drive(out: Path, graph_input, settings: Settings, deps, on_event: Event | None,
           started: float | None = None) -> Report:
    result = advance(out, graph_input, settings=settings, deps=deps, on_event=on_event,
                     started=started)
    if not isinstance(result, Report):
        raise RuntimeError(f"the run is waiting for its plan to be approved: {out}")
    return result


def advance(out: Path, graph_input, *, settings: Settings | None = None, deps=None,
            on_event: Event | None = None, started: float | None = None) -> Report | dict:
    """Run the graph of the run in `out` until it ends (the Report) or stops for plan
    approval (the plan, as the interrupt's payload: graph/approval.py).
    graph_input: {"inputs": ..., "approve_plan": bool} to start, None to resume after an
    interruption, or Command(resume=answer) to answer the plan.
    Whatever the sandbox creates is tagged with the run; SIGTERM stops it like Ctrl-C.
    started: time.perf_counter() when the person asked (default: now); the time until the
    first node and between nodes counts against the budget (graph/clock.py)."""
    from pipesmith.graph.clock import RunClock
    from pipesmith.runtime.signals import sigterm_as_interrupt
    from pipesmith.sandbox.local import stop_all
    from pipesmith.sandbox.owner import run_scope

    saved = json.loads((out / "run.json").read_text())
    settings = settings or Settings(**saved["settings"])
    deps = deps or default_deps(settings, sandbox=_sandbox(settings, None))
    if hasattr(deps, "clock"):  # afresh on each drive: a wait for approval is not counted
        deps.clock = RunClock(started)
    run_id = saved["inputs"]["run_id"]
    with run_lock.held(out), run_scope(run_id), sigterm_as_interrupt():
        try:
            return _stream(out, run_id, graph_input, deps, on_event)
        except KeyboardInterrupt as exc:
            raise RunInterrupted(out, getattr(exc, "signum", 2)) from exc
        except (OSError, sqlite3.OperationalError) as exc:
            if getattr(exc, "errno", None) in NO_SPACE or "disk is full" in str(exc):
                raise OutOfSpace(out, str(exc)[:200]) from exc
            raise
        finally:
            stop_all()  # jobs another thread was running when the run stopped


def _stream(out: Path, run_id: str, graph_input, deps, on_event: Event | None) -> Report | dict:
    from langgraph.checkpoint.sqlite import SqliteSaver

    from pipesmith.graph.builder import build_graph
    from pipesmith.graph.serde import serializer

    config = {"configurable": {"thread_id": run_id}}
    with closing(sqlite3.connect(out / "checkpoints.sqlite", check_same_thread=False)) as conn:
        graph = build_graph(deps.topology, checkpointer=SqliteSaver(conn, serde=serializer()),
                            approval=True)
        saved = graph.get_state(config)
        if graph_input is None and not saved.values:
            graph_input = _first_input(out)  # stopped before its first checkpoint
        elif graph_input is None and not (saved.next or saved.tasks):  # (tasks: done, unsaved)
            if (out / "report.json").exists():
                _ensure_remembered(deps, graph.get_state(config).values)
                return load_report(out / "report.json")
            raise InputError(f"{out} has no checkpoint to resume from")
        if deps.llm is not None and not isinstance(graph_input, dict):  # count what was spent
            deps.llm.ledger.prime(graph.get_state(config).values.get("llm_usage") or {})
        try:
            for part in graph.stream(graph_input, config, context=deps, stream_mode="tasks",
                                     durability="sync"):
                if on_event is not None:
                    on_event(part)
        except Exception as exc:
            from pipesmith.agents.llm.gateway import LLMError

            if isinstance(exc, LLMError):
                raise LLMRunError(out, str(exc)) from exc
            raise
        state = graph.get_state(config)
    waiting = [i.value for task in state.tasks for i in task.interrupts]
    if waiting:
        return waiting[0]
    if state.next or not (out / "report.json").exists():
        raise RuntimeError(f"the run stopped before writing its report; resume it: {out}")
    _ensure_remembered(deps, state.values)
    return load_report(out / "report.json")


def _first_input(out: Path) -> dict:
    """The graph's input, from run.json, for a run that never saved a checkpoint (stopped
    at once by a full disk or a signal)."""
    from pipesmith.agents.schemas import RunInputs

    return {"inputs": RunInputs(**json.loads((out / "run.json").read_text())["inputs"])}


def _ensure_remembered(deps, state) -> None:
    """A finished run whose topology remembers is in the knowledge base: a run killed
    between its report and the write, or whose write failed, is recorded now (writes are
    idempotent). A knowledge base that cannot be written costs one warning, not the run."""
    from pipesmith.graph.nodes import record_run
    from pipesmith.graph.topologies import get_topology

    if deps.kb is None or not get_topology(deps.topology).remember or not state.get("report_path"):
        return
    try:
        if deps.kb.get(state["inputs"].run_id) is None:
            record_run(deps.kb, state)
    except OSError as exc:
        log.warning("kb.not_recorded", path=str(deps.kb.path),
                    reason=exc.strerror or str(exc)[:200],
                    effect="the run succeeded; it is not in the knowledge base")


def repair(file: str | Path, *, dataset: str | None = None, data: str | Path | None = None,
           target: str | None = None, task: str | None = None, metric: str | None = None,
           rounds: int = 3, out: str | Path | None = None, seed: int = 0,
           settings: Settings | None = None, sandbox=None, on_event: Event | None = None,
           budget_s: float | None = None):
    """Diagnose and repair a user's module or script with the graph's repair loop; returns
    the RepairReport. budget_s: seconds the loop may spend (default: every round may run to
    its time limit)."""
    from pipesmith.user_code.repair import repair_file

    settings = settings or Settings()
    file = Path(file)
    read_source(file)
    if rounds < 0:
        raise InputError("--rounds must be 0 or more")
    if budget_s is not None and budget_s <= 0:
        raise InputError("--budget must be a positive number of seconds")
    table = None if dataset is None and data is None else _load(dataset, data, target)
    run_id = new_run_id(file.stem)
    out = Path(out) if out is not None else settings.runs_dir / f"repair-{run_id}"
    check_out_dir(out)
    inputs = tables = None
    if table is not None:
        inputs, tables = _resolve(table, task, metric, settings, settings.budget_s, seed, out,
                                  run_id, f"repair {file.name}", test_part=False)
    sandbox = sandbox or _sandbox(settings, None)
    _make_dirs(out)
    if tables is not None:
        tables.write(out)
    kb = None
    if settings.use_kb:
        from pipesmith.knowledge_base.store import KnowledgeBase

        try:
            kb = KnowledgeBase.from_settings(settings)
        except OSError as exc:
            log.warning("kb.unavailable", path=str(settings.kb_dir), error=str(exc)[:200])
    return repair_file(file.resolve(), out.resolve(), rounds, sandbox, inputs,
                       timeout_s=settings.run_timeout_s, on_event=on_event, kb=kb,
                       budget_s=budget_s)


def validate(file: str | Path, *, dataset: str | None = None, data: str | Path | None = None,
             target: str | None = None, task: str | None = None, metric: str | None = None,
             seed: int = 0, settings: Settings | None = None, sandbox=None):
    """Static checks, and with data a smoke run and a resource prediction; nothing written."""
    from pipesmith.sandbox.owner import temporary_folder
    from pipesmith.user_code.validate import validate_file

    settings = settings or Settings()
    file = Path(file)
    read_source(file)
    history = _history(settings)
    table = None if dataset is None and data is None else _load(dataset, data, target)
    sandbox = sandbox or _sandbox(settings, None)
    if table is None:
        return validate_file(file, sandbox, None, history)
    with temporary_folder("validate") as out:
        inputs, tables = _resolve(table, task, metric, settings, settings.budget_s, seed, out,
                                  "validate", f"validate {file.name}")
        tables.write(out)
        return validate_file(file, sandbox, inputs, history)


def _history(settings: Settings) -> list:
    """Past executions for the resource predictor; none when the store cannot be read."""
    if not settings.use_kb or not settings.kb_dir.exists():
        return []
    from pipesmith.knowledge_base.store import KnowledgeBase

    try:
        return KnowledgeBase(settings.kb_dir).executions()
    except OSError as exc:
        log.warning("kb.unavailable", path=str(settings.kb_dir), error=str(exc)[:200])
        return []
