"""A size-capped workdir: a private tmpfs that stands in for the workdir during a run.

Why tmpfs: as root it is one mount(2) call (well under a millisecond), needs no loop
device or quota-enabled filesystem, and writing past `size=` fails with ENOSPC, which the
job sees as "No space left on device" while the host disk is untouched. Its pages are RAM
charged to the job's memory cgroup, so the local backend raises that group's limit by the
cap (the job keeps its whole memory allowance) and a job that fills the cap is reported as
`disk_full`, never `oom` (`full`, read before the copy back). The workdir's files are
copied in before the run and its regular files and folders are copied back after it (never a
symlink, FIFO or device the job made: sandbox/safe_files.py), so callers see an ordinary
workdir. Without CAP_SYS_ADMIN (not root) the sandbox falls back to
RLIMIT_FSIZE, a per-file cap, and says so. The mount point is named for its owner
(sandbox/owner.py), so a sweep unmounts what a killed supervisor left.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import shutil
from pathlib import Path

from pipesmith.sandbox.owner import mkdtemp
from pipesmith.sandbox.safe_files import copy_tree_back

MNT_DETACH = 2
_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def _mount_tmpfs(target: Path, size_mb: int) -> None:
    options = f"size={size_mb}m,mode=0755".encode()
    if _libc.mount(b"tmpfs", str(target).encode(), b"tmpfs", 0, options) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"mount tmpfs on {target}: {os.strerror(code)}")


def unmount(target: Path) -> bool:
    """Detach the mount at `target`; True when it is gone (or was never there)."""
    if _libc.umount2(str(target).encode(), MNT_DETACH) == 0:
        return True
    return ctypes.get_errno() == errno.EINVAL  # not a mount point (any more)


def usage(path: Path) -> tuple[int, int]:
    """(bytes used, bytes in all) of the filesystem at `path`."""
    stats = os.statvfs(path)
    return (stats.f_blocks - stats.f_bfree) * stats.f_frsize, stats.f_blocks * stats.f_frsize


def tmpfs_available() -> bool:
    """True when this process may mount a tmpfs (root, or CAP_SYS_ADMIN)."""
    if os.geteuid() != 0:
        return False
    probe = mkdtemp("probe")
    try:
        _mount_tmpfs(probe, 1)
        unmount(probe)
        return True
    except OSError:
        return False
    finally:
        probe.rmdir()


class ScratchDisk:
    """Context manager: `path` is a tmpfs of `size_mb` holding a copy of `workdir`;
    on exit its contents are copied back into `workdir` and the tmpfs is unmounted."""

    def __init__(self, workdir: Path, size_mb: int) -> None:
        self.workdir = workdir
        self.size_mb = size_mb
        self.path = mkdtemp("disk")
        self.copy_errors: list[str] = []  # symlinks and special files are not copied back
        self.full = False  # the job filled the cap (its pages may also have hit the memory limit)

    def __enter__(self) -> ScratchDisk:
        try:
            _mount_tmpfs(self.path, self.size_mb)
            shutil.copytree(self.workdir, self.path, symlinks=True, dirs_exist_ok=True)
        except BaseException:
            self._cleanup()
            raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            used, size = usage(self.path)
            self.full = size - used < max(1 << 20, size // 100)
            # regular files and folders only, never through a link the job made
            self.copy_errors = copy_tree_back(self.path, self.workdir, size)[:20]
        except OSError as exc:
            self.copy_errors = [f"copy back: {exc}"]
        finally:
            self._cleanup()

    def _cleanup(self) -> None:
        unmount(self.path)
        try:
            self.path.rmdir()
        except OSError:
            pass
