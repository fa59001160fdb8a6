"""Shared fixtures: real components everywhere, each test in its own directories."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# Tests never touch the user's knowledge base or any telemetry endpoint.
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    data_home = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))


@pytest.fixture(scope="session")
def sandbox():
    from pipesmith.sandbox.local import LocalSandbox

    return LocalSandbox()


@pytest.fixture
def settings(tmp_path):
    from pipesmith.settings import Settings

    return Settings(kb_dir=tmp_path / "kb", runs_dir=tmp_path / "runs", max_candidates=2,
                    budget_s=120)


@pytest.fixture
def python() -> str:
    return sys.executable


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def make_inputs(tmp_path: Path, dataset: str = "iris", task_type: str | None = None, **extra):
    """A prepared table in tmp_path and the RunInputs that point at it."""
    from pipesmith.agents.schemas import RunInputs
    from pipesmith.datasets import infer_metric, infer_task_type, load_bundled, prepare

    table = load_bundled(dataset)
    task_type = task_type or infer_task_type(table.frame[table.target])
    frame = prepare(table, task_type)
    data_path = tmp_path / "data.parquet"
    frame.to_parquet(data_path, index=False)
    values = dict(
        run_id="test", task_text=f"{task_type} on {dataset}", dataset=dataset,
        data_path=str(data_path), target=table.target, task_type=task_type,
        metric=infer_metric(task_type, frame[table.target]), out_dir=str(tmp_path), n_jobs=1,
    )
    values.update(extra)
    return RunInputs(**values), frame


@pytest.fixture
def iris(tmp_path):
    from pipesmith.agents.profiler import profile_table

    inputs, frame = make_inputs(tmp_path, "iris")
    return inputs, profile_table(frame, inputs.target, inputs.task_type)
