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
import os
import time

from pydantic import BaseModel, ConfigDict

from pipesmith.agents.families.registry import (
    BOOSTING,
    FIT_SECONDS_PER_MCELL,
    backend_of,
)
from pipesmith.agents.schemas import CandidateSpec, DataProfile
from pipesmith.core.referee import fold_rounds

BASE_MB = 230.0  # Python with pandas, NumPy and scikit-learn imported (measured here)
BASE_S = 2.2  # the harness's start-up: interpreter and imports (measured here)
DATA_COPIES = 4.0  # frame, split, preprocessed arrays and the model's own copy
NODE_BYTES = 96.0  # one tree node with its value array, roughly
# Neural backends: the framework's import on top of BASE_MB/BASE_S (measured here: torch
# +180 MB, TensorFlow with Keras +480 MB resident; torch's first optimiser step imports
# torch._dynamo, seconds more), and the cost of one optimiser step and
# of one epoch's bookkeeping (Keras' fit() runs callbacks and a validation pass per epoch).
FRAMEWORK = {"torch": {"mb": 180.0, "s": 5.0, "step_s": 0.004, "epoch_s": 0.01},
             "tensorflow": {"mb": 480.0, "s": 7.0, "step_s": 0.004, "epoch_s": 0.1}}
# One fold fit as a fork of a warm worker (agents/warm_folds.py) costs its fit and this
# much more: the fork, the candidate's module, its predictions back through the channel
# (benchmarks/time_predictions.py: 5 penguins folds of a 0.1 s fit took 0.7 s in rounds
# of two at a load of 2-3).
WARM_JOB_S = 0.15
# ... and, whatever the table's size, this much more per fit: the estimator's own setup,
# its predictions written back and checked, which the per-cell constants do not hold (they
# were measured on tables large enough to hide it). Fitted as the median of the fixed cost
# per fit that penguins' first runs imply (the one table whose per-cell part is nil):
# 0.067, 0.083 s quiet; 0.217 s at load 8 (probed pace); 0.002, 0.003 s at load 10 (load
# pace) (benchmarks/time_predictions.py, docs/figures.md "budgetfit").
FIT_FIXED_S = 0.07
SMOKE_WHEN_ROWS_OVER = 2  # a smoke run only when the data has this many times its sample
# The machine's pace is also probed: this much CPU time of a busy loop at the run's start
# (at load 10 it takes about 5 times as long); False: the load averages alone.
PROBE = True
PROBE_CPU_S = 0.05
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


SIZE_KEYWORDS = ("n_estimators", "min_samples_leaf", "epochs", "batch_size")


def literal_keywords(code: str) -> dict[str, list]:
    """Each keyword the code passes a literal to (a number, a string, a tuple of numbers),
    with every value it passes; {} for code that does not parse."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return {}
    found: dict[str, list] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg is not None:
            try:
                value = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            found.setdefault(node.arg, []).append(value)
    return found


def sized_from_code(spec: CandidateSpec | None, code: str) -> CandidateSpec | None:
    """The spec with the model-size parameters the code actually passes: the code that
    runs, not the plan, decides the cost."""
    if spec is None:
        return None
    found = {}
    for name, values in literal_keywords(code).items():
        ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
        if name in SIZE_KEYWORDS and ints:
            found[name] = max(ints)
        if name == "hidden":
            widths = [v for v in values if isinstance(v, (tuple, list))
                      and all(isinstance(w, int) for w in v)]
            if widths:
                found["hidden"] = tuple(widths[-1])
    return spec.model_copy(update={"params": {**spec.params, **found}}) if found else spec


def as_coded(spec: CandidateSpec, code: str) -> CandidateSpec:
    """The spec with its parameters as the code passes them, where it passes one literal
    value: a resource shrink edits the code that runs, not the plan (a random forest
    planned with 300 trees fits 100 after shrink_model)."""
    found = literal_keywords(code)
    coded = {name: found[name][0] for name in spec.params
             if len(set(map(repr, found.get(name, [])))) == 1}
    return spec.model_copy(update={"params": {**spec.params, **coded}})


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
    if backend_of(family) in FRAMEWORK:
        return _neural(profile, spec, cv_folds, rows, cells)
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


def _neural(profile: DataProfile, spec: CandidateSpec, cv_folds: int, rows: int,
            cells: float) -> tuple[float, float]:
    """A network: the framework, the data as float32 tensors, and weights with their
    gradients and two AdamW moments (4 copies of float32) for memory; optimiser steps and
    epochs for time (early stopping only makes it shorter)."""
    framework = FRAMEWORK[backend_of(spec.family)]
    width = cells / max(rows, 1)
    layers = [width, *spec.params.get("hidden", (64, 32)), 8]
    weights = sum(a * b for a, b in zip(layers, layers[1:], strict=False))
    batch = spec.params.get("batch_size", 64)
    activations = batch * sum(layers) * 4 * 3  # forward values, gradients, dropout masks
    memory = BASE_MB + framework["mb"] + (cells * 4 * DATA_COPIES + weights * 16
                                          + activations) / 1e6
    epochs = spec.params.get("epochs", 60)
    steps = epochs * math.ceil(rows / batch)
    size = max(1.0, weights / 1e5)  # bigger layers make each step slower
    fit_s = steps * framework["step_s"] * size + epochs * framework["epoch_s"]
    return memory, BASE_S + framework["s"] + fit_s * (1 + cv_folds)


def fold_job_wall_s(profile: DataProfile, spec: CandidateSpec | None, train_rows: int,
                    smoke: dict | None, smoke_rows: int) -> float:
    """Seconds of one sandbox job that trains on `train_rows` rows (a fold, or the refit):
    the smoke run, one such job on a sample, measures this machine and this code, and the
    analytic model adds what the extra rows cost."""
    def fit_s(rows: int) -> float:
        return analytic(profile, spec, 0, rows=rows)[1] - analytic(profile, spec, 0, rows=1)[1]

    scale = boosting_scale(profile, spec)
    if smoke:
        sample = min(smoke.get("rows", smoke_rows), profile.n_rows)
        return smoke["wall_s"] + scale * max(0.0, fit_s(train_rows) - fit_s(sample))
    return analytic(profile, spec, 0, rows=1)[1] + scale * fit_s(train_rows)


def wants_smoke(profile: DataProfile, smoke_rows: int) -> bool:
    """Whether a planned candidate gets a smoke run before its folds: a sample of the data
    only tells something when the data is much larger than the sample."""
    return smoke_rows > 0 and profile.n_rows > SMOKE_WHEN_ROWS_OVER * smoke_rows


def machine_pace(cores: int, workers: int) -> float:
    """How many times slower than alone a job runs now: from the load averages
    (pace_from_load), or from a short probe of the CPU share one thread gets now
    (pace_from_share) when that says less. The load average counts tasks that want a core
    now and then as if they always did: at load 9-10 here, first runs took 0.4-0.8 of the
    times the load's pace showed."""
    one, five, _ = os.getloadavg()
    paced = pace_from_load(one, five, cores, workers)
    return min(paced, pace_from_share(cpu_share(), cores, workers)) if PROBE else paced


def pace_from_load(one: float, five: float, cores: int, workers: int) -> float:
    """How many times slower than alone a job runs: the runnable tasks (the load and this
    run's own `workers` jobs) per core, never below 1. Users' machines are busy, and the fit
    figures above were measured with a core to spare. The load is the smaller of the 1- and
    5-minute averages: for a minute after a run ends, the 1-minute average still holds its
    jobs, while other work that keeps the cores busy shows in both."""
    load = min(one, five) if PACE_LOAD == "min" else one
    return max(1.0, (load + workers) / max(cores, 1))


def pace_from_share(share: float, cores: int, workers: int) -> float:
    """The pace from the share of a core one thread got just now (CPU over wall seconds):
    with `other` busy tasks beside it on `cores` cores a thread gets cores / (other + 1),
    so other = cores / share - 1; then as pace_from_load with that for the load."""
    other = max(0.0, max(cores, 1) / max(share, 1e-3) - 1.0)
    return max(1.0, (other + workers) / max(cores, 1))


def cpu_share(cpu_s: float = PROBE_CPU_S) -> float:
    """The share of a core this thread gets now: `cpu_s` of busy work over the wall
    seconds it took (at most 1)."""
    wall, cpu = time.perf_counter(), time.thread_time()
    while time.thread_time() - cpu < cpu_s:
        pass
    return min(1.0, cpu_s / max(time.perf_counter() - wall, 1e-9))


PACE_LOAD = "min"  # "one": the 1-minute average alone, the rule before (the benchmark's)


def first_run_wall_s(profile: DataProfile, spec: CandidateSpec | None, cv_folds: int,
                     smoke_rows: int, workers: int, warm: bool) -> float:
    """Seconds a planned candidate's first run takes, as the person waits for it: its smoke
    run (a fresh job on the sample) when it gets one, then its K fold fits, `workers` at a
    time, each a fork of a warm worker or, without warm workers, a fresh job."""
    smoke = analytic(profile, spec, 0, rows=smoke_rows)[1] \
        if wants_smoke(profile, smoke_rows) else 0.0
    train_rows = max(1, profile.n_rows * (cv_folds - 1) // max(cv_folds, 1))
    fit = boosting_scale(profile, spec) * (analytic(profile, spec, 0, rows=train_rows)[1]
                                           - analytic(profile, spec, 0, rows=1)[1])
    job = WARM_JOB_S if warm else analytic(profile, spec, 0, rows=1)[1]
    return smoke + fold_rounds(cv_folds, workers) * (job + FIT_FIXED_S + fit)


# Boosting grows one tree per class each round, and the families' fit_seconds_per_mcell
# was measured on binary and regression tasks with 100 rounds. Multiclass cost grows about
# as the square root of the classes (the trees share the rows' binning and gradients):
# leaf_flavia, 32 classes x 200 rounds, took 5.0 s more per fold than its smoke run; the
# constant alone said 0.3 s, x sqrt(32) x 2 rounds says 3.8 s, x 32 x 2 said 20 s.
def boosting_scale(profile: DataProfile, spec: CandidateSpec | None) -> float:
    """Trees grown relative to the 100 single trees behind fit_seconds_per_mcell (analytic()
    already counts `n_estimators`; HistGradientBoosting and CatBoost name their rounds
    otherwise)."""
    if spec is None or spec.family not in BOOSTING:
        return 1.0
    rounds = spec.params.get("max_iter") or spec.params.get("iterations")
    classes = profile.n_classes if (profile.n_classes or 0) > 2 else 1
    return math.sqrt(classes) * (rounds / 100 if isinstance(rounds, int) else 1.0)


def conformal_margin(ratios: list[float], default: float) -> float:
    """The split-conformal quantile of measured/predicted ratios (never below 1)."""
    n = len(ratios)
    if n < math.ceil(1 / (1 - COVERAGE)) - 1:  # 19 runs for 95%
        return default
    rank = min(n, math.ceil((n + 1) * COVERAGE))
    return max(1.0, sorted(ratios)[rank - 1])


def predict(profile: DataProfile, spec: CandidateSpec | None, cv_folds: int,
            smoke: dict | None, smoke_rows: int, history: list[dict]) -> ResourcePrediction:
    """`smoke`: a measured job's peak_mem_mb and wall_s (the smoke run on `smoke_rows`, or a
    search trial's fold job on its `rows`), when one ran; `history`:
    past executions with predicted and measured memory and time."""
    mem, wall = analytic(profile, spec, cv_folds)
    basis = "analytic"
    if smoke:
        small_mem, small_wall = analytic(profile, spec, 0,
                                         rows=min(smoke.get("rows", smoke_rows), profile.n_rows))
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
