"""Driving a run's graph: the default dependencies, the checkpointed stream from start,
resume or plan approval to the report, and what stops a run (a signal, a full disk, a
failed model call), each leaving it resumable."""

from __future__ import annotations

import errno
import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import structlog

from pipesmith.core.report import Report, load_report
from pipesmith.core.run_folder import llm_config, sandbox_for
from pipesmith.errors import InputError
from pipesmith.runtime import run_lock
from pipesmith.settings import Settings

log = structlog.get_logger(__name__)
Event = Callable[[dict[str, Any]], None]


class LLMRunError(RuntimeError):
    """A model call failed mid-run (no --fallback); the run is checkpointed in run_dir."""

    def __init__(self, run_dir: Path, reason: str) -> None:
        super().__init__(f"LLM call failed: {reason}")
        self.run_dir = run_dir


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
                executor=Executor(sandbox, warm=settings.warm_workers), diagnostician=diagnostician,
                ensembler=Ensembler(), kb=kb, topology=settings.topology, llm=session,
                settings=settings)


def drive(out: Path, graph_input, settings: Settings, deps, on_event: Event | None,
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
    deps = deps or default_deps(settings, sandbox=sandbox_for(settings, None))
    deps.clock = RunClock(started)  # afresh on each drive: a wait for approval is not counted
    run_id = saved["inputs"]["run_id"]
    with run_lock.held(out), run_scope(run_id), sigterm_as_interrupt():
        try:
            return stream(out, run_id, graph_input, deps, on_event)
        except KeyboardInterrupt as exc:
            raise RunInterrupted(out, getattr(exc, "signum", 2)) from exc
        except (OSError, sqlite3.OperationalError) as exc:
            if getattr(exc, "errno", None) in NO_SPACE or "disk is full" in str(exc):
                raise OutOfSpace(out, str(exc)[:200]) from exc
            raise
        finally:
            deps.executor.close()  # the warm fold workers end with the drive
            stop_all()  # jobs another thread was running when the run stopped


def stream(out: Path, run_id: str, graph_input, deps, on_event: Event | None) -> Report | dict:
    from langgraph.checkpoint.sqlite import SqliteSaver

    from pipesmith.graph.builder import build_graph
    from pipesmith.graph.serde import serializer

    config = {"configurable": {"thread_id": run_id}}
    with closing(sqlite3.connect(out / "checkpoints.sqlite", check_same_thread=False)) as conn:
        graph = build_graph(deps.topology, checkpointer=SqliteSaver(conn, serde=serializer()),
                            approval=True)
        saved = graph.get_state(config)
        if graph_input is None and not saved.values:
            graph_input = first_input(out)  # stopped before its first checkpoint
        elif graph_input is None and not (saved.next or saved.tasks):  # (tasks: done, unsaved)
            if (out / "report.json").exists():
                ensure_remembered(deps, graph.get_state(config).values)
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
    ensure_remembered(deps, state.values)
    return load_report(out / "report.json")


def first_input(out: Path) -> dict:
    """The graph's input, from run.json, for a run that never saved a checkpoint (stopped
    at once by a full disk or a signal)."""
    from pipesmith.agents.schemas import RunInputs

    return {"inputs": RunInputs(**json.loads((out / "run.json").read_text())["inputs"])}


def run_inputs(out: Path):
    """The run's inputs as its graph last held them (plan edits applied: budget, drops,
    families), else run.json's."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from pipesmith.graph.serde import serializer

    first = first_input(out)["inputs"]
    path = out / "checkpoints.sqlite"
    if path.is_file():
        with closing(sqlite3.connect(path)) as conn:
            saved = SqliteSaver(conn, serde=serializer()).get_tuple(
                {"configurable": {"thread_id": first.run_id}})
        held = saved.checkpoint["channel_values"].get("inputs") if saved else None
        if held is not None:
            return held
    return first


def ensure_remembered(deps, state) -> None:
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
