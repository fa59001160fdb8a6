"""Shared fixtures: real components everywhere, each test in its own directories."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# Tests never touch the user's knowledge base or any telemetry endpoint.
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
# The search would take most of every run's budget (anytime); tests that are not about it
# run without it (subprocesses inherit this). tests/agents/search/test_search.py turns it back on.
os.environ.setdefault("PIPESMITH_SEARCH_SHARE", "0")
# Warm fold workers change which sandbox jobs a run starts (one worker per fold, then
# forks); the tests that count or interrupt jobs are about fold jobs, so runs use fold jobs
# unless a test is about the warm workers (tests/agents/test_warm_folds.py turns them on).
os.environ.setdefault("PIPESMITH_WARM_WORKERS", "0")


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
                    budget_s=120, cv_folds=3)  # fewer fold jobs keep the suite fast


@pytest.fixture
def python() -> str:
    return sys.executable


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def make_inputs(tmp_path: Path, dataset: str = "iris", task_type: str | None = None, **extra):
    """A prepared table in tmp_path and the RunInputs that point at it (one job per run)."""
    from pipesmith.core.inputs import prepare_inputs
    from pipesmith.settings import Settings

    inputs, frame = prepare_inputs(tmp_path, dataset=dataset, task=task_type,
                                   metric=extra.pop("metric", None),
                                   settings=Settings(n_jobs=1, kb_dir=tmp_path / "kb"))
    return inputs.model_copy(update=extra), frame


@pytest.fixture
def iris(tmp_path):
    from pipesmith.agents.planner.profiler import profile_table

    inputs, frame = make_inputs(tmp_path, "iris")
    return inputs, profile_table(frame, inputs.target, inputs.task_type)
