"""Data files uploaded from the web page: saved under RUNS/uploads/<id>/<safe name>, checked
that they read as a table, and named to the conversation by their path, as a typed path
would be (pipesmith/chat/task_text.py finds it in the words).
"""

from __future__ import annotations

import os
import re
import shutil
import uuid
from pathlib import Path

import structlog

from pipesmith.chat.task_text import find_file
from pipesmith.errors import InputError

log = structlog.get_logger(__name__)
SUFFIXES = (".csv", ".parquet", ".pq")
MAX_MB = 200  # a local page, but one paste of the wrong file should not fill the disk


def safe_name(name: str) -> str:
    """The file's own name without any folder, in letters, digits, '.', '_' and '-' (what the
    chat's file pattern reads); InputError when it is not a CSV or Parquet file."""
    base = re.split(r"[\\/]", name or "")[-1]
    stem, dot, suffix = base.rpartition(".")
    if not dot or f".{suffix.lower()}" not in SUFFIXES:
        raise InputError(f"{base or 'the file'} is not a CSV or Parquet file "
                         "(.csv, .parquet)")
    stem = re.sub(r"[^\w-]+", "_", stem, flags=re.ASCII).strip("_") or "data"
    return f"{stem[:80]}.{suffix.lower()}"


def new_path(runs_dir: Path, name: str) -> Path:
    """A fresh folder of its own for one upload (two uploads of data.csv never collide)."""
    name = safe_name(name)
    folder = runs_dir / "uploads" / uuid.uuid4().hex[:12]
    folder.mkdir(parents=True)
    return folder / name


def spoken(path: Path) -> str:
    """The path as the chat's words can name it: as saved, else relative to the working
    folder (a runs folder whose path has a space is read from its relative path)."""
    for said in (str(path), os.path.relpath(path)):
        if find_file(f"from {said}") == said:
            return said
    raise InputError(f"the runs folder's path ({path.parent}) has characters the chat cannot "
                     "read in a file path (spaces?); start pipesmith serve with another --runs")


def check(path: Path, shown: str) -> dict:
    """{"path", "rows", "columns"} for a file that reads as a table with rows; otherwise the
    upload is removed and InputError says why in one line, naming the file as uploaded."""
    from pipesmith.core.datasets import load_file

    try:
        if path.stat().st_size == 0:
            raise InputError(f"{shown} is empty")
        frame = load_file(path, None).frame
        if frame.shape[0] == 0 or frame.shape[1] == 0:
            raise InputError(f"{shown} has no rows or no columns")
        said = spoken(path)
    except InputError as exc:
        shutil.rmtree(path.parent, ignore_errors=True)
        raise InputError(str(exc).replace(str(path), shown).splitlines()[0]) from None
    log.info("upload.saved", path=str(path), rows=len(frame), columns=frame.shape[1])
    return {"path": said, "rows": int(frame.shape[0]),
            "columns": [str(c) for c in frame.columns]}


def discard(path: Path) -> None:
    shutil.rmtree(path.parent, ignore_errors=True)
