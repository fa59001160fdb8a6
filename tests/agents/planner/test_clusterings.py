"""A clustering run's search: the planned learners at the numbers of clusters the plan left
out, at least ten rows a cluster, none planned twice (real planner on a real table)."""

from __future__ import annotations

from pipesmith.agents.planner.agent import Planner, more_clusterings
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.core.inputs import prepare_inputs


def test_the_search_of_a_clustering_run_adds_the_numbers_of_clusters_left_out(tmp_path):
    inputs, dev = prepare_inputs(tmp_path / "run", dataset="iris", task="clustering")
    profile = profile_table(dev, inputs.target, inputs.task_type)
    plan = Planner().plan(inputs, profile, [])
    extra = more_clusterings(plan, inputs, profile)
    key = [(s.family, tuple(sorted(s.params.items()))) for s in [*plan.candidates, *extra]]
    assert len(key) == len(set(key))  # nothing planned twice
    counts = {s.params.get("n_clusters", s.params.get("n_components")) for s in extra}
    assert counts <= {2, 3, 4, 5, 6, 8, 10, 12} and max(counts) <= profile.n_rows // 10
    assert {6, 8, 10} <= counts
    # the person's exclusions hold here too
    no_gmm = inputs.model_copy(update={"excluded_families": ["gaussian_mixture"]})
    assert all(s.family != "gaussian_mixture" for s in more_clusterings(plan, no_gmm, profile))
