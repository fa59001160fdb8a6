"""Who owns what a run leaves on the host, and the sweep that removes what a dead owner left.

Every cgroup, tmpfs mount, temporary folder and job process the sandbox creates carries an
owner tag: the supervisor's PID and its start time (so a reused PID is never mistaken for
the owner), and the run it serves (`run_scope`). A supervisor cleans up after itself on
every exit path it lives through; `sweep()` — called by every pipesmith command as it
starts, and by `pipesmith doctor` — removes what a SIGKILLed supervisor could not:

- cgroups `/sys/fs/cgroup/<controller>/pipesmith-<pid>.<start>-<run>-<hex>`: every process
  still inside is SIGKILLed (the pids group holds the whole job), then the groups removed;
- tmpfs mounts and folders `<tmp>/pipesmith-<kind>-<pid>.<start>-<run>-<random>`:
  unmounted, then removed;
- processes whose environment carries `PIPESMITH_SANDBOX_OWNER=<pid>.<start>` (the job's
  processes, wherever they went): SIGKILLed.
Anything whose owner is alive is left alone, whoever that owner is.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import structlog

log = structlog.get_logger(__name__)
CGROUP_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("pids", "memory", "cpuacct")
OWNER_ENV = "PIPESMITH_SANDBOX_OWNER"
FOLDER_KINDS = ("disk", "exec", "validate", "smoke", "probe", "seed", "etc")
_OWNER = r"(?P<pid>\d+)\.(?P<start>\d+)"
CGROUP_NAME = re.compile(rf"^pipesmith-{_OWNER}-")
FOLDER_NAME = re.compile(rf"^pipesmith-(?:{'|'.join(FOLDER_KINDS)})-{_OWNER}-")
_run = ["norun"]  # the run this process serves now (run_scope), for the tags


def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


@functools.cache
def _me(pid: int) -> str:
    return f"{pid}.{start_time(pid) or 0}"


def owner() -> str:
    """This supervisor's identity: 'PID.START' (the cache is per PID, so a fork re-reads)."""
    return _me(os.getpid())


def _zombie(pid: int) -> bool:
    """Exited but not yet reaped (its parent died and nobody waits for it): it runs no
    code and holds nothing, so it owns nothing either."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return False


def owner_alive(pid: int, start: int) -> bool:
    alive = start_time(pid) == start or (start == 0 and os.path.exists(f"/proc/{pid}"))
    return alive and not _zombie(pid)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", text)[:40] or "run"


@contextlib.contextmanager
def run_scope(run_id: str) -> Iterator[None]:
    """Tag what the sandbox creates inside the block with this run."""
    previous, _run[0] = _run[0], _slug(run_id)
    try:
        yield
    finally:
        _run[0] = previous


def current_run() -> str:
    """The run this process serves now (its slug), for labels."""
    return _run[0]


def tag() -> str:
    """'<pid>.<start>-<run>': the part of every name that says who owns it."""
    return f"{owner()}-{_run[0]}"


def mkdtemp(kind: str) -> Path:
    """A fresh temporary folder named for its owner, so a sweep can find it."""
    assert kind in FOLDER_KINDS
    return Path(tempfile.mkdtemp(prefix=f"pipesmith-{kind}-{tag()}-"))


@contextlib.contextmanager
def temporary_folder(kind: str) -> Iterator[Path]:
    path = mkdtemp(kind)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# -- the sweep -------------------------------------------------------------------------


@dataclass
class Sweep:
    """What a sweep found (everything of a dead owner) and removed."""

    found: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"found": self.found, "removed": self.removed, "failed": self.failed}


def _dead(match: re.Match | None) -> bool:
    return match is not None and not owner_alive(int(match["pid"]), int(match["start"]))


def _cgroups() -> dict[str, list[Path]]:
    """Dead owners' cgroups, by name, in every controller."""
    found: dict[str, list[Path]] = {}
    for controller in CONTROLLERS:
        try:
            entries = list(os.scandir(CGROUP_ROOT / controller))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and _dead(CGROUP_NAME.match(entry.name)):
                found.setdefault(entry.name, []).append(Path(entry.path))
    return found


def _kill_cgroup(path: Path) -> None:
    for _ in range(200):
        try:
            pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
        except OSError:
            return
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)


def _remove_cgroup(path: Path) -> bool:
    for _ in range(50):
        try:
            for child in path.iterdir():  # Docker's groups under our cgroup parent
                if child.is_dir():
                    _kill_cgroup(child)
                    child.rmdir()
            path.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            time.sleep(0.02)
    return False


def _mounts() -> list[Path]:
    """Mount points of dead owners' folders (tmpfs workdirs)."""
    found = []
    try:
        with open("/proc/self/mountinfo") as handle:
            for line in handle:
                point = Path(line.split()[4].replace("\\040", " "))
                if _dead(FOLDER_NAME.match(point.name)):
                    found.append(point)
    except OSError:
        pass
    return found


def _folders() -> list[Path]:
    try:
        entries = list(os.scandir(tempfile.gettempdir()))
    except OSError:
        return []
    return [Path(e.path) for e in entries if _dead(FOLDER_NAME.match(e.name))]


def _processes() -> list[int]:
    """Processes tagged with a dead owner (their environment names it)."""
    pattern = re.compile(rb"(?:^|\0)" + OWNER_ENV.encode() + rb"=(\d+)\.(\d+)(?:\0|$)")
    found = []
    me = os.getpid()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as handle:
                match = pattern.search(handle.read())
        except OSError:
            continue
        if match and not owner_alive(int(match[1]), int(match[2])):
            found.append(int(entry.name))
    return found


def sweep() -> Sweep:
    """Remove what dead supervisors left: processes, cgroups, mounts, folders (in that
    order: nothing may still run in a folder that is being removed). Never raises."""
    from pipesmith.sandbox.scratch import unmount

    done = Sweep()
    for pid in _processes():
        done.found.append(f"process {pid}")
        try:
            os.kill(pid, signal.SIGKILL)
            done.removed.append(f"process {pid}")
        except ProcessLookupError:
            done.removed.append(f"process {pid}")
        except OSError:
            done.failed.append(f"process {pid}")
    for paths in _cgroups().values():
        for path in paths:
            done.found.append(f"cgroup {path}")
            if path.parent.name == "pids":
                _kill_cgroup(path)
        for path in paths:
            (done.removed if _remove_cgroup(path) else done.failed).append(f"cgroup {path}")
    for point in _mounts():
        done.found.append(f"mount {point}")
        (done.removed if unmount(point) else done.failed).append(f"mount {point}")
    for folder in _folders():
        done.found.append(f"folder {folder}")
        shutil.rmtree(folder, ignore_errors=True)
        (done.failed if folder.exists() else done.removed).append(f"folder {folder}")
    if done.found:
        log.info("sandbox.swept", found=len(done.found), removed=len(done.removed),
                 failed=done.failed[:5])
    return done


def safe_sweep() -> Sweep:
    try:
        return sweep()
    except Exception as exc:  # a sweep must never stop the command it precedes
        log.warning("sandbox.sweep_failed", error=str(exc)[:300])
        return Sweep(failed=[str(exc)[:300]])
