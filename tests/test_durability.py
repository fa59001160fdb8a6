"""Durability: real runs really killed (SIGKILL, SIGTERM, SIGINT) at several points, then
resumed with the real CLI. After each: exit codes and messages as documented, one
knowledge-base record per run and per repair, the report consistent, and nothing of the
killed supervisor left on the host (cgroups, mounts, folders, processes)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from pipesmith.sandbox.owner import CONTROLLERS, OWNER_ENV

ROOT = Path(__file__).resolve().parents[1]
DRIVER = Path(__file__).with_name("durability_driver.py")
SMALL = {"PIPESMITH_MAX_CANDIDATES": "1", "PIPESMITH_N_JOBS": "1", "PIPESMITH_CV_FOLDS": "2"}


def default_sigint() -> None:
    """A shell's background job (CI scripts, `cmd &`) inherits SIGINT ignored, and Python
    then never raises KeyboardInterrupt: give the child the default disposition back."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cli(*args: str, env: dict | None = None, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "pipesmith.cli", *args], cwd=ROOT,
                            env={**os.environ, **SMALL, **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint, **kwargs)


def leftovers(pid: int) -> list[str]:
    """Everything on the host still tagged with supervisor `pid`."""
    tag = f"-{pid}."
    found = []
    for controller in CONTROLLERS:
        base = Path("/sys/fs/cgroup") / controller
        if base.exists():
            found += [str(p) for p in base.glob(f"pipesmith{tag}*")]
    found += [str(p) for p in Path(tempfile.gettempdir()).glob(f"pipesmith-*{tag}*")]
    found += [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()
              if tag in line.split()[4]]
    needle = f"{OWNER_ENV}={pid}.".encode()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "environ").read_bytes():
                    found.append(f"process {entry.name}")
            except OSError:
                continue
    return found


def job_running(pid: int) -> bool:
    """A sandbox job of supervisor `pid` is running (its pids cgroup holds processes)."""
    for group in Path("/sys/fs/cgroup/pids").glob(f"pipesmith-{pid}.*"):
        try:
            if (group / "cgroup.procs").read_text().split():
                return True
        except OSError:
            continue
    return False


def wait_for(predicate, proc: subprocess.Popen, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before the kill point: {proc.stderr.read()}")
        assert time.monotonic() < deadline, "the kill point was never reached"
        time.sleep(0.02)


def resume_and_check(out: Path, kb: Path) -> None:
    done = cli("resume", str(out), "-q")
    stdout, stderr = done.communicate(timeout=300)
    assert done.returncode == 0, stderr
    assert "succeeded" in stdout
    report = json.loads((out / "report.json").read_text())
    by_id = {a["id"]: a for a in report["attempts"]}
    assert report["final_success"] and by_id[report["final_attempt"]]["status"] == "ok"
    assert len(by_id) == len(report["attempts"])  # no attempt twice after the resume
    assert (out / "report.md").exists()
    lines = [json.loads(line) for line in (kb / "records.jsonl").read_text().splitlines()
             if line.strip()]
    runs = [r for r in lines if r["kind"] == "run"]
    assert [r["run_id"] for r in runs] == [report["run_id"]]  # exactly one record of the run
    repairs = [(r["run_id"], r["attempt"]) for r in lines if r["kind"] == "repair"]
    assert len(repairs) == len(set(repairs))  # no repair recorded twice
    expected = [a for a in report["attempts"] if a["phase"] == "repair" and a.get("parent")
                and by_id[a["parent"]].get("diagnosis")]
    assert len(repairs) == len(expected) > 0


@pytest.fixture
def paths(tmp_path):
    return tmp_path / "run", tmp_path / "kb"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_killed_during_a_candidate_resumes_and_leaves_nothing(paths, sig):
    out, kb = paths
    proc = cli("run", "--dataset", "iris", "--budget", "30", "--out", str(out), "--kb", str(kb),
               "--fault-rate", "1.0", "-q")
    wait_for(lambda: job_running(proc.pid), proc)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=60)
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
        assert leftovers(proc.pid)  # what the sweep is for
    else:
        assert proc.returncode == 128 + sig
        assert f"pipesmith resume {out}" in stderr and "Traceback" not in stderr
        assert leftovers(proc.pid) == []  # the supervisor cleaned up itself
    resume_and_check(out, kb)
    assert leftovers(proc.pid) == []  # the resume swept what SIGKILL left


@pytest.mark.parametrize(("point", "sig"), [
    ("report", signal.SIGTERM),
    ("kb-before", signal.SIGKILL),
    ("kb-inside", signal.SIGKILL),
    ("kb-inside", signal.SIGINT),
])
def test_killed_around_the_report_and_the_kb_write(paths, tmp_path, point, sig):
    out, kb = paths
    ready = tmp_path / "ready"
    proc = subprocess.Popen([sys.executable, str(DRIVER), point, str(out), str(kb), str(ready)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    wait_for(ready.exists, proc)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=60)
    if sig != signal.SIGKILL:
        assert proc.returncode == 128 + sig, stderr
        assert leftovers(proc.pid) == []
    resume_and_check(out, kb)
    assert leftovers(proc.pid) == []
