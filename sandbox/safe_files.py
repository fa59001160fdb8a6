"""Reading what a job left behind without trusting it.

A job controls every name in its workdir: a name may be a symlink (to `/`, to a host
secret), a FIFO (a reader blocks for ever), a device, or a file far larger than promised.
The host side therefore opens job files with O_NOFOLLOW | O_NONBLOCK, checks with fstat on
the open descriptor (no race with a rename) that it is a regular file within a size cap,
and only then reads it. Copy-back from the scratch tmpfs reproduces regular files and
folders only.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
CHUNK = 1 << 20


class UnsafeFile(OSError):
    """A job file that is not a regular file, or is larger than its cap."""


def open_regular(path: Path | str, limit: int, dir_fd: int | None = None) -> int:
    """An fd of `path` opened without following a final symlink; UnsafeFile when it is not a
    regular file or holds more than `limit` bytes."""
    try:
        fd = os.open(path, READ_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == 40:  # ELOOP: the name is a symlink
            raise UnsafeFile(exc.errno, f"{path} is a symlink") from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise UnsafeFile(f"{path} is not a regular file")
    if info.st_size > limit:
        os.close(fd)
        raise UnsafeFile(f"{path} holds {info.st_size} bytes, over the cap of {limit}")
    os.set_blocking(fd, True)
    return fd


def read_regular(path: Path | str, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (never through a symlink)."""
    fd = open_regular(path, limit)
    try:
        data = os.read(fd, limit + 1)
        chunks = [data]
        while data and sum(map(len, chunks)) <= limit:  # short reads
            data = os.read(fd, limit + 1 - sum(map(len, chunks)))
            chunks.append(data)
    finally:
        os.close(fd)
    out = b"".join(chunks)
    if len(out) > limit:  # grew after the fstat
        raise UnsafeFile(f"{path} grew over the cap of {limit}")
    return out


def copy_regular(source: Path | str, target: Path, limit: int) -> None:
    """Copy a job's regular file to `target` on the host; a symlink already at `target` is
    replaced, never written through."""
    fd = open_regular(source, limit)
    try:
        _write_from(fd, target, limit)
    finally:
        os.close(fd)


def _write_from(fd: int, target: Path, limit: int, mode: int = 0o644) -> None:
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif target.is_symlink() or target.exists():
        target.unlink()
    out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                  mode)
    try:
        left = limit
        while left > 0 and (data := os.read(fd, min(CHUNK, left))):
            os.write(out, data)
            left -= len(data)
    finally:
        os.close(out)


def copy_tree_back(source: Path, target: Path, limit: int) -> list[str]:
    """Copy the regular files and folders of `source` (the job's scratch disk) into `target`
    (its host workdir); everything else (symlinks, FIFOs, sockets, devices) is skipped and
    named in the returned list. Nothing under `source` is ever followed."""
    skipped: list[str] = []
    for folder, dirs, files in os.walk(source, followlinks=False):
        rel = Path(folder).relative_to(source)
        host = target / rel
        for name in list(dirs):
            path = Path(folder) / name
            if path.is_symlink():  # os.walk lists a symlink to a folder among the folders
                dirs.remove(name)
                skipped.append(f"{rel / name}: a symlink, not copied")
                continue
            dest = host / name
            if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
                dest.unlink()
            dest.mkdir(exist_ok=True)
        for name in files:
            try:
                fd = open_regular(Path(folder) / name, limit)
            except OSError as exc:
                skipped.append(f"{rel / name}: {exc}")
                continue
            try:
                info = os.fstat(fd)
                _write_from(fd, host / name, limit, stat.S_IMODE(info.st_mode) & 0o755)
                # the job's times kept, so an untouched file does not count as changed
                os.utime(host / name, ns=(info.st_atime_ns, info.st_mtime_ns),
                         follow_symlinks=False)
            finally:
                os.close(fd)
    return skipped
