"""The chat's local web page (`pipesmith serve`): the same conversations as `pipesmith chat`
(threads in runs_dir/chat.sqlite), with live progress over server-sent events.

    GET  /                               the page (pipesmith/chat/web/index.html)
    POST /api/threads                    a new conversation -> {"thread_id"}
    GET  /api/threads/{id}               what was said, the plan waiting, the last report
    POST /api/threads/{id}/messages      {"text"}: handled in the background (409 if busy)
    GET  /api/threads/{id}/events?since=N  SSE: progress lines, replies, the state after each
    GET  /files/{run_id}/{path}          a run's files (report.md, pipeline.py, model, ...)

No authentication: it binds 127.0.0.1 by default (docs/chat.md says what another host means).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import structlog
from pydantic import BaseModel

from pipesmith.settings import Settings

log = structlog.get_logger(__name__)
PAGE = Path(__file__).with_name("web") / "index.html"
POLL_S = 0.2
KEEP_ALIVE_S = 15.0


class Message(BaseModel):
    text: str


@dataclass
class Thread:
    """A conversation as the page sees it: the Conversation and its event log."""

    conversation: object
    events: list[dict] = field(default_factory=list)
    busy: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


def thread_view(conversation, settings: Settings) -> dict:
    """JSON for the page: the messages, the plan waiting for approval, the last run."""
    from pipesmith.core.report import load_report

    state = conversation.state()
    runs = state.get("runs") or []
    last = None
    if runs and (Path(runs[-1]) / "report.json").exists():
        report = load_report(Path(runs[-1]) / "report.json")
        run_id = Path(runs[-1]).name
        last = {"run_id": run_id, "status": report.status, "metric": report.metric,
                "score": report.score, "baseline_score": report.baseline_score,
                "test_score": report.test_score,
                "test_baseline_score": report.test_baseline_score,
                "final_candidate": report.final_candidate, "final_attempt": report.final_attempt,
                "attempts": [{"id": a.id, "candidate": a.candidate, "status": a.status,
                              "score": a.score, "wall_s": a.wall_s} for a in report.attempts],
                "files": {k: f"/files/{run_id}/{v}" for k, v in report.files.items()
                          if not v.endswith("/")}}
    return {"thread_id": conversation.thread_id, "messages": state.get("messages") or [],
            "plan": state.get("plan") if state.get("active") else None, "last_run": last}


def create_app(settings: Settings, deps=None):
    """The FastAPI app over the conversations in settings.runs_dir. deps: a factory of
    Deps for the runs (tests pass one); default_deps by default."""
    from fastapi import FastAPI, HTTPException
    from fastapi.responses import FileResponse, HTMLResponse, StreamingResponse

    from pipesmith.chat.thread import Conversation, new_thread_id
    from pipesmith.runtime.progress import event_line

    app = FastAPI(title="pipesmith", docs_url=None, redoc_url=None, openapi_url=None)
    threads: dict[str, Thread] = {}
    guard = threading.Lock()

    def get(thread_id: str) -> Thread:
        with guard:
            if thread_id not in threads:
                threads[thread_id] = Thread(Conversation(settings, thread_id))
            return threads[thread_id]

    def handle(thread: Thread, text: str) -> None:
        started = time.monotonic()

        def on_event(event: dict) -> None:
            line = event_line(event)
            if line:
                thread.events.append({"kind": "progress", "node": line[0], "text": line[1],
                                      "elapsed_s": round(time.monotonic() - started, 1)})
        try:
            reply = thread.conversation.say(text, on_event=on_event, deps=deps)
        except Exception as exc:  # the page must hear about it; the log keeps the details
            log.exception("web.turn_failed")
            reply = f"Something went wrong: {type(exc).__name__}: {exc}"
        finally:
            thread.busy = False
        thread.events.append({"kind": "reply", "text": reply,
                              "view": thread_view(thread.conversation, settings)})

    @app.get("/", response_class=HTMLResponse)
    def page() -> str:
        return PAGE.read_text()

    @app.post("/api/threads")
    def new_thread() -> dict:
        return {"thread_id": get(new_thread_id()).conversation.thread_id}

    @app.get("/api/threads/{thread_id}")
    def view(thread_id: str) -> dict:
        thread = get(thread_id)
        return {**thread_view(thread.conversation, settings), "busy": thread.busy,
                "event_count": len(thread.events)}

    @app.post("/api/threads/{thread_id}/messages", status_code=202)
    def say(thread_id: str, message: Message) -> dict:
        thread = get(thread_id)
        with thread.lock:
            if thread.busy:
                raise HTTPException(409, "still working on the last message")
            thread.busy = True
        thread.events.append({"kind": "user", "text": message.text})
        threading.Thread(target=handle, args=(thread, message.text), daemon=True).start()
        return {"accepted": True, "since": len(thread.events) - 1}

    @app.get("/api/threads/{thread_id}/events")
    async def events(thread_id: str, since: int = 0):
        thread = get(thread_id)

        async def stream():
            sent, quiet_since = since, time.monotonic()
            while True:
                while sent < len(thread.events):
                    yield f"id: {sent + 1}\ndata: {json.dumps(thread.events[sent])}\n\n"
                    sent, quiet_since = sent + 1, time.monotonic()
                if time.monotonic() - quiet_since > KEEP_ALIVE_S:
                    yield ": keep-alive\n\n"
                    quiet_since = time.monotonic()
                await asyncio.sleep(POLL_S)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    @app.get("/files/{run_id}/{path:path}")
    def files(run_id: str, path: str):
        root = settings.runs_dir.resolve()
        run = (root / run_id).resolve()
        wanted = (run / path).resolve()
        if run.parent != root or not wanted.is_relative_to(run) or not wanted.is_file():
            raise HTTPException(404, "no such file")
        text = wanted.suffix in (".md", ".py", ".json", ".csv", ".txt", ".log")
        return FileResponse(wanted, media_type="text/plain; charset=utf-8" if text else None)

    return app
