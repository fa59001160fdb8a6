"""The run's seconds per stage, from what the report already records: the graph's node
timings (graph/builder.py `timed`: each node's own wall time, summed over visits, and the
time between nodes) and the refit job's wall time."""

from __future__ import annotations

from pipesmith.agents.schemas import Attempt

# Which graph nodes make up each stage. The ensemble's own CV run goes through the
# prevalidate and execute nodes; stage_seconds moves its sandbox seconds to `ensemble`.
STAGE_NODES: dict[str, tuple[str, ...]] = {
    "profiling": ("profile",),
    "planning": ("retrieve", "plan", "approve"),
    "candidates": ("draft", "prevalidate", "execute", "diagnose", "repair"),
    "search": ("search",),
    "ensemble": ("ensemble",),
}
STAGES = (*STAGE_NODES, "refit", "other")


def stage_seconds(timings: dict[str, float], attempts: list[Attempt],
                  refit_wall_s: float) -> dict[str, float]:
    """Seconds per stage, in the run's order. `other` is what no stage owns: start-up,
    checkpoints and routing between nodes. The report node's own time beyond the refit
    (scoring, plots, writing) is not known while it writes the report, so it is absent."""
    seconds = {stage: sum(timings.get(node, 0.0) for node in nodes)
               for stage, nodes in STAGE_NODES.items()}
    ensemble_run = sum(a.wall_s + a.smoke_s for a in attempts if a.phase == "ensemble")
    moved = min(ensemble_run, seconds["candidates"])
    seconds["candidates"] -= moved
    seconds["ensemble"] += moved
    seconds["refit"] = refit_wall_s
    owned = {node for nodes in STAGE_NODES.values() for node in nodes}
    seconds["other"] = sum(v for k, v in timings.items() if k not in owned)
    return {stage: round(seconds[stage], 3) for stage in STAGES}
