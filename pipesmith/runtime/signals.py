"""SIGTERM handled like SIGINT: it raises in the main thread, so every `finally` runs
(checkpoint kept, sandbox jobs stopped, cgroups and mounts removed) and the command can
print how to resume. `timeout`, systemd and Kubernetes stop processes with SIGTERM."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived; handled exactly as an interrupt, with exit status 143."""

    signum = signal.SIGTERM


def _raise_terminated(signum, frame) -> None:
    raise Terminated()


def install() -> None:
    """For the process (the CLI): SIGTERM raises Terminated in the main thread."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """For one block (the Python API): the same, restoring the previous handler after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def exit_status(exc: BaseException) -> int:
    """128 + the signal: 130 for SIGINT, 143 for SIGTERM."""
    return 128 + int(getattr(exc, "signum", signal.SIGINT))
