"""Capture a child's output through a pipe, keeping at most `cap` bytes: head and tail.

Nothing touches the disk, so a job printing 100 MB costs neither disk nor memory, and
the job never blocks on a full pipe (the reader keeps draining and dropping the middle).
The local backend drains both pipes from the supervising thread itself, in the same
poll(2) that waits for the job's exit (`PipeDrain`): no reader threads to start per job.
"""

from __future__ import annotations

import contextlib
import os
import select
import time

from pipesmith.sandbox.base import TRUNCATION_MARKER

CHUNK = 1 << 16


class CappedStream:
    """Bytes read from one pipe: the first cap/2 and the last cap/2, plus the total."""

    def __init__(self, cap: int) -> None:
        self.half = max(1, cap // 2)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.half:  # trim now and then, not on every chunk
                del self.tail[:-self.half]

    @property
    def truncated(self) -> bool:
        return self.total > len(self.head) + len(self.tail[-self.half:])

    def text(self) -> str:
        """Decoded with replacement: invalid UTF-8 never raises."""
        head = bytes(self.head).decode("utf-8", errors="replace")
        if not self.truncated:
            return head + bytes(self.tail).decode("utf-8", errors="replace")
        return head + TRUNCATION_MARKER + bytes(self.tail[-self.half:]).decode(
            "utf-8", errors="replace")


class PipeDrain:
    """Drains pipes' read ends into CappedStreams from the caller's thread: `poll` waits
    for output, EOF or an extra fd (the job's pidfd) and reads what is there; `finish`
    reads on to EOF. Owns the read ends (closes them at EOF, in `finish` or `close`)."""

    def __init__(self, fds: tuple[int, ...], cap: int) -> None:
        self.streams = [CappedStream(cap) for _ in fds]
        self.open = dict(zip(fds, self.streams, strict=True))
        self.poller = select.poll()
        for fd in fds:
            self.poller.register(fd, select.POLLIN)

    def poll(self, timeout_s: float, extra: int | None = None) -> bool:
        """Wait up to `timeout_s` for output on the pipes or for `extra` to become
        readable, read one chunk from each pipe that has some; True when `extra` is."""
        if extra is not None:
            self.poller.register(extra, select.POLLIN)
        try:
            events = self.poller.poll(max(1, int(timeout_s * 1000)))
        finally:
            if extra is not None:
                self.poller.unregister(extra)
        ready = False
        for fd, _ in events:
            if fd == extra:
                ready = True
            elif fd in self.open:
                self._read(fd)
        return ready

    def _read(self, fd: int) -> None:
        try:
            data = os.read(fd, CHUNK)
        except OSError:
            data = b""
        if data:
            self.open[fd].feed(data)
        else:
            self._close(fd)

    def _close(self, fd: int) -> None:
        self.open.pop(fd, None)
        with contextlib.suppress(KeyError, ValueError):
            self.poller.unregister(fd)
        with contextlib.suppress(OSError):
            os.close(fd)

    def finish(self, timeout_s: float = 2.0) -> list[CappedStream]:
        """Read to EOF (every writer gone); a writer that survived is cut off."""
        deadline = time.monotonic() + timeout_s
        while self.open and (left := deadline - time.monotonic()) > 0:
            self.poll(left)
        for stream in self.open.values():
            stream.feed(b"\n[... the sandbox stopped reading: a writer outlived the job]")
        self.close()
        return self.streams

    def close(self) -> None:
        for fd in list(self.open):
            self._close(fd)


def open_pipe() -> tuple[int, int]:
    """A pipe whose read end is not inherited by the child."""
    read_fd, write_fd = os.pipe()
    os.set_inheritable(read_fd, False)
    return read_fd, write_fd
