"""`pipesmith run --plan-only`: what a run would do, resolved as `run` resolves it (the task's
words read, the target, task type, metric and budget settled, the drops applied, the
planner's candidate families), with nothing run and nothing written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipesmith.settings import Settings


def plan_only(*, dataset: str | None = None, data: str | Path | None = None,
              target: str | None = None, task: str | None = None, metric: str | None = None,
              budget_s: float | None = None, seed: int | None = None,
              task_text: str | None = None, settings: Settings | None = None) -> dict[str, Any]:
    """The resolved request as a JSON-ready dict; InputError where `run` would refuse it.
    The families are the offline planner's, without the knowledge base (reading it could
    create files), in the order it would try them."""
    from pipesmith.agents.families.backends import check_backend
    from pipesmith.agents.planner.agent import Planner
    from pipesmith.agents.planner.profiler import profile_table
    from pipesmith.core.inputs import check_families_left, new_run_id, read_request, resolve

    settings = settings or Settings()
    check_backend(settings.backend)
    asked = read_request(dataset=dataset, data=data, target=target, task=task, metric=metric,
                         budget_s=budget_s, task_text=task_text)
    run_id = new_run_id(asked.table.source)
    inputs, tables = resolve(asked.table, asked.task, asked.metric, settings,
                             settings.budget_s if asked.budget_s is None else asked.budget_s,
                             settings.seed if seed is None else seed,
                             settings.runs_dir / run_id, run_id, task_text)
    inputs = inputs.model_copy(update={"families": asked.families,
                                       "excluded_families": asked.excluded_families})
    check_families_left(inputs, len(tables.dev))
    plan = Planner().plan(inputs, profile_table(tables.dev, inputs.target, inputs.task_type), [])
    return {"dataset": asked.table.source, "target": inputs.target,
            "target_from_words": asked.target_from_words,
            "target_guessed": asked.target_guessed, "task": inputs.task_type,
            "drop": asked.drop_columns, "metric": inputs.metric, "budget_s": inputs.budget_s,
            "families": list(dict.fromkeys(c.family for c in plan.candidates)),
            "excluded_families": asked.excluded_families}
