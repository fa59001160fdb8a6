"""The setup node of the served graph (langgraph.json): plain input in, RunInputs out.

{"dataset": "wine", "budget_s": 30} or {"data_path": "x.csv", "target": "y"} becomes a run
directory under the settings' runs_dir (the prepared table and run.json, as `pipesmith run`
writes them) and the RunInputs the other nodes read. Input that already carries RunInputs
passes through.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from pipesmith.graph.context import Deps
from pipesmith.graph.state import RunState


def setup(state: RunState, runtime: Runtime[Deps]) -> dict:
    if state.get("inputs") is not None:
        return {}
    from pipesmith.core.run_folder import start_run
    from pipesmith.settings import Settings

    plain = dict(state)
    _, inputs, _ = start_run(
        dataset=plain.get("dataset"), data=plain.get("data_path"), target=plain.get("target"),
        task=plain.get("task"), metric=plain.get("metric"), budget_s=plain.get("budget_s"),
        seed=plain.get("seed"), task_text=plain.get("task_text"),
        settings=runtime.context.settings or Settings())
    return {"inputs": inputs}
