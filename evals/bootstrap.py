"""Percentile bootstrap confidence intervals over an eval's jobs.

The unit resampled is a job (one dataset x seed run of a topology): every figure in the
summary is a mean of one value per job (1/0 for success, the test score, the job's rank
among the topologies on its dataset and seed), so a resample draws the jobs with
replacement and takes the mean again. The draws come from a fixed RNG seed, so the same
rows always print the same interval. Paired comparisons use the same function on the
per-job differences between two topologies on the same dataset and seed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RESAMPLES = 2000
SEED = 0
LEVEL = 0.95


def bootstrap_ci(values: Sequence[float], *, resamples: int = RESAMPLES, seed: int = SEED,
                 level: float = LEVEL) -> tuple[float, float, float] | None:
    """(mean, low, high): the mean of the values and the percentile bootstrap interval of
    the mean at `level`; None when there are no values."""
    data = np.asarray([float(v) for v in values], dtype=float)
    if data.size == 0:
        return None
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(data.mean()), float(low), float(high)


def fmt_ci(ci: tuple[float, float, float] | None, digits: int = 3) -> str:
    """`0.917 [0.833, 1.000]`, or a dash when there is nothing to show."""
    if ci is None:
        return "—"
    mean, low, high = ci
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"
