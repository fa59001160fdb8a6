"""Learn the bundled search portfolio (agents/search/data/portfolio.json) by running the search on
suite datasets, and measure warm start vs cold on datasets the portfolio never saw.

learn: a cold search of --seconds on each --learn dataset; per task type, the portfolio is
the best configuration of each learner on each dataset, ranked by its score normalised on
that dataset (1 = the dataset's best trial, 0 = its worst), one per learner, at most --size.
compare: on each --compare dataset (never in --learn), the search runs cold and warm
(interleaved, same seconds, same seed); the figure is the best cross-validated score at
several checkpoints of the search's time.

    python benchmarks/learn_portfolio.py learn --learn breast_cancer,wa_churn,concrete \\
        --seconds 40 --write agents/search/data/portfolio.json
    python benchmarks/learn_portfolio.py compare --compare credit_data,cars --seconds 30
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import structlog

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.prevalidator.agent import Prevalidator
from pipesmith.agents.search.runner import run_search
from pipesmith.core.metrics import get_metric
from pipesmith.sandbox.local import LocalSandbox

log = structlog.get_logger("benchmarks.learn_portfolio")
FAMILIES = {"classification": ["hist_gradient_boosting", "logistic_regression",
                               "random_forest", "extra_trees"],
            "regression": ["hist_gradient_boosting", "ridge", "random_forest", "extra_trees"]}


def prepared(name: str, root: Path):
    """The suite dataset as a run's inputs (the same preparation as `pipesmith eval`)."""
    from pipesmith.core.inputs import prepare_inputs
    from pipesmith.evals.suite import DATASETS, load
    from pipesmith.settings import Settings

    spec = DATASETS[name]
    path = root / f"{name}.parquet"
    load(spec).to_parquet(path, index=False)
    inputs, frame = prepare_inputs(root / name, data=path, target=spec.target, task=spec.task,
                                   metric=spec.metric,
                                   settings=Settings(n_jobs=1, kb_dir=root / "kb"))
    return inputs, profile_table(frame, inputs.target, inputs.task_type)


def search_once(inputs, profile, seconds: float, folder: Path, warm: bool):
    """A search on the dataset; its trials (from trials.jsonl) and its summary."""
    _, summary = run_search(
        sandbox=LocalSandbox(), inputs=inputs, profile=profile,
        plan_families=FAMILIES[inputs.task_type], past_runs=[], coder=Coder(),
        prevalidator=Prevalidator(), deadline=time.monotonic() + seconds, folder=folder,
        warm=warm)
    log_path = folder / "trials.jsonl"
    trials = [json.loads(line) for line in log_path.read_text().splitlines()] \
        if log_path.exists() else []
    return trials, summary


def learn(args) -> None:
    portfolio: dict[str, list[dict]] = {"classification": [], "regression": []}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.learn.split(","):
            inputs, profile = prepared(name, Path(tmp))
            results, summary = search_once(inputs, profile, args.seconds,
                                           Path(tmp) / f"{name}-search", warm=False)
            full = [r for r in results if r["share"] == 1.0 and r["score"] is not None]
            if not full:
                continue
            scores = [r["score"] for r in full]
            lo, hi = min(scores), max(scores)
            sign = 1 if get_metric(inputs.metric).greater_is_better else -1
            for r in full:
                norm = 1.0 if hi == lo else (r["score"] - lo) / (hi - lo)
                portfolio[inputs.task_type].append(
                    {"family": r["family"], "params": r["params"], "dataset": name,
                     "normalised": round(norm if sign > 0 else 1 - norm, 4)})
            log.info("learnt", dataset=name, trials=summary.get("trials"))
    out = {}
    for task, rows in portfolio.items():
        rows.sort(key=lambda r: -r["normalised"])
        chosen, seen = [], set()
        for row in rows:
            if row["family"] not in seen:
                seen.add(row["family"])
                chosen.append(row)
        out[task] = chosen[: args.size]
    out["_made_by"] = ("python benchmarks/learn_portfolio.py learn --learn "
                       f"{args.learn} --seconds {args.seconds} --size {args.size}")
    out["_load"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    Path(args.write).write_text(json.dumps(out, indent=2) + "\n")
    log.info("portfolio_written", path=args.write,
             sizes={k: len(v) for k, v in out.items() if not k.startswith("_")})


def compare(args) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.compare.split(","):
            inputs, profile = prepared(name, Path(tmp))
            curves = {}
            for mode in ("cold", "warm"):
                _, summary = search_once(inputs, profile, args.seconds,
                                         Path(tmp) / f"{name}-{mode}", warm=mode == "warm")
                curves[mode] = summary.get("curve", [])
            checkpoints = [args.seconds * f for f in (0.25, 0.5, 1.0)]

            def at(curve, t):
                got = [s for at_s, s in curve if at_s <= t]
                return got[-1] if got else None

            log.info("warm_vs_cold", dataset=name, metric=inputs.metric,
                     **{f"{mode}_at_{t:.0f}s": at(curves[mode], t)
                        for mode in curves for t in checkpoints},
                     load=" ".join(f"{v:.2f}" for v in os.getloadavg()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["learn", "compare"])
    parser.add_argument("--learn", default="breast_cancer,wa_churn,concrete,diabetes")
    parser.add_argument("--compare", default="credit_data,cars")
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--size", type=int, default=6)
    parser.add_argument("--write", default="agents/search/data/portfolio.json")
    args = parser.parse_args()
    (learn if args.mode == "learn" else compare)(args)


if __name__ == "__main__":
    main()
