"""Every family is one complete record: a search space (or an explicit none), a cost, a
fit-time figure, a known backend, keywords its installed estimator takes, and the learned
portfolio names only registered families."""

from __future__ import annotations

import importlib
import json
from importlib import resources

import pytest

from pipesmith.agents.families import boost, scikit_learn
from pipesmith.agents.families.backends import BACKENDS
from pipesmith.agents.families.registry import (
    BOOSTING,
    COST,
    FAMILIES,
    FIT_SECONDS_PER_MCELL,
    SPACES,
    Family,
    get_family,
    installed,
)
from pipesmith.agents.search.space_check import ITERATIONS, _keywords, _normal, check_space

TASK_TYPES = ("classification", "regression", "clustering")
PER_LEARNER = ("space", "cost", "fit_seconds_per_mcell", "boosting", "requires", "backend")


def _id(family: Family) -> str:
    return f"{family.task_type}-{family.name}"


def _estimator(family: Family):
    return getattr(importlib.import_module(family.module), family.cls)


@pytest.mark.parametrize("family", FAMILIES, ids=_id)
def test_every_family_is_complete(family):
    assert family.task_type in TASK_TYPES
    assert family.backend in BACKENDS
    assert family.space is not None, "give a space, or NOT_SEARCHED"
    assert family.cost is not None and family.cost > 0
    # networks are timed by optimiser steps (prevalidator/resources.py FRAMEWORK)
    neural = family.backend != "sklearn"
    assert (family.fit_seconds_per_mcell is None) == neural
    assert family.fit_seconds_per_mcell is None or family.fit_seconds_per_mcell > 0
    if family.boosting:  # the resource model scales by the rounds the params name
        assert ITERATIONS & set(family.params)


def test_names_are_unique_per_task_and_learner_facts_agree_across_tasks():
    keys = [(f.task_type, f.name) for f in FAMILIES]
    assert len(keys) == len(set(keys))
    first: dict[str, Family] = {}
    for family in FAMILIES:
        seen = first.setdefault(family.name, family)
        for fact in PER_LEARNER:
            assert getattr(family, fact) == getattr(seen, fact), (family.name, fact)


def test_every_per_learner_entry_belongs_to_a_family():
    names = {f.name for f in FAMILIES}
    assert set(scikit_learn.TRAITS) <= names
    assert set(boost.TRAITS) <= names


def test_the_views_are_the_records():
    assert SPACES == {f.name: f.space for f in FAMILIES if f.space}
    assert COST == {f.name: f.cost for f in FAMILIES}
    assert set(FIT_SECONDS_PER_MCELL) == {f.name for f in FAMILIES if f.backend == "sklearn"}
    assert BOOSTING == {"hist_gradient_boosting", "lightgbm", "xgboost", "catboost"}


@pytest.mark.parametrize("family", FAMILIES, ids=_id)
def test_the_installed_estimator_takes_the_familys_keywords(family):
    if not installed(family):
        pytest.skip(f"{family.requires} is not installed")
    cls = _estimator(family)
    known = _keywords(cls)  # named in the constructor or get_params()
    extra = {family.threads: 1} if family.parallel else {}
    if family.seeded:
        extra["random_state"] = 0
    for keywords in (family.params, family.light, family.balance, extra):
        # scikit-learn raises on a keyword it does not take; LightGBM and XGBoost take any
        # (**kwargs) and keep those they pass on in get_params(): a misspelt one only warns at fit
        taken = known | set(cls(**keywords).get_params())
        assert set(keywords) <= taken, (family.cls, set(keywords) - taken)
    if family.wraps:  # the adapter's library class exists under that name
        assert hasattr(importlib.import_module(family.requires), family.wraps)


@pytest.mark.parametrize("family", [f for f in FAMILIES if f.space], ids=_id)
def test_the_installed_estimator_accepts_every_default_range(family):
    if not installed(family):
        pytest.skip(f"{family.requires} is not installed")
    kept, dropped = check_space(family.task_type, family.name, dict(family.space))
    assert not dropped
    assert kept == {name: _normal(spec) for name, spec in family.space.items()}


def test_the_learned_portfolio_names_only_registered_families():
    path = resources.files("pipesmith.agents.search").joinpath("data", "portfolio.json")
    portfolio = json.loads(path.read_text())
    tasks = [key for key in portfolio if not key.startswith("_")]  # _made_by, _load: notes
    assert tasks and set(tasks) <= set(TASK_TYPES)
    for task in tasks:
        for row in portfolio[task]:
            family = get_family(task, row["family"])  # KeyError when not registered
            assert set(row["params"]) <= set(family.space), (task, row["family"])


def test_each_family_declares_its_native_shap_method_or_none():
    from pipesmith.agents.families.registry import CONTRIBUTIONS, FAMILIES
    from pipesmith.sandbox.contributions import METHODS

    declared = {f.name: f.contributions for f in FAMILIES}
    assert {name for name, method in declared.items() if method} == {
        "lightgbm", "xgboost", "catboost", "logistic_regression", "ridge"}
    assert all(method in METHODS for method in declared.values() if method)
    # looked up by the final step's class: pipesmith's wrapper and the library's own
    assert CONTRIBUTIONS["XGBLabelClassifier"] == CONTRIBUTIONS["XGBClassifier"] == "xgboost"
    assert "RandomForestClassifier" not in CONTRIBUTIONS and "SVC" not in CONTRIBUTIONS
