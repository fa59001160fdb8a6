"""Class-weighted decisions for metrics that weigh every class alike.

A classifier's argmax is the best decision for accuracy when its probabilities are
calibrated, but not for balanced accuracy or macro F1, where a rare class's row is worth
more than its share of rows: the label is then `classes[argmax(proba * w)]` with per-class
weights `w` learnt from out-of-fold probabilities. For two classes this is the decision
threshold. The weights are fitted like any ensemble strategy, on rows they are not judged on
(agents/ensembler/select.py nests them), and kept only when that held-out score is better.

Pure functions over arrays; the scores are computed from a confusion matrix (a few
microseconds), since the search below scores some hundreds of weightings.
"""

from __future__ import annotations

import numpy as np

from pipesmith.agents.families.registry import BALANCED_METRICS

GRID = np.exp(np.linspace(-2.5, 2.5, 21))  # multipliers tried for one class's weight
ROUNDS = 2  # coordinate-ascent sweeps over the classes
MIN_GAIN = 1e-4  # a weighting must beat the plain argmax by this much


def tunable(metric_name: str, task_type: str) -> bool:
    return task_type == "classification" and metric_name in BALANCED_METRICS


def label_score(metric_name: str, y: np.ndarray, pred: np.ndarray, k: int) -> float:
    """balanced_accuracy or f1_macro of class codes 0..k-1, as scikit-learn computes them
    (classes absent from both y and pred do not count in f1_macro; recall is averaged over
    the classes present in y)."""
    confusion = np.bincount(y * k + pred, minlength=k * k).reshape(k, k)
    tp = np.diag(confusion).astype(float)
    actual, predicted = confusion.sum(axis=1), confusion.sum(axis=0)
    if metric_name == "balanced_accuracy":
        present = actual > 0
        return float(np.mean(tp[present] / actual[present]))
    seen = (actual + predicted) > 0
    return float(np.mean(2 * tp[seen] / (actual[seen] + predicted[seen])))


def decide(proba: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Class codes: argmax of the weighted probabilities."""
    return np.argmax(proba * weights, axis=1)


def fit_weights(metric_name: str, proba: np.ndarray, y_codes: np.ndarray) -> np.ndarray:
    """Per-class weights that maximise the metric on these rows: from the inverse class
    prior (the balanced-accuracy optimum for calibrated probabilities), each class's weight
    in turn set to the best of GRID's multiples; all ones when no weighting beats the plain
    argmax by MIN_GAIN."""
    k = proba.shape[1]
    y_codes = np.asarray(y_codes, dtype=int)
    ones = np.ones(k)
    plain = label_score(metric_name, y_codes, decide(proba, ones), k)
    prior = np.bincount(y_codes, minlength=k) / len(y_codes)
    weights = 1.0 / np.clip(prior, 1.0 / len(y_codes), None)
    weights /= weights.max()
    best = label_score(metric_name, y_codes, decide(proba, weights), k)
    for _ in range(ROUNDS):
        for j in range(k):
            start = kept = weights[j]
            for factor in GRID:
                weights[j] = start * factor
                score = label_score(metric_name, y_codes, decide(proba, weights), k)
                if score > best + 1e-12:
                    best, kept = score, weights[j]
            weights[j] = kept
    return weights / weights.max() if best > plain + MIN_GAIN else ones
