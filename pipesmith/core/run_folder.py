"""A run's folder: checked before anything is written, then written once (the prepared
tables, the feature schema, run.json), under the run lock."""

from __future__ import annotations

import json
import os
from pathlib import Path

import structlog

from pipesmith.agents.families.backends import check_backend
from pipesmith.core.inputs import check_families_left, new_run_id, read_request, resolve
from pipesmith.core.model_io import write_schema
from pipesmith.errors import InputError
from pipesmith.runtime import run_lock
from pipesmith.settings import Settings

log = structlog.get_logger(__name__)
LLM_MODES = ("offline", "openai")


def check_out_dir(out: Path, what: str = "output directory") -> None:
    """InputError unless `out` is (or can be made) an empty, writable directory; nothing
    is created here."""
    if out.exists():
        if not out.is_dir():
            raise InputError(f"{what} {out} is a file")
        if any(out.iterdir()):
            raise InputError(f"{what} {out} is not empty")
        if not os.access(out, os.W_OK | os.X_OK):
            raise InputError(f"{what} {out} is not writable")
        return
    parent = out.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"cannot create {what} {out}: {parent} is a file")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"cannot create {what} {out}: {parent} is not writable")


def read_source(file: Path) -> str:
    """The text of a user's Python file; InputError if it is missing, unreadable or not
    UTF-8 (before anything is written)."""
    if not file.is_file():
        raise InputError(f"file not found: {file}")
    try:
        return file.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{file} is not UTF-8 text (byte {exc.start}): "
                         "save it as UTF-8") from None
    except OSError as exc:
        raise InputError(f"cannot read {file}: {exc.strerror or exc}") from None


def make_dirs(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create output directory {out}: {exc.strerror or exc}") from None


def sandbox_for(settings: Settings, deps):
    """The run's sandbox, built before anything is written: without bubblewrap the local
    backend refuses here (one line, exit 2)."""
    from pipesmith.sandbox.factory import sandbox_from_settings

    return None if deps is not None else sandbox_from_settings(settings)


def llm_config(settings: Settings):
    """The checked LLM configuration of LLM-mode settings; InputError says what is wrong."""
    from pipesmith.agents.llm.config import from_settings

    try:
        return from_settings(settings)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def check_llm(settings: Settings):
    """The checked LLM configuration, None offline; InputError (before anything is written)
    for an unknown mode or bad model settings."""
    if settings.llm not in LLM_MODES:
        raise InputError(f"--llm {settings.llm!r} is not available yet; use one of "
                         f"{', '.join(LLM_MODES)}")
    return llm_config(settings) if settings.llm != "offline" else None


def start_run(*, dataset: str | None = None, data: str | Path | None = None,
              target: str | None = None, task: str | None = None, metric: str | None = None,
              budget_s: float | None = None, seed: int | None = None,
              out: str | Path | None = None, llm: str | None = None,
              task_text: str | None = None, drop_columns: list[str] | None = None,
              families: list[str] | None = None, settings: Settings | None = None,
              deps=None, excluded_families: list[str] | None = None):
    """Check the request and write the run directory (the prepared table and run.json):
    (out, RunInputs, settings), ready for the graph. InputError before anything is written."""
    settings = settings or Settings()
    if not 0.0 <= settings.fault_rate <= 1.0:
        raise InputError("--fault-rate must be between 0 and 1")
    if llm is not None and llm != settings.llm:
        settings = settings.model_copy(update={"llm": llm})
    check_llm(settings)
    check_backend(settings.backend)
    asked = read_request(dataset=dataset, data=data, target=target, task=task, metric=metric,
                         budget_s=budget_s, task_text=task_text, drop_columns=drop_columns,
                         families=families, excluded_families=excluded_families)
    table, task, metric, budget_s = asked.table, asked.task, asked.metric, asked.budget_s
    drop_columns, families = asked.drop_columns, asked.families
    run_id = new_run_id(table.source)
    out = Path(out) if out is not None else settings.runs_dir / run_id
    check_out_dir(out)
    inputs, tables = resolve(table, task, metric, settings,
                              settings.budget_s if budget_s is None else budget_s,
                              settings.seed if seed is None else seed, out, run_id, task_text)
    inputs = inputs.model_copy(update={
        "dropped_columns": list(drop_columns or []), "families": list(families or []),
        "excluded_families": asked.excluded_families,
        "inferred": inputs.inferred + (["target"] if asked.target_from_words else [])
        + (["target_guessed"] if asked.target_guessed else [])})
    check_families_left(inputs, len(tables.dev))
    sandbox_for(settings, deps)  # without bubblewrap: refused here, before anything is written
    make_dirs(out)
    with run_lock.held(out):  # another run given the same --out at the same moment stops here
        if run_lock.others(out):
            raise InputError(f"output directory {out} is not empty")
        tables.write(out)
        write_schema(out, tables.frame, inputs.target, inputs.task_type)
        (out / "run.json").write_text(json.dumps({
            "inputs": inputs.model_dump(),
            "settings": json.loads(settings.model_dump_json()),
        }, indent=2))
    log.info("run.start", run_id=run_id, out=str(out))
    return out, inputs, settings
