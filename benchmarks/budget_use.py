"""Where a run's budget goes, and whether the search takes the time warm workers free.

On warm workers a search winner adopts its trial's fold predictions instead of running
again, and the search takes all but the time of the ensemble that follows it
(graph/budget.py). That time was three mean candidate runs, smoke runs included (the
baseline arm, SIZE_BY_ENSEMBLE_COST off); it is now what an ensemble of the best three
candidates so far costs (its members' fits, no smoke run, and its refit). Each dataset
runs in both arms in the same process, the baseline first, and prints: when the run ended
against its budget, the search's seconds and trials, what the ensemble did, the seconds
from the ensemble node's end to the run's (the permutation control, the refit, the
report), the chosen pipeline and its test score.

    python benchmarks/budget_use.py [--datasets penguins,concrete,attrition] [--budget 60]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from pipesmith.api import run
from pipesmith.evals import suite as eval_suite
from pipesmith.graph import budget
from pipesmith.settings import Settings


def one_run(spec, data: Path, budget_s: float, seed: int, folder: Path,
            by_cost: bool) -> dict:
    budget.SIZE_BY_ENSEMBLE_COST = by_cost
    settings = Settings(use_kb=False, kb_dir=folder / "kb", runs_dir=folder / "runs")
    started = time.perf_counter()
    report = run(data=data, target=spec.target, task=spec.task,
                 metric=spec.pipeline_metric, budget_s=budget_s, seed=seed,
                 out=folder / f"{spec.name}-{int(by_cost)}", settings=settings)
    ended = time.perf_counter() - started
    search = report.search or {}
    saved = json.loads((folder / f"{spec.name}-{int(by_cost)}" / "report.json").read_text())
    ensemble = saved.get("ensemble") or {}
    return {"ended_s": ended, "search_s": search.get("seconds", 0.0),
            "ensemble": ensemble.get("reason", "none"),
            "tail_s": ended - sum((saved.get("timings") or {}).values()),
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
    print("| dataset | arm | ended | of budget | search s | trials | runs | ensemble | "  # noqa: T201
          "after it | chosen | CV | test |")
    print("|---|---|---:|---:|---:|---:|---:|---|---:|---|---:|---:|")  # noqa: T201
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.datasets.split(","):
            spec = eval_suite.DATASETS[name]
            data = Path(scratch) / f"{name}.csv"  # written once, read by both arms
            eval_suite.load(spec).to_csv(data, index=False)
            for by_cost in (False, True):
                row = one_run(spec, data, args.budget, args.seed, Path(scratch), by_cost)
                arm = "an ensemble's cost" if by_cost else "three runs (baseline)"
                trials = row["trials"] if not row["skipped"] else "skipped"
                print(f"| {name} | {arm} | {row['ended_s']:.1f} s | "  # noqa: T201
                      f"{row['ended_s'] / args.budget:.0%} | {row['search_s']:.1f} | {trials} | "
                      f"{row['attempts']} | {row['ensemble']} | {row['tail_s']:.1f} s | "
                      f"{row['chosen']} | {row['cv']:.4f} | "
                      f"{row['test'] if row['test'] is None else round(row['test'], 4)} |")
    print(f"load {os.getloadavg()[0]:.1f} at the end")  # noqa: T201


if __name__ == "__main__":
    main()
