"""The bubblewrap command line for one job: every namespace unshared, a read-only view
of the host's runtime, the workdir the only writable place, the home never mounted."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from pipesmith.sandbox.runtime import ETC_FILES, runtime_read_paths

SYSTEM_DIRS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
SHM_MB = 64  # POSIX semaphores for joblib/multiprocessing; big arrays go to TMPDIR


def bwrap_available() -> bool:
    if shutil.which("bwrap") is None:
        return False
    try:
        done = subprocess.run(["bwrap", "--unshare-all", "--ro-bind", "/", "/", "true"],
                              capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _system_mounts() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in SYSTEM_DIRS:
        path = Path("/") / name
        if path.is_symlink():  # merged /usr: /lib -> usr/lib
            args += ["--symlink", str(path.readlink()), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    for name in ETC_FILES:
        path = Path("/etc") / name
        if path.exists():
            args += ["--ro-bind", str(path), str(path)]
    return args


def bwrap_command(command: list[str], workdir: Path, writable_source: Path,
                  read_paths: tuple[Path, ...] | list[Path],
                  seccomp_fd: int | None = None) -> list[str]:
    """`writable_source` is bound at `workdir` (the workdir itself, or its size-capped copy);
    `seccomp_fd`: a readable fd holding the filter (sandbox/seccomp.py)."""
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--cap-drop", "ALL",
            "--hostname", "sandbox"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args += _system_mounts()
    for path in runtime_read_paths():
        args += ["--ro-bind", str(path), str(path)]
    for path in (Path(p).resolve() for p in read_paths):
        args += ["--ro-bind-try", str(path), str(path)]
    # CPU topology, read by OpenMP, BLAS and TensorFlow to size their thread pools
    args += ["--ro-bind-try", "/sys/devices/system/cpu", "/sys/devices/system/cpu"]
    args += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(SHM_MB << 20), "--tmpfs", "/dev/shm",
             "--bind", str(writable_source), str(workdir),
             "--remount-ro", "/", "--chdir", str(workdir), "--"]
    return args + list(command)
