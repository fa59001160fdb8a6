"""Are the times shown to the user within ±30% of what the run then takes?

The plan a person approves (chat, web page, a LangGraph interrupt: graph/approval.py
plan_summary) shows each planned candidate's predicted seconds and the run's. Each dataset
runs once at the budget; afterwards the plan summary is computed from the run's own inputs,
profile and planned candidates (exactly what the approval showed) and set against what was
measured: each planned candidate's first run (its smoke run and its folds), and the run's
end. "Shown before" is the rule before the fixed cost per fit and the probed pace
(resources.FIT_FIXED_S 0, the pace from the 1-minute load alone), from the same load read
just before the run; "shown" takes the smaller of the load's and the probe's pace, as
resources.machine_pace does. Prints one row per candidate and per run, the share within ±30%, and
each candidate's implied fixed cost per fit: what its measured first run, at the pace
shown, holds beyond the model without that cost, per round of fits (the figure
FIT_FIXED_S is fitted from, on small tables where the per-cell part is negligible).

    python benchmarks/time_predictions.py [--datasets penguins,concrete,attrition] [--budget 60]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import tempfile
import time
from pathlib import Path

from pipesmith.agents.executor import fold_workers
from pipesmith.agents.prevalidator import resources
from pipesmith.agents.schemas import DataProfile, Plan, RunInputs
from pipesmith.api import run
from pipesmith.evals import suite as eval_suite
from pipesmith.graph.approval import plan_summary
from pipesmith.graph.topologies import get_topology
from pipesmith.settings import Settings

WITHIN = 0.30


def shown(state, settings, pace: float, fixed_s: float) -> dict:
    kept, resources.FIT_FIXED_S = resources.FIT_FIXED_S, fixed_s
    try:
        return plan_summary(state, warm=settings.warm_workers,
                            searches=get_topology(settings.topology).search, pace=pace)
    finally:
        resources.FIT_FIXED_S = kept


def shown_and_taken(spec, data: Path, budget_s: float, seed: int, folder: Path) -> list[tuple]:
    """(what, shown before s, shown s, taken s, implied fixed s or None) for each planned
    candidate that ran, and for the run."""
    settings = Settings(use_kb=False, kb_dir=folder / "kb", runs_dir=folder / "runs")
    out = folder / spec.name
    cores = os.cpu_count() or 1
    workers = fold_workers(settings.n_jobs, settings.cv_folds, cores)
    one, five, _ = os.getloadavg()
    share = resources.cpu_share()
    pace = min(resources.pace_from_load(one, five, cores, workers),
               resources.pace_from_share(share, cores, workers))  # as machine_pace
    pace_before = resources.pace_from_load(one, one, cores, workers)  # the 1-minute load
    print(f"{spec.name}: load {one:.2f} (1 min), {five:.2f} (5 min), a core's share "  # noqa: T201
          f"{share:.2f}; pace {pace:.2f}, before {pace_before:.2f}")
    started = time.perf_counter()  # the plan is shown a second or two into the run
    report = run(data=data, target=spec.target, task=spec.task, metric=spec.pipeline_metric,
                 budget_s=budget_s, seed=seed, out=out, settings=settings)
    ended = time.perf_counter() - started
    saved = json.loads((out / "report.json").read_text())
    inputs = RunInputs.model_validate(json.loads((out / "run.json").read_text())["inputs"])
    planned = [c for c in report.plan.candidates if c.trial is None]  # before the search
    profile = DataProfile.model_validate(saved["profile"])
    state = {"inputs": inputs, "profile": profile, "plan": Plan(candidates=planned)}
    now = shown(state, settings, pace, resources.FIT_FIXED_S)
    before = shown(state, settings, pace_before, 0.0)
    unfixed = shown(state, settings, 1.0, 0.0)  # alone, without the fixed cost
    rounds = math.ceil(inputs.cv_folds / max(workers, 1))
    rows = []
    for new, old, bare in zip(now["candidates"], before["candidates"], unfixed["candidates"],
                              strict=True):
        first = next((a for a in report.attempts if a.candidate == new["name"]
                      and a.phase == "draft"), None)
        if first is not None and first.wall_s:
            taken = first.wall_s + first.smoke_s
            implied = None if first.smoke_s else (taken / pace - bare["predicted_wall_s"]) \
                / rounds
            # a model the pre-validator shrank ran smaller than the plan shown (its
            # predicted bound did not fit the time left): say so beside its row
            shrunk = " (shrunk before it ran)" if first.resource_adjustment else ""
            rows.append((f"{spec.name}: {new['name']}{shrunk}", old["predicted_wall_s"],
                         new["predicted_wall_s"], taken, implied))
    rows.append((f"{spec.name}: the run", before["predicted_wall_s"], now["predicted_wall_s"],
                 ended, None))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="penguins,concrete,attrition")
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="keep the runs' folders here")
    args = parser.parse_args()
    print(f"budget {args.budget:.0f} s, seed {args.seed}, load {os.getloadavg()[0]:.1f} "  # noqa: T201
          f"at start, FIT_FIXED_S {resources.FIT_FIXED_S}")
    table = ["| what | shown before | shown | taken | taken / shown before | taken / shown | "
             "within ±30% before, now | implied fixed s per fit |",
             "|---|---:|---:|---:|---:|---:|---|---:|"]
    within = {"candidate": [], "run": []}
    before_within = {"candidate": [], "run": []}
    implied_all = []
    with tempfile.TemporaryDirectory() as scratch:
        scratch = args.keep or scratch
        Path(scratch).mkdir(parents=True, exist_ok=True)
        for name in args.datasets.split(","):
            spec = eval_suite.DATASETS[name]
            data = Path(scratch) / f"{name}.csv"
            eval_suite.load(spec).to_csv(data, index=False)
            for what, before, now, taken, implied in shown_and_taken(
                    spec, data, args.budget, args.seed, Path(scratch)):
                ratios = [taken / s if s else float("inf") for s in (before, now)]
                oks = [abs(r - 1) <= WITHIN for r in ratios]
                kind = "run" if what.endswith("the run") else "candidate"
                before_within[kind].append(oks[0])
                within[kind].append(oks[1])
                if implied is not None:
                    implied_all.append(implied)
                table.append(f"| {what} | {before:.1f} s | {now:.1f} s | {taken:.1f} s | "
                             f"{ratios[0]:.2f} | {ratios[1]:.2f} | "
                             f"{'/'.join('yes' if ok else 'no' for ok in oks)} | "
                             f"{'' if implied is None else f'{implied:.3f}'} |")
    print("\n".join(table))  # noqa: T201
    for kind, oks in within.items():
        print(f"{kind}s within ±30%: {sum(before_within[kind])}/{len(oks)} before, "  # noqa: T201
              f"{sum(oks)}/{len(oks)} now")
    if implied_all:
        print(f"implied fixed cost per fit (no smoke run): median "  # noqa: T201
              f"{statistics.median(implied_all):.3f} s over {len(implied_all)} candidates")
    print(f"load {os.getloadavg()[0]:.1f} at the end")  # noqa: T201


if __name__ == "__main__":
    main()
