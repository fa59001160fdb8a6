"""How well does the pre-validator's time model predict one fold's fit? Reads the run
folders of `pipesmith eval --out` (or any folders holding runs) and sets each planned
candidate's measured fold fits (the harness's `fit_s` in each fold's diagnostics.json) against
what agents/prevalidator/resources.py predicts for one fit on the fold's training rows, with
the parameters the code ran with (a shrunk model's smaller size).

Prints one row per family and dataset (medians over runs), and per family the median
ratio measured / predicted and the share of rows within ±30% of it. The fits ran on the
eval's machine at its load: a ratio says as much about the load as about the model when it
is near 1.5-2; the spread across tables of one family is the model's.

    python benchmarks/fit_times.py OUT_DIR [OUT_DIR ...]
    python benchmarks/fit_times.py --per-tree OUT_DIR [OUT_DIR ...]

--per-tree tries another form for HistGradientBoosting, the first candidate of nearly every
run: rounds x classes^g x (a + b x rows x columns), the rounds capped at E above 10,000
training rows (its early stopping), each table predicted from a, b, E and g fitted on the
other tables (leave one table out), against the model in use on the same tables.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from pipesmith.agents.prevalidator import resources
from pipesmith.agents.schemas import CandidateSpec, DataProfile


def points(folder: Path) -> list[dict]:
    """(family, dataset, measured s, predicted s) per planned candidate's first run."""
    found = []
    for path in sorted(folder.glob("**/report.json")):
        if "attempts" in path.parts:
            continue
        report = json.loads(path.read_text())
        if report.get("task_type") in (None, "clustering"):
            continue
        run = path.parent
        job = next((p for p in path.parts if "__" in p), Path(report["dataset"]).stem)
        profile = DataProfile.model_validate(report["profile"])
        inputs = json.loads((run / "run.json").read_text())["inputs"]
        rows = (inputs.get("cv_rows") or profile.n_rows) * (inputs["cv_folds"] - 1) \
            // inputs["cv_folds"]
        plan = {c["name"]: c for c in report["plan"]["candidates"]}
        for attempt in report["attempts"]:
            spec = plan.get(attempt["candidate"])
            if spec is None or attempt["status"] != "ok" or attempt["phase"] != "draft" \
                    or attempt.get("adopted_trial") is not None:
                continue
            folder_ = next(run.glob(f"attempts/{attempt['id']}_*"), None)
            if folder_ is None:
                continue
            fits = [json.loads(d.read_text()).get("fit_s")
                    for d in folder_.glob("folds/*/diagnostics.json")]
            fits = [f for f in fits if f]
            if not fits:
                continue
            sized = resources.sized_from_code(CandidateSpec.model_validate(spec),
                                              (folder_ / "candidate.py").read_text())
            one = resources.analytic(profile, sized, 0, rows=1)[1]
            model = resources.boosting_scale(profile, sized) * (
                resources.analytic(profile, sized, 0, rows=rows)[1] - one) + \
                resources.FIT_FIXED_S
            found.append({"family": sized.family, "dataset": job.split("__")[0],
                          "rows": rows, "measured": statistics.median(fits),
                          "predicted": model, "rounds": sized.params.get("max_iter", 100),
                          "columns": sum(c.kind in ("numeric", "categorical")
                                         for c in profile.columns),
                          "classes": max(1, profile.n_classes or 1)})
    return found


def per_tree_s(theta: np.ndarray, p: dict) -> float:
    a, b, cap, g = np.exp(theta)
    rounds = p["rounds"] if p["rows"] <= 10_000 else min(p["rounds"], cap)
    classes = p["classes"] if p["classes"] > 2 else 1
    return rounds * classes ** g * (a + b * p["rows"] * p["columns"])


def per_tree(tables: dict[str, dict]) -> None:
    """Leave one table out: fit the per-tree form on the others, predict the one left."""
    def fit(rows: list[dict]) -> np.ndarray:
        def loss(theta):
            return sum((math.log(per_tree_s(theta, p)) - math.log(p["measured"])) ** 2
                       for p in rows)
        return minimize(loss, np.log([1e-3, 5e-8, 50.0, 0.5]), method="Nelder-Mead",
                        options={"maxiter": 4000}).x
    print("| table | measured s | in use: predicted, ratio | per tree, held out: "  # noqa: T201
          "predicted, ratio |")
    print("|---|---:|---:|---:|")  # noqa: T201
    within = {"in use": 0, "per tree": 0}
    for name, p in sorted(tables.items()):
        held = per_tree_s(fit([q for n, q in tables.items() if n != name]), p)
        now = p["measured"] / p["predicted"]
        within["in use"] += abs(now - 1) <= 0.3
        within["per tree"] += abs(p["measured"] / held - 1) <= 0.3
        print(f"| {name} | {p['measured']:.3f} | {p['predicted']:.3f}, {now:.2f} | "  # noqa: T201
              f"{held:.3f}, {p['measured'] / held:.2f} |")
    a, b, cap, g = np.exp(fit(list(tables.values())))
    print(f"within ±30%: in use {within['in use']}/{len(tables)}, per tree (held out) "  # noqa: T201
          f"{within['per tree']}/{len(tables)}; on all tables a={a:.2e} s per tree, "
          f"b={b:.2e} s per row x column, E={cap:.0f} rounds, g={g:.2f}")


def main(folders: list[Path], tree_form: bool = False) -> None:
    by = defaultdict(list)
    for folder in folders:
        for p in points(folder):
            by[(p["family"], p["dataset"])].append(p)
    if tree_form:  # one row per table: its median run
        per_tree({d: {**ps[0], "measured": statistics.median(p["measured"] for p in ps)}
                  for (f, d), ps in by.items() if f == "hist_gradient_boosting"})
        return
    print("| family | dataset | training rows | runs | measured s | predicted s | ratio |")  # noqa: T201
    print("|---|---|---:|---:|---:|---:|---:|")  # noqa: T201
    ratios = defaultdict(list)
    for (family, dataset), ps in sorted(by.items()):
        measured = statistics.median(p["measured"] for p in ps)
        predicted = statistics.median(p["predicted"] for p in ps)
        ratios[family].append(measured / predicted)
        print(f"| {family} | {dataset} | {ps[0]['rows']} | {len(ps)} | {measured:.3f} | "  # noqa: T201
              f"{predicted:.3f} | {measured / predicted:.2f} |")
    for family, rs in sorted(ratios.items()):
        within = sum(abs(r - 1) <= 0.3 for r in rs)
        print(f"{family}: {len(rs)} tables, median measured/predicted "  # noqa: T201
              f"{statistics.median(rs):.2f} (range {min(rs):.2f}-{max(rs):.2f}), "
              f"within ±30%: {within}/{len(rs)}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main([Path(p) for p in args if p != "--per-tree"], tree_form="--per-tree" in args)
