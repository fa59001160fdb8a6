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

from pipesmith.sandbox.owner import CONTROLLERS, OWNER_ENV, start_time

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("durability_driver.py")
SMALL = {"PIPESMITH_MAX_CANDIDATES": "1", "PIPESMITH_N_JOBS": "1", "PIPESMITH_CV_FOLDS": "2"}
# An upper bound, not the time a run takes: a run that succeeds ends sooner. 30 s was too
# little on a loaded machine (load 15: the first candidate took 18-23 s, the repair then
# timed out on what was left, and the run a test resumes had failed on its own).
BUDGET = "90"


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
    proc = cli("run", "--dataset", "iris", "--budget", BUDGET, "--out", str(out), "--kb", str(kb),
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


def test_two_runs_given_one_out_dir_and_a_resume_while_it_runs(tmp_path):
    """Never seen before: both runs used to 'succeed' into one folder, each overwriting the
    other's files, and a resume started while the run was going ran it twice."""
    out, kb = tmp_path / "shared", tmp_path / "kb"
    first = cli("run", "--dataset", "iris", "--budget", BUDGET, "--out", str(out), "--kb", str(kb),
                "-q")
    second = cli("run", "--dataset", "wine", "--budget", BUDGET, "--out", str(out), "--kb",
                 str(kb), "-q")
    deadline = time.monotonic() + 120
    while not (job_running(first.pid) or job_running(second.pid)):
        assert first.poll() is None or second.poll() is None, "both runs ended"
        assert time.monotonic() < deadline, "no run ever started a job"
        time.sleep(0.02)
    during = cli("resume", str(out), "-q")
    _, resume_err = during.communicate(timeout=120)
    assert during.returncode == 2 and "in use by another pipesmith command" in resume_err
    assert len(resume_err.strip().splitlines()) == 1
    results = [(proc, *proc.communicate(timeout=300)) for proc in (first, second)]
    codes = sorted(proc.returncode for proc, _, _ in results)
    assert codes == [0, 2], [(p.returncode, err[-500:]) for p, _, err in results]
    winner = next(p for p, _, _ in results if p.returncode == 0)
    loser_err = next(err for p, _, err in results if p.returncode == 2)
    assert len(loser_err.strip().splitlines()) == 1 and "Traceback" not in loser_err
    assert "in use by another pipesmith command" in loser_err or "not empty" in loser_err
    report = json.loads((out / "report.json").read_text())
    dataset = "iris" if winner is first else "wine"
    assert report["run_id"].split("-")[2] == dataset and report["final_success"]
    runs = [json.loads(line) for line in (kb / "records.jsonl").read_text().splitlines()
            if '"kind":"run"' in line]
    assert [r["run_id"] for r in runs] == [report["run_id"]]


def descendants(pid: int) -> list[int]:
    children = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def test_sigkilled_during_the_refit_resumes_to_a_refit_model(paths):
    out, kb = paths
    proc = cli("run", "--dataset", "iris", "--budget", BUDGET, "--out", str(out), "--kb", str(kb),
               "-q")
    wait_for(lambda: (out / "refit").is_dir() and job_running(proc.pid), proc, timeout_s=240)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    done = cli("resume", str(out), "-q")
    _, stderr = done.communicate(timeout=300)
    assert done.returncode == 0, stderr
    report = json.loads((out / "report.json").read_text())
    assert report["final_success"] and report["test_score"] is not None
    assert (out / "refit" / "model.joblib").exists()
    runs = [line for line in (kb / "records.jsonl").read_text().splitlines()
            if '"kind":"run"' in line]
    assert len(runs) == 1
    assert leftovers(proc.pid) == []


def test_a_sigkilled_eval_leaves_no_worker_running_and_reruns(tmp_path):
    """Never seen before: the worker processes of a SIGKILLed `pipesmith eval --workers 2`
    ran their job on (sandbox jobs and all) into the folder a rerun then deleted."""
    out = tmp_path / "evals"
    args = ("eval", "--suite", "smoke", "--datasets", "diabetes", "--topologies",
            "single-pass", "--budget", "20", "--workers", "2", "--out", str(out))
    proc = cli(*args)
    wait_for(lambda: any(job_running(p) for p in descendants(proc.pid)), proc, timeout_s=240)
    workers = [p for p in descendants(proc.pid) if read_ppid(p) == proc.pid]
    owners = {p: start_time(p) for p in [proc.pid, *workers]}  # PIDs are reused here
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    deadline = time.monotonic() + 15  # each worker looks for its parent every 0.5 s
    while (alive := [p for p in workers if Path(f"/proc/{p}").exists()
                     and (Path(f"/proc/{p}") / "stat").read_text().split()[2] != "Z"]):
        assert time.monotonic() < deadline, f"still running: {alive}"
        time.sleep(0.1)
    rerun = cli(*args)
    _, stderr = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, stderr
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [(r["dataset"], r["status"]) for r in rows] == [("diabetes", "succeeded")]
    left = {p: owned_leftovers(p, start) for p, start in owners.items()}
    assert not any(left.values()), left


def read_ppid(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def owned_leftovers(pid: int, start: int | None) -> list[str]:
    """leftovers(pid) that carry this very process's tag (PID and start time): on a busy
    machine with pid_max 32768 another supervisor may have the PID by now."""
    tag = f"{pid}.{start}"
    found = []
    for item in leftovers(pid):
        if item.startswith("process "):
            try:
                environ = Path(f"/proc/{item.split()[1]}/environ").read_bytes()
            except OSError:
                continue
            if f"{OWNER_ENV}={tag}".encode() in environ:
                found.append(item)
        elif f"-{tag}-" in item:
            found.append(item)
    return found
