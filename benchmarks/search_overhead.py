"""Per-trial overhead of the search, three ways, in one run: one fresh sandbox job
(interpreter, imports, data loading) per trial; N trials batched in one job per fold; and
the persistent worker (one sandboxed worker per fold, alive for the search, fed one trial
at a time over the channel; its start-up counted once, as in a search).

All run the same trials (iris, 3 folds, logistic regression, LightGBM, TPE-free fixed
parameters) through the same TrialRunner and local sandbox; the figure is (sandbox seconds
- the trials' own fit seconds) / evaluations, i.e. what a trial pays beyond its fit. For
the persistent worker also without its start-up (`persistent_steady`: what each further
trial pays). Interleaved (fresh, batched, persistent, fresh, ...) so load hits all alike;
the load average is logged with the figures.

    python benchmarks/search_overhead.py [--trials 8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import structlog

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.families.registry import get_family
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.schemas import CandidateSpec
from pipesmith.agents.search.runner import TrialRunner, make_folds
from pipesmith.core.inputs import prepare_inputs
from pipesmith.sandbox.local import LocalSandbox
from pipesmith.settings import Settings

log = structlog.get_logger("benchmarks.search_overhead")


def _trials(family: str, n: int, start: int) -> list[dict]:
    grid = {"logistic_regression": lambda i: {"C": 0.1 * (i + 1)},
            "lightgbm": lambda i: {"n_estimators": 50 + 10 * i, "verbose": -1}}
    return [{"id": start + i, "params": grid[family](i), "share": 1.0} for i in range(n)]


def measure(make_runner, code: str, family: str, n: int, mode: str,
            folder: Path, start: int) -> dict:
    runner: TrialRunner = make_runner(mode == "persistent")
    trials = _trials(family, n, start)
    started = time.perf_counter()
    got: dict = {}
    try:
        if mode == "batched":
            got |= runner.run([(family, code, trials)], folder, time.monotonic() + 300)
        else:  # fresh: a job per trial; persistent: the same worker for every trial
            for trial in trials:
                got |= runner.run([(family, code, [trial])], folder, time.monotonic() + 300)
    finally:
        runner.close()
    wall = time.perf_counter() - started
    ok = [g for g in got.values() if g["status"] == "ok"]
    fit = sum(g["fit_s"] for g in ok)
    evaluations = len(ok) * len(runner.folds.test_index)
    startup = runner.pool.startup_s if runner.pool is not None else 0.0
    return {"wall_s": wall, "jobs": runner.jobs_run, "ok": len(ok),
            "overhead_per_trial_s": (runner.job_s - fit) / max(1, evaluations),
            "steady_per_trial_s": (runner.job_s - startup - fit) / max(1, evaluations)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        inputs, frame = prepare_inputs(root / "run", dataset="iris",
                                       settings=Settings(n_jobs=1, kb_dir=root / "kb"))
        profile = profile_table(frame, inputs.target, inputs.task_type)
        folds = make_folds(frame, inputs.target, inputs.task_type, 3, 0, root / "folds")
        sandbox = LocalSandbox()

        def make_runner(persistent: bool) -> TrialRunner:
            return TrialRunner(sandbox, folds, target=inputs.target,
                               task_type=inputs.task_type, metric=inputs.metric, seed=0,
                               memory_mb=4096, disk_mb=256, workers=1, persistent=persistent)
        for family in ("logistic_regression", "lightgbm"):
            f = get_family(inputs.task_type, family)
            code = Coder().searchable(CandidateSpec(name=family, family=family,
                                                    params=f.params, scale=f.scale,
                                                    encoding=f.encoding), profile, inputs)
            modes = ("fresh", "batched", "persistent")
            rows: dict[str, list[dict]] = {mode: [] for mode in modes}
            load_before = os.getloadavg()
            start = 0
            for r in range(args.repeats):
                for mode in modes:
                    rows[mode].append(measure(make_runner, code, family, args.trials, mode,
                                              root / f"{family}_{mode}{r}", start))
                    start += args.trials

            def median(mode: str, key: str, rows=rows) -> float:
                return statistics.median(x[key] for x in rows[mode])

            fresh = median("fresh", "overhead_per_trial_s")
            figures = {f"{mode}_per_trial_s": round(median(mode, "overhead_per_trial_s"), 3)
                       for mode in modes}
            figures["persistent_steady_per_trial_s"] = round(
                median("persistent", "steady_per_trial_s"), 3)
            log.info("search_overhead", family=family, trials=args.trials,
                     repeats=args.repeats, **figures,
                     fresh_over_batched=round(fresh / max(figures["batched_per_trial_s"],
                                                          1e-9), 1),
                     fresh_over_persistent=round(fresh / max(
                         figures["persistent_per_trial_s"], 1e-9), 1),
                     **{f"{mode}_wall_s": round(median(mode, "wall_s"), 2) for mode in modes},
                     load_before=" ".join(f"{v:.2f}" for v in load_before),
                     load_after=" ".join(f"{v:.2f}" for v in os.getloadavg()))


if __name__ == "__main__":
    main()
