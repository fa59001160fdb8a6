"""The chat's local web page (`pipesmith serve`): the same conversations as `pipesmith chat`
(threads in runs_dir/chat.sqlite), with live progress over server-sent events.

    GET  /                               the page (pipesmith/chat/web/index.html)
    POST /api/threads                    a new conversation -> {"thread_id"}
    GET  /api/threads/{id}               what was said, the plan waiting, the last report
    POST /api/threads/{id}/messages      {"text"}: handled in the background (409 if busy)
    GET  /api/threads/{id}/events?since=N  SSE: progress in plain words, replies, the state
                                         after each (kept in RUNS/chat-logs/{id}.jsonl)
    POST /api/uploads?name=F             a CSV or Parquet file as the body -> {"path", "rows",
                                         "columns", "message"} (pipesmith/chat/uploads.py)
    GET  /files/{run_id}/{path}          a run's files (report.md, pipeline.py, model, ...)
    GET  /api/runs/{run_id}/bundle.zip   the run's deployment bundle (pipesmith export), zipped

No authentication: it binds 127.0.0.1 by default (docs/chat.md says what another host means).
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import structlog
from fastapi import Request  # here, not in create_app: FastAPI resolves the annotation here
from pydantic import BaseModel

from pipesmith.errors import InputError
from pipesmith.settings import Settings

log = structlog.get_logger(__name__)
PAGE = Path(__file__).with_name("web") / "index.html"
POLL_S = 0.2
KEEP_ALIVE_S = 15.0
THREAD_ID = re.compile(r"[\w-]{1,80}", re.ASCII)  # it names the thread's log file


class Message(BaseModel):
    text: str


@dataclass
class Thread:
    """A conversation as the page sees it: the Conversation and its event log, which is
    also appended to a file so the progress shown survives a reload and a restart."""

    conversation: object
    log_path: Path
    events: list[dict] = field(default_factory=list)
    busy: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.log_path.exists():
            self.events = [json.loads(line) for line in self.log_path.read_text().splitlines()
                           if line.strip()]

    def add(self, event: dict) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("a") as out:
            out.write(json.dumps(event) + "\n")
        self.events.append(event)


def downloads(run: Path, files: dict[str, str]) -> list[dict]:
    """What the person may take away from a run: report, pipeline, model, the predictions
    the chat wrote (pipesmith/chat/run_predict.py), and the deployment bundle."""
    run_id = run.name
    wanted = [("report (markdown)", files.get("report_md")), ("pipeline.py", files.get("pipeline")),
              ("model.joblib", files.get("model"))]
    wanted += [(p.name, p.name) for p in sorted(run.glob("*.predictions.csv"))]
    found = [{"label": label, "href": f"/files/{run_id}/{path}"} for label, path in wanted
             if path]
    if files.get("pipeline"):  # a run with a final pipeline can be exported
        found.append({"label": "deployment bundle (.zip)",
                      "href": f"/api/runs/{run_id}/bundle.zip"})
    return found


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
                          if not v.endswith("/")},
                "downloads": downloads(Path(runs[-1]), report.files),
                "plots": [{"src": f"/files/{run_id}/{plot.file}", "shows": plot.shows}
                          for plot in report.plots
                          if (Path(runs[-1]) / plot.file).is_file()]}
    return {"thread_id": conversation.thread_id, "messages": state.get("messages") or [],
            "plan": state.get("plan") if state.get("active") else None, "last_run": last}


def create_app(settings: Settings, deps=None, max_upload_mb: float | None = None):
    """The FastAPI app over the conversations in settings.runs_dir. deps: a factory of
    Deps for the runs (tests pass one); default_deps by default. max_upload_mb: the
    largest upload (pipesmith/chat/uploads.py's MAX_MB by default)."""
    from fastapi import FastAPI, HTTPException
    from fastapi.concurrency import run_in_threadpool
    from fastapi.responses import FileResponse, HTMLResponse, StreamingResponse

    from pipesmith.chat import uploads
    from pipesmith.chat.progress_words import PlainProgress
    from pipesmith.chat.thread import Conversation, new_thread_id

    app = FastAPI(title="pipesmith", docs_url=None, redoc_url=None, openapi_url=None)
    threads: dict[str, Thread] = {}
    guard, exporting = threading.Lock(), threading.Lock()
    upload_limit = int((max_upload_mb or uploads.MAX_MB) * 2**20)

    def get(thread_id: str, new: bool = False) -> Thread:
        """The thread; 404 for an id this server did not start and chat.sqlite and the
        chat logs do not hold (a typo must not start a conversation silently)."""
        if not THREAD_ID.fullmatch(thread_id):
            raise HTTPException(404, f"no conversation {thread_id!r}")
        log_file = settings.runs_dir / "chat-logs" / f"{thread_id}.jsonl"
        with guard:
            if thread_id not in threads and not (
                    new or log_file.is_file() or Conversation.exists(settings, thread_id)):
                raise HTTPException(404, f"no conversation {thread_id!r}; start one with "
                                         "POST /api/threads")
            if thread_id not in threads:
                threads[thread_id] = Thread(Conversation(settings, thread_id),
                                            settings.runs_dir / "chat-logs" / f"{thread_id}.jsonl")
            return threads[thread_id]

    def run_folder(run_id: str) -> Path:
        root = settings.runs_dir.resolve()
        run = (root / run_id).resolve()
        if run.parent != root or not (run / "report.json").is_file():
            raise HTTPException(404, "no such run")
        return run

    def handle(thread: Thread, text: str) -> None:
        started, words = time.monotonic(), PlainProgress()

        def on_event(event: dict) -> None:
            line = words(event, time.monotonic() - started)
            if line:
                thread.add({"kind": "progress", **line,
                            "elapsed_s": round(time.monotonic() - started, 1)})
        try:
            reply = thread.conversation.say(text, on_event=on_event, deps=deps)
        except Exception as exc:  # the page must hear about it; the log keeps the details
            log.exception("web.turn_failed")
            reply = f"Something went wrong: {type(exc).__name__}: {exc}"
        finally:
            thread.busy = False
        thread.add({"kind": "reply", "text": reply,
                    "view": thread_view(thread.conversation, settings)})

    @app.get("/", response_class=HTMLResponse)
    def page() -> str:
        return PAGE.read_text()

    @app.post("/api/threads")
    def new_thread() -> dict:
        return {"thread_id": get(new_thread_id(), new=True).conversation.thread_id}

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
        thread.add({"kind": "user", "text": message.text})
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

    @app.post("/api/uploads")
    async def upload(request: Request, name: str) -> dict:
        """The body is the file; it is streamed to disk and stops at the size limit."""
        try:
            path = uploads.new_path(settings.runs_dir, name)
        except InputError as exc:
            raise HTTPException(400, str(exc)) from None
        too_big = f"{path.name} is larger than the {upload_limit / 2**20:.3g} MB upload limit"
        if int(request.headers.get("content-length") or 0) > upload_limit:
            uploads.discard(path)
            raise HTTPException(413, too_big)
        size = 0
        with path.open("wb") as out:
            async for chunk in request.stream():
                size += len(chunk)
                if size > upload_limit:
                    break
                out.write(chunk)
        if size > upload_limit:
            uploads.discard(path)
            raise HTTPException(413, too_big)
        try:
            info = await run_in_threadpool(uploads.check, path, path.name)
        except InputError as exc:
            raise HTTPException(400, str(exc)) from None
        return {**info, "message": f"I uploaded {info['path']}"}

    @app.get("/api/runs/{run_id}/bundle.zip")
    def bundle(run_id: str):
        """`pipesmith export` of the run, zipped once and kept in RUNS/exports/."""
        from pipesmith.export.bundle import export

        run = run_folder(run_id)
        zipped = settings.runs_dir / "exports" / f"{run.name}-bundle.zip"
        with exporting:  # one export at a time: a second click waits for the first's zip
            if not zipped.exists():
                zipped.parent.mkdir(parents=True, exist_ok=True)
                with tempfile.TemporaryDirectory(dir=zipped.parent) as scratch:
                    try:
                        out = export(run, Path(scratch) / "bundle")
                    except InputError as exc:
                        raise HTTPException(409, f"cannot export {run.name}: {exc}") from None
                    made = shutil.make_archive(str(Path(scratch) / "bundle"), "zip", out)
                    Path(made).rename(zipped)
        return FileResponse(zipped, media_type="application/zip", filename=zipped.name)

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
