"""SHAP contributions of the chosen pipeline, checked by the referee outside the sandbox.

The refit job writes contributions.npz where the final step's family declares a native
method (agents/families: `contributions`; pipesmith/sandbox/contributions.py). Nothing in it
is trusted: it is read with every size checked (safe_npz), and kept only when
- its arrays are finite and of consistent shapes, on distinct test rows, with one output
  for regression and binary classification and one per class otherwise;
- *additive*: each row's contributions plus the base value give the model's raw margin
  (within ADD_TOL, relative to the margin's scale);
- *the margin is the model's*: it reproduces the predictions the referee scored on the test
  part (regression: the prediction; classification: the probabilities through the sigmoid,
  or the softmax over the classes) within LINK_TOL.
Else it is dropped with the reason. What is kept is summarised per input column (the
one-hot parts summed per row first), as the mean over rows and outputs of |contribution|.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import structlog

from pipesmith.agents.families.registry import CONTRIBUTIONS
from pipesmith.agents.schemas import FeatureContribution, RunInputs
from pipesmith.core import referee
from pipesmith.core.safe_npz import load_npz
from pipesmith.sandbox.contributions import CONTRIBUTIONS_FILE

log = structlog.get_logger(__name__)

MAX_ROWS = 1000  # a seeded sample of the test rows (contributions cost about a prediction each)
MAX_FEATURES = 2000  # transformed features the file may hold
ADD_TOL = 1e-3  # contributions + base vs the margin, relative to max(1, |margin| scale)
LINK_TOL = 1e-3  # the margin through its link vs the scored predictions
MAX_SHARE_OF_TIMEOUT = 0.15  # of the refit job's time limit: fewer rows when slower
NO_SHAP = "no SHAP for this family; permutation importance only"


class Inconsistent(ValueError):
    """The file does not hold contributions that explain the scored predictions."""


def job_request(inputs: RunInputs, timeout_s: float,
                within_s: float | None = None) -> dict | None:
    """What the refit's job.json asks for (`contributions`); None for clustering.
    `within_s`: the seconds the run's budget leaves them (at most)."""
    if inputs.task_type == "clustering":
        return None
    max_s = MAX_SHARE_OF_TIMEOUT * timeout_s
    return {"methods": CONTRIBUTIONS, "rows": MAX_ROWS, "seed": inputs.seed,
            "max_s": max_s if within_s is None else min(max_s, within_s)}


def shap_contributions(workdir: Path, test: pd.DataFrame, inputs: RunInputs, checked: dict,
                       job_note: dict | None) -> tuple[list[FeatureContribution], str]:
    """Mean |contribution| per input feature, largest first, and a note; an empty list and
    the reason when the family has none or the file fails a check (the refit stands)."""
    if inputs.task_type == "clustering":
        return [], "skipped: clustering"
    note = job_note or {}
    if note.get("stopped"):
        return [], f"not computed: the refit job stopped ({note['stopped']})"
    if note.get("method") is None:
        return [], f"{NO_SHAP} ({note.get('estimator') or 'unknown estimator'})"
    features = [str(c) for c in test.columns if c != inputs.target]
    n_out = len(checked["classes"]) if "classes" in checked else 1
    try:
        arrays = load_npz(workdir / CONTRIBUTIONS_FILE,
                          (1 << 20) + 8 * MAX_ROWS * max(n_out, 1) * (MAX_FEATURES + 2) * 2)
        rows, contrib, margin, owners, names = check(arrays, len(test), len(features),
                                                     n_out)
        gap = additivity_gap(contrib, margin)
        if gap > ADD_TOL:
            raise Inconsistent(f"the contributions do not add up to the model's margin "
                               f"(largest gap {gap:.3g} of its scale)")
        link = link_gap(margin, checked, rows, inputs.task_type)
        if link is not None and link > LINK_TOL:
            raise Inconsistent(f"the margin does not reproduce the scored test predictions "
                               f"(largest gap {link:.3g})")
    except FileNotFoundError:
        return [], "not computed: the refit job wrote no contributions.npz"
    except (Inconsistent, referee.ContractViolation, ValueError, OSError, KeyError) as exc:
        log.info("contributions.dropped", error=str(exc)[:200])
        return [], f"dropped: {str(exc)[:240]}"
    ranked = summarise(contrib, owners, names, features)
    known = owners[owners >= 0]
    mapped = "; one-hot parts summed into their input column" \
        if len(np.unique(known)) < len(known) else ""
    checked_link = "" if link is None else " and its margin reproduces the scored predictions"
    return ranked, (f"{note['method']} contributions ({note.get('estimator')}, the library's "
                    f"exact method) on {len(rows)} test rows (seed {inputs.seed}); checked "
                    f"outside: they add up to the raw margin{checked_link}{mapped}")


def check(arrays: dict, n_test: int, n_features: int, n_out: int):
    """The arrays, their shapes, types and values checked; (rows, contrib, margin, owners,
    names)."""
    rows = np.asarray(arrays["rows"])
    if rows.dtype.kind not in "iu" or rows.ndim != 1 or not len(rows) or \
            len(np.unique(rows)) != len(rows) or rows.min() < 0 or rows.max() >= n_test:
        raise Inconsistent("rows are not distinct test rows")
    contrib, margin = np.asarray(arrays["contrib"]), np.asarray(arrays["margin"])
    if contrib.dtype.kind != "f" or margin.dtype.kind != "f":
        raise Inconsistent("contributions are not floats")
    outputs = 1 if n_out <= 2 else n_out  # binary: the positive class's margin only
    if contrib.ndim != 3 or contrib.shape[:2] != (len(rows), outputs) or \
            not 2 <= contrib.shape[2] <= MAX_FEATURES + 1 or margin.shape != (len(rows), outputs):
        raise Inconsistent(f"shapes {contrib.shape} and {margin.shape} are not rows x "
                           f"{outputs} output(s) x (features + 1)")
    if not (np.isfinite(contrib).all() and np.isfinite(margin).all()):
        raise Inconsistent("contributions are not all finite")
    p = contrib.shape[2] - 1
    owners, names = np.asarray(arrays["owners"]), np.asarray(arrays["names"]).astype(str)
    if owners.dtype.kind not in "iu" or owners.shape != (p,) or names.shape != (p,) or \
            (owners < -1).any() or (owners >= n_features).any():
        raise Inconsistent("owners and names do not describe the contributions' features")
    return rows, contrib, margin, owners, names


def additivity_gap(contrib: np.ndarray, margin: np.ndarray) -> float:
    """The largest |row sum + base - margin|, relative to max(1, the margin's scale)."""
    scale = max(1.0, float(np.abs(margin).max()))
    return float(np.abs(contrib.sum(axis=2) - margin).max()) / scale


def link_gap(margin: np.ndarray, checked: dict, rows: np.ndarray, task_type: str
             ) -> float | None:
    """How far the margin, through its link, is from what the referee scored; None when
    there is nothing to compare (a classifier without probabilities)."""
    if task_type == "regression":
        pred = np.asarray(checked["pred"], dtype=float)[rows]
        return float(np.abs(margin[:, 0] - pred).max()) / max(1.0, float(np.abs(pred).max()))
    if "proba" not in checked:
        return None
    proba = np.asarray(checked["proba"], dtype=float)[rows]
    if margin.shape[1] == 1:
        return float(np.abs(1.0 / (1.0 + np.exp(-margin[:, 0])) - proba[:, -1]).max())
    shifted = np.exp(margin - margin.max(axis=1, keepdims=True))
    return float(np.abs(shifted / shifted.sum(axis=1, keepdims=True) - proba).max())


def summarise(contrib: np.ndarray, owners: np.ndarray, names: np.ndarray,
              features: list[str]) -> list[FeatureContribution]:
    """Per input column (its parts summed per row and output first), else per transformed
    feature: the mean |contribution|, largest first."""
    parts = contrib[:, :, :-1]
    groups: dict[str, list[int]] = {}
    for j, owner in enumerate(owners.tolist()):
        groups.setdefault(features[owner] if owner >= 0 else str(names[j]), []).append(j)
    out = [FeatureContribution(feature=name,
                               mean_abs=round(float(np.abs(parts[:, :, idx].sum(axis=2)).mean()),
                                              6))
           for name, idx in groups.items()]
    return sorted(out, key=lambda c: -c.mean_abs)
