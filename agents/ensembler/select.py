"""Adaptive ensemble selection (SAGE-Loop) as pure functions over out-of-fold predictions.

Three strategies compete: the best single model, Caruana et al.'s (2004) greedy ensemble
selection *with replacement* (integer weights), and stacking (a simple level-2 model on
the members' predictions). The choice is itself cross-validated: the out-of-fold rows are
split into folds, each strategy is fitted on the other folds' rows and predicts the held
out ones, and the strategy whose held-out predictions score best wins. No strategy is ever
judged on the rows it was fitted on. Ties go to the simpler strategy.

For metrics that weigh every class alike, each strategy also competes with class-weighted
decisions (agents/ensembler/decision.py): the weights are fitted on the same rows as the
strategy and judged on the held-out ones, so they are kept only when they help on unseen rows.

Inputs are arrays, not files: `preds` is (members, rows) for regression, or
(members, rows, classes) of class probabilities for classification, with one `classes`
order shared by all members.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from pipesmith.agents.ensembler import decision

STRATEGIES = ("single", "caruana", "stacking")  # simplest first: ties go to the first
CARUANA_ROUNDS = 25
NESTED_FOLDS = 5
TIE_TOLERANCE = 1e-9
WEIGHTED = "+class_weights"  # the suffix of a strategy with class-weighted decisions


@dataclass(frozen=True)
class Scorer:
    """How a combined prediction is scored: the task metric over labels and probabilities."""

    task_type: str  # classification or regression
    score: Callable[..., float]  # score(y_true, y_pred, proba=..., classes=...)
    greater_is_better: bool
    classes: np.ndarray | None = None

    def __call__(self, y: np.ndarray, combined: np.ndarray) -> float:
        if self.task_type == "classification":
            labels = self.classes[combined.argmax(axis=1)]
            return float(self.score(y, labels, proba=combined, classes=self.classes))
        return float(self.score(y, combined))

    def better(self, a: float, b: float) -> bool:
        return a > b + TIE_TOLERANCE if self.greater_is_better else a < b - TIE_TOLERANCE


@dataclass(frozen=True)
class Fitted:
    """A fitted strategy: integer member weights, or a level-2 model."""

    strategy: str
    weights: np.ndarray  # per member; for stacking, the level-2 model's use of each member
    model: object | None = None


@dataclass(frozen=True)
class Choice:
    strategy: str
    weights: list[float]  # per member, in the order given
    nested_scores: dict[str, float] = field(default_factory=dict)  # held-out score each
    fit_scores: dict[str, float] = field(default_factory=dict)  # on the rows fitted (info)
    class_weights: list[float] | None = None  # per class (scorer.classes order), if chosen
    level2: object | None = None  # stacking's level-2 model, fitted on every row given


def combine(preds: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The weighted mean of the members' predictions (probabilities or values)."""
    w = np.asarray(weights, dtype=float)
    return np.tensordot(w / w.sum(), preds, axes=1)


def best_single(preds: np.ndarray, y: np.ndarray, scorer: Scorer) -> np.ndarray:
    scores = [scorer(y, p) for p in preds]
    best = 0
    for i, s in enumerate(scores):
        if scorer.better(s, scores[best]):
            best = i
    weights = np.zeros(len(preds))
    weights[best] = 1.0
    return weights


def caruana(preds: np.ndarray, y: np.ndarray, scorer: Scorer,
            rounds: int = CARUANA_ROUNDS) -> np.ndarray:
    """Greedy forward selection with replacement, from the best single member; the weights
    are how often each member was picked, at the round that scored best."""
    counts = best_single(preds, y, scorer)
    best_counts, best_score = counts.copy(), scorer(y, combine(preds, counts))
    for _ in range(rounds):
        trial_scores = []
        for i in range(len(preds)):
            trial = counts.copy()
            trial[i] += 1
            trial_scores.append(scorer(y, combine(preds, trial)))
        pick = 0
        for i, s in enumerate(trial_scores):
            if scorer.better(s, trial_scores[pick]):
                pick = i
        counts[pick] += 1
        if scorer.better(trial_scores[pick], best_score):
            best_counts, best_score = counts.copy(), trial_scores[pick]
    return best_counts


def _level2_features(preds: np.ndarray) -> np.ndarray:
    """Rows x (members * classes) for classifiers, rows x members for regressors."""
    if preds.ndim == 3:
        return np.concatenate(list(preds), axis=1)
    return preds.T


def fit_level2(preds: np.ndarray, y: np.ndarray, task_type: str, seed: int = 0):
    """The level-2 model on the members' predictions: multinomial logistic regression on
    their probabilities, or non-negative least squares on their values."""
    from sklearn.linear_model import LinearRegression, LogisticRegression

    X = _level2_features(preds)
    if task_type == "classification":
        return LogisticRegression(C=1.0, max_iter=1000, random_state=seed).fit(X, y)
    return LinearRegression(positive=True).fit(X, y)


def level2_predict(model, preds: np.ndarray, task_type: str,
                   classes: np.ndarray | None = None) -> np.ndarray:
    """The level-2 model's probabilities in `classes` order (it saw only the classes of its
    training rows: the others get 0), or its values."""
    X = _level2_features(preds)
    if task_type != "classification":
        return model.predict(X)
    proba = model.predict_proba(X)
    out = np.zeros((X.shape[0], len(classes)))
    index = {c: i for i, c in enumerate(classes.tolist())}
    for j, c in enumerate(model.classes_.tolist()):
        out[:, index[c]] = proba[:, j]
    return out


def level2_params(model) -> dict:
    """The coefficients and intercepts pipesmith.estimators.LinearStackClassifier /
    LinearStackRegressor predict with as `model` does (a classifier's classes are the
    caller's to name: the rows may hold codes)."""
    return {"coef": np.asarray(model.coef_, dtype=float).tolist(),
            "intercept": np.atleast_1d(model.intercept_).astype(float).tolist()}


def stack(preds: np.ndarray, y: np.ndarray, scorer: Scorer, seed: int = 0) -> Fitted:
    """Stacking: the level-2 model, and how much it uses each member."""
    model = fit_level2(preds, y, scorer.task_type, seed)
    coef = np.abs(np.asarray(model.coef_, dtype=float))
    if scorer.task_type == "classification":
        use = coef.reshape(coef.shape[0], len(preds), preds.shape[2]).sum(axis=(0, 2))
    else:
        use = coef
    return Fitted("stacking", use / use.sum() if use.sum() > 0 else np.ones(len(preds)),
                  model)


def fit_strategy(strategy: str, preds: np.ndarray, y: np.ndarray, scorer: Scorer,
                 seed: int = 0) -> Fitted:
    if strategy == "single":
        return Fitted(strategy, best_single(preds, y, scorer))
    if strategy == "caruana":
        return Fitted(strategy, caruana(preds, y, scorer))
    return stack(preds, y, scorer, seed)


def predict_strategy(fitted: Fitted, preds: np.ndarray, scorer: Scorer) -> np.ndarray:
    if fitted.strategy != "stacking":
        return combine(preds, fitted.weights)
    return level2_predict(fitted.model, preds, scorer.task_type, scorer.classes)


def _folds(y: np.ndarray, task_type: str, n_folds: int, seed: int):
    from sklearn.model_selection import KFold, StratifiedKFold

    if task_type == "classification":
        _, counts = np.unique(y, return_counts=True)
        if counts.min() >= n_folds:
            return StratifiedKFold(n_folds, shuffle=True, random_state=seed).split(y, y)
    return KFold(n_folds, shuffle=True, random_state=seed).split(y)


def weighted(proba: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Probabilities reweighted per class and renormalised: their argmax is the decision."""
    scaled = proba * weights
    return scaled / np.clip(scaled.sum(axis=1, keepdims=True), 1e-300, None)


def class_codes(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    index = {c: i for i, c in enumerate(classes.tolist())}
    return np.array([index[c] for c in y.tolist()], dtype=int)


def nested_scores(preds: np.ndarray, y: np.ndarray, scorer: Scorer, seed: int = 0,
                  n_folds: int = NESTED_FOLDS,
                  strategies: tuple[str, ...] = STRATEGIES,
                  tune_metric: str | None = None) -> dict[str, float]:
    """Each strategy's score on rows it was not fitted on: fitted on the other folds' rows,
    predicting the held-out fold, the held-out predictions pooled and scored once. With
    `tune_metric`, also each strategy with class weights fitted on the same rows."""
    n_folds = max(2, min(n_folds, len(y) // 10 or 2))
    names = [*strategies, *(s + WEIGHTED for s in strategies if tune_metric)]
    held_out = {s: np.zeros(preds.shape[1:]) for s in names}
    codes = class_codes(y, scorer.classes) if tune_metric else None
    for train, test in _folds(y, scorer.task_type, n_folds, seed):
        for strategy in strategies:
            fitted = fit_strategy(strategy, preds[:, train], y[train], scorer, seed)
            held_out[strategy][test] = predict_strategy(fitted, preds[:, test], scorer)
            if tune_metric:
                w = decision.fit_weights(
                    tune_metric, predict_strategy(fitted, preds[:, train], scorer),
                    codes[train])
                held_out[strategy + WEIGHTED][test] = weighted(held_out[strategy][test], w)
    return {s: scorer(y, held_out[s]) for s in names}


def choose(preds: np.ndarray, y: np.ndarray, scorer: Scorer, seed: int = 0,
           n_folds: int = NESTED_FOLDS, tune_metric: str | None = None,
           strategies: tuple[str, ...] = STRATEGIES,
           scores: dict[str, float] | None = None) -> Choice:
    """The strategy (of `strategies`) with the best nested cross-validated score (ties: the
    simpler one, and plain decisions before class-weighted ones), then refitted on all the
    out-of-fold rows for its weights. `scores`: nested scores computed before (a second
    choice among fewer strategies need not compute them again)."""
    strategies = tuple(s for s in STRATEGIES if s in strategies) if len(preds) > 1 \
        else ("single",)
    if scores is None:
        scores = nested_scores(preds, y, scorer, seed, n_folds, strategies, tune_metric)
    scores = {name: v for name, v in scores.items()
              if name.removesuffix(WEIGHTED) in strategies}
    winner = next(iter(scores))
    for name, score in scores.items():
        if scorer.better(score, scores[winner]):
            winner = name
    strategy = winner.removesuffix(WEIGHTED)
    fitted = fit_strategy(strategy, preds, y, scorer, seed)
    combined = predict_strategy(fitted, preds, scorer)
    class_weights = None
    if winner.endswith(WEIGHTED):
        w = decision.fit_weights(tune_metric, combined, class_codes(y, scorer.classes))
        if not np.all(w == 1.0):
            class_weights, combined = [float(v) for v in w], weighted(combined, w)
    return Choice(
        strategy=strategy, weights=[float(w) for w in fitted.weights],
        nested_scores={s: round(v, 6) for s, v in scores.items()},
        fit_scores={winner: round(scorer(y, combined), 6)}, class_weights=class_weights,
        level2=fitted.model,
    )


# --- clustering ---------------------------------------------------------------------------

CONSENSUS_MAX_ROWS = 2000


def co_association(labelings: np.ndarray) -> np.ndarray:
    """Share of the clusterings that put each pair of rows in the same cluster."""
    labelings = np.asarray(labelings)
    return np.mean([lab[:, None] == lab[None, :] for lab in labelings], axis=0)


def consensus(labelings: np.ndarray, n_clusters: int, seed: int = 0,
              max_rows: int = CONSENSUS_MAX_ROWS) -> np.ndarray:
    """Consensus clustering: average-linkage clustering of the co-association matrix (on a
    sample when large; the other rows join the sampled row whose labels they share most)."""
    from sklearn.cluster import AgglomerativeClustering

    labelings = np.asarray(labelings)
    n = labelings.shape[1]
    rng = np.random.default_rng(seed)
    sample = np.sort(rng.choice(n, size=min(n, max_rows), replace=False))
    distance = 1.0 - co_association(labelings[:, sample])
    labels_sample = AgglomerativeClustering(n_clusters=n_clusters, metric="precomputed",
                                            linkage="average").fit_predict(distance)
    if len(sample) == n:
        return labels_sample
    agreement = (labelings.T[:, None, :] == labelings.T[sample][None, :, :]).sum(axis=2)
    out = labels_sample[agreement.argmax(axis=1)]
    out[sample] = labels_sample
    return out


def stability(labels: np.ndarray, others: np.ndarray) -> float:
    """Mean adjusted Rand index against the other clusterings: how much they agree."""
    from sklearn.metrics import adjusted_rand_score

    scores = [adjusted_rand_score(labels, o) for o in others]
    return float(np.mean(scores)) if scores else 0.0


@dataclass(frozen=True)
class ClusterChoice:
    strategy: str  # "single" or "consensus"
    member: int | None  # the chosen single clustering, by position
    labels: np.ndarray
    scores: dict[str, dict[str, float]]  # per option: silhouette, stability, combined


def choose_clustering(labelings: np.ndarray, features: np.ndarray, seed: int = 0,
                      sample: int = 3000) -> ClusterChoice:
    """Consensus vs the best single clustering, by a combined index: the mean of the
    silhouette (rescaled to [0, 1]) and the stability (mean ARI to the successful
    clusterings; a single one is compared with the others, never with itself)."""
    from sklearn.metrics import silhouette_score

    labelings = np.asarray(labelings)
    rng = np.random.default_rng(seed)
    rows = rng.choice(labelings.shape[1], size=min(labelings.shape[1], sample), replace=False)

    def index(labels: np.ndarray, others: np.ndarray) -> dict[str, float]:
        sil = (silhouette_score(features[rows], labels[rows])
               if len(set(labels[rows].tolist())) > 1 else -1.0)
        stab = stability(labels, others)
        return {"silhouette": round(float(sil), 6), "stability": round(stab, 6),
                "combined": round(0.5 * (sil + 1) / 2 + 0.5 * stab, 6)}

    options = {f"single:{i}": index(lab, np.delete(labelings, i, axis=0))
               for i, lab in enumerate(labelings)}
    k = int(round(np.median([len(set(lab.tolist())) for lab in labelings])))
    merged = consensus(labelings, max(2, k), seed) if len(labelings) > 1 else labelings[0]
    if len(labelings) > 1:
        options["consensus"] = index(merged, labelings)
    best = max(options, key=lambda name: (options[name]["combined"], name != "consensus"))
    if best == "consensus":
        return ClusterChoice("consensus", None, merged, options)
    member = int(best.split(":")[1])
    return ClusterChoice("single", member, labelings[member], options)
