"""The offline planner: pick candidate model families for the task and data.

Families are eligible by task type and data size; past runs on similar
datasets (from the knowledge base, nearest by meta-features) move the families
that did well there to the front, weighted by how close those datasets are, and
seed each family's parameters with those it had on the nearest dataset where it
beat the baseline.
"""

from __future__ import annotations

from collections import defaultdict

from pipesmith.agents.families.backends import planned_backends
from pipesmith.agents.families.registry import families_for
from pipesmith.agents.schemas import (
    CandidateSpec,
    DataProfile,
    PastRun,
    Plan,
    RunInputs,
    SearchPlan,
)

CLUSTER_COUNTS = (2, 3, 4, 5)
# The floor every classification and regression plan keeps, in its default configuration
# (HistGradientBoosting with native categorical handling): a run is never worse than this
# strong baseline beyond noise, whatever past runs reordered or re-parameterised.
FLOOR = "hist_gradient_boosting"


def _weighted_gains(past_runs: list[PastRun]) -> tuple[dict[str, float], dict[str, float]]:
    """Per family: the sum of distance-weighted gains over baseline, and of the weights."""
    total: dict[str, float] = defaultdict(float)
    weight: dict[str, float] = defaultdict(float)
    for run in past_runs:
        w = 1.0 / (1.0 + run.distance)
        for family, gain in run.family_scores.items():
            total[family] += w * gain
            weight[family] += w
    return total, weight


def family_evidence(past_runs: list[PastRun]) -> dict[str, float]:
    """Distance-weighted mean improvement over baseline, per family, from past runs."""
    total, weight = _weighted_gains(past_runs)
    return {family: total[family] / weight[family] for family in total}


PRIOR_WEIGHT = 1.0  # pseudo-observations of "no gain": lone, distant evidence counts less


def family_priority(past_runs: list[PastRun]) -> dict[str, float]:
    """The order key of the warm start: the distance-weighted gains shrunk towards zero, so
    a family seen once on a distant dataset does not outrank one that won on a near one."""
    total, weight = _weighted_gains(past_runs)
    return {family: total[family] / (weight[family] + PRIOR_WEIGHT) for family in total}


def family_warm_params(past_runs: list[PastRun]) -> dict[str, tuple[dict, str]]:
    """Per family, the parameters it had on the nearest past dataset where it beat the
    baseline, and that run's id: the warm start's hyperparameters."""
    chosen: dict[str, tuple[dict, str]] = {}
    for run in sorted(past_runs, key=lambda r: r.distance):
        for family, params in run.family_params.items():
            if family not in chosen and run.family_scores.get(family, 0.0) > 0 and params:
                chosen[family] = (params, run.run_id)
    return chosen


class Planner:
    def search_plan(self, inputs: RunInputs, profile: DataProfile,
                    families: list[str]) -> SearchPlan:
        """What the search explores: offline, the default spaces of `families`."""
        from pipesmith.agents.search.space import default_plan

        return default_plan(families)

    def plan(self, inputs: RunInputs, profile: DataProfile, past_runs: list[PastRun]) -> Plan:
        backends = planned_backends(inputs.backend, profile.n_rows)
        families = allowed(families_for(inputs.task_type, profile.n_rows, backends), inputs)
        evidence = family_evidence(past_runs)
        priority = family_priority(past_runs)
        warm = family_warm_params(past_runs)
        notes = []
        if evidence:
            # Stable sort: families with evidence first, best first; the rest keep their order.
            families.sort(key=lambda f: -priority.get(f.name, float("-inf")))
            notes.append(f"order from {len(past_runs)} similar past runs")
        if len(backends) > 1:  # auto with a neural backend: give the network a slot
            families = _with_one_of(families, backends[1], inputs.max_candidates)
            notes.append(f"backends: {', '.join(backends)}")
        if inputs.task_type == "clustering":
            specs = self._clustering_specs(families, inputs.max_candidates)
        else:
            specs = [
                CandidateSpec(name=f.name, family=f.name,
                              params={**f.params, **warm.get(f.name, ({}, ""))[0]},
                              scale=f.scale, encoding=f.encoding,
                              rationale=_rationale(f.name, evidence, warm))
                for f in families[: inputs.max_candidates]
            ]
            specs = with_floor(specs, families, inputs.max_candidates)
        return Plan(candidates=specs, notes=notes)

    @staticmethod
    def _clustering_specs(families, limit: int) -> list[CandidateSpec]:
        return clustering_specs(families)[:limit]


CLUSTER_COUNTS = (3, 2, 4, 5, 6, 8, 10, 12)  # three first: a common middle ground
CLUSTER_PARAMETER = {"kmeans": "n_clusters", "agglomerative": "n_clusters",
                     "gaussian_mixture": "n_components"}


def clustering_specs(families, max_k: int | None = None) -> list[CandidateSpec]:
    """Each clustering learner at each number of clusters of CLUSTER_COUNTS (up to
    `max_k`), k by k."""
    return [CandidateSpec(name=f"{f.name}_k{k}", family=f.name,
                          params={**f.params, CLUSTER_PARAMETER[f.name]: k}, scale=f.scale,
                          encoding=f.encoding, rationale=f"{k} clusters")
            for k in CLUSTER_COUNTS if max_k is None or k <= max_k for f in families]


def more_clusterings(plan: Plan, inputs: RunInputs, profile: DataProfile
                     ) -> list[CandidateSpec]:
    """The clustering run's search: the learners at the numbers of clusters the plan left
    out (at least 10 rows a cluster), drafted while the time lasts, so the budget buys
    more evidence for the choice instead of ending the run early (olive_regions ended at
    10 s of 60 with four clusterings)."""
    families = allowed(families_for("clustering", profile.n_rows), inputs)
    planned = {(c.family, tuple(sorted(c.params.items()))) for c in plan.candidates}
    return [spec for spec in clustering_specs(families, max(2, profile.n_rows // 10))
            if (spec.family, tuple(sorted(spec.params.items()))) not in planned]


def with_floor(specs: list[CandidateSpec], families: list, limit: int) -> list[CandidateSpec]:
    """The specs with the floor's default configuration among them (in the last place when
    the plan is full), where the floor is eligible for this task, data and person."""
    floor = next((f for f in families if f.name == FLOOR), None)
    if floor is None or any(s.family == FLOOR and s.params == floor.params for s in specs):
        return specs
    name = FLOOR if all(s.family != FLOOR for s in specs) else f"{FLOOR}_default"
    kept = specs[: max(0, limit - 1)] if len(specs) >= limit else specs
    return [*kept, CandidateSpec(name=name, family=FLOOR, params=dict(floor.params),
                                 scale=floor.scale, encoding=floor.encoding,
                                 rationale="the floor: a strong default every plan keeps")]


def allowed(families: list, inputs: RunInputs) -> list:
    """The families the person allowed ("only tree models"; all when none allowed fits),
    less those they excluded ("no random forests")."""
    chosen = [f for f in families if f.name in inputs.families] or families
    return [f for f in chosen if f.name not in inputs.excluded_families]


def _with_one_of(families, backend: str, limit: int):
    """The first `limit` families with the best one of `backend` among them."""
    first = next((f for f in families if f.backend == backend), None)
    others = [f for f in families if f.backend != backend]
    return others if first is None else others[: max(0, limit - 1)] + [first]


def _rationale(family: str, evidence: dict[str, float],
               warm: dict[str, tuple[dict, str]] | None = None) -> str:
    if family not in evidence:
        return "default choice for this task and data size"
    why = f"scored {evidence[family]:+.3f} over baseline on similar past datasets"
    if warm and family in warm:
        why += f"; parameters from past run {warm[family][1]}"
    return why
