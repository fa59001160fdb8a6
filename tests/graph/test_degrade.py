"""Degrade, do not die: bad paths and undecodable files are one line and exit 2 with
nothing written; a read-only knowledge base costs the run its record, not its success; a
full disk under --out stops the run with one line, resumable once space is freed."""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipesmith.sandbox.scratch import unmount

ROOT = Path(__file__).resolve().parents[2]
SMALL = {"PIPESMITH_MAX_CANDIDATES": "1", "PIPESMITH_N_JOBS": "1", "PIPESMITH_CV_FOLDS": "2"}
MS_RDONLY, MS_REMOUNT, MS_BIND = 1, 32, 4096
_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def pipesmith(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipesmith.cli", *args], cwd=cwd,
                          env={**os.environ, **SMALL}, capture_output=True, text=True,
                          timeout=300)


def one_line_error(done: subprocess.CompletedProcess, code: int = 2) -> str:
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    return lines[0]


def mount(source: str, target: Path, fstype: str | None, flags: int, data: str = "") -> None:
    if _libc.mount(source.encode(), str(target).encode(), fstype.encode() if fstype else None,
                   flags, data.encode()) != 0:
        pytest.skip(f"cannot mount here: {os.strerror(ctypes.get_errno())}")


@pytest.fixture
def latin1(tmp_path) -> Path:
    path = tmp_path / "latin1.py"
    path.write_bytes("# caf\xe9\ndef build_pipeline(task):\n    return None\n".encode("latin-1"))
    return path


def test_bad_paths_and_files_are_one_line_and_write_nothing(tmp_path, latin1):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    out = tmp_path / "out"
    cases = [
        ["run", "--dataset", "iris", "--out", str(a_file / "run")],
        ["validate", str(latin1)],
        ["repair", str(latin1), "--out", str(out)],
        ["sandbox", "exec", str(latin1)],
        ["sandbox", "exec", str(tmp_path / "x.py"), "--workdir", str(a_file / "w")],
        ["resume", str(a_file)],
        ["kb", "stats", "--kb", str(a_file)],
    ]
    (tmp_path / "x.py").write_text("print(1)\n")
    for args in cases:
        line = one_line_error(pipesmith(*args, "--kb", str(tmp_path / "kb"))
                              if args[0] in ("run", "repair") else pipesmith(*args))
        assert line.startswith("error:"), (args, line)
    assert "not UTF-8" in one_line_error(pipesmith("validate", str(latin1)))
    assert not out.exists() and not (tmp_path / "kb").exists()  # repair left no half folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "latin1.py", "x.py"]


def test_sandbox_exec_rejects_zero_limits(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("print(1)\n")
    for option in ("--memory", "--disk"):
        assert "positive" in one_line_error(pipesmith("sandbox", "exec", str(program),
                                                      option, "0"))


def test_a_read_only_knowledge_base_costs_the_record_not_the_run(tmp_path):
    kb = tmp_path / "kb"
    seeded = pipesmith("run", "--dataset", "iris", "--budget", "30", "--out",
                       str(tmp_path / "first"), "--kb", str(kb), "-q")
    assert seeded.returncode == 0, seeded.stderr
    mount(str(kb), kb, None, MS_BIND)
    try:
        mount("", kb, None, MS_REMOUNT | MS_BIND | MS_RDONLY)
        out = tmp_path / "second"
        done = pipesmith("run", "--dataset", "iris", "--budget", "30", "--out", str(out),
                         "--kb", str(kb), "-q")
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        warned = [line for line in done.stderr.splitlines() if "kb.not_recorded" in line]
        assert len(warned) == 1
        assert "succeeded" in done.stdout
    finally:
        unmount(kb)
    resumed = pipesmith("resume", str(out), "-q")  # writable again: now it is remembered
    assert resumed.returncode == 0, resumed.stderr
    run_id = json.loads((out / "report.json").read_text())["run_id"]
    lines = (kb / "records.jsonl").read_text().splitlines()
    assert sum(f'"run_id":"{run_id}"' in line and '"kind":"run"' in line for line in lines) == 1


def test_a_full_disk_under_out_stops_with_one_line_and_resumes(tmp_path):
    disk = tmp_path / "small"
    disk.mkdir()
    mount("tmpfs", disk, "tmpfs", 0, "size=4m")
    try:
        filler = disk / "filler"
        with filler.open("wb") as handle:  # leave ~300 KB: the inputs fit, the run does not
            handle.write(b"\0" * ((4 << 20) - (300 << 10)))
        out = disk / "run"
        done = pipesmith("run", "--dataset", "iris", "--budget", "60", "--out", str(out),
                         "--kb", str(tmp_path / "kb"), "--fault-rate", "1.0", "-q")
        line = one_line_error(done, code=1)
        assert "no space left" in line and f"pipesmith resume {out}" in line
        filler.unlink()
        resumed = pipesmith("resume", str(out), "-q")
        # it finishes (whether the candidates beat the budget is the run's own business)
        assert resumed.returncode in (0, 1) and "Traceback" not in resumed.stderr
        report = json.loads((out / "report.json").read_text())
        assert resumed.stdout.startswith(report["status"])
        assert report["status"] == "succeeded" or report["attempts"]
    finally:
        unmount(disk)
