"""The families the person allows: the planner and the search obey restrictions and
exclusions alike (real planner on a real table; nothing runs)."""

from __future__ import annotations

from pipesmith.agents.planner.agent import Planner
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.search.runner import permitted_families
from pipesmith.core.inputs import prepare_inputs


def planned(tmp_path, **update) -> tuple[list[str], set[str]]:
    inputs, dev = prepare_inputs(tmp_path / "run", dataset="iris")
    inputs = inputs.model_copy(update=update)
    plan = Planner().plan(inputs, profile_table(dev, inputs.target, inputs.task_type), [])
    return [c.family for c in plan.candidates], permitted_families(inputs, len(dev))


def test_an_excluded_family_is_neither_planned_nor_searched(tmp_path):
    before, _ = planned(tmp_path / "a")
    assert "hist_gradient_boosting" in before
    families, searched = planned(tmp_path / "b",
                                 excluded_families=["hist_gradient_boosting", "lightgbm"])
    assert families and not {"hist_gradient_boosting", "lightgbm"} & set(families)
    assert searched and not {"hist_gradient_boosting", "lightgbm"} & searched


def test_a_restriction_less_its_exclusions(tmp_path):
    families, searched = planned(tmp_path, families=["random_forest", "extra_trees", "knn"],
                                 excluded_families=["knn"])
    assert set(families) == {"random_forest", "extra_trees"}
    assert searched == {"random_forest", "extra_trees"}
