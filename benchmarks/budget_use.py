"""Where a run's budget goes, and whether the search takes the time warm workers free.

On warm workers a search winner adopts its trial's fold predictions instead of running
again, so the time the search used to leave for its winners' runs sat unused. The search
now takes all but an ensemble's time (graph/budget.py, WARM_SEARCH_TAKES_THE_REST). Each
dataset runs twice in the same process, the search share alone (the baseline arm) and the
search taking the rest, and prints: when the run ended against its budget, the search's
seconds and trials, the chosen pipeline and its test score.

    python benchmarks/budget_use.py [--datasets penguins,concrete,attrition] [--budget 60]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from pipesmith.api import run
from pipesmith.evals import suite as eval_suite
from pipesmith.graph import budget
from pipesmith.settings import Settings


def one_run(spec, data: Path, budget_s: float, seed: int, folder: Path,
            takes_rest: bool) -> dict:
    budget.WARM_SEARCH_TAKES_THE_REST = takes_rest
    settings = Settings(use_kb=False, kb_dir=folder / "kb", runs_dir=folder / "runs")
    started = time.perf_counter()
    report = run(data=data, target=spec.target, task=spec.task,
                 metric=spec.pipeline_metric, budget_s=budget_s, seed=seed,
                 out=folder / f"{spec.name}-{int(takes_rest)}", settings=settings)
    search = report.search or {}
    return {"ended_s": time.perf_counter() - started, "search_s": search.get("seconds", 0.0),
            "trials": search.get("trials", 0), "skipped": search.get("skipped"),
            "chosen": report.final_candidate, "cv": report.score, "test": report.test_score,
            "attempts": len(report.attempts)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="penguins,concrete,attrition")
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"budget {args.budget:.0f} s, seed {args.seed}, load {load:.1f} at start")  # noqa: T201
    print("| dataset | arm | ended | of budget | search s | trials | runs | chosen | CV | test |")  # noqa: T201
    print("|---|---|---:|---:|---:|---:|---:|---|---:|---:|")  # noqa: T201
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.datasets.split(","):
            spec = eval_suite.DATASETS[name]
            data = Path(scratch) / f"{name}.csv"  # written once, read by both arms
            eval_suite.load(spec).to_csv(data, index=False)
            for takes_rest in (False, True):
                row = one_run(spec, data, args.budget, args.seed, Path(scratch), takes_rest)
                arm = "search takes the rest" if takes_rest else "share only (baseline)"
                trials = row["trials"] if not row["skipped"] else "skipped"
                print(f"| {name} | {arm} | {row['ended_s']:.1f} s | "  # noqa: T201
                      f"{row['ended_s'] / args.budget:.0%} | {row['search_s']:.1f} | {trials} | "
                      f"{row['attempts']} | {row['chosen']} | {row['cv']:.4f} | "
                      f"{row['test'] if row['test'] is None else round(row['test'], 4)} |")
    print(f"load {os.getloadavg()[0]:.1f} at the end")  # noqa: T201


if __name__ == "__main__":
    main()
