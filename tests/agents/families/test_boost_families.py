"""The gradient-boosting families (LightGBM, XGBoost, CatBoost): rendered like any other
family, run in the real sandbox through the harness, skipped by the planner when missing."""

from __future__ import annotations

import pytest

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.executor import Executor
from pipesmith.agents.families import registry as families
from pipesmith.agents.families.registry import get_family
from pipesmith.agents.planner.agent import Planner
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.prevalidator.agent import Prevalidator
from pipesmith.agents.schemas import CandidateSpec
from tests.conftest import make_inputs

BOOST = ("lightgbm", "xgboost", "catboost")


def _spec(task_type: str, name: str) -> CandidateSpec:
    family = get_family(task_type, name)
    return CandidateSpec(name=name, family=name, params=family.params, scale=family.scale,
                         encoding=family.encoding)


def _labelled_csv(tmp_path):
    """Wine with string classes, a categorical column and missing values."""
    import numpy as np
    from sklearn.datasets import load_wine

    frame = load_wine(as_frame=True).frame
    frame["target"] = frame["target"].map({0: "barolo", 1: "grignolino", 2: "barbera"})
    frame["cellar"] = np.where(frame["alcohol"] > 13, "north", "south")
    frame.loc[::7, "magnesium"] = np.nan
    path = tmp_path / "wine.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("name", BOOST)
def test_boost_family_runs_in_the_sandbox_on_string_labels(tmp_path, sandbox, name):
    pytest.importorskip(name)
    from pipesmith.api import prepare_inputs
    from pipesmith.settings import Settings

    inputs, frame = prepare_inputs(tmp_path / "run", data=_labelled_csv(tmp_path),
                                   target="target", settings=Settings(n_jobs=1))
    profile = profile_table(frame, inputs.target, inputs.task_type)
    candidate = Coder().draft("a1", _spec("classification", name), profile, inputs)
    assert not Prevalidator().check(candidate.code, profile.table_columns)
    result, metrics = Executor(sandbox).run(candidate, inputs, tmp_path / "a1", timeout_s=120)
    assert result.ok, result.stderr[-2000:]
    assert metrics["score"] > metrics["baseline_score"] + 0.2


@pytest.mark.parametrize("name", BOOST)
def test_boost_regressor_beats_the_mean(tmp_path, name):
    pytest.importorskip(name)
    from sklearn.metrics import r2_score

    inputs, frame = make_inputs(tmp_path, "diabetes")
    profile = profile_table(frame, inputs.target, inputs.task_type)
    code = Coder().draft("a1", _spec("regression", name), profile, inputs).code
    namespace: dict = {}
    exec(compile(code, "candidate.py", "exec"), namespace)  # noqa: S102 - our own template
    X, y = frame.drop(columns=[inputs.target]), frame[inputs.target]
    model = namespace["build_pipeline"]({"seed": 0, "n_jobs": 1}).fit(X[:300], y[:300])
    assert r2_score(y[300:], model.predict(X[300:])) > 0.2


def test_planner_skips_a_family_whose_library_is_missing(iris, monkeypatch):
    inputs, profile = iris
    inputs = inputs.model_copy(update={"max_candidates": 20})
    names = [c.family for c in Planner().plan(inputs, profile, []).candidates]
    assert set(BOOST) <= set(names)
    monkeypatch.setattr(families, "installed", lambda f: f.requires != "xgboost")
    names = [c.family for c in Planner().plan(inputs, profile, []).candidates]
    assert "xgboost" not in names and "lightgbm" in names
