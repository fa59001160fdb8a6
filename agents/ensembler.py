"""The ensembler: combine successful candidates when that beats the best single one.

Greedy forward selection (Caruana et al., 2004) over the members' out-of-fold
predictions on the development part (each attempt's oof.npz), without
replacement: start from the best single candidate, add the one that most
improves the combined score, stop when nothing improves. Classifiers are
soft-voted (mean probability), regressors averaged. The ensemble is then
rebuilt as one module and cross-validated like any other candidate; it is kept
only if its CV score beats the best single one. No test row is used.
"""

from __future__ import annotations

import numpy as np

from pipesmith.agents.schemas import Attempt, EnsembleOutcome, EnsembleProposal, RunInputs
from pipesmith.metrics import get_metric, is_better

MAX_MEMBERS = 5


def _load(attempt: Attempt) -> dict:
    from pipesmith.agents.executor import load_oof

    return load_oof(attempt.workdir)


def combined_score(metric_name: str, predictions: list[dict]) -> float:
    metric = get_metric(metric_name)
    y_true = predictions[0]["y_true"]
    if "proba" in predictions[0]:
        proba = np.mean([p["proba"] for p in predictions], axis=0)
        classes = predictions[0]["classes"]
        return metric.score(y_true, classes[proba.argmax(axis=1)], proba=proba, classes=classes)
    return metric.score(y_true, np.mean([p["pred"] for p in predictions], axis=0))


class Ensembler:
    def propose(self, attempts: list[Attempt], inputs: RunInputs) -> EnsembleProposal | None:
        if inputs.task_type == "clustering":
            return None
        pool = [a for a in attempts if a.succeeded and a.phase != "ensemble"]
        if inputs.task_type == "classification":
            pool = [a for a in pool if "proba" in _load(a)]
        if len(pool) < 2:
            return None
        metric = inputs.metric
        pool.sort(key=lambda a: a.score, reverse=get_metric(metric).greater_is_better)
        preds = {a.id: _load(a) for a in pool}
        chosen = [pool[0].id]
        best = combined_score(metric, [preds[pool[0].id]])  # pooled, like the trials
        while len(chosen) < MAX_MEMBERS:
            trials = {
                a.id: combined_score(metric, [preds[m] for m in chosen + [a.id]])
                for a in pool if a.id not in chosen
            }
            if not trials:
                break
            candidate = max(trials, key=lambda k: trials[k] if get_metric(metric)
                            .greater_is_better else -trials[k])
            if not is_better(metric, trials[candidate], best):
                break
            chosen.append(candidate)
            best = trials[candidate]
        if len(chosen) < 2:
            return None
        strategy = "soft_vote" if inputs.task_type == "classification" else "average"
        return EnsembleProposal(strategy=strategy, members=chosen, estimated_score=best)

    def decide(self, proposal: EnsembleProposal | None, result: Attempt | None,
               attempts: list[Attempt], metric: str) -> EnsembleOutcome:
        if proposal is None:
            return EnsembleOutcome(strategy="none",
                                   reason="no combination of candidates beat the best single one "
                                          "on out-of-fold predictions")
        best_single = best_attempt([a for a in attempts if a.phase != "ensemble"], metric)
        if result is None or not result.succeeded:
            return EnsembleOutcome(strategy=proposal.strategy, members=proposal.members,
                                   estimated_score=proposal.estimated_score,
                                   reason="the ensemble failed to run")
        kept = best_single is None or is_better(metric, result.score, best_single.score)
        return EnsembleOutcome(
            strategy=proposal.strategy, members=proposal.members,
            estimated_score=proposal.estimated_score, score=result.score, kept=kept,
            reason="beats the best single candidate" if kept else
            "its CV score did not beat the best single candidate",
        )


def best_attempt(attempts: list[Attempt], metric: str) -> Attempt | None:
    best = None
    for attempt in attempts:
        if attempt.succeeded and (best is None or is_better(metric, attempt.score, best.score)):
            best = attempt
    return best
