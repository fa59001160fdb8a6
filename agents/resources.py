"""Resource prediction: peak memory and wall time of a candidate's full run, before it runs.

An analytic model from the data profile and the model family, refined by the smoke run
when there was one (the same harness on a sample: its measured memory and time are
scaled to the full data), then bounded by a split-conformal margin learnt from past runs
(the knowledge base keeps every run's predicted and measured figures): the bound is the
prediction times the ceil((n+1)*0.95)-th smallest measured/predicted ratio, which holds
for at least 95% of runs like the past ones. With fewer than 19 past runs a fixed margin
stands in.
"""

from __future__ import annotations

import ast
import math

from pydantic import BaseModel, ConfigDict

from pipesmith.agents.schemas import CandidateSpec, DataProfile

BASE_MB = 230.0  # Python with pandas, NumPy and scikit-learn imported (measured here)
BASE_S = 2.2  # the harness's start-up: interpreter and imports (measured here)
DATA_COPIES = 4.0  # frame, split, preprocessed arrays and the model's own copy
NODE_BYTES = 96.0  # one tree node with its value array, roughly
FIT_SECONDS_PER_MCELL = {  # seconds per million (rows x features) cells, per family
    "random_forest": 1.2, "extra_trees": 0.8, "hist_gradient_boosting": 0.6,
    "logistic_regression": 0.2, "ridge": 0.05, "svc": 4.0, "svr": 4.0, "knn": 0.3,
    "kmeans": 0.3, "gaussian_mixture": 0.5, "agglomerative": 3.0,
}
DEFAULT_MARGIN = {"memory": 1.5, "wall": 2.5}
COVERAGE = 0.95


class ResourcePrediction(BaseModel):
    model_config = ConfigDict(frozen=True)

    peak_mem_mb: float
    wall_s: float
    mem_bound_mb: float
    wall_bound_s: float
    basis: str  # "analytic" or "smoke"
    margin: dict[str, float]  # the multipliers behind the bounds
    calibration_runs: int  # past runs the margins were learnt from


SIZE_KEYWORDS = ("n_estimators", "min_samples_leaf")


def sized_from_code(spec: CandidateSpec | None, code: str) -> CandidateSpec | None:
    """The spec with the model-size parameters the code actually passes: the code that
    runs, not the plan, decides the cost."""
    if spec is None:
        return None
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return spec
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in SIZE_KEYWORDS and \
                isinstance(node.value, ast.Constant) and isinstance(node.value.value, int):
            found[node.arg] = max(found.get(node.arg, 0), node.value.value)
    return spec.model_copy(update={"params": {**spec.params, **found}}) if found else spec


def feature_cells(profile: DataProfile) -> float:
    """Rows x columns after encoding (one-hot capped at 20 categories per column)."""
    width = sum(min(c.n_unique, 20) if c.kind == "categorical" else 1
                for c in profile.columns if c.kind in ("numeric", "categorical"))
    return float(profile.n_rows) * max(width, 1)


def analytic(profile: DataProfile, spec: CandidateSpec | None, cv_folds: int,
             rows: int | None = None) -> tuple[float, float]:
    """(peak MB, wall s) for `rows` rows (default: all of them)."""
    rows = rows or profile.n_rows
    cells = feature_cells(profile) * rows / max(profile.n_rows, 1)
    family = spec.family if spec else "random_forest"
    data_mb = cells * 8 * DATA_COPIES / 1e6
    model_mb = 0.0
    n_estimators = (spec.params.get("n_estimators", 0) if spec else 0) or 0
    if n_estimators:
        model_mb = n_estimators * 2 * rows * NODE_BYTES / 1e6 / max(
            1, spec.params.get("min_samples_leaf", 1))
    if family in ("svc", "svr", "agglomerative"):
        model_mb += min(200.0, rows * rows * 8 / 1e6)  # kernel cache / distance matrix
    size = max(1.0, n_estimators / 100)
    fit_s = FIT_SECONDS_PER_MCELL.get(family, 1.0) * cells / 1e6 * size * math.log2(rows + 2)
    return BASE_MB + data_mb + model_mb, BASE_S + fit_s * (1 + cv_folds)


def conformal_margin(ratios: list[float], default: float) -> float:
    """The split-conformal quantile of measured/predicted ratios (never below 1)."""
    n = len(ratios)
    if n < math.ceil(1 / (1 - COVERAGE)) - 1:  # 19 runs for 95%
        return default
    rank = min(n, math.ceil((n + 1) * COVERAGE))
    return max(1.0, sorted(ratios)[rank - 1])


def predict(profile: DataProfile, spec: CandidateSpec | None, cv_folds: int,
            smoke: dict | None, smoke_rows: int, history: list[dict]) -> ResourcePrediction:
    """`smoke`: the smoke run's measured peak_mem_mb and wall_s, when it ran; `history`:
    past executions with predicted and measured memory and time."""
    mem, wall = analytic(profile, spec, cv_folds)
    basis = "analytic"
    if smoke:
        small_mem, small_wall = analytic(profile, spec, 0,
                                         rows=min(smoke_rows, profile.n_rows))
        # The smoke run measures this machine and this code; the model supplies the scaling.
        mem = smoke["peak_mem_mb"] + (mem - small_mem)
        wall = smoke["wall_s"] + max(0.0, wall - small_wall)
        basis = "smoke"
    margins = {
        "memory": conformal_margin([h["measured_mem_mb"] / h["predicted_mem_mb"]
                                    for h in history if h.get("predicted_mem_mb")],
                                   DEFAULT_MARGIN["memory"]),
        "wall": conformal_margin([h["measured_wall_s"] / h["predicted_wall_s"]
                                  for h in history if h.get("predicted_wall_s")],
                                 DEFAULT_MARGIN["wall"]),
    }
    return ResourcePrediction(
        peak_mem_mb=round(mem, 1), wall_s=round(wall, 2),
        mem_bound_mb=round(mem * margins["memory"], 1),
        wall_bound_s=round(wall * margins["wall"], 2), basis=basis,
        margin={k: round(v, 3) for k, v in margins.items()}, calibration_runs=len(history))
