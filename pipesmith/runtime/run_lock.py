"""One pipesmith command at a time per run directory.

Two runs given the same empty `--out` at the same moment both passed the emptiness check
and wrote into each other's files (the report of one, the data and model of the other, two
knowledge-base records); a `resume` started while the run was still going did the same.
A run, a resume and each step of a chat run hold an exclusive `flock` on
`RUN/.pipesmith.lock` while they write; a second command on the same folder stops with one
line and exit 2. The kernel drops the lock when its holder dies, SIGKILL included, so a
killed run never blocks its own resume.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from pipesmith.errors import InputError

LOCK_NAME = ".pipesmith.lock"
_held: dict[Path, int] = {}  # run directory -> the open, locked file (this process)


def _key(out: Path) -> Path:
    return Path(os.path.abspath(out))


def acquire(out: Path) -> bool:
    """Lock `out` for this process; False when this process held it already. InputError
    (nothing written) when another process holds it."""
    key = _key(out)
    if key in _held:
        return False
    try:
        fd = os.open(key / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise InputError(f"cannot lock {out}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
        os.close(fd)
        raise InputError(f"{out} is in use by another pipesmith command"
                         + (f" (PID {holder})" if holder.isdigit() else "")
                         + "; wait for it to finish") from None
    with contextlib.suppress(OSError):  # who holds it, for the message above
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
    _held[key] = fd
    return True


def release(out: Path) -> None:
    fd = _held.pop(_key(out), None)
    if fd is not None:
        os.close(fd)  # closing the only descriptor drops the flock


@contextlib.contextmanager
def held(out: Path) -> Iterator[None]:
    """Hold the lock for the block (a lock this process already holds is kept as it is)."""
    mine = acquire(out)
    try:
        yield
    finally:
        if mine:
            release(out)


def others(folder: Path) -> list[str]:
    """What the folder holds besides the lock file."""
    return [entry.name for entry in os.scandir(folder) if entry.name != LOCK_NAME]
