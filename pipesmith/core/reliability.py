"""The pipeline reliability score: one 0-1 figure per run (definition in docs/taxonomy.md).

    R = 0.35 * final success rate          (share of lineages that ended in a success)
      + 0.20 * first-pass success rate     (share of drafts that succeeded unrepaired)
      + 0.15 * (1 - mean rounds to success / max rounds)
      + 0.15 * (1 - critical failure share) (critical failures among all failures)
      + 0.15 * stability                   (1 - std of the final model's fold scores / 0.05)

A lineage is a draft and the repairs that descend from it; ensembles are left out.
Where a term cannot be measured (no failures, no fold scores) it counts as 1; where no
lineage succeeded, rounds count as 0.
"""

from __future__ import annotations

import statistics

from pydantic import BaseModel, ConfigDict

from pipesmith.agents.schemas import Attempt

WEIGHTS = {"final": 0.35, "first_pass": 0.20, "rounds": 0.15, "severity": 0.15,
           "stability": 0.15}
UNSTABLE_STD = 0.05  # a fold-score standard deviation this large counts as fully unstable


class Reliability(BaseModel):
    model_config = ConfigDict(frozen=True)

    score: float
    lineages: int
    final_success_rate: float
    first_pass_rate: float
    mean_rounds_to_success: float | None
    critical_failure_rate: float  # critical failures / all failures
    score_spread: float | None  # std of the final model's fold scores


def _root(attempt: Attempt, by_id: dict[str, Attempt]) -> tuple[str, int]:
    depth = 0
    while attempt.parent is not None and attempt.parent in by_id:
        attempt, depth = by_id[attempt.parent], depth + 1
    return attempt.id, depth


def lineages(attempts: list[Attempt]) -> dict[str, list[tuple[Attempt, int]]]:
    """Each draft's id -> the draft and its repairs with their repair depth, shallowest
    first; ensembles are left out."""
    by_id = {a.id: a for a in attempts}
    groups: dict[str, list[tuple[Attempt, int]]] = {}
    for attempt in attempts:
        if attempt.phase != "ensemble":
            root, depth = _root(attempt, by_id)
            groups.setdefault(root, []).append((attempt, depth))
    return {root: sorted(members, key=lambda pair: pair[1]) for root, members in groups.items()}


def reliability(attempts: list[Attempt], final: Attempt | None, max_rounds: int) -> Reliability:
    by_id = {a.id: a for a in attempts}
    lineages_ = lineages(attempts)
    rounds_to_success = [min(depth for a, depth in members if a.succeeded)
                         for members in lineages_.values() if any(a.succeeded for a, _ in members)]
    n = max(1, len(lineages_))
    final_rate = len(rounds_to_success) / n
    first_pass = sum(by_id[root].succeeded for root in lineages_) / n
    mean_rounds = statistics.mean(rounds_to_success) if rounds_to_success else None
    failures = [a for a in attempts if not a.succeeded and a.phase != "ensemble"]
    critical = sum(1 for a in failures if a.diagnosis and a.diagnosis.severity == "critical")
    critical_rate = critical / len(failures) if failures else 0.0
    spread = statistics.pstdev(final.fold_scores) if final and len(final.fold_scores) > 1 \
        else None
    terms = {
        "final": final_rate,
        "first_pass": first_pass,
        "rounds": 0.0 if mean_rounds is None else 1 - min(1.0, mean_rounds / max(1, max_rounds)),
        "severity": 1 - critical_rate,
        "stability": 1.0 if spread is None else 1 - min(1.0, spread / UNSTABLE_STD),
    }
    return Reliability(
        score=round(sum(WEIGHTS[k] * v for k, v in terms.items()), 4),
        lineages=len(lineages_), final_success_rate=round(final_rate, 4),
        first_pass_rate=round(first_pass, 4),
        mean_rounds_to_success=None if mean_rounds is None else round(mean_rounds, 3),
        critical_failure_rate=round(critical_rate, 4),
        score_spread=None if spread is None else round(spread, 5),
    )
