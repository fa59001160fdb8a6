"""Model families the offline planner and coder know, as one table, and its lookups.

Each family is one record (agents/families/family.py); the rows live in one module per
kind: scikit-learn, the boost extra, neural. Everything else reads the table: the search's
spaces and costs, the resource model's fit-time figures and boosting set, the faults'
boosting libraries. `light` holds the parameters the shrink_model repair switches to after
a timeout or out-of-memory failure.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from typing import Any

from pipesmith.agents.families import boost, neural, scikit_learn
from pipesmith.agents.families.family import UNMEASURED, Family, Range

__all__ = ["BALANCED_METRICS", "BOOSTING", "CONTRIBUTIONS", "COST", "FAMILIES",
           "FIT_SECONDS_PER_MCELL", "SPACES", "Family", "Range", "backend_of", "balancing",
           "cost_of", "families_for",
           "get_family", "installed"]


def _after(rows: tuple[Family, ...], anchor: str, extra: tuple[Family, ...]):
    """`rows` with each task's `extra` families inserted after its `anchor` family."""
    out: list[Family] = []
    for row in rows:
        out.append(row)
        if row.name == anchor:
            out += [f for f in extra if f.task_type == row.task_type]
    return tuple(out)


FAMILIES: tuple[Family, ...] = (_after(scikit_learn.FAMILIES, "extra_trees", boost.FAMILIES)
                                + neural.FAMILIES)

# Views by learner name, for the search and the resource model.
SPACES: dict[str, Mapping[str, Range]] = {f.name: f.space for f in FAMILIES if f.space}
COST: dict[str, float] = {f.name: f.cost for f in FAMILIES if f.cost is not None}
FIT_SECONDS_PER_MCELL: dict[str, float] = {f.name: f.fit_seconds_per_mcell for f in FAMILIES
                                           if f.fit_seconds_per_mcell is not None}
BOOSTING: frozenset[str] = frozenset(f.name for f in FAMILIES if f.boosting)
# The final step's class name (the family's class and the library class it wraps) -> how
# its SHAP contributions are computed in the sandbox; a class not here has none.
CONTRIBUTIONS: dict[str, str] = {
    name: f.contributions for f in FAMILIES if f.contributions
    for name in (f.cls, f.wraps) if name}


def cost_of(name: str) -> float:
    """The learner's relative cost; a name outside the table goes last, like an unmeasured
    one."""
    return COST.get(name, UNMEASURED)


# Metrics that weigh every class alike: a model fitted with equal class weights learns the
# majority class on imbalanced data and scores about 0.5 on them.
BALANCED_METRICS = ("balanced_accuracy", "f1_macro")


def balancing(family: Family, metric: str) -> dict[str, Any]:
    """The keywords that make `family` weigh classes alike, when the metric does."""
    return dict(family.balance) if metric in BALANCED_METRICS else {}


def installed(family: Family) -> bool:
    """Whether the family's optional package is importable (looked up, not imported)."""
    return family.requires is None or importlib.util.find_spec(family.requires) is not None


def families_for(task_type: str, n_rows: int,
                 backends: tuple[str, ...] = ("sklearn",)) -> list[Family]:
    """Eligible families, by backend in the order given, then in table order."""
    return sorted((f for f in FAMILIES
                   if f.task_type == task_type and f.backend in backends and installed(f)
                   and (f.max_rows is None or n_rows <= f.max_rows)),
                  key=lambda f: backends.index(f.backend))


def backend_of(family: str) -> str:
    return next((f.backend for f in FAMILIES if f.name == family), "sklearn")


def get_family(task_type: str, name: str) -> Family:
    for family in FAMILIES:
        if family.task_type == task_type and family.name == name:
            return family
    raise KeyError(f"no {task_type} family named {name!r}")
