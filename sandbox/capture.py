"""Capture a child's output through a pipe, keeping at most `cap` bytes: head and tail.

Nothing touches the disk, so a job printing 100 MB costs neither disk nor memory, and
the job never blocks on a full pipe (the reader keeps draining and dropping the middle).
"""

from __future__ import annotations

import os
import threading

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


class PipeReader:
    """Drains a pipe's read end into a CappedStream on a daemon thread."""

    def __init__(self, fd: int, cap: int) -> None:
        self.fd = fd
        self.stream = CappedStream(cap)
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        try:
            while data := os.read(self.fd, CHUNK):
                self.stream.feed(data)
        except OSError:
            pass

    def finish(self, timeout_s: float = 2.0) -> CappedStream:
        """Wait for EOF (every writer gone); a writer that survived is cut off."""
        self.thread.join(timeout_s)
        if self.thread.is_alive():
            self.stream.feed(b"\n[... the sandbox stopped reading: a writer outlived the job]")
        try:
            os.close(self.fd)
        except OSError:
            pass
        return self.stream


def open_pipe() -> tuple[int, int]:
    """A pipe whose read end is not inherited by the child."""
    read_fd, write_fd = os.pipe()
    os.set_inheritable(read_fd, False)
    return read_fd, write_fd
