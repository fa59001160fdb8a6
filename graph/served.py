"""The settings langgraph.json's graph runs with (LangGraph server / Studio).

`langgraph dev` reloads the server when a .py file changes anywhere under the folder it was
started in (uvicorn's watch of the working directory; the CLI has no option to exclude a
folder), and every attempt of a run writes a candidate.py. So the served runs go to the
user's data directory unless PIPESMITH_RUNS_DIR says otherwise."""

from __future__ import annotations

from pathlib import Path

import structlog

from pipesmith.knowledge_base.store import default_kb_dir
from pipesmith.settings import Settings

log = structlog.get_logger(__name__)


def served_runs_dir() -> Path:
    """Beside the default knowledge base: ~/.local/share/pipesmith/runs on Linux."""
    return default_kb_dir().parent / "runs"


def served_settings(settings: Settings | None = None, watched: Path | None = None) -> Settings:
    """The settings with the runs directory out of the reload watch (watched: the folder
    the server was started in, the working directory by default)."""
    settings = settings or Settings()
    if "runs_dir" not in settings.model_fields_set:
        settings = settings.model_copy(update={"runs_dir": served_runs_dir()})
    runs, watched = settings.runs_dir.resolve(), (watched or Path.cwd()).resolve()
    if runs == watched or watched in runs.parents:
        log.warning("runs_dir_watched", runs_dir=str(runs), watched=str(watched),
                    hint="`langgraph dev` restarts on every candidate.py written there; "
                         "set PIPESMITH_RUNS_DIR elsewhere or pass --no-reload")
    return settings
