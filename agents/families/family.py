"""One model family, as one record: everything pipesmith knows about a learner for a task.

The per-task facts (estimator class, default and light parameters, encoding, row limit)
are set per row; the per-learner facts (search space, relative cost, fit-time model,
boosting) are the same for every task a learner serves, so each family module keeps them
in one table by name and `with_traits` puts them on its rows. Adding a learner is adding
its rows and its table entry in one module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

# A search range: (kind, low, high, log) with kind "int" or "float", or ("cat", choices).
Range = tuple
# Said explicitly by a family the search does not tune (None would be a forgotten space).
NOT_SEARCHED: Mapping[str, Range] = MappingProxyType({})
# The relative cost of a learner nobody timed: after every measured one.
UNMEASURED = 5.0


@dataclass(frozen=True)
class Family:
    name: str
    task_type: str
    module: str
    cls: str
    params: dict[str, Any] = field(default_factory=dict)
    light: dict[str, Any] = field(default_factory=dict)  # shrink_model's parameters
    scale: bool = False
    encoding: str = "ordinal"
    seeded: bool = True  # takes random_state
    parallel: bool = False  # takes n_jobs
    max_rows: int | None = None  # too slow above this many rows
    backend: str = "sklearn"
    requires: str | None = None  # an optional package (the `boost` extra); skipped if missing
    threads: str = "n_jobs"  # the keyword that takes the thread count, when `parallel`
    # the keywords that weight classes inversely to their frequency (for balanced metrics)
    balance: dict[str, Any] = field(default_factory=dict)
    # --- per learner, whatever the task ---
    # what the search may vary: only keywords the estimator takes, never n_jobs or
    # random_state (the candidate's code passes those from the task)
    space: Mapping[str, Range] | None = None
    cost: float | None = None  # relative cost of one default fit: the search goes cheap first
    fit_seconds_per_mcell: float | None = None  # fit seconds per million rows x features
    boosting: bool = False  # grows rounds of trees (the resource model scales by classes)
    wraps: str | None = None  # the library's own class, when `cls` is a pipesmith adapter
    # splits ordinal-encoded columns as categories (`categorical_features`), not as numbers
    native_categorical: bool = False
    # how the learner gives per-row SHAP contributions natively: a method of
    # pipesmith/sandbox/contributions.py (METHODS); None: no SHAP, permutation importance only
    contributions: str | None = None


def with_traits(rows: tuple[Family, ...],
                traits: Mapping[str, Mapping[str, Any]]) -> tuple[Family, ...]:
    """Each row with its learner's per-name facts (a KeyError for a learner without)."""
    return tuple(replace(row, **traits[row.name]) for row in rows)
