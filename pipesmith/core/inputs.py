"""A run's inputs, built one way for every door (CLI, Python, chat, web page, LangGraph
server, `repair`, `validate`, an edited plan): the table loaded, the task in words read,
task type, target and metric given or inferred and checked, the referee's split and K.

Everything here runs before a run directory exists, so bad input never leaves half a run.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from pipesmith.core.datasets import (
    Table,
    check_metric,
    check_table,
    infer_metric,
    infer_task_type,
    load_bundled,
    load_file,
    prepare,
)
from pipesmith.core.model_io import write_schema
from pipesmith.core.referee import (
    DEV_FILE,
    TEST_FILE,
    TEST_FOLDER,
    choose_folds,
    save_split,
    split_positions,
)
from pipesmith.errors import InputError
from pipesmith.settings import Settings


def load_table(dataset: str | None, data: str | Path | None, target: str | None) -> Table:
    if (dataset is None) == (data is None):
        raise InputError("give exactly one of --dataset NAME or --data PATH")
    if dataset is not None:
        table = load_bundled(dataset)
        return table if target is None else Table(table.frame, target, table.source)
    return load_file(data, target)


class TaskChoice(NamedTuple):
    task: str
    target: str | None
    metric: str
    inferred: tuple[str, ...]  # what was not given: "task_type", "metric"


def resolve_task(table: Table, task: str | None, metric: str | None) -> TaskChoice:
    """Task type, target and metric of a table, given or inferred, and checked: the rules
    every door shares (a new run, a repair, a validation, an edited plan)."""
    inferred = []
    if task is None:
        y = table.frame[table.target] if table.target in table.frame.columns else None
        task = infer_task_type(y)
        inferred.append("task_type")
    check_table(table, task)
    target = table.target if task != "clustering" or table.target in table.frame else None
    if metric is None:
        metric = infer_metric(task, table.frame[target] if target else None)
        inferred.append("metric")
    check_metric(task, metric)
    return TaskChoice(task, target, metric, tuple(inferred))


def check_budget(budget_s: float, name: str = "--budget") -> None:
    if budget_s <= 0:
        raise InputError(f"{name} must be a positive number of seconds")


def folds_for(dev: pd.DataFrame, target: str | None, task: str, budget_s: float,
              requested: int) -> int:
    """K for the development rows: the referee's rule, capped by the smallest class."""
    min_class = int(dev[target].value_counts().min()) if task == "classification" else None
    return choose_folds(len(dev), budget_s, requested, min_class)


def resolve(table: Table, task: str | None, metric: str | None, settings: Settings,
             budget_s: float, seed: int, out: Path, run_id: str, task_text: str | None,
             test_part: bool = True):
    """The run's inputs and its tables. test_part=False (`pipesmith repair`, which refits
    nothing and scores no test part): every row is development, and nothing is split off."""
    from pipesmith.agents.schemas import RunInputs

    task, target, metric, inferred = resolve_task(table, task, metric)
    check_budget(budget_s)
    frame = prepare(table, task)
    dev_rows, test_rows = split_positions(frame, target, task, seed, settings.test_size) \
        if test_part else (np.arange(len(frame)), np.arange(0))
    inputs = RunInputs(
        run_id=run_id,
        task_text=task_text or f"{task} of {target or 'clusters'} on {table.source}",
        dataset=table.source, data_path=str((out / DEV_FILE).resolve()),
        test_path=str((out / TEST_FOLDER / TEST_FILE).resolve()) if test_part else "",
        target=target,
        task_type=task, metric=metric, inferred=list(inferred), budget_s=budget_s, seed=seed,
        out_dir=str(out.resolve()), max_candidates=candidate_cap(settings),
        max_repair_rounds=settings.max_repair_rounds, run_timeout_s=settings.run_timeout_s,
        n_jobs=settings.n_jobs, test_size=settings.test_size, memory_mb=settings.memory_mb,
        disk_mb=settings.disk_mb,
        cv_folds=folds_for(frame.iloc[dev_rows], target, task, budget_s, settings.cv_folds),
        fault_rate=settings.fault_rate,
        smoke_rows=settings.smoke_rows, backend=settings.backend,
        search_share=settings.search_share,
        rows_dropped_missing_target=len(table.frame) - len(frame),
        llm=settings.llm, llm_model=settings.llm_model if settings.llm != "offline" else None,
        max_tokens_total=settings.max_tokens_total, max_cost=settings.max_cost,
        permutation_control=settings.permutation_control,
    )
    return inputs, Tables(frame, dev_rows, test_rows)


class Tables(NamedTuple):
    """The prepared table and the rows of the referee's development and test parts."""

    frame: pd.DataFrame
    dev_rows: np.ndarray
    test_rows: np.ndarray

    @property
    def dev(self) -> pd.DataFrame:
        return self.frame.iloc[self.dev_rows].reset_index(drop=True)

    def write(self, out: Path) -> None:
        """data.parquet (the whole prepared table, for pipeline.py), development.parquet
        (what agents profile and folds are cut from) and referee/ (the test part)."""
        self.frame.to_parquet(out / "data.parquet", index=False)
        save_split(out, self.frame, self.dev_rows, self.test_rows)


def candidate_cap(settings: Settings) -> int:
    """The settings' candidate limit, capped by the topology's own (single-pass: one)."""
    from pipesmith.graph.topologies import TOPOLOGIES

    if settings.topology not in TOPOLOGIES:
        raise InputError(f"unknown topology {settings.topology!r}; known: "
                         + ", ".join(TOPOLOGIES))
    cap = TOPOLOGIES[settings.topology].max_candidates
    return settings.max_candidates if cap is None else min(cap, settings.max_candidates)


class Asked(NamedTuple):
    """A run's request once the task's words are read (explicit options win) and the
    dropped columns are taken off the table."""

    table: Table
    task: str | None
    metric: str | None
    budget_s: float | None
    drop_columns: list[str]
    families: list[str]
    target_from_words: bool  # the words named the target: the CLI says which column it took
    target_guessed: bool = False  # ... or only hinted at it: the CLI says it is a guess
    excluded_families: list[str] = []  # "no random forests": never planned nor searched


def from_words(table: Table, task_text: str | None, task, metric, budget_s, drops,
                families, excluded=None) -> Asked:
    """What the task in words asks for (explicit options win). The target comes from the
    words only for a data file without --target (InputError naming the columns when they do
    not say); metric, budget, drops and families whenever there are words."""
    from pipesmith.chat.task_text import parse_request

    columns = list(table.frame.columns)
    needs_target = table.target is None and task != "clustering"
    named = ", ".join(map(str, columns[:20])) + (" ..." if len(columns) > 20 else "")
    if not task_text:
        if needs_target:
            raise InputError("--data needs --target COLUMN, a task in words (e.g. \"predict "
                             f"{columns[-1]}\") or --task clustering; columns: {named}")
        return Asked(table, task, metric, budget_s, list(drops or []), list(families or []),
                     False, excluded_families=list(excluded or []))
    asked = parse_request(task_text, columns)
    task = task or asked.task_type
    target = table.target
    if needs_target and task != "clustering":
        if asked.target is None:
            raise InputError(f"cannot tell which column to predict from {task_text!r}; "
                             f"name one of: {named}")
        target = asked.target
    drops = drops or [c for c in asked.drop_columns if c != target]
    return Asked(Table(table.frame, target if task != "clustering" else None, table.source),
                 task, metric or asked.metric,
                 budget_s if budget_s is not None else asked.budget_s, list(drops),
                 list(families or asked.families), needs_target and target is not None,
                 needs_target and asked.target_guessed,
                 list(excluded or asked.exclude_families))


def check_families(families: list[str], excluded: list[str]) -> None:
    """InputError for a family name no record has."""
    from pipesmith.agents.families.registry import FAMILIES

    known = {f.name for f in FAMILIES}
    unknown = [f for f in [*families, *excluded] if f not in known]
    if unknown:
        raise InputError(f"no model family named {', '.join(unknown)}; families: "
                         + ", ".join(sorted(known)))


def check_families_left(inputs, n_rows: int) -> None:
    """InputError when the person's exclusions leave the task no family to plan."""
    from pipesmith.agents.families.backends import planned_backends
    from pipesmith.agents.families.registry import families_for
    from pipesmith.agents.planner.agent import allowed

    if not allowed(families_for(inputs.task_type, n_rows,
                                planned_backends(inputs.backend, n_rows)), inputs):
        raise InputError(f"every {inputs.task_type} model family is excluded ("
                         + ", ".join(inputs.excluded_families) + "); leave one in")


def read_request(*, dataset: str | None = None, data: str | Path | None = None,
                 target: str | None = None, task: str | None = None,
                 metric: str | None = None, budget_s: float | None = None,
                 task_text: str | None = None, drop_columns: list[str] | None = None,
                 families: list[str] | None = None,
                 excluded_families: list[str] | None = None) -> Asked:
    """The table and what is asked of it, words read and drops applied; nothing written.
    InputError when the person excluded every family the task has."""
    table = load_table(dataset, data, target)
    asked = from_words(table, task_text, task, metric, budget_s, drop_columns, families,
                       excluded_families)
    check_families(asked.families, asked.excluded_families)
    if asked.drop_columns:
        frame = asked.table.frame
        missing = [c for c in asked.drop_columns if c not in frame.columns]
        if missing:
            raise InputError(f"no column named {', '.join(missing)} to drop; columns: "
                             + ", ".join(list(frame.columns)[:20]))
        asked = asked._replace(table=Table(frame.drop(columns=asked.drop_columns),
                                           asked.table.target, asked.table.source))
    return asked

def prepare_inputs(folder: Path, *, dataset: str | None = None, data: str | Path | None = None,
                   target: str | None = None, task: str | None = None,
                   metric: str | None = None, seed: int = 0, settings: Settings | None = None):
    """RunInputs and the prepared table, written to folder/data.parquet: what a run's graph
    starts from, for benchmarks and tools that drive the agents directly."""
    settings = settings or Settings()
    table = load_table(dataset, data, target)
    folder.mkdir(parents=True, exist_ok=True)
    inputs, tables = resolve(table, task, metric, settings, settings.budget_s, seed, folder,
                              new_run_id(table.source), None)
    tables.write(folder)
    write_schema(folder, tables.frame, inputs.target, inputs.task_type)
    return inputs, tables.dev

def new_run_id(source: str) -> str:
    stem = Path(source).stem.replace(" ", "_")[:24]
    return f"{datetime.now():%Y%m%d-%H%M%S}-{stem}-{secrets.token_hex(2)}"
