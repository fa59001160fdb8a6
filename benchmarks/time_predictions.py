"""Are the times shown to the user within ±30% of what the run then takes?

The plan a person approves (chat, web page, a LangGraph interrupt: graph/approval.py
plan_summary) shows each planned candidate's predicted seconds and the run's. Each dataset
runs once at the budget; afterwards the plan summary is computed from the run's own inputs,
profile and planned candidates (exactly what the approval showed) and set against what was
measured: each planned candidate's first run (its smoke run and its folds), and the run's
end. Prints one row per candidate and per run, and the share within ±30%.

    python benchmarks/time_predictions.py [--datasets penguins,concrete,attrition] [--budget 60]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from pipesmith.agents.executor import fold_workers
from pipesmith.agents.prevalidator.resources import machine_pace
from pipesmith.agents.prevalidator.resources import predict as predict_resources
from pipesmith.agents.schemas import DataProfile, Plan, RunInputs
from pipesmith.api import run
from pipesmith.evals import suite as eval_suite
from pipesmith.graph.approval import plan_summary
from pipesmith.graph.topologies import get_topology
from pipesmith.settings import Settings

WITHIN = 0.30


def shown_and_taken(spec, data: Path, budget_s: float, seed: int, folder: Path) -> list[tuple]:
    """(what, shown before s, shown s, taken s) for each planned candidate that ran, and for
    the run; `shown before`: what the plan showed before this change (the analytic
    prediction of one fresh job running every fold, and the candidates' sum for the run)."""
    settings = Settings(use_kb=False, kb_dir=folder / "kb", runs_dir=folder / "runs")
    out = folder / spec.name
    cores = os.cpu_count() or 1
    pace = machine_pace(cores, fold_workers(settings.n_jobs, settings.cv_folds, cores))
    started = time.perf_counter()  # the plan is shown a second or two into the run
    report = run(data=data, target=spec.target, task=spec.task, metric=spec.pipeline_metric,
                 budget_s=budget_s, seed=seed, out=out, settings=settings)
    ended = time.perf_counter() - started
    saved = json.loads((out / "report.json").read_text())
    inputs = RunInputs.model_validate(json.loads((out / "run.json").read_text())["inputs"])
    planned = [c for c in report.plan.candidates if c.trial is None]  # before the search
    shown_profile = DataProfile.model_validate(saved["profile"])
    shown = plan_summary({"inputs": inputs, "profile": shown_profile,
                          "plan": Plan(candidates=planned)}, warm=settings.warm_workers,
        searches=get_topology(settings.topology).search, pace=pace)
    before = {c.name: predict_resources(shown_profile, c, inputs.cv_folds, None,
                                        inputs.smoke_rows, []).wall_s for c in planned}
    rows = []
    for candidate in shown["candidates"]:
        first = next((a for a in report.attempts if a.candidate == candidate["name"]
                      and a.phase == "draft"), None)
        if first is not None and first.wall_s:
            rows.append((f"{spec.name}: {candidate['name']}", before[candidate["name"]],
                         candidate["predicted_wall_s"], first.wall_s + first.smoke_s))
    rows.append((f"{spec.name}: the run", sum(before.values()), shown["predicted_wall_s"],
                 ended))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="penguins,concrete,attrition")
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="keep the runs' folders here")
    args = parser.parse_args()
    print(f"budget {args.budget:.0f} s, seed {args.seed}, load {os.getloadavg()[0]:.1f} "  # noqa: T201
          "at start")
    print("| what | shown before | shown | taken | taken / shown before | taken / shown | "  # noqa: T201
          "within ±30% before, now |")
    print("|---|---:|---:|---:|---:|---:|---|")  # noqa: T201
    within = {"candidate": [], "run": []}
    before_within = {"candidate": [], "run": []}
    with tempfile.TemporaryDirectory() as scratch:
        scratch = args.keep or scratch
        Path(scratch).mkdir(parents=True, exist_ok=True)
        for name in args.datasets.split(","):
            spec = eval_suite.DATASETS[name]
            data = Path(scratch) / f"{name}.csv"
            eval_suite.load(spec).to_csv(data, index=False)
            for what, before, shown, taken in shown_and_taken(spec, data, args.budget,
                                                              args.seed, Path(scratch)):
                ratios = [taken / s if s else float("inf") for s in (before, shown)]
                oks = [abs(r - 1) <= WITHIN for r in ratios]
                kind = "run" if what.endswith("the run") else "candidate"
                before_within[kind].append(oks[0])
                within[kind].append(oks[1])
                print(f"| {what} | {before:.1f} s | {shown:.1f} s | {taken:.1f} s | "  # noqa: T201
                      f"{ratios[0]:.2f} | {ratios[1]:.2f} | "
                      f"{'/'.join('yes' if ok else 'no' for ok in oks)} |")
    for kind, oks in within.items():
        print(f"{kind}s within ±30%: {sum(before_within[kind])}/{len(oks)} before, "  # noqa: T201
              f"{sum(oks)}/{len(oks)} now")
    print(f"load {os.getloadavg()[0]:.1f} at the end")  # noqa: T201


if __name__ == "__main__":
    main()
