"""The bubblewrap command line for one job: every namespace unshared, a read-only view
of the host's runtime, the workdir the only writable place, the home never mounted, and the
data sets that installed packages bundle hidden (sandbox/runtime.py, BUNDLED_DATA)."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import threading
from pathlib import Path

import structlog

from pipesmith.sandbox.owner import mkdtemp
from pipesmith.sandbox.runtime import ETC_FILES, bundled_data_paths, runtime_read_paths

log = structlog.get_logger(__name__)

SYSTEM_DIRS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
SHM_MB = 64  # POSIX semaphores for joblib/multiprocessing; big arrays go to TMPDIR
# The tmpfs over a bundled data set: one page, mode 0555. Not remounted read-only: a
# remount per folder cost ~10 ms of launch latency for 12 folders (≈ 1-3 ms this way);
# the job could chmod it and write a page, private to itself and charged to its memory.
HIDE_BYTES = 4096


def bwrap_available() -> bool:
    if shutil.which("bwrap") is None:
        return False
    try:
        done = subprocess.run(["bwrap", "--unshare-all", "--ro-bind", "/", "/", "true"],
                              capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


@functools.cache  # the host's layout does not change under a running supervisor
def _system_mounts() -> tuple[str, ...]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in SYSTEM_DIRS:
        path = Path("/") / name
        if path.is_symlink():  # merged /usr: /lib -> usr/lib
            args += ["--symlink", str(path.readlink()), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    return tuple(args)


def _etc_mounts(shared_etc: bool) -> list[str]:
    etc = etc_copy() if shared_etc else None
    if etc is not None and not etc.is_dir():  # removed under us (a tmp cleaner): make anew
        _etc_copy.cache_clear()
        etc = etc_copy()
    if etc is not None:  # one bind instead of one per file (each costs bwrap a mount pass)
        return ["--ro-bind", str(etc), "/etc"]
    args = []
    for name in ETC_FILES:
        path = Path("/etc") / name
        if path.exists():
            args += ["--ro-bind", str(path), str(path)]
    return args


def etc_copy() -> Path | None:
    with _making:  # fold jobs start from several threads at once: one copy for all
        return _etc_copy()


@functools.cache  # once per supervisor: the files the loader and user lookups read
def _etc_copy() -> Path | None:
    """A private copy of the few /etc files a job may see, bound as the job's /etc, or None
    where it cannot be made (then each file is bound on its own). The folder is named for
    its owner (a sweep removes it if this process is SIGKILLed) and removed at exit."""
    try:
        folder = mkdtemp("etc")
    except OSError as exc:
        log.info("sandbox.etc_copy_failed", error=str(exc)[:200])
        return None
    _made[folder] = os.getpid()
    atexit.register(remove_etc_copy)
    try:
        for name in ETC_FILES:
            source = Path("/etc") / name
            if source.is_dir():  # keep the links inside (alternatives point into /usr)
                shutil.copytree(source, folder / name, symlinks=True)
            elif source.exists():
                shutil.copy2(source, folder / name)  # what a bind would show: the target
        folder.chmod(0o755)
    except OSError as exc:
        log.info("sandbox.etc_copy_failed", error=str(exc)[:200])
        return None
    return folder


_made: dict[Path, int] = {}  # the copy, and the process that made it
_making = threading.Lock()


def remove_etc_copy() -> None:
    """At exit (also an exit that skips interpreter teardown): remove the copy, never from
    a forked child."""
    for folder, creator in list(_made.items()):
        if os.getpid() == creator:
            shutil.rmtree(folder, ignore_errors=True)
            _made.pop(folder, None)
            _etc_copy.cache_clear()


def bwrap_command(command: list[str], workdir: Path, writable_source: Path,
                  read_paths: tuple[Path, ...] | list[Path],
                  seccomp_fd: int | None = None, shared_etc: bool = True) -> list[str]:
    """`writable_source` is bound at `workdir` (the workdir itself, or its size-capped copy);
    `seccomp_fd`: a readable fd holding the filter (sandbox/seccomp.py); `shared_etc`: bind
    the supervisor's copy of the /etc files once (else each file on its own)."""
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--cap-drop", "ALL",
            "--hostname", "sandbox"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args += [*_system_mounts(), *_etc_mounts(shared_etc)]
    for path in runtime_read_paths():
        args += ["--ro-bind", str(path), str(path)]
    for path in bundled_data_paths():  # an empty folder over each bundled data set
        args += ["--size", str(HIDE_BYTES), "--perms", "0555", "--tmpfs", str(path)]
    for path in (Path(p).resolve() for p in read_paths):
        args += ["--ro-bind-try", str(path), str(path)]
    # CPU topology, read by OpenMP, BLAS and TensorFlow to size their thread pools
    args += ["--ro-bind-try", "/sys/devices/system/cpu", "/sys/devices/system/cpu"]
    args += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(SHM_MB << 20), "--tmpfs", "/dev/shm",
             "--bind", str(writable_source), str(workdir),
             "--remount-ro", "/", "--chdir", str(workdir), "--"]
    return args + list(command)
