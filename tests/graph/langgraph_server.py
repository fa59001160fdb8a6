"""Start the real `langgraph dev` on 127.0.0.1 and drive the graph of langgraph.json over
HTTP; print what came back as one JSON line. Run by tests/graph/test_langgraph_server.py, inside a
network namespace with only loopback (`unshare -n`) where the machine allows it.

    python tests/graph/langgraph_server.py PORT WORKDIR
"""

from __future__ import annotations

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


def drive(port: int, work: Path) -> dict:
    env = {**os.environ, **QUIET_ENV, "PIPESMITH_RUNS_DIR": str(work / "runs"),
           "PIPESMITH_KB_DIR": str(work / "kb"), "PIPESMITH_MAX_CANDIDATES": "1",
           "PIPESMITH_N_JOBS": "1"}
    log = (work / "langgraph-dev.log").open("w")
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "langgraph"), "dev", "--no-browser", "--no-reload",
         "--host", "127.0.0.1", "--port", str(port), "--allow-blocking",
         "--config", str(ROOT / "langgraph.json")],
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)  # its state files go to work
    out: dict = {}
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            wait_ready(client, server)
            plain = client.post("/threads", json={}).json()["thread_id"]
            out["plain"] = run_wait(client, plain, {"input": {"dataset": "wine",
                                                              "budget_s": 30}})
            asked = client.post("/threads", json={}).json()["thread_id"]
            run_wait(client, asked, {"input": {"dataset": "iris", "budget_s": 30,
                                               "approve_plan": True}})
            out["first_plan"] = interrupts(client, asked)
            run_wait(client, asked, {"command": {"resume": {"edits": {"budget_s": 25}}}})
            out["edited_plan"] = interrupts(client, asked)
            out["approved"] = run_wait(client, asked, {"command": {"resume": {"approve": True}}})
            out["after"] = interrupts(client, asked)
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
