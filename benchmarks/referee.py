"""The honest referee, measured: CV score vs test score per run, and what the folds cost.

For each bundled dataset: one offline run (`pipesmith.api.run`, no knowledge base) prints
its selection score (K-fold CV mean +- std on the development part) beside the refit
pipeline's score on the untouched test part and the dummy baseline there. Then, in the same
process and on the same development part, the run's final candidate is timed through the
real sandbox twice: as K fold jobs (this protocol) and as one holdout job (the old single
split's shape, one fit: its score is the single validation split the old protocol selected
and reported on), interleaved `--repeats` times; the median ratio is the cost of the extra
folds.

    python benchmarks/referee.py [--datasets iris,wine,...] [--budget 30] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

DATASETS = ("iris", "wine", "breast_cancer", "digits", "diabetes")


def timed(executor, candidate, inputs, workdir: Path, folds: int) -> tuple[float, float]:
    """Seconds for the candidate's fold jobs, and the score they earned."""
    started = time.perf_counter()
    result, metrics = executor.run(candidate, inputs, workdir, timeout_s=120, cv_folds=folds)
    if not result.ok:
        raise SystemExit(f"{candidate.name}: {result.status}: {result.stderr[-500:]}")
    return time.perf_counter() - started, metrics["score"]


def main(argv: list[str]) -> int:
    from pipesmith.agents.executor import Executor
    from pipesmith.agents.schemas import Candidate, RunInputs
    from pipesmith.api import run
    from pipesmith.core.report import load_report
    from pipesmith.sandbox.local import LocalSandbox
    from pipesmith.settings import Settings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--budget", type=float, default=30.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    sandbox = LocalSandbox()
    executor = Executor(sandbox)
    load_before = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory(prefix="pipesmith-referee-bench-") as tmp:
        root = Path(tmp)
        for name in args.datasets.split(","):
            settings = Settings(use_kb=False, max_candidates=2, runs_dir=root / "runs")
            report = run(dataset=name, budget_s=args.budget, seed=args.seed,
                         out=root / name, settings=settings)
            report = load_report(Path(report.out_dir) / "report.json")
            if report.final_attempt is None:
                rows.append((name, report.metric, "-", None, None, None, None, None, None, None))
                continue
            inputs = RunInputs(**json.loads((root / name / "run.json").read_text())["inputs"])
            code = (Path(next(a.workdir for a in report.attempts
                              if a.id == report.final_attempt)) / "candidate.py").read_text()
            candidate = Candidate(id="bench", name=report.final_candidate or "final",
                                  phase="draft", code=code)
            k_fold, single = [], []
            for repeat in range(args.repeats):
                k_fold.append(timed(executor, candidate, inputs,
                                    root / "t" / f"{name}-k-{repeat}", inputs.cv_folds)[0])
                seconds, holdout = timed(executor, candidate, inputs,
                                         root / "t" / f"{name}-1-{repeat}", 1)
                single.append(seconds)
            cv = report.cv_score
            rows.append((name, report.metric, cv.folds, cv.mean, cv.std, holdout,
                         report.test_score, report.test_baseline_score,
                         statistics.median(k_fold), statistics.median(single)))
    out = sys.stdout
    out.write("| dataset | metric | K | CV mean ± std | one split (old shape) | test score "
              "| test dummy | K folds s | one split s | ratio |\n"
              "|---|---|---|---|---|---|---|---|---|---|\n")
    for name, metric, k, mean, std, holdout, test, dummy, k_s, one_s in rows:
        if mean is None:
            out.write(f"| {name} | {metric} | - | failed | - | - | - | - | - | - |\n")
            continue
        test_text = "refit failed" if test is None else f"{test:.4f}"
        dummy_text = "-" if dummy is None else f"{dummy:.4f}"
        out.write(f"| {name} | {metric} | {k} | {mean:.4f} ± {std:.4f} | {holdout:.4f} | "
                  f"{test_text} | {dummy_text} | {k_s:.2f} | {one_s:.2f} | "
                  f"{k_s / one_s:.2f}x |\n")
    out.write(f"\nbudget {args.budget:.0f}s per run, {args.repeats} interleaved repeats of the "
              f"timing, {os.cpu_count()} cores; 1-min load average {load_before:.1f} before, "
              f"{os.getloadavg()[0]:.1f} after\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
