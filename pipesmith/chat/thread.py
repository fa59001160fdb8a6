"""A conversation: one LangGraph thread (a one-node graph, one step per message) whose state
holds what was said, the runs it started and the run waiting for plan approval. The
terminal (`pipesmith chat`) and the web page (`pipesmith serve`) both talk through it.

A request ("predict churn from data/customers.csv") starts a run with approve_plan, so the
run's graph stops at its plan (graph/approval.py); edits in plain words resume it with
edits, "yes" resumes it with approval and the run goes on to its report. Questions after
that are answered from the last run's report (pipesmith/chat/answers.py).
"""

from __future__ import annotations

import operator
import secrets
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import structlog
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command
from typing_extensions import TypedDict

from pipesmith.api import LLMRunError
from pipesmith.chat.task_text import (
    find_columns,
    is_approval,
    is_rejection,
    parse_edit,
    parse_request,
    read_text,
)
from pipesmith.errors import InputError
from pipesmith.settings import Settings

log = structlog.get_logger(__name__)
QUIT_WORDS = ("quit", "exit", "bye", ":q")
NO_RUN = ("Tell me what to predict and from which data, e.g. \"predict churn from "
          "data/customers.csv\" or \"classify the wine dataset\".")


class ChatState(TypedDict, total=False):
    said: str  # the person's latest message (the input of each step)
    messages: Annotated[list[dict], operator.add]  # {"role": "user"|"assistant", "text"}
    runs: Annotated[list[str], operator.add]  # finished runs' directories, oldest first
    active: str | None  # the run directory waiting for plan approval
    plan: dict | None  # its plan (the interrupt's payload)
    pending: dict | None  # a request still missing what to predict


@dataclass
class ChatContext:
    settings: Settings
    on_event: Callable[[dict], None] | None = None  # progress of a run (graph task events)
    deps: Callable[[Settings], Any] | None = None  # Deps for runs; default_deps by default

    def llm(self):
        """The runs' LLM session in LLM mode (the chat reads and answers with it), else None."""
        if self.settings.llm == "offline" or self.deps is None:
            return None
        return self.deps(self.settings).llm


def read(text: str, columns: list[str], ctx: ChatContext):
    """The request's fields: by the model in LLM mode, else by the rules."""
    session = ctx.llm()
    if session is None:
        return parse_request(text, columns)
    from pipesmith.chat.task_text_llm import read_request

    return read_request(session, text, columns)


def format_plan(plan: dict) -> str:
    lines = [f"Plan for {plan['dataset']}: {plan['task_type']}"
             + (f" of {plan['target']}" if plan.get("target") else "")
             + f", metric {plan['metric']}, budget {plan['budget_s']:.0f}s."]
    for c in plan["candidates"]:
        lines.append(f"  - {c['name']} ({c['family']}): about {c['predicted_wall_s']:.1f}s, "
                     f"{c['predicted_mem_mb']:.0f} MB")
    note = f" ({plan['time_note']})" if plan.get("time_note") else ""
    lines.append(f"The run: about {plan['predicted_wall_s']:.0f}s{note}, peak "
                 f"{plan['predicted_peak_mem_mb']:.0f} MB. Dropped columns: "
                 + (", ".join(plan["dropped_columns"]) or "none") + ".")
    if plan.get("excluded_families"):
        lines.append("Excluded at your request: " + ", ".join(plan["excluded_families"]) + ".")
    if plan.get("note"):
        lines.append(f"Not changed: {plan['note']}.")
    lines.append("Say \"yes\" to run it, or change it: \"make the budget 30 seconds\", "
                 "\"use roc_auc\", \"drop column X\", \"only tree models\", "
                 "\"no random forests\", \"it is a regression\".")
    return "\n".join(lines)


def format_result(report) -> str:
    if report.score is None:
        ended = ", ".join(f"{a.id} {a.status}" for a in report.attempts) or "nothing ran"
        return (f"The run failed: no candidate succeeded ({ended}). Report: "
                f"{report.out_dir}/report.md. Ask e.g. \"why did a1 fail?\", or try again "
                "with a larger budget.")
    score = "-" if report.score is None else f"{report.score:.4f}"
    base = "-" if report.baseline_score is None else f"{report.baseline_score:.4f}"
    test = "" if report.test_score is None else (
        f"; on the untouched test part {report.test_score:.4f}")
    return (f"Done ({report.status}): {report.metric} {score} in cross-validation vs dummy "
            f"baseline {base}{test}, final model {report.final_candidate}. Report: "
            f"{report.out_dir}/report.md. Ask me about it, e.g. \"compare the candidates\".")


def _columns(path: str) -> list[str]:
    from pipesmith.core.datasets import load_file

    return [str(c) for c in load_file(path, None).frame.columns]


def _advance(run_dir: str, graph_input, ctx: ChatContext):
    from pipesmith.core.driver import advance

    deps = ctx.deps(ctx.settings) if ctx.deps else None
    return advance(Path(run_dir), graph_input, deps=deps, on_event=ctx.on_event)


def _after(result, run_dir: str) -> tuple[str, dict]:
    """The reply and state update once the run stops: at its plan, or finished."""
    if isinstance(result, dict):
        return format_plan(result), {"active": run_dir, "plan": result}
    return format_result(result), {"active": None, "plan": None, "runs": [run_dir]}


def start(request: dict, text: str, ctx: ChatContext) -> tuple[str, dict]:
    from pipesmith.core.run_folder import start_run

    out, inputs, _ = start_run(
        dataset=request.get("dataset"), data=request.get("data_path"),
        target=request.get("target") if request.get("task_type") != "clustering" else None,
        task=request.get("task_type"), metric=request.get("metric"),
        budget_s=request.get("budget_s"), task_text=text,
        drop_columns=request.get("drop_columns"), families=request.get("families"),
        excluded_families=request.get("exclude_families"), settings=ctx.settings)
    result = _advance(str(out), {"inputs": inputs, "approve_plan": True}, ctx)
    reply, update = _after(result, str(out))
    return reply, {**update, "pending": None}


def on_request(text: str, state: ChatState, ctx: ChatContext) -> tuple[str, dict] | None:
    """A message that names data starts a run (or asks what to predict); None otherwise."""
    from pipesmith.chat.answers import PREDICT

    if state.get("runs") and PREDICT.search(text):  # "predict on new.csv": a question
        return None
    asked = parse_request(text)
    pending = state.get("pending")
    if asked.data_path is None and asked.dataset is None:
        if not pending:
            return again(text, state, ctx) if state.get("runs") else None
        columns = _columns(pending["data_path"])
        named = find_columns(text, columns)
        if not named and state.get("runs"):  # not an answer: a question about the last run
            return on_question(text, state, ctx), {"pending": None}
        answer = parse_request(text, columns)  # "churn in 30 seconds, drop column seats"
        target = named[0] if len(named) == 1 else answer.target
        if target is None:
            return (f"Which column should I predict? The columns are: {', '.join(columns)}.",
                    {})
        said = {k: v for k, v in answer.model_dump().items()  # the answer's words add to
                if v and k not in ("data_path", "dataset", "target")}  # the request's
        return start({**pending, **said, "target": target}, f"{pending['text']}; {text}", ctx)
    if asked.dataset is not None:
        asked = read(text, [], ctx)
        return start({**asked.model_dump(), "target": None}, text, ctx)
    columns = _columns(asked.data_path)  # InputError: unknown or unreadable file
    asked = read(text, columns, ctx)
    request = {**asked.model_dump(), "text": text}
    if asked.target_guessed and asked.task_type != "clustering":  # a guess: ask first
        return (f"Should I predict {asked.target}? Your words do not name a column; say "
                f"{asked.target!r} or another of: {', '.join(columns)}.",
                {"pending": {**request, "target": None}})
    if asked.target is None and asked.task_type != "clustering":
        return (f"Which column of {asked.data_path} should I predict? The columns are: "
                f"{', '.join(columns)}.", {"pending": request})
    return start(request, text, ctx)


def again(text: str, state: ChatState, ctx: ChatContext) -> tuple[str, dict] | None:
    """After a run, a change in words ("now try it with only tree models and 40 seconds")
    starts a new run on the same data and target with the change; None for anything else
    (a question about the run)."""
    from pipesmith.core.datasets import BUNDLED
    from pipesmith.core.driver import run_inputs

    try:
        last = run_inputs(Path(state["runs"][-1])).model_dump()
        columns = [*_run_columns(state["runs"][-1]), *last["dropped_columns"]]
    except OSError:  # the last run's folder was removed: nothing to start again from
        return None
    if read_text(text, columns).intent != "edit":
        return None
    edit = parse_edit(text, columns)
    if edit.empty:
        return None
    task = edit.task_type or last["task_type"]
    bundled = last["dataset"] in BUNDLED
    request = {
        "dataset": last["dataset"] if bundled else None,
        "data_path": None if bundled else last["dataset"],
        "target": edit.target or last["target"], "task_type": task,
        "metric": edit.metric or (last["metric"] if task == last["task_type"] else None),
        "budget_s": edit.budget_s or last["budget_s"],
        "drop_columns": list(dict.fromkeys([*last["dropped_columns"], *edit.drop_columns])),
        "families": edit.families or last["families"],
        "exclude_families": list(dict.fromkeys([*last["excluded_families"],
                                                *edit.exclude_families])),
    }
    return start(request, f"{last['task_text']}; {text}", ctx)


def _run_columns(run_dir: str) -> list[str]:
    import pandas as pd

    return [str(c) for c in pd.read_parquet(Path(run_dir) / "data.parquet").columns]


def on_plan(text: str, state: ChatState, ctx: ChatContext) -> tuple[str, dict]:
    run_dir = state["active"]
    if is_approval(text):
        return _after(_advance(run_dir, Command(resume={"approve": True}), ctx), run_dir)
    if is_rejection(text):
        discard(Path(run_dir))
        return ("Cancelled; nothing ran. " + NO_RUN, {"active": None, "plan": None})
    import pandas as pd

    columns = list(pd.read_parquet(Path(run_dir) / "data.parquet").columns)
    edit = parse_edit(text, columns)
    if edit.empty:
        return ("I did not take that as a change to the plan. Say \"yes\" to run it, or "
                "e.g. \"make the budget 30 seconds\", \"drop column X\".", {})
    edits = edit.model_dump(exclude_defaults=True)
    return _after(_advance(run_dir, Command(resume={"edits": edits}), ctx), run_dir)


def discard(run_dir: Path) -> None:
    """Remove a run that never ran (cancelled at its plan): nothing half-written stays."""
    import shutil

    if not (run_dir / "attempts").exists() and not (run_dir / "report.json").exists():
        shutil.rmtree(run_dir, ignore_errors=True)


def on_question(text: str, state: ChatState, ctx: ChatContext | None = None) -> str:
    """Rules over the last run's report first (they quote its figures exactly); in LLM mode
    the model answers what they do not cover, from report.md."""
    from pipesmith.chat.answers import HELP, answer
    from pipesmith.core.report import load_report, markdown

    runs = state.get("runs") or []
    if not runs:
        return NO_RUN
    report = load_report(Path(runs[-1]) / "report.json")
    ruled = answer(report, text)
    session = ctx.llm() if ctx is not None and ruled is None else None
    if session is not None:
        from pipesmith.chat.task_text_llm import answer_question

        ruled = answer_question(session, markdown(report), text)
    return ruled or HELP


def turn(state: ChatState, runtime: Runtime[ChatContext]) -> dict:
    text, ctx = state["said"].strip(), runtime.context
    try:
        if state.get("active"):
            reply, update = on_plan(text, state, ctx)
        else:
            reply, update = on_request(text, state, ctx) or (on_question(text, state, ctx), {})
    except InputError as exc:
        reply, update = f"Sorry, {exc}.", {}
    except LLMRunError as exc:  # checkpointed: `pipesmith resume` continues it
        reply = (f"The model call failed ({exc}); the run is checkpointed, continue it with: "
                 f"pipesmith resume {exc.run_dir}")
        update = {"active": None, "plan": None}
    return {"messages": [{"role": "user", "text": text}, {"role": "assistant", "text": reply}],
            **update}


def build_chat_graph(checkpointer):
    graph = StateGraph(ChatState, context_schema=ChatContext)
    graph.add_node("turn", turn)
    graph.add_edge(START, "turn")
    graph.add_edge("turn", END)
    return graph.compile(checkpointer=checkpointer)


def new_thread_id() -> str:
    return f"chat-{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


class Conversation:
    """One thread of the chat checkpointer (runs_dir/chat.sqlite)."""

    def __init__(self, settings: Settings, thread_id: str | None = None) -> None:
        from langgraph.checkpoint.sqlite import SqliteSaver

        settings.runs_dir.mkdir(parents=True, exist_ok=True)
        self.settings = settings
        self.thread_id = thread_id or new_thread_id()
        self._conn = sqlite3.connect(settings.runs_dir / "chat.sqlite", check_same_thread=False)
        self.graph = build_chat_graph(SqliteSaver(self._conn))
        self.config = {"configurable": {"thread_id": self.thread_id}}
        self._deps = None  # one set of agents and one KB per conversation, made on first use

    @staticmethod
    def exists(settings: Settings, thread_id: str) -> bool:
        """Whether runs_dir/chat.sqlite holds the thread (nothing is created to find out)."""
        from contextlib import closing

        from langgraph.checkpoint.sqlite import SqliteSaver

        path = settings.runs_dir / "chat.sqlite"
        if not path.is_file():
            return False
        with closing(sqlite3.connect(path)) as conn:
            saver = SqliteSaver(conn)
            return saver.get_tuple({"configurable": {"thread_id": thread_id}}) is not None

    def deps(self, settings: Settings):
        from pipesmith.core.driver import default_deps

        if self._deps is None:
            self._deps = default_deps(settings)
        return self._deps

    def state(self) -> ChatState:
        return self.graph.get_state(self.config).values

    def say(self, text: str, on_event: Callable[[dict], None] | None = None,
            deps: Callable[[Settings], Any] | None = None) -> str:
        ctx = ChatContext(settings=self.settings, on_event=on_event, deps=deps or self.deps)
        values = self.graph.invoke({"said": text}, self.config, context=ctx,
                                   durability="sync")
        return values["messages"][-1]["text"]

    def close(self) -> None:
        self._conn.close()
