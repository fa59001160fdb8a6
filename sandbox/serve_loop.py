"""The server's side of a served job (sandbox/served_job.py is the supervisor's): open the
channel, import the libraries once, say `ready`, then answer request after request, each in
a fresh fork.

The fork is the restart: the code a request runs (a candidate's fit, a model's unpickling)
runs only in its child, so nothing it does outlives the request, and the next one starts from
the same loaded interpreter. A child writes its answer into files (a JSON header, an .npz of
arrays); the parent reads them back after the child has ended and sends them on. Nothing here
is trusted by the supervisor: it checks what comes back by type and size.
"""

from __future__ import annotations

import importlib
import json
import os
import select
import signal
import time
from collections.abc import Callable
from pathlib import Path

from pipesmith.sandbox.channel import REPLIES, REQUESTS, ChannelError, receive, send

Answer = Callable[[dict, bytes], tuple[dict, bytes]]


def wait_child(pid: int, timeout_s: float) -> tuple[int | None, dict]:
    """The child's wait status (None when it outlived `timeout_s`: then it is killed) and
    what it used (CPU seconds, peak resident memory)."""
    deadline = time.monotonic() + max(0.0, timeout_s)
    fd = os.pidfd_open(pid)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                return status, {"cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
                                "peak_mem_mb": round(usage.ru_maxrss / 1024, 1)}
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None, {}
            poller.poll(max(1, int(left * 1000)))
    finally:
        os.close(fd)


def in_fork(child: Callable[[], None], rid, timeout_s: float, header: Path, arrays: Path,
            what: str) -> tuple[dict, bytes, dict]:
    """Run `child` (which writes `header`, maybe `arrays`, and never returns) in a fork;
    (its reply with "id" set, the arrays' bytes when it says ok, what it used). A child that
    runs past `timeout_s`, is killed or ends without a header is the reply's status."""
    pid = os.fork()
    if pid == 0:
        try:
            child()
        finally:
            os._exit(70)  # a child that returned: its files say what happened
    status, usage = wait_child(pid, timeout_s)
    try:
        if status is None:
            return {"id": rid, "status": "timeout",
                    "error": f"{what} ran past its {timeout_s:g} s"}, b"", usage
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            why = " (likely the memory limit)" if sig == signal.SIGKILL else ""
            return {"id": rid, "status": "error",
                    "error": f"{what} was killed by signal {sig}{why}"}, b"", usage
        if not header.exists():
            return {"id": rid, "status": "error",
                    "error": f"{what} exited ({os.waitstatus_to_exitcode(status)}) "
                             "without an answer"}, b"", usage
        reply = {**json.loads(header.read_text()), "id": rid}
        ok = reply.get("status") == "ok" and arrays.exists()
        return reply, arrays.read_bytes() if ok else b"", usage
    finally:
        for path in (header, arrays):
            path.unlink(missing_ok=True)


def serve(job_path: Path, ops: tuple[str, ...], answer: Callable[[dict], Answer]) -> int:
    """The main loop. `answer(job)` is called once, after the channel is open and before
    the imports (it loads what every request shares, e.g. a fold's rows), and returns the
    function that answers one request of an op in `ops`; any other op ends the server, as
    does the supervisor closing the channel."""
    job = json.loads(job_path.read_text())
    started = time.perf_counter()
    requests = os.open(Path(job["channel"]) / REQUESTS, os.O_RDONLY)
    replies = os.open(Path(job["channel"]) / REPLIES, os.O_WRONLY)
    respond = answer(job)
    for name in job.get("imports", []):  # what requests import, imported once
        try:
            importlib.import_module(name)
        except Exception:  # a request that needs it reports the failure itself
            pass
    send(replies, {"op": "ready", "setup_s": round(time.perf_counter() - started, 4),
                   "pid": os.getpid()})
    while True:
        try:
            request, payload = receive(requests)
        except ChannelError:  # the supervisor closed the channel
            return 0
        if request.get("op") not in ops:
            return 0
        send(replies, *respond(request, payload))
