"""The command line as users run it: a real process, real exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def pipesmith(*args, cwd=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "pipesmith.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout)


@pytest.mark.slow
def test_run_succeeds_shows_progress_and_exits_0(tmp_path, monkeypatch):
    monkeypatch.setenv("PIPESMITH_MAX_CANDIDATES", "2")  # the progress of two is the same
    out = tmp_path / "run"
    done = pipesmith("run", "--dataset", "iris", "--budget", "60", "--out", str(out),
                     "--kb", str(tmp_path / "kb"))
    assert done.returncode == 0, done.stderr
    assert "succeeded: classification (inferred: task_type, metric)" in done.stdout
    assert "accuracy: CV 0." in done.stdout and "; test 0." in done.stdout
    for node in ("profile", "plan", "draft", "prevalidate", "execute", "report"):
        assert node in done.stderr
    assert "s / 60s]" in done.stderr  # elapsed against the budget
    assert json.loads((out / "report.json").read_text())["status"] == "succeeded"


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    out = tmp_path / "run"
    done = pipesmith("run", "--data", str(tmp_path / "missing.csv"), "--target", "y",
                     "--out", str(out), "--no-kb")
    assert done.returncode == 2
    expected = f"error: data file not found: {tmp_path}/missing.csv"
    assert done.stderr.strip().splitlines() == [expected]
    assert not out.exists()


@pytest.mark.parametrize(("rows", "extra", "message"), [
    ("x,y\n" + "".join(f"{i},a\n" for i in range(20)) + "99,b\n", [],
     "error: class 'b' of 'y' has 1 row; every class needs at least 2 to split off a test part"),
    ("x,y\n" + "".join(f"{i},{i % 2}\n" for i in range(20)), ["--test-size", "1.5"],
     "error: --test-size must be between 0 and 1 (exclusive)"),
])
def test_a_table_the_referee_cannot_split_is_bad_input(tmp_path, rows, extra, message):
    data = tmp_path / "t.csv"
    data.write_text(rows)
    out = tmp_path / "run"
    done = pipesmith("run", "--data", str(data), "--target", "y", "--task", "classification",
                     "--out", str(out), "--no-kb", *extra)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [message]
    assert not out.exists()


def test_unknown_dataset_lists_the_known_ones(tmp_path):
    done = pipesmith("run", "--dataset", "titanic", "--no-kb", "--out", str(tmp_path / "r"))
    assert done.returncode == 2
    assert "known: breast_cancer, diabetes, digits, iris, wine" in done.stderr


@pytest.mark.slow
def test_no_pipeline_succeeds_exits_1(tmp_path):
    # Every model family needs at least one usable feature; a table of only IDs has none.
    path = tmp_path / "ids.csv"
    path.write_text("row_id,y\n" + "".join(f"{i},{i % 2}\n" for i in range(60)))
    done = pipesmith("run", "--data", str(path), "--target", "y", "--out",
                     str(tmp_path / "r"), "--no-kb", "--budget", "60", "-q")
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert done.returncode == 1, done.stdout + done.stderr
    assert report["status"] == "failed" and not report["final_success"]


def test_resume_of_a_non_run_directory_is_bad_input(tmp_path):
    done = pipesmith("resume", str(tmp_path))
    assert done.returncode == 2 and "not a pipesmith run directory" in done.stderr


def test_help_answers_the_obvious_questions():
    done = pipesmith("run", "--help")
    assert done.returncode == 0
    for option in ("--dataset", "--data", "--target", "--task", "--metric", "--budget",
                   "--seed", "--out", "--llm"):
        assert option in done.stdout


@pytest.mark.slow
def test_ctrl_c_then_resume(tmp_path, monkeypatch):
    import signal
    import time

    # two candidates: the interrupt comes after the first attempt, the second is left
    monkeypatch.setenv("PIPESMITH_MAX_CANDIDATES", "2")
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipesmith.cli", "run", "--dataset", "wine", "--out", str(out),
         "--kb", str(tmp_path / "kb"), "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
        # A shell's background job (CI scripts, `cmd &`) inherits SIGINT ignored, and Python
        # then never raises KeyboardInterrupt: give the run the default disposition back.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    # The first attempt that finishes (a1 may time out on a busy machine) marks mid-run.
    while not (done_before := list(out.glob("attempts/*/oof.npz"))) \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    assert done_before and proc.poll() is None, "no attempt finished while the run was going"
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert f"continue with: pipesmith resume {out}" in stderr
    assert not (out / "report.json").exists()
    done = pipesmith("resume", str(out), "-q")
    assert done.returncode == 0, done.stderr
    report = json.loads((out / "report.json").read_text())
    finished = done_before[0].parent.name.split("_")[0]
    assert report["status"] == "succeeded"
    assert {a["id"]: a["status"] for a in report["attempts"]}[finished] == "ok"
