"""Plan approval: with approve_plan in the input, the graph stops after planning (a LangGraph
interrupt) and shows the plan; the person's answer approves it or edits it.

The resume value is {"approve": true}, or {"edits": {...}} with PlanEdit's fields (budget_s,
metric, task_type, target, drop_columns, families, exclude_families). An edit that changes
the data or the task re-profiles, one that changes the families (restricts or excludes them)
re-plans, and the rest only re-show the plan.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from pipesmith.agents.executor import fold_workers
from pipesmith.agents.prevalidator.resources import first_run_wall_s, machine_pace
from pipesmith.agents.prevalidator.resources import predict as predict_resources
from pipesmith.agents.schemas import RunInputs
from pipesmith.errors import InputError
from pipesmith.graph.context import Deps
from pipesmith.graph.state import RunState
from pipesmith.graph.topologies import get_topology


def plan_summary(state: RunState, *, warm: bool = True, cores: int | None = None,
                 searches: bool = True, pace: float | None = None) -> dict[str, Any]:
    """What the person approves: candidates with their predicted time and memory, the
    metric, the budget and the dropped columns (JSON, so it crosses the server too).

    A candidate's time is its first run as the person waits for it (its smoke run, on
    warm workers the first candidate's alone, then its folds on the run's warm workers,
    `warm`); the run's is the budget when the topology `searches` (the search takes what
    the candidates leave), else the candidates' sum within the budget. `pace`: how much
    slower than alone jobs run on this machine (default: as measured at the run's start,
    else read off its load now)."""
    inputs, profile, plan = state["inputs"], state["profile"], state["plan"]
    cores = cores or os.cpu_count() or 1
    workers = fold_workers(inputs.n_jobs, inputs.cv_folds, cores)
    pace = pace or state.get("pace") or machine_pace(cores, workers)
    candidates = []
    for n, spec in enumerate(plan.candidates):
        guess = predict_resources(profile, spec, inputs.cv_folds, None, inputs.smoke_rows, [])
        # on warm workers only the first candidate gets a smoke run (nodes.prevalidate)
        smoke_rows = inputs.smoke_rows if n == 0 or not warm else 0
        wall = pace * first_run_wall_s(profile, spec, inputs.cv_folds, smoke_rows, workers,
                                       warm)
        candidates.append({"name": spec.name, "family": spec.family,
                           "rationale": spec.rationale, "predicted_wall_s": round(wall, 1),
                           "predicted_mem_mb": guess.peak_mem_mb})
    planned = sum(c["predicted_wall_s"] for c in candidates)
    search = searches and inputs.search_share > 0
    return {
        "kind": "plan_approval", "run_id": inputs.run_id, "dataset": inputs.dataset,
        "target": inputs.target, "task_type": inputs.task_type, "metric": inputs.metric,
        "budget_s": inputs.budget_s, "dropped_columns": inputs.dropped_columns,
        "families": [c["family"] for c in candidates], "candidates": candidates,
        "excluded_families": inputs.excluded_families,
        "predicted_wall_s": round(inputs.budget_s if search else min(planned,
                                                                     inputs.budget_s), 1),
        "time_note": "the search takes what the candidates leave of the budget" if search
        else None,
        "predicted_peak_mem_mb": max((c["predicted_mem_mb"] for c in candidates), default=0),
        "notes": plan.notes, "note": state.get("approval_note"),
        "out_dir": inputs.out_dir,
    }


def approve(state: RunState, runtime: Runtime[Deps]) -> Command:
    # approve_plan: the driver's input (one run per thread); approval_asked: setup's copy
    # of each served input's approve_plan (many runs per thread)
    if not (state.get("approve_plan") or state.get("approval_asked")):
        return Command(goto="draft")
    context = runtime.context
    answer = interrupt(plan_summary(state) if context is None else plan_summary(
        state, warm=context.executor.warm, cores=context.executor.cores,
        searches=get_topology(context.topology).search))
    if isinstance(answer, dict) and answer.get("edits"):
        settings = runtime.context.settings if runtime.context is not None else None
        try:
            inputs, goto = apply_edits(state["inputs"], answer["edits"],
                                       settings.cv_folds if settings else None)
        except InputError as exc:
            return Command(update={"approval_note": str(exc)}, goto="approve")
        return Command(update={"inputs": inputs, "approval_note": None}, goto=goto)
    if answer is True or (isinstance(answer, dict) and answer.get("approve")):
        return Command(update={"approval_note": None, "approved": True}, goto="draft")
    return Command(update={"approval_note": f"not understood: {answer!r}; "
                                             "answer {\"approve\": true} or {\"edits\": {...}}"},
                   goto="approve")


def apply_edits(inputs: RunInputs, edits: dict[str, Any], requested_folds: int | None = None
                ) -> tuple[RunInputs, str]:
    """The edited inputs and where the graph goes next; InputError for an edit that cannot
    apply (a metric of another task, a column the table does not have). Dropped columns
    leave every table of the run (the whole table, the development and the test part) and
    its feature schema; the folds are chosen again for a new target, task or budget."""
    from pipesmith.core.datasets import Table
    from pipesmith.core.inputs import (
        check_budget,
        check_families,
        check_families_left,
        folds_for,
        resolve_task,
    )
    from pipesmith.core.model_io import write_schema

    frame = pd.read_parquet(inputs.data_path)  # the development part
    update: dict[str, Any] = {}
    goto = "approve"
    drops = [c for c in edits.get("drop_columns") or [] if c != inputs.target]
    missing = [c for c in drops if c not in frame.columns]
    if missing:
        raise InputError(f"no column named {', '.join(missing)}; columns: "
                         + ", ".join(map(str, frame.columns[:20])))
    task = edits.get("task_type") or inputs.task_type
    target = edits.get("target") or inputs.target
    if target is not None and target not in frame.columns:
        raise InputError(f"no column named {target!r} to predict")
    if task == "clustering":
        target = None
    elif target is None:
        raise InputError(f"a {task} needs a column to predict; say which")
    if task == "regression" and not pd.api.types.is_numeric_dtype(frame[target]):
        raise InputError(f"{target!r} is not numeric, so it cannot be a regression")
    if task == "classification" and frame[target].nunique() > max(20, len(frame) // 5):
        raise InputError(f"{target!r} has {frame[target].nunique()} distinct values; "
                         "that is a regression, not a classification")
    if (task, target) != (inputs.task_type, inputs.target):
        update |= {"task_type": task, "target": target}
        goto = "profile"
    metric = edits.get("metric") or (inputs.metric if task == inputs.task_type else None)
    try:  # the rules of a new run's inputs (pipesmith/core/inputs.py)
        update["metric"] = resolve_task(Table(frame, target, inputs.dataset), task, metric).metric
    except InputError as exc:
        raise InputError(f"{exc}; the plan is unchanged") from None
    budget = inputs.budget_s
    if edits.get("budget_s") is not None:
        budget = update["budget_s"] = float(edits["budget_s"])
        check_budget(budget, "the budget")
    if edits.get("families"):
        update["families"] = list(edits["families"])
        goto = "plan" if goto == "approve" else goto
    if edits.get("exclude_families"):  # "no random forests": never planned nor searched
        update["excluded_families"] = list(dict.fromkeys(
            [*inputs.excluded_families, *edits["exclude_families"]]))
        goto = "plan" if goto == "approve" else goto
    if "families" in update or "excluded_families" in update:
        check_families(update.get("families", []), update.get("excluded_families", []))
        check_families_left(inputs.model_copy(update=update), len(frame))
    update["cv_folds"] = folds_for(frame, target, task, budget,
                                   requested_folds or inputs.cv_folds)
    out = Path(inputs.out_dir)
    if drops:
        for table in (out / "data.parquet", Path(inputs.data_path), Path(inputs.test_path)):
            if table.is_file():
                pd.read_parquet(table).drop(columns=drops).to_parquet(table, index=False)
        update["dropped_columns"] = [*inputs.dropped_columns, *drops]
        goto = "profile"
    if drops or "target" in update:
        write_schema(out, pd.read_parquet(out / "data.parquet"), target, task)
    return inputs.model_copy(update=update), goto
