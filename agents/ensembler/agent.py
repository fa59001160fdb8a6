"""The ensembler: choose, on evidence, between the best single candidate, a Caruana
ensemble and stacking (SAGE-Loop), from the candidates' out-of-fold predictions.

The choice is cross-validated over the out-of-fold rows (agents/ensembler/select.py), so no
strategy is judged on the rows it was fitted on. The ensemble module is then composed from
the exact code each member ran with (agents/ensembler/compose.py), scored by the referee like any
other candidate, and kept only when that score beats the best single one.

Predictions come from each attempt's folder: `oof.npz` (out-of-fold predictions on the
development part) where the referee wrote one, else `predictions.npz` (the validation rows).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from pipesmith.agents.ensembler import decision
from pipesmith.agents.ensembler import select as es
from pipesmith.agents.ensembler.compose import VOTES
from pipesmith.agents.schemas import Attempt, EnsembleOutcome, EnsembleProposal, RunInputs
from pipesmith.core import referee
from pipesmith.core.metrics import get_metric, is_better

MAX_POOL = 8  # the best candidates considered; more costs time and rarely helps
MIN_ROWS = 20  # fewer out-of-fold rows than this cannot be split for a nested choice
PREDICTION_FILES = ("oof.npz", "predictions.npz")


def load_predictions(attempt: Attempt) -> dict | None:
    for name in PREDICTION_FILES:
        path = Path(attempt.workdir) / name
        if path.exists():
            with np.load(path, allow_pickle=False) as data:
                arrays = {key: data[key] for key in data.files}
            if "pred" in arrays and "y_pred" not in arrays:  # the referee's oof.npz
                arrays["y_pred"] = arrays["pred"]
            return arrays
    return None


def scorer_for(metric_name: str, task_type: str, classes=None) -> es.Scorer:
    metric = get_metric(metric_name)
    return es.Scorer(task_type, metric.score, metric.greater_is_better, classes)


def combined_score(metric_name: str, predictions: list[dict]) -> float:
    """The score of the members' plain mean (probabilities or values)."""
    first = predictions[0]
    if "proba" in first:
        scorer = scorer_for(metric_name, "classification", first["classes"])
        return scorer(first["y_true"], np.mean([p["proba"] for p in predictions], axis=0))
    return scorer_for(metric_name, "regression")(
        first["y_true"], np.mean([p["y_pred"] for p in predictions], axis=0))


def _pool(attempts: list[Attempt], inputs: RunInputs) -> tuple[list[Attempt], list[dict]]:
    """The best successful candidates whose predictions line up with the best one's."""
    metric = get_metric(inputs.metric)
    ranked = sorted((a for a in attempts if a.succeeded and a.phase != "ensemble"),
                    key=lambda a: a.score, reverse=metric.greater_is_better)
    pool, preds = [], []
    for attempt in ranked:
        p = load_predictions(attempt)
        if p is None or "y_true" not in p or (
                inputs.task_type == "classification" and "proba" not in p):
            continue
        if preds and not (np.array_equal(p["y_true"], preds[0]["y_true"]) and (
                "classes" not in p or np.array_equal(p["classes"], preds[0]["classes"]))):
            continue
        pool.append(attempt)
        preds.append(p)
        if len(pool) == MAX_POOL:
            break
    return pool, preds


class Ensembler:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def propose(self, attempts: list[Attempt], inputs: RunInputs,
                strategies: tuple[str, ...] = es.STRATEGIES,
                nested: dict[str, float] | None = None) -> EnsembleProposal | None:
        """The strategy (of `strategies`) with the best nested cross-validated score over
        the pool's out-of-fold predictions; None when there is nothing to choose between.
        `nested`: the nested scores of an earlier proposal on the same pool (not computed
        again)."""
        if inputs.task_type == "clustering":
            return self._propose_clustering(attempts, inputs)
        pool, preds = _pool(attempts, inputs)
        tune = inputs.metric if decision.tunable(inputs.metric, inputs.task_type) else None
        # one candidate is enough to weigh its decisions; a combination needs two
        if len(pool) < (1 if tune else 2) or len(preds[0]["y_true"]) < MIN_ROWS:
            return None
        y = preds[0]["y_true"]
        if inputs.task_type == "classification":
            stacked = np.stack([p["proba"] for p in preds])
            classes = preds[0]["classes"]
            # scored on integer codes, the classes' sorted order: every metric gives the
            # same value, without a lookup of each text label in each of caruana's hundreds
            # of calls (nass_cds, 16,778 rows: 13 s a proposal)
            codes = np.searchsorted(classes, y)
            if np.array_equal(classes[np.minimum(codes, len(classes) - 1)], y):
                y = codes
            scorer = scorer_for(inputs.metric, "classification",
                                np.arange(len(classes)) if y is codes else classes)
        else:
            stacked = np.stack([np.asarray(p["y_pred"], dtype=float) for p in preds])
            scorer = scorer_for(inputs.metric, "regression")
        choice = es.choose(stacked, y, scorer, seed=inputs.seed, tune_metric=tune,
                           strategies=strategies, scores=nested)
        name = choice.strategy + (es.WEIGHTED if choice.class_weights else "")
        class_weights = None if choice.class_weights is None else {
            str(c): w for c, w in zip(classes.tolist(), choice.class_weights, strict=True)}
        level2 = None
        if choice.strategy == "stacking":
            level2 = es.level2_params(choice.level2)
            if inputs.task_type == "classification":  # the classes as text, not codes
                text = [str(c) for c in classes.tolist()]
                level2 |= {"columns": text, "classes": [
                    text[c] if y is codes else str(c) for c in choice.level2.classes_.tolist()]}
        return EnsembleProposal(
            strategy=choice.strategy, members=[a.id for a in pool],
            estimated_score=choice.nested_scores[name], weights=choice.weights,
            nested_scores=choice.nested_scores, class_weights=class_weights, level2=level2)

    def fitting_vote(self, attempts: list[Attempt], inputs: RunInputs,
                     proposal: EnsembleProposal,
                     fits: Callable[[EnsembleProposal], bool]) -> EnsembleProposal | None:
        """A smaller vote when `proposal`'s cost does not fit (`fits` says): its costliest
        member (by its run's seconds) is left out and the vote chosen again from the rest,
        one member at a time, while nested cross-validation still prefers the vote to the
        best single model of the whole pool (the vote of fewer must beat that model, not
        the best of the fewer). None when no such vote fits. (concrete at 60 s: a vote of
        four, XGBoost's fits the costliest, missed its time by 4 s and the run ended 3 s
        early.) For clusterings, a consensus of fewer (_fitting_consensus)."""
        if inputs.task_type == "clustering":
            return self._fitting_consensus(attempts, inputs, proposal, fits)
        single = proposal.nested_scores.get("single")
        if single is None:
            return None
        by_id = {a.id: a for a in attempts}
        cheapest = sorted(proposal.weighted_members, key=lambda m: by_id[m].wall_s)[:2]
        if not fits(proposal.model_copy(update={"members": cheapest, "weights": [1.0, 1.0]})):
            return None  # not even its two cheapest members fit: no proposal is worth its time
        pool, left_out = list(proposal.members), []
        current = proposal
        while len(current.weighted_members) > 2:
            costliest = max(current.weighted_members, key=lambda m: by_id[m].wall_s)
            pool.remove(costliest)
            left_out.append(costliest)
            current = self.propose([by_id[m] for m in pool], inputs, strategies=VOTES)
            if current is None or current.strategy == "single" or \
                    not is_better(inputs.metric, current.estimated_score, single):
                return None
            if fits(current):
                return current.model_copy(update={"left_out": left_out})
        return None

    def _fitting_consensus(self, attempts: list[Attempt], inputs: RunInputs,
                           proposal: EnsembleProposal,
                           fits: Callable[[EnsembleProposal], bool]) -> EnsembleProposal | None:
        """The consensus of the most clusterings that fits, the best by their own combined
        index first, when it still beats the best single clustering of the whole pool; else
        None. (A consensus runs its members again: at a load of 6, the consensus of all 23
        of an iris run's clusterings did not fit.)"""
        if proposal.strategy != "consensus":
            return None
        single = {m: proposal.nested_scores[f"single:{i}"]
                  for i, m in enumerate(proposal.members)}
        ranked = sorted(single, key=single.get, reverse=True)
        k = next((k for k in range(len(ranked) - 1, 1, -1) if fits(proposal.model_copy(
            update={"members": ranked[:k], "weights": [1.0] * k}))), None)
        if k is None:
            return None
        by_id = {a.id: a for a in attempts}
        smaller = self._propose_clustering([by_id[m] for m in ranked[:k]], inputs)
        if smaller is None or smaller.strategy != "consensus" or \
                smaller.estimated_score <= max(single.values()):
            return None
        return smaller.model_copy(update={"left_out": ranked[k:]})

    def weighted_single(self, attempts: list[Attempt], inputs: RunInputs,
                        proposal: EnsembleProposal) -> EnsembleProposal | None:
        """The best single model with class-weighted decisions, when nested cross-validation
        (`proposal`'s scores) prefers them to its plain ones; else None. It fits nothing of
        its own: its refit and control are the single model's, which the reserve holds, so
        it is what is left when no vote fits (caravan at load 5: a vote that did not fit
        took the weighted single's 0.63 balanced accuracy down to the plain 0.54)."""
        if inputs.task_type == "clustering":
            return None
        single = self.propose(attempts, inputs, strategies=("single",),
                              nested=proposal.nested_scores)
        return single if single is not None and single.builds else None

    def _propose_clustering(self, attempts: list[Attempt],
                            inputs: RunInputs) -> EnsembleProposal | None:
        """Consensus vs the best single clustering, by silhouette and stability."""
        import pandas as pd

        pool = [a for a in attempts if a.succeeded and a.phase != "ensemble"]
        labelings = [(a, load_predictions(a)) for a in pool]
        labelings = [(a, p["y_pred"]) for a, p in labelings if p is not None and "y_pred" in p]
        if len(labelings) < 2 or len({len(lab) for _, lab in labelings}) != 1:
            return None
        frame = pd.read_parquet(inputs.data_path)
        if inputs.target and inputs.target in frame:
            frame = frame.drop(columns=[inputs.target])
        if len(frame) != len(labelings[0][1]):
            return None
        choice = es.choose_clustering(np.stack([lab for _, lab in labelings]),
                                      referee.cluster_features(frame), seed=inputs.seed)
        scores = {name: s["combined"] for name, s in choice.scores.items()}
        members = [a.id for a, _ in labelings]
        if choice.strategy == "single":
            return EnsembleProposal(strategy="single", members=members,
                                    estimated_score=scores[f"single:{choice.member}"],
                                    weights=[float(i == choice.member)
                                             for i in range(len(members))],
                                    nested_scores=scores)
        return EnsembleProposal(strategy="consensus", members=members,
                                estimated_score=scores["consensus"],
                                weights=[1.0] * len(members), nested_scores=scores,
                                n_clusters=len(set(choice.labels.tolist())))

    def decide(self, proposal: EnsembleProposal | None, result: Attempt | None,
               attempts: list[Attempt], metric: str) -> EnsembleOutcome:
        if proposal is None:
            return EnsembleOutcome(strategy="none",
                                   reason="too few candidates with out-of-fold predictions to "
                                          "combine")
        chosen = dict(members=proposal.members, estimated_score=proposal.estimated_score,
                      weights=proposal.weights, nested_scores=proposal.nested_scores,
                      class_weights=proposal.class_weights)
        if not proposal.builds:
            return EnsembleOutcome(strategy="single", **chosen,
                                   reason="the evidence (nested cross-validation, or for "
                                          "clusterings silhouette and stability) preferred "
                                          "the best single model")
        best_single = best_attempt([a for a in attempts if a.phase != "ensemble"], metric)
        if proposal.skipped:
            return EnsembleOutcome(strategy=proposal.strategy, **chosen,
                                   reason="not run: its members' cost did not fit in the "
                                          "time left")
        if result is None or not result.succeeded:
            return EnsembleOutcome(strategy=proposal.strategy, **chosen,
                                   reason="the ensemble failed to run")
        kept = best_single is None or is_better(metric, result.score, best_single.score)
        smaller = f" (a smaller vote: {', '.join(proposal.left_out)} left out, the whole " \
                  "vote's cost did not fit)" if proposal.left_out else ""
        return EnsembleOutcome(
            strategy=proposal.strategy, **chosen, score=result.score, kept=kept,
            reason=("beats the best single candidate" if kept else
                    "the referee's score did not beat the best single candidate") + smaller,
        )


SEARCHED = "_tuned"  # the suffix of a search winner's candidate name (graph/nodes.py)


def best_attempt(attempts: list[Attempt], metric: str) -> Attempt | None:
    """The best successful attempt by cross-validated score; but a search winner only when
    it beats the best planned candidate clearly (see clearly_better): it was picked as the
    best of many trials scored on these same folds, so its own score is optimistic, and on
    a small table that optimism can exceed the real gain (diabetes: CV 0.35, test 0.09)."""
    best = _highest(attempts, metric)
    if best is None or not best.candidate.endswith(SEARCHED):
        return best
    planned = _highest([a for a in attempts if not a.candidate.endswith(SEARCHED)], metric)
    return best if planned is None or clearly_better(best, planned, metric) else planned


def clearly_better(a: Attempt, b: Attempt, metric: str) -> bool:
    """Whether `a` beats `b` by more than one standard error of their paired per-fold
    differences (both were scored on the run's same folds)."""
    if len(a.fold_scores) != len(b.fold_scores) or len(a.fold_scores) < 2:
        return is_better(metric, a.score, b.score)
    diff = np.asarray(a.fold_scores, dtype=float) - np.asarray(b.fold_scores, dtype=float)
    if not get_metric(metric).greater_is_better:
        diff = -diff
    return bool(diff.mean() > diff.std(ddof=1) / np.sqrt(len(diff)))


def _highest(attempts: list[Attempt], metric: str) -> Attempt | None:
    best = None
    for attempt in attempts:
        if attempt.succeeded and (best is None or is_better(metric, attempt.score, best.score)):
            best = attempt
    return best
