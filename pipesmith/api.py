"""The Python API: run() and resume(), each returning the Report."""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Callable
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import structlog

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

from pipesmith.agents.backends import check_backend
from pipesmith.datasets import (
    Table,
    check_metric,
    check_table,
    infer_metric,
    infer_task_type,
    load_bundled,
    load_file,
    prepare,
)
from pipesmith.errors import InputError
from pipesmith.model_io import write_schema
from pipesmith.referee import (
    DEV_FILE,
    TEST_FILE,
    TEST_FOLDER,
    choose_folds,
    save_split,
    split_positions,
)
from pipesmith.report import Report, load_report
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
    """The run was interrupted; its last checkpoint is in run_dir, ready for resume()."""

    def __init__(self, run_dir: Path) -> None:
        super().__init__(f"run interrupted; resume it from {run_dir}")
        self.run_dir = run_dir


def default_deps(settings: Settings, sandbox=None, kb=None, http_client=None):
    """The offline agents (or, with settings.llm == "openai", the LLM agents over them),
    the configured sandbox (local by default) and the embedded knowledge base.
    http_client: an httpx.Client for the model calls (tests and benchmarks measure the
    round trip with it)."""
    from pipesmith.agents.coder import Coder
    from pipesmith.agents.diagnostician import Diagnostician
    from pipesmith.agents.ensembler import Ensembler
    from pipesmith.agents.executor import Executor
    from pipesmith.agents.planner import Planner
    from pipesmith.agents.prevalidator import Prevalidator
    from pipesmith.graph.context import Deps
    from pipesmith.graph.topologies import get_topology
    from pipesmith.knowledge_base.store import KnowledgeBase
    from pipesmith.sandbox.factory import sandbox_from_settings

    if kb is None and settings.use_kb and get_topology(settings.topology).uses_kb:
        kb = KnowledgeBase.from_settings(settings)
    sandbox = sandbox or sandbox_from_settings(settings)
    coder = Coder()
    if settings.fault_rate > 0:
        from pipesmith.agents.faults import FaultInjectingCoder

        coder = FaultInjectingCoder(coder, settings.fault_rate, settings.seed,
                                    network_isolated=getattr(sandbox, "isolate_network", False))
    planner, diagnostician, session = Planner(), Diagnostician(), None
    if settings.llm == "openai":
        from pipesmith.agents.llm.session import LLMSession

        session = LLMSession.open(llm_config(settings), http_client=http_client)
        planner, coder, diagnostician = session.agents(planner, coder, diagnostician)
    return Deps(planner=planner, coder=coder, prevalidator=Prevalidator(),
                executor=Executor(sandbox), diagnostician=diagnostician,
                ensembler=Ensembler(), kb=kb, topology=settings.topology, llm=session)


def _load(dataset: str | None, data: str | Path | None, target: str | None) -> Table:
    if (dataset is None) == (data is None):
        raise InputError("give exactly one of --dataset NAME or --data PATH")
    if dataset is not None:
        table = load_bundled(dataset)
        return table if target is None else Table(table.frame, target, table.source)
    return load_file(data, target)


def _resolve(table: Table, task: str | None, metric: str | None, settings: Settings,
             budget_s: float, seed: int, out: Path, run_id: str, task_text: str | None):
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
    dev_rows, test_rows = split_positions(frame, target, task, seed, settings.test_size)
    dev_targets = frame[target].iloc[dev_rows] if target else None
    min_class = int(dev_targets.value_counts().min()) if task == "classification" else None
    inputs = RunInputs(
        run_id=run_id,
        task_text=task_text or f"{task} of {target or 'clusters'} on {table.source}",
        dataset=table.source, data_path=str((out / DEV_FILE).resolve()),
        test_path=str((out / TEST_FOLDER / TEST_FILE).resolve()), target=target,
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


def new_run_id(source: str) -> str:
    stem = Path(source).stem.replace(" ", "_")[:24]
    return f"{datetime.now():%Y%m%d-%H%M%S}-{stem}-{secrets.token_hex(2)}"


def run(*, dataset: str | None = None, data: str | Path | None = None,
        target: str | None = None, task: str | None = None, metric: str | None = None,
        budget_s: float | None = None, seed: int | None = None, out: str | Path | None = None,
        llm: str | None = None, task_text: str | None = None, settings: Settings | None = None,
        deps=None, on_event: Event | None = None) -> Report:
    """Run the whole graph on a dataset; bad input raises InputError before anything is written."""
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
    table = _load(dataset, data, target)
    run_id = new_run_id(table.source)
    out = Path(out) if out is not None else settings.runs_dir / run_id
    if out.exists() and any(out.iterdir()):
        raise InputError(f"output directory {out} is not empty")
    inputs, tables = _resolve(table, task, metric, settings,
                              settings.budget_s if budget_s is None else budget_s,
                              settings.seed if seed is None else seed, out, run_id, task_text)
    out.mkdir(parents=True, exist_ok=True)
    tables.write(out)
    write_schema(out, tables.frame, inputs.target, inputs.task_type)
    (out / "run.json").write_text(json.dumps({
        "inputs": inputs.model_dump(),
        "settings": json.loads(settings.model_dump_json()),
    }, indent=2))
    log.info("run.start", run_id=run_id, out=str(out))
    return _drive(out, {"inputs": inputs}, settings, deps, on_event)


def resume(run_dir: str | Path, *, deps=None, on_event: Event | None = None) -> Report:
    """Continue an interrupted run from its last checkpoint."""
    run_dir = Path(run_dir)
    saved = run_dir / "run.json"
    if not saved.exists():
        raise InputError(f"{run_dir} is not a pipesmith run directory (no run.json)")
    settings = Settings(**json.loads(saved.read_text())["settings"])
    return _drive(run_dir, None, settings, deps, on_event)


def _drive(out: Path, graph_input, settings: Settings, deps, on_event: Event | None) -> Report:
    from langgraph.checkpoint.sqlite import SqliteSaver

    from pipesmith.graph.builder import build_graph
    from pipesmith.graph.serde import serializer

    deps = deps or default_deps(settings)
    run_id = json.loads((out / "run.json").read_text())["inputs"]["run_id"]
    config = {"configurable": {"thread_id": run_id}}
    with closing(sqlite3.connect(out / "checkpoints.sqlite", check_same_thread=False)) as conn:
        graph = build_graph(deps.topology, checkpointer=SqliteSaver(conn, serde=serializer()))
        if graph_input is None and not graph.get_state(config).next:
            if (out / "report.json").exists():
                return load_report(out / "report.json")
            raise InputError(f"{out} has no checkpoint to resume from")
        if deps.llm is not None and graph_input is None:  # resumed: count what was spent
            deps.llm.ledger.prime(graph.get_state(config).values.get("llm_usage") or {})
        try:
            for part in graph.stream(graph_input, config, context=deps, stream_mode="tasks",
                                     durability="sync"):
                if on_event is not None:
                    on_event(part)
        except KeyboardInterrupt as exc:
            raise RunInterrupted(out) from exc
        except Exception as exc:
            from pipesmith.agents.llm.gateway import LLMError

            if isinstance(exc, LLMError):
                raise LLMRunError(out, str(exc)) from exc
            raise
        state = graph.get_state(config)
    if state.next or not (out / "report.json").exists():
        raise RuntimeError(f"the run stopped before writing its report; resume it: {out}")
    return load_report(out / "report.json")


def repair(file: str | Path, *, dataset: str | None = None, data: str | Path | None = None,
           target: str | None = None, task: str | None = None, metric: str | None = None,
           rounds: int = 3, out: str | Path | None = None, seed: int = 0,
           settings: Settings | None = None, sandbox=None, on_event: Event | None = None):
    """Diagnose and repair a user's module or script; returns the RepairReport."""
    from pipesmith.repair_file import repair_file
    from pipesmith.sandbox.local import LocalSandbox

    settings = settings or Settings()
    file = Path(file)
    if not file.is_file():
        raise InputError(f"file not found: {file}")
    if rounds < 0:
        raise InputError("--rounds must be 0 or more")
    table = None if dataset is None and data is None else _load(dataset, data, target)
    run_id = new_run_id(file.stem)
    out = Path(out) if out is not None else settings.runs_dir / f"repair-{run_id}"
    if out.exists() and any(out.iterdir()):
        raise InputError(f"output directory {out} is not empty")
    inputs = tables = None
    if table is not None:
        inputs, tables = _resolve(table, task, metric, settings, settings.budget_s, seed, out,
                                  run_id, f"repair {file.name}")
    out.mkdir(parents=True, exist_ok=True)
    if tables is not None:
        tables.write(out)
    kb = None
    if settings.use_kb:
        from pipesmith.knowledge_base.store import KnowledgeBase

        kb = KnowledgeBase.from_settings(settings)
    return repair_file(file.resolve(), out.resolve(), rounds, sandbox or LocalSandbox(), inputs,
                       timeout_s=settings.run_timeout_s, on_event=on_event, kb=kb)


def validate(file: str | Path, *, dataset: str | None = None, data: str | Path | None = None,
             target: str | None = None, task: str | None = None, metric: str | None = None,
             seed: int = 0, settings: Settings | None = None, sandbox=None):
    """Static checks, and with data a smoke run and a resource prediction; nothing written."""
    import tempfile

    from pipesmith.knowledge_base.store import KnowledgeBase
    from pipesmith.sandbox.local import LocalSandbox
    from pipesmith.validate_file import validate_file

    settings = settings or Settings()
    file = Path(file)
    if not file.is_file():
        raise InputError(f"file not found: {file}")
    history = KnowledgeBase(settings.kb_dir).executions() if settings.use_kb else []
    if dataset is None and data is None:
        return validate_file(file, sandbox or LocalSandbox(), None, history)
    table = _load(dataset, data, target)
    with tempfile.TemporaryDirectory(prefix="pipesmith-validate-") as tmp:
        out = Path(tmp)
        inputs, tables = _resolve(table, task, metric, settings, settings.budget_s, seed, out,
                                  "validate", f"validate {file.name}")
        tables.write(out)
        return validate_file(file, sandbox or LocalSandbox(), inputs, history)
