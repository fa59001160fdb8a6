"""Start the real `langgraph dev` on 127.0.0.1 and drive the graph of langgraph.json over
HTTP; print what came back as one JSON line. Run by tests/graph/test_langgraph_server.py, inside a
network namespace with only loopback (`unshare -n`) where the machine allows it.

    python tests/graph/langgraph_server.py PORT WORKDIR
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
QUIET_ENV = {  # nothing leaves the machine: no analytics, no version check, no tracing
    "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true",
    "LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false",
    "LANGSMITH_API_KEY": "", "ANONYMIZED_TELEMETRY": "False",
}


def wait_ready(client: httpx.Client, server: subprocess.Popen, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"langgraph dev exited with {server.returncode}")
        try:
            if client.get("/ok").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise TimeoutError("langgraph dev did not answer /ok")


def run_wait(client: httpx.Client, thread: str, body: dict) -> dict:
    answer = client.post(f"/threads/{thread}/runs/wait",
                         json={"assistant_id": "pipesmith", **body}, timeout=600)
    answer.raise_for_status()
    return answer.json()


def interrupts(client: httpx.Client, thread: str) -> list[dict]:
    state = client.get(f"/threads/{thread}/state").json()
    return [i["value"] for task in state.get("tasks", []) for i in task.get("interrupts", [])]


def digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def reloads(log: Path) -> int:
    """How many times uvicorn's reload watch restarted the server (its warning line)."""
    return log.read_text(errors="replace").count("detected changes in")


def wait_reload(log: Path, seen: int, timeout_s: float = 30) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if reloads(log) > seen:
            return True
        time.sleep(0.5)
    return False


def drive(port: int, work: Path) -> dict:
    """Two inputs on one thread: iris with plan approval (an edit, then approve), then wine
    without. The server reloads on code changes in its project folder (as `langgraph dev`
    does by default), and the runs go to its default runs directory."""
    project, data = work / "project", work / "data"  # data: the user's data directory
    project.mkdir()
    env = {**os.environ, **QUIET_ENV, "XDG_DATA_HOME": str(data),
           "PIPESMITH_KB_DIR": str(work / "kb"), "PIPESMITH_MAX_CANDIDATES": "1",
           "PIPESMITH_N_JOBS": "1"}
    env.pop("PIPESMITH_RUNS_DIR", None)
    log_path = work / "langgraph-dev.log"
    log = log_path.open("w")
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "langgraph"), "dev", "--no-browser",
         "--host", "127.0.0.1", "--port", str(port), "--allow-blocking",
         "--config", str(ROOT / "langgraph.json")],
        cwd=project, env=env, stdout=log, stderr=subprocess.STDOUT)  # its state files too
    out: dict = {}
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            wait_ready(client, server)
            thread = client.post("/threads", json={}).json()["thread_id"]
            run_wait(client, thread, {"input": {"dataset": "iris", "budget_s": 30,
                                                "approve_plan": True}})
            out["first_plan"] = interrupts(client, thread)
            run_wait(client, thread, {"command": {"resume": {"edits": {"budget_s": 25}}}})
            out["edited_plan"] = interrupts(client, thread)
            out["approved"] = run_wait(client, thread,
                                       {"command": {"resume": {"approve": True}}})
            out["after"] = interrupts(client, thread)
            first_report = out["approved"]["report_path"]
            out["first_digest"] = digest(first_report)
            out["plain"] = run_wait(client, thread, {"input": {"dataset": "wine",
                                                               "budget_s": 30}})
            out["after_plain"] = interrupts(client, thread)
            out["first_digest_at_end"] = digest(first_report)
            out["reloads_during_runs"] = reloads(log_path)
            (project / "probe.py").write_text("# a code change the watch must see\n")
            out["probe_reloaded"] = wait_reload(log_path, out["reloads_during_runs"])
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
    return out


if __name__ == "__main__":
    sys.stdout.write(json.dumps(drive(int(sys.argv[1]), Path(sys.argv[2]))) + "\n")
