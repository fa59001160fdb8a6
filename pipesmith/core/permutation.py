"""The permutation control (#26): what the sandbox cannot deny, the referee detects.

A candidate that gets the labels of the rows it predicts through a channel the sandbox does
not close (a copy of a public data set in its own source, a file it should not reach) earns a
fake CV score. The control fits the chosen candidate on `FOLDS` of the run's folds (one,
`COLD_FOLDS`, without warm workers)
with the fold's training labels shuffled (seeded, `shuffle_labels`) and scores its
predictions here against the true labels of the predicted rows. An honest pipeline learns
nothing from shuffled labels: its predictions are independent of the true labels and score
at or below the dummy baseline in expectation. A pipeline that still scores far above it
reads the labels from somewhere else.

Threshold (`judge`, pure). The candidate is rejected when both hold:
- *significant*: the shuffled-label score beats label-blind guessing by more than `Z`
  standard deviations. Label-blind guessing is measured on the candidate's own
  predictions: the referee scores them against `NULL_DRAWS` seeded permutations of the true
  labels (`null_spread`: their mean and spread; for accuracy the spread is the binomial
  sqrt(p (1 - p) / n) of a label-blind predictor on n rows, and the same construction
  serves every metric: ROC AUC, log loss, F1, R², errors). Hard 0/1 probabilities make log
  loss against shuffled labels huge, so only this comparison, not one with the dummy,
  shows what a lookup's predictions are worth without the labels;
- *material*: it beats the reference, the better of the dummy baseline and label-blind
  guessing, by more than `EDGE_SHARE` of the candidate's own CV edge over the dummy: a
  lookup keeps nearly all of its edge with shuffled labels; an honest model keeps none in
  expectation, but a model trained on noise still gives similar rows similar predictions,
  and similar rows tend to share labels, so on small folds its chance agreement varies more
  than the permutation null says; this second test keeps such models from being rejected.
  (For macro F1 the one-class dummy scores below label-blind guessing, hence the better of
  the two.)
Predictions that do not vary (null spread 0) cannot track any label and pass.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

FOLDS = 2  # the control's cost: at most this many of the run's folds on the warm workers,
COLD_FOLDS = 1  # ... this many as fresh fold jobs (an interpreter and imports each)
# On a large table the control fits a seeded sample of this many development rows (fold
# jobs on the sample's own holdout): shuffled labels on 50,000 rows show a pipeline that
# tracks labels it was not given as clearly as on a million, at a small part of the cost
# (a 1M-row HistGradientBoosting control took minutes of a 120 s budget).
MAX_ROWS = 50_000
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
                seed: int, draws: int = NULL_DRAWS) -> tuple[float, float]:
    """The mean and standard deviation of the folds' mean score when these predictions are
    scored against permutations of the true labels: the score of predictions that are
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
    return float(np.mean(means)), float(np.std(means))


def judge(metric_name: str, shuffled: float, baseline: float, null_mean: float,
          null_sd: float, cv_score: float | None, cv_baseline: float | None
          ) -> tuple[str, float, float]:
    """("passed" or "rejected", the margin: the edge over the reference allowed, and z:
    how many null spreads the shuffled-label score lies beyond label-blind guessing)."""
    from pipesmith.core.metrics import get_metric

    sign = 1.0 if get_metric(metric_name).greater_is_better else -1.0
    reference = max(sign * baseline, sign * null_mean)
    cv_edge = 0.0 if cv_score is None or cv_baseline is None else \
        max(0.0, sign * (cv_score - cv_baseline))
    margin = EDGE_SHARE * cv_edge
    if null_sd <= 1e-12:  # the same prediction whatever the labels: nothing was read
        return "passed", margin, 0.0
    z = sign * (shuffled - null_mean) / null_sd
    rejected = z > Z and sign * shuffled - reference > margin
    return ("rejected" if rejected else "passed"), margin, z


def reason(metric_name: str, shuffled: float, baseline: float, z: float) -> str:
    """The contract violation, in words, for a rejected candidate."""
    return (f"permutation control: fit on shuffled training labels, its predictions still "
            f"scored {metric_name} {shuffled:.4f} against the true labels (dummy baseline "
            f"{baseline:.4f}; {z:.1f} standard deviations beyond label-blind guessing): it "
            "reads the labels of the rows it predicts from somewhere the fold does not give "
            "it")
