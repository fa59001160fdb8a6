"""Nothing left behind: a SIGKILLed supervisor's job dies with it, and the next pipesmith
command removes its cgroups, tmpfs mount, folders and stray processes; what a living
supervisor owns is never touched."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.graph.test_durability import job_running, leftovers
from tests.sandbox.test_sandbox_contract import host_processes_with

ROOT = Path(__file__).resolve().parents[2]


def start_exec(program: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pipesmith.cli", "sandbox", "exec",
                             str(program), "--timeout", "120", *extra], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def kill_when_running(proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while not job_running(proc.pid):
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    time.sleep(0.5)  # the job is past its start
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)


def doctor() -> dict:
    done = subprocess.run([sys.executable, "-m", "pipesmith.cli", "doctor", "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def wait_gone(marker: str, timeout_s: float = 10.0) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while (found := host_processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def sleeper(tmp_path: Path, marker: str, daemon: bool = False) -> Path:
    code = "import os, sys\n"
    if daemon:  # a grandchild in its own session: outside the job's process group
        code += ("if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
                 "        os.execv(sys.executable, [sys.executable, '-c', "
                 f"'import time; time.sleep(300)  # {marker}_daemon'])\n"
                 "    os._exit(0)\n")
    code += ("os.execv(sys.executable, [sys.executable, '-c', "
             f"'import time; time.sleep(300)  # {marker}_main'])\n")
    program = tmp_path / "sleeper.py"
    program.write_text(code)
    return program


def test_sigkilled_supervisor_leaves_what_the_next_command_sweeps(tmp_path):
    marker = f"swept_{uuid.uuid4().hex[:8]}"
    proc = start_exec(sleeper(tmp_path, marker), "--disk", "32")
    kill_when_running(proc)
    assert wait_gone(marker) == []  # bwrap --die-with-parent
    left = leftovers(proc.pid)
    assert any("/sys/fs/cgroup/pids/" in item for item in left)
    assert any("pipesmith-disk-" in item for item in left)  # the tmpfs workdir, mounted
    assert any("pipesmith-exec-" in item for item in left)
    found = doctor()["leftovers"]
    assert leftovers(proc.pid) == []
    assert set(found["found"]) >= {item for item in found["removed"]} and not found["failed"]
    # this doctor swept them, unless a command of a test running beside this one (each
    # pipesmith command sweeps dead owners' leftovers) got there first: gone either way
    assert any(str(proc.pid) in item for item in found["removed"]) or not found["found"] \
        or all(str(proc.pid) not in item for item in found["found"])


def test_jobs_die_with_their_parent_without_bubblewrap_too(tmp_path):
    """unsafe-local: PR_SET_PDEATHSIG ends the job at once; a daemon that left its session
    is still in the run's pids cgroup and carries the owner tag: if it outlived the job,
    the sweep ends it."""
    marker = f"orphan_{uuid.uuid4().hex[:8]}"
    proc = start_exec(sleeper(tmp_path, marker, daemon=True), "--sandbox", "unsafe-local")
    kill_when_running(proc)
    assert wait_gone(f"{marker}_main") == []
    assert leftovers(proc.pid)  # at least its cgroups, until the next command
    doctor()
    assert wait_gone(f"{marker}_daemon") == []
    assert leftovers(proc.pid) == []


def test_a_living_owner_is_never_swept():
    from pipesmith.sandbox import cgroups
    from pipesmith.sandbox.owner import mkdtemp, sweep

    if not cgroups.writable("pids"):
        pytest.skip("needs a writable pids cgroup (root)")
    group = cgroups.PidsLimit(8)
    folder = mkdtemp("exec")
    try:
        done = sweep()
        assert group.path.exists() and folder.exists()
        assert not any(str(os.getpid()) in item for item in done.found)
    finally:
        group.remove()
        folder.rmdir()


def test_a_zombie_owns_nothing():
    """A SIGKILLed supervisor whose parent does not reap it stays a zombie, with its PID and
    start time: it must count as dead, or its leftovers are never swept."""
    from pipesmith.sandbox.owner import owner_alive, start_time

    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                            stdin=subprocess.PIPE)
    start = start_time(proc.pid)
    assert owner_alive(proc.pid, start)
    proc.stdin.close()  # it exits; not waited for, it stays a zombie
    deadline = time.monotonic() + 30
    while Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert start_time(proc.pid) == start and not owner_alive(proc.pid, start)
    proc.wait()
