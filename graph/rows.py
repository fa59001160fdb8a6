"""How many development rows the time affords: pure, tested alone (tests/graph/test_rows.py).

When a large table's first candidate could not cross-validate and refit on every
development row within the budget (a 1,000,000-row table: one HistGradientBoosting fit
of 640,000 rows took 31-69 s and its refit 50 s of a 120 s budget), the run
cross-validates every candidate on one seeded stratified sample sized to the time
(`cv_rows`), and the chosen pipeline is refit on as many rows as the time then left
allows, sized from what its own fold fits measured (`refit_rows`). The person is told
(`note`, in the run's log and report.json `rows_used`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from pipesmith.core.referee import HOLDOUT_SHARE, fold_rounds


@dataclass(frozen=True)
class RowRules:
    """The rules as data: one row of constants, each with why."""

    # never cross-validate or refit on fewer: a smaller sample says too little about the
    # model the whole table would give
    min_rows: int = 20_000
    step_rows: int = 10_000  # sizes are whole multiples of this: a figure read at a glance
    # a sampled cross-validation takes at most this share of the time its candidate has;
    # the rest goes to the refit (the model the person keeps) and to more candidates
    cv_share: float = 0.3
    # the refit's job beyond a fold job of as many rows: its permutation-importance loop
    # (up to half the fit's seconds, pipesmith/core/importance.py TIME_SHARE)
    refit_factor: float = 1.5
    # at most this share of a fold job is taken not to grow with the rows: on a loaded
    # machine a 300-row smoke run took 9.9 s and a 16,000-row fold job 7.8 s, which would
    # have made every row free
    max_fixed_share: float = 0.5
    # the report after the refit, beyond budget.REPORT_S and alone on the machine (times
    # the run's pace): checking and scoring the test part's predictions, segments and
    # plots grow with its rows (measured: ~18 s for 200,000 test rows at a load of 2-4
    # before the referee's text-label fixes, docs/figures.md)
    report_s_per_test_row: float = 2.5e-5


RULES = RowRules()


def train_rows(rows: int, folds: int) -> int:
    """Rows one fold trains on: the holdout fold's 80%, or (K-1)/K of them."""
    if folds <= 1:
        return max(1, int(rows * (1 - HOLDOUT_SHARE)))
    return max(1, rows * (folds - 1) // folds)


def _grid(low: int, high: int, step: int) -> range:
    """Multiples of `step` from `low` (rounded up) below `high`."""
    return range(math.ceil(low / step) * step, high, step)


def cv_rows(n_rows: int, time_s: float, fold_s: Callable[[int], float],
            refit_s: Callable[[int], float], folds: int, workers: int,
            rules: RowRules = RULES) -> int | None:
    """Rows of the run's cross-validation sample, or None for all of them.

    `time_s`: seconds the first candidate has for its folds and its refit; `fold_s(rows)`
    and `refit_s(rows)`: the time model's seconds of a fold job training on `rows` rows
    and of the refit on `rows`. All rows when their folds and refit fit in the time;
    otherwise the most rows whose folds take at most `cv_share` of it (never fewer than
    `min_rows`)."""
    rounds = fold_rounds(folds, workers)

    def cv(rows: int) -> float:
        return rounds * fold_s(train_rows(rows, folds))

    if n_rows <= rules.min_rows or cv(n_rows) + refit_s(n_rows) <= time_s:
        return None
    fitting = [r for r in _grid(rules.min_rows, n_rows, rules.step_rows)
               if cv(r) <= rules.cv_share * time_s]
    return max(fitting, default=rules.min_rows)


def fixed_s(attempt, rules: RowRules = RULES) -> float:
    """Seconds of an attempt's fold job that do not grow with the rows: a fresh job's
    start, as its smoke run (300 rows) measured it. The rest grows with them: the fit, and
    reading, predicting and writing rows (the fit alone would miss them: a 410,000-row
    refit spent 19.6 s of 71 s neither fitting nor in its importance loop, at a load of 9)."""
    return min(attempt.smoke_s, rules.max_fixed_share * attempt.fold_wall_s)


def refit_s(rows: int, fold_wall_s: float, fold_rows: int, start_s: float,
            rules: RowRules = RULES) -> float:
    """Seconds of a refit on `rows` rows, from a fold job that took `fold_wall_s` on
    `fold_rows` training rows, `start_s` of it what does not grow with the rows
    (`fixed_s`): the rest grows with them (a histogram boosting fit is linear in them)."""
    per_row = max(0.0, fold_wall_s - start_s) / max(fold_rows, 1)
    return start_s + rules.refit_factor * per_row * rows


def refit_rows(n_rows: int, time_s: float, fold_wall_s: float, fold_rows: int,
               start_s: float, floor_rows: int = 0, rules: RowRules = RULES) -> int | None:
    """Rows of the refit, or None for all of them.

    Sized from the chosen candidate's own measurement: its slowest fold job took
    `fold_wall_s` on `fold_rows` training rows, of which `start_s` (`fixed_s`) does not
    grow with the rows. All rows when the refit's
    predicted seconds fit in `time_s`; otherwise the most that fit, never fewer than the
    rows the candidate was cross-validated on (`floor_rows`) nor `min_rows`."""
    def cost(rows: int) -> float:
        return refit_s(rows, fold_wall_s, fold_rows, start_s, rules)

    if n_rows <= rules.min_rows or cost(n_rows) <= time_s:
        return None
    floor = max(floor_rows, rules.min_rows)
    fitting = [r for r in _grid(floor, n_rows, rules.step_rows) if cost(r) <= time_s]
    rows = max(fitting, default=min(floor, n_rows))
    return rows if rows < n_rows else None


def report_s(test_rows: float, rules: RowRules = RULES) -> float:
    """Seconds the report takes after the refit for `test_rows` test rows, beyond
    budget.REPORT_S."""
    return rules.report_s_per_test_row * test_rows


def note(kind: str, rows: int, of: int) -> str:
    """What the person reads: 'cross-validated on 200,000 of 800,000 development rows to
    fit the budget'."""
    return f"{kind} on {rows:,} of {of:,} development rows to fit the budget"
