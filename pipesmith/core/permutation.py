"""The permutation control (#26): what the sandbox cannot deny, the referee detects.

A candidate that gets the labels of the rows it predicts through a channel the sandbox does
not close (a copy of a public data set in its own source, a file it should not reach) earns a
fake CV score. The control fits the chosen candidate on at most `FOLDS` of the run's folds
with the fold's training labels shuffled (seeded, `shuffle_labels`) and scores its
predictions here against the true labels of the predicted rows. An honest pipeline learns
nothing from shuffled labels: its predictions are independent of the true labels and score
at or below the dummy baseline in expectation. A pipeline that still scores far above it
reads the labels from somewhere else.

Threshold (`judge`, pure): the shuffled-label score's edge over the dummy baseline must not
exceed the larger of
- `Z` standard deviations of the score under independence: the referee scores the same
  predictions against `NULL_DRAWS` seeded permutations of the true labels (`null_spread`);
  for accuracy this is the binomial spread sqrt(p (1 - p) / n) of a label-blind predictor on
  n rows, and the same construction serves every metric (ROC AUC, log loss, R², errors);
- `EDGE_SHARE` of the candidate's own CV edge over the baseline: a lookup keeps nearly all
  of its edge with shuffled labels, an honest model keeps none. Chance agreement between a
  model's regions and clusters of similar rows can widen the spread beyond the permutation
  null on small folds; this floor keeps such honest models from being rejected.
Predictions that do not vary (null spread 0) cannot track any label and pass.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

FOLDS = 2  # the control's cost: at most this many of the run's folds
NULL_DRAWS = 100  # permutations of the true labels for the spread under independence
Z = 4.0
EDGE_SHARE = 0.5
SEED_OFFSET = 7919  # the control's shuffles are not the run's other seeded draws


def fold_seed(seed: int, fold: int) -> int:
    """The shuffle of fold `fold`'s training labels in a run with seed `seed`."""
    return seed * 1000 + SEED_OFFSET + fold


def shuffle_labels(y: pd.Series, seed: int) -> pd.Series:
    """`y`'s values in a seeded random order on `y`'s own index (dtype kept): the class
    counts, and so the dummy baseline, are unchanged; which row has which label is not."""
    order = np.random.default_rng(seed).permutation(len(y))
    return y.iloc[order].set_axis(y.index)


def null_spread(metric_name: str, truths: list[np.ndarray], checked: list[dict],
                seed: int, draws: int = NULL_DRAWS) -> float:
    """The standard deviation of the folds' mean score when these predictions are scored
    against permutations of the true labels: the score's spread for predictions that are
    independent of the labels of the rows they predict."""
    from pipesmith.core.metrics import get_metric

    metric = get_metric(metric_name)
    rng = np.random.default_rng(seed)
    means = []
    for _ in range(draws):
        scores = [metric.score(rng.permutation(np.asarray(y)), c["pred"], proba=c.get("proba"),
                               classes=c.get("classes"))
                  for y, c in zip(truths, checked, strict=True)]
        means.append(float(np.mean(scores)))
    return float(np.std(means))


def judge(metric_name: str, shuffled: float, baseline: float, null_sd: float,
          cv_score: float | None, cv_baseline: float | None) -> tuple[str, float]:
    """("passed" or "rejected", the margin the shuffled-label edge was held to)."""
    from pipesmith.core.metrics import get_metric

    sign = 1.0 if get_metric(metric_name).greater_is_better else -1.0
    edge = sign * (shuffled - baseline)
    cv_edge = 0.0 if cv_score is None or cv_baseline is None else \
        max(0.0, sign * (cv_score - cv_baseline))
    margin = max(Z * null_sd, EDGE_SHARE * cv_edge)
    if null_sd <= 1e-12:  # the same prediction whatever the labels: nothing was read
        return "passed", margin
    return ("rejected" if edge > margin else "passed"), margin


def reason(metric_name: str, shuffled: float, baseline: float, margin: float) -> str:
    """The contract violation, in words, for a rejected candidate."""
    return (f"permutation control: fit on shuffled training labels, its predictions still "
            f"scored {metric_name} {shuffled:.4f} against the true labels, beyond the dummy "
            f"baseline {baseline:.4f} by more than {margin:.4f}: it reads the labels of the "
            "rows it predicts from somewhere the fold does not give it")
