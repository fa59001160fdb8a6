"""How clearly did each search winner beat the planned candidates, and what did the choice
give on the test rows? Reads the reports of `pipesmith eval --out` folders.

For each run whose best cross-validated candidate is a search winner (`*_tuned`), prints
t = the mean of its paired per-fold differences against the best planned candidate over
their standard error (ensembler.agent.clearly_better takes the winner when t > 1), the
candidate the run chose, its test score and, where the folder holds baselines.jsonl, the
HGB default's test score on the same split: the nearest measured stand-in for the planned
HGB candidate's, which the run never scores on the test rows when it is not chosen.

    python benchmarks/winner_margin.py OUT_DIR [OUT_DIR ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from pipesmith.agents.ensembler.agent import SEARCHED
from pipesmith.core.metrics import get_metric


def hgb_scores(out: Path) -> dict[tuple[str, int], float]:
    path = out / "baselines.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return {(r["dataset"], r["seed"]): r["score"] for r in rows
            if r["baseline"] == "hgb" and r["status"] == "ok"}


def margin(report: dict) -> tuple[float, dict, dict] | None:
    """(t, best search winner, best planned) when a search winner has the best CV score."""
    greater = get_metric(report["metric"]).greater_is_better
    ok = [a for a in report["attempts"]
          if a["status"] == "ok" and a.get("score") is not None and a["phase"] != "ensemble"]
    tuned = [a for a in ok if a["candidate"].endswith(SEARCHED)]
    planned = [a for a in ok if not a["candidate"].endswith(SEARCHED)]
    if not tuned or not planned:
        return None
    sign = 1.0 if greater else -1.0
    winner = max(tuned, key=lambda a: sign * a["score"])
    best = max(planned, key=lambda a: sign * a["score"])
    diff = sign * (np.asarray(winner["fold_scores"]) - np.asarray(best["fold_scores"]))
    if diff.mean() <= 0 or len(diff) < 2:
        return None
    se = diff.std(ddof=1) / np.sqrt(len(diff))
    return (float(diff.mean() / se) if se > 0 else float("inf")), winner, best


def main(outs: list[Path]) -> None:
    print("| folder | job | t | search winner | best planned | chosen | test | HGB default test |")
    print("|---|---|---:|---|---|---|---:|---:|")
    for out in outs:
        hgb = hgb_scores(out)
        for path in sorted(out.glob("jobs/*/run/report.json")):
            report = json.loads(path.read_text())
            found = margin(report)
            if found is None:
                continue
            t, winner, best = found
            job = path.parent.parent.name
            dataset, seed = job.split("__")[0], int(job.rsplit("__s", 1)[1])
            test, base = report.get("test_score"), hgb.get((dataset, seed))
            print(f"| {out.parent.name}/{out.name} | {job} | {t:.2f} | {winner['candidate']} | "
                  f"{best['candidate']} | {report['final_candidate']} | "
                  f"{'-' if test is None else f'{test:.4f}'} | "
                  f"{'-' if base is None else f'{base:.4f}'} |")


if __name__ == "__main__":
    main([Path(p) for p in sys.argv[1:]])
