"""langgraph.json's graph under the real `langgraph dev`, driven over HTTP on 127.0.0.1.

Inside a network namespace with only loopback (`unshare -n`) where the machine allows it,
so nothing the server does can leave the machine; analytics, the version check and
tracing are off in any case (tests/graph/langgraph_server.py)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LANGGRAPH = Path(sys.executable).parent / "langgraph"


def loopback_only() -> list[str]:
    """The command prefix for a loopback-only network namespace, or [] where none can be made."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return []
    probe = subprocess.run(["unshare", "-n", "ip", "link", "set", "lo", "up"],
                           capture_output=True)
    if probe.returncode != 0:
        return []
    return ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_langgraph_json_names_no_missing_env_file():
    config = json.loads((ROOT / "langgraph.json").read_text())
    assert "env" not in config or (ROOT / config["env"]).exists()


@pytest.mark.slow
@pytest.mark.skipif(not LANGGRAPH.exists(), reason="langgraph-cli[inmem] (dev extra) missing")
def test_langgraph_dev_runs_each_input_on_a_thread_and_its_plan_approval(tmp_path):
    driver = str(ROOT / "tests/graph/langgraph_server.py")
    done = subprocess.run([*loopback_only(), sys.executable, driver, str(free_port()),
                           str(tmp_path)], capture_output=True, text=True, timeout=600)
    log = (tmp_path / "langgraph-dev.log")
    assert done.returncode == 0, done.stderr + (log.read_text() if log.exists() else "")
    got = json.loads(done.stdout.strip().splitlines()[-1])
    [first], [edited] = got["first_plan"], got["edited_plan"]  # stopped at the plan, twice
    assert first["kind"] == "plan_approval" and first["dataset"] == "iris"
    assert first["budget_s"] == 30 and edited["budget_s"] == 25
    assert first["candidates"][0]["predicted_wall_s"] > 0
    approved = got["approved"]["outcome"]
    assert approved["status"] == "succeeded" and got["after"] == []
    report = json.loads(Path(approved["report_path"]).read_text())
    assert report["dataset"] == "iris" and report["budget_s"] == 25
    assert report["score"] == approved["score"]
    # A second input on the same thread is a new run, read alone: it does not stop at the
    # plan (the iris input's approve_plan does not carry over) and runs to the end.
    plain = got["plain"]["outcome"]
    assert plain["status"] == "succeeded" and plain["score"] > plain["baseline_score"]
    assert plain["test_score"] > plain["test_baseline_score"]  # the referee's test part
    assert got["plain"]["report_path"] == plain["report_path"] and got["after_plain"] == []
    second = json.loads(Path(plain["report_path"]).read_text())
    assert second["dataset"] == "wine" and second["budget_s"] == 30
    assert [a["id"] for a in second["attempts"]] == ["a1"]  # none of the iris run's
    out_dirs = [Path(o["out_dir"]) for o in (approved, plain)]
    assert out_dirs[0] != out_dirs[1]
    assert {d.parent for d in out_dirs} == {tmp_path / "data" / "pipesmith" / "runs"}
    assert got["first_digest_at_end"] == got["first_digest"]  # never rewritten
    # The runs wrote candidate.py files outside the watched project folder: no reload,
    # while a code change in it reloads (the watch was on).
    assert got["reloads_during_runs"] == 0 and got["probe_reloaded"]

