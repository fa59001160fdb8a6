"""A message channel between the supervisor and a long-lived job inside the sandbox.

Two named pipes (FIFOs) in a folder the job may only read (`ExecJob.read_paths`): the
supervisor writes requests into `requests` and reads replies from `replies`. A FIFO on a
read-only bind mount still carries data, so neither backend needs a new seam: the job is
an ordinary `Sandbox.run(job)`, run on a thread, with every limit it always had. Nothing
else crosses: no file the job writes is read before it exits.

A message is a frame: a fixed header (JSON length, payload length), a JSON object, then
the payload bytes (for replies, an .npz of predictions read with `allow_pickle=False`).
The supervisor reads with a deadline and size caps, so a job that stalls, floods or
writes garbage costs a bounded wait and a bounded buffer, never a hang.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import struct
import time
from pathlib import Path

FRAME = struct.Struct("!IQ")  # JSON bytes, payload bytes
MAX_HEADER = 1 << 20
REQUESTS, REPLIES = "requests", "replies"


class ChannelError(Exception):
    """The other side broke the protocol (garbage, oversize) or closed the channel."""


class ChannelTimeout(ChannelError):
    """No complete message before the deadline."""


def make_channel(folder: Path, job_uid: int | None = None) -> Path:
    """A folder with the two FIFOs; `job_uid` owns them when the job runs as another user
    (Docker's nobody)."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o711)
    for name in (REQUESTS, REPLIES):
        path = folder / name
        os.mkfifo(path, 0o600)
        if job_uid is not None and job_uid != os.geteuid():
            with contextlib.suppress(OSError):
                os.chown(path, job_uid, job_uid)
    return folder


def open_supervisor_side(folder: Path) -> tuple[int, int]:
    """(requests fd to write, replies fd to read). Opened read-write so that opening never
    blocks on a job that has not started (or never will); the job sees end-of-file when
    these are closed."""
    return (os.open(folder / REQUESTS, os.O_RDWR | os.O_CLOEXEC),
            os.open(folder / REPLIES, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC))


def encode(header: dict, payload: bytes = b"") -> bytes:
    body = json.dumps(header, default=float).encode()
    return FRAME.pack(len(body), len(payload)) + body + payload


def send(fd: int, header: dict, payload: bytes = b"") -> None:
    data = memoryview(encode(header, payload))
    while data:
        written = os.write(fd, data)
        data = data[written:]


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes:
    chunks, got = [], 0
    poller = None
    if deadline is not None:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
    while got < n:
        if poller is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(max(1, int(left * 1000))):
                raise ChannelTimeout(f"no complete message within the deadline ({got}/{n} bytes)")
        try:
            chunk = os.read(fd, min(n - got, 1 << 20))
        except BlockingIOError:
            continue
        if not chunk:
            raise ChannelError("the channel was closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def readable(fd: int, deadline: float) -> bool:
    """Whether a message has begun to arrive before `deadline` (nothing is read)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(max(0, int((deadline - time.monotonic()) * 1000))))


def receive(fd: int, deadline: float | None = None,
            max_payload: int = 1 << 30) -> tuple[dict, bytes]:
    """One message: (header, payload). `deadline` (time.monotonic()) bounds the wait;
    None blocks (the job's side)."""
    size, payload_size = FRAME.unpack(_read_exact(fd, FRAME.size, deadline))
    if size > MAX_HEADER or payload_size > max_payload:
        raise ChannelError(f"message over the caps ({size} header, {payload_size} payload bytes)")
    try:
        header = json.loads(_read_exact(fd, size, deadline))
    except ValueError as exc:
        raise ChannelError(f"not a JSON header: {exc}") from exc
    if not isinstance(header, dict):
        raise ChannelError("the header is not a JSON object")
    return header, _read_exact(fd, payload_size, deadline)
