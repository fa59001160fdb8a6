"""Per-trial overhead of the search: N trials batched in one sandboxed worker per fold vs
one fresh sandbox job (interpreter, imports, data loading) per trial, in one run.

Both sides run the same trials (iris, 3 folds, logistic regression, LightGBM, TPE-free
fixed parameters) through the same TrialRunner and local sandbox; the figure is
(sandbox seconds - the trials' own fit seconds) / evaluations, i.e. what a trial pays
beyond its fit. Interleaved (fresh, batched, fresh, batched, ...) so load hits both alike.

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

from pipesmith.agents.coder import Coder
from pipesmith.agents.families import get_family
from pipesmith.agents.profiler import profile_table
from pipesmith.agents.schemas import CandidateSpec
from pipesmith.agents.search import TrialRunner, make_folds
from pipesmith.api import prepare_inputs
from pipesmith.sandbox.local import LocalSandbox
from pipesmith.settings import Settings

log = structlog.get_logger("benchmarks.search_overhead")


def _trials(family: str, n: int, start: int) -> list[dict]:
    grid = {"logistic_regression": lambda i: {"C": 0.1 * (i + 1)},
            "lightgbm": lambda i: {"n_estimators": 50 + 10 * i, "verbose": -1}}
    return [{"id": start + i, "params": grid[family](i), "share": 1.0} for i in range(n)]


def measure(runner: TrialRunner, code: str, family: str, n: int, batched: bool,
            folder: Path, start: int) -> dict:
    runner.jobs_run, runner.job_s = 0, 0.0
    trials = _trials(family, n, start)
    started = time.perf_counter()
    got: dict = {}
    if batched:
        got |= runner.run([(family, code, trials)], folder, time.monotonic() + 300)
    else:
        for trial in trials:
            got |= runner.run([(family, code, [trial])], folder, time.monotonic() + 300)
    wall = time.perf_counter() - started
    ok = [g for g in got.values() if g["status"] == "ok"]
    fit = sum(g["fit_s"] for g in ok)
    evaluations = len(ok) * len(runner.folds.test_index)
    return {"wall_s": wall, "jobs": runner.jobs_run, "ok": len(ok),
            "overhead_per_trial_s": (runner.job_s - fit) / max(1, evaluations)}


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
        runner = TrialRunner(LocalSandbox(), folds, target=inputs.target,
                             task_type=inputs.task_type, metric=inputs.metric, seed=0,
                             memory_mb=4096, disk_mb=256, workers=1)
        for family in ("logistic_regression", "lightgbm"):
            f = get_family(inputs.task_type, family)
            code = Coder().searchable(CandidateSpec(name=family, family=family,
                                                    params=f.params, scale=f.scale,
                                                    encoding=f.encoding), profile, inputs)
            rows: dict[str, list[dict]] = {"fresh": [], "batched": []}
            start = 0
            for r in range(args.repeats):
                for mode in ("fresh", "batched"):
                    rows[mode].append(measure(runner, code, family, args.trials,
                                              mode == "batched", root / f"{family}_{mode}{r}",
                                              start))
                    start += args.trials
            fresh = statistics.median(x["overhead_per_trial_s"] for x in rows["fresh"])
            batched = statistics.median(x["overhead_per_trial_s"] for x in rows["batched"])
            log.info("search_overhead", family=family, trials=args.trials,
                     repeats=args.repeats, fresh_job_per_trial_s=round(fresh, 3),
                     batched_per_trial_s=round(batched, 3),
                     ratio=round(fresh / max(batched, 1e-9), 1),
                     fresh_wall_s=round(statistics.median(x["wall_s"] for x in rows["fresh"]), 2),
                     batched_wall_s=round(statistics.median(x["wall_s"]
                                                            for x in rows["batched"]), 2),
                     load=" ".join(f"{v:.2f}" for v in os.getloadavg()))


if __name__ == "__main__":
    main()
