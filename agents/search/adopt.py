"""Adopting a search winner's cross-validation: nothing is computed twice.

A search trial at the full share of rows fitted the winner on every fold of the run's fold
plan, on the run's warm workers, and returned each fold's predictions. When the candidate
drafted from that winner is the very module the trial ran with its parameters bound
(`agents/coder/bind.py`), on the same folds, those predictions *are* its fold predictions:
the referee checks and scores them (`Executor.adopt`) instead of fitting it again. Anything
else (a lower share, other folds, other code, predictions the referee rejects) and the
candidate runs as any other.

Here: the fingerprint of a fold plan, the winner's evidence on disk, and the pure verdict
on whether a drafted candidate may adopt it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd

from pipesmith.agents.coder.bind import bound_module
from pipesmith.agents.schemas import Candidate, SearchTrial
from pipesmith.agents.warm_folds import write_fold_output

EVIDENCE = "adoptable"  # under the search folder: one trial_<n>/ per winner


def fold_plan_key(frame: pd.DataFrame, plan) -> str:
    """Which rows (their contents) and which folds: the hash of the table and of every
    fold's training and predicted positions. Equal keys, equal fold data."""
    digest = hashlib.sha256()
    digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    for train, predict in plan:
        for part in (train, predict):
            positions = np.asarray(part, dtype=np.int64)
            digest.update(len(positions).to_bytes(8, "little"))
            digest.update(positions.tobytes())
    return digest.hexdigest()


def fold_fit_wall_s(measured: dict) -> float:
    """One fold's fit as a trial worker measured it (its wall time, else its fit time)."""
    return float(measured.get("wall_s") or measured.get("fit_s") or 0.0)


def adopted_wall_s(fold_walls: list[float], workers: int) -> float:
    """An adopted trial's run time: its folds' fits arranged as the executor runs folds,
    `workers` at once (never less than its slowest fold)."""
    return max(max(fold_walls), sum(fold_walls) / max(1, workers))


def save_evidence(result, folds, module: str, folder: Path,
                  worker_start_s: float = 0.0) -> SearchTrial | None:
    """A winner's evidence (`result` a runner.TrialResult on `folds`): its per-fold
    predictions written where the executor will read them, and what the fits measured.
    None when the trial did not cover every fold of the plan at the full share."""
    k = len(folds.test_index)
    if result.status != "ok" or result.share != 1.0 or result.score is None or \
            sorted(result.folds) != list(range(k)) or not folds.key:
        return None
    where = folder / f"trial_{result.number}"
    measured = [result.folds[i][0] for i in range(k)]
    for i in range(k):
        write_fold_output(where / f"fold{i}", *result.folds[i])
    return SearchTrial(
        number=result.number, score=float(result.score), share=result.share,
        params=dict(result.params), module=module, fold_plan=folds.key, folder=str(where),
        fold_wall_s=[fold_fit_wall_s(m) for m in measured],
        fold_cpu_s=[float(m.get("cpu_s") or 0.0) for m in measured],
        peak_mem_mb=max(float(m.get("peak_mem_mb") or 0.0) for m in measured),
        worker_start_s=round(worker_start_s, 3))


def refusal(candidate: Candidate, fold_plan: str) -> str | None:
    """Why the candidate may not adopt its trial's cross-validation (None: it may).
    `fold_plan`: the key of the run's current folds."""
    trial = candidate.spec.trial if candidate.spec is not None else None
    if trial is None:
        return "not a search winner"
    if candidate.phase != "draft":
        return f"a {candidate.phase}, not the winner's draft"
    if trial.share != 1.0:
        return f"trial {trial.number} fitted {trial.share:.0%} of each fold's rows"
    if candidate.code != bound_module(trial.module, trial.params, trial.number):
        return f"the code is not trial {trial.number}'s module with its parameters bound"
    if trial.fold_plan != fold_plan:
        return f"trial {trial.number} ran on other folds than the run's current ones"
    return None
