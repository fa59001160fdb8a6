"""The time model behind the plan's shown times (agents/prevalidator/resources.py): the
machine's pace from its load averages, and a fit's fixed cost on a warm worker."""

from __future__ import annotations

import math

import pytest

from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.prevalidator import resources
from pipesmith.agents.schemas import CandidateSpec
from tests.conftest import make_inputs


def test_the_pace_reads_the_smaller_load_average_so_a_run_that_just_ended_does_not_count():
    # a run's two jobs ended a moment ago: the 1-minute average still holds them
    assert resources.pace_from_load(2.9, 0.9, cores=2, workers=2) == pytest.approx(1.45)
    # other work that keeps the cores busy shows in both averages, and slows the jobs
    assert resources.pace_from_load(4.0, 4.2, cores=2, workers=2) == pytest.approx(3.0)
    # work that has just started shows in the 1-minute average first and counts once the
    # 5-minute one follows (the price of not counting a finished run); never below alone
    assert resources.pace_from_load(3.0, 1.0, cores=2, workers=2) == pytest.approx(1.5)
    assert resources.pace_from_load(0.0, 0.0, cores=2, workers=1) == 1.0
    # the rule before: the 1-minute average alone
    resources.PACE_LOAD = "one"
    try:
        assert resources.pace_from_load(2.9, 0.9, cores=2, workers=2) == pytest.approx(2.45)
    finally:
        resources.PACE_LOAD = "min"


def test_the_pace_from_a_probed_share_of_a_core_counts_the_tasks_that_took_the_rest():
    # a thread that got a whole core: nothing else wanted one; two workers on two cores
    assert resources.pace_from_share(1.0, cores=2, workers=2) == pytest.approx(1.5)
    # a third of a core on two cores: five other busy tasks, then the run's two jobs
    assert resources.pace_from_share(1 / 3, cores=2, workers=2) == pytest.approx(3.5)
    assert resources.pace_from_share(1.0, cores=4, workers=1) == 1.0
    # the probe itself: a real busy loop, its CPU time over its wall time
    share = resources.cpu_share(0.01)
    assert 0.0 < share <= 1.0
    assert 1.0 <= resources.machine_pace(2, 2) <= resources.pace_from_share(0.0, 2, 2)


def test_a_small_tables_first_run_is_its_rounds_of_a_forks_and_a_fits_fixed_cost(tmp_path):
    inputs, dev = make_inputs(tmp_path, "iris")
    profile = profile_table(dev, inputs.target, inputs.task_type)
    spec = CandidateSpec(name="rf", family="random_forest", rationale="", params={})
    assert not resources.wants_smoke(profile, inputs.smoke_rows)  # 120 rows: no sample
    assert resources.FIT_FIXED_S > 0  # measured, docs/figures.md
    shown = resources.first_run_wall_s(profile, spec, 5, inputs.smoke_rows, 2, warm=True)
    # five folds two at a time: three rounds, each a fork, the fit's fixed cost and a
    # per-cell part that 120 rows x 4 columns make negligible
    floor = math.ceil(5 / 2) * (resources.WARM_JOB_S + resources.FIT_FIXED_S)
    assert floor < shown < floor + 0.01
