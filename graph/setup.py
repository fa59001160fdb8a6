"""The setup node of the served graph (langgraph.json): plain input in, a new run out.

{"dataset": "wine", "budget_s": 30} or {"data_path": "x.csv", "target": "y"} becomes a run
directory under the settings' runs_dir (the prepared table and run.json, as `pipesmith run`
writes them) and the RunInputs the other nodes read.

A LangGraph server thread keeps its state between inputs, and setup runs once for each
input that is not a resume (a Command), so every such input starts a new run: a fresh run
id and folder, and the per-run state reset (state.fresh_run). The earlier run's folder and
report are left as they are.
"""

from __future__ import annotations

import structlog
from langgraph.runtime import Runtime

from pipesmith.graph.context import Deps
from pipesmith.graph.state import REQUEST_KEYS, RunState, fresh_run

log = structlog.get_logger(__name__)


def setup(state: RunState, runtime: Runtime[Deps]) -> dict:
    from pipesmith.core.run_folder import start_run
    from pipesmith.settings import Settings

    request = {key: state.get(key) for key in REQUEST_KEYS}  # this input's only (ephemeral)
    _, inputs, _ = start_run(
        dataset=request["dataset"], data=request["data_path"], target=request["target"],
        task=request["task"], metric=request["metric"], budget_s=request["budget_s"],
        seed=request["seed"], task_text=request["task_text"],
        settings=runtime.context.settings or Settings())
    log.info("served_run_started", run_id=inputs.run_id, out_dir=inputs.out_dir)
    return fresh_run(inputs, approval_asked=bool(state.get("approve_plan")))
