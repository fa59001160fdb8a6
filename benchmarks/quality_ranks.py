"""Ranks of pipesmith (topology full) against the baselines of a `pipesmith eval` folder:
per job (dataset x seed, with a 95% bootstrap interval) and per dataset (scores averaged
over seeds; a system that failed on any seed counts as failed there); budget use per run;
clustering ARI per seed. Ranks: 1 is best, ties share the mean rank, a failure ranks last.

    python benchmarks/quality_ranks.py docs/results/quality-60-s3
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from pipesmith.evals.summary import greater_is_better, rank_scores

SYSTEMS = ["pipesmith", "hgb", "flaml", "autogluon"]


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def scores(out: Path) -> dict[tuple[str, int, str], float | None]:
    """(dataset, seed, system) -> its test score, None when it failed."""
    table = {}
    for r in lines(out / "results.jsonl"):
        table[(r["dataset"], r["seed"], "pipesmith")] = \
            r.get("score") if r.get("final_success") else None
    for b in lines(out / "baselines.jsonl"):
        table[(b["dataset"], b["seed"], b["baseline"])] = \
            b.get("score") if b["status"] == "ok" else None
    return table


def main(out: Path) -> None:
    record = json.loads((out / "eval.json").read_text())
    spec, budget = record["specs"], record["budget_s"]
    rows = lines(out / "results.jsonl")
    score = scores(out)
    ran = {r["dataset"] for r in rows}  # a resumed eval's record names every dataset asked
    supervised = [d for d in spec if spec[d]["task"] != "clustering" and d in ran]
    seeds = sorted({r["seed"] for r in rows})
    jobs = [(d, s) for d in supervised for s in seeds if (d, s, "pipesmith") in score]
    job_rank, per_seed = defaultdict(list), defaultdict(lambda: defaultdict(list))
    for d, s in jobs:
        ranks = rank_scores({k: score.get((d, s, k)) for k in SYSTEMS},
                            greater_is_better(spec[d]["metric"]))
        for k in SYSTEMS:
            job_rank[k].append(ranks[k])
            per_seed[s][k].append(ranks[k])
    rng = np.random.default_rng(0)
    print(f"jobs per system: {len(jobs)}")  # noqa: T201
    for k in SYSTEMS:
        v = np.array(job_rank[k])
        boots = [rng.choice(v, v.size).mean() for _ in range(2000)]
        print(f"{k}: mean job rank {v.mean():.2f} [{np.percentile(boots, 2.5):.2f}, "  # noqa: T201
              f"{np.percentile(boots, 97.5):.2f}]; per seed "
              + ", ".join(f"s{s} {np.mean(per_seed[s][k]):.2f}" for s in seeds))
    print("\n| dataset | metric | " + " | ".join(SYSTEMS)  # noqa: T201
          + " | pipesmith rank | ended at |\n|---|---|" + "---:|" * (len(SYSTEMS) + 2))
    dataset_rank, wtl = defaultdict(list), {k: [0, 0, 0] for k in SYSTEMS[1:]}
    for d in supervised:
        higher = greater_is_better(spec[d]["metric"])
        mean = {}
        for k in SYSTEMS:
            vals = [score.get((d, s, k)) for s in seeds if (d, s) in jobs]
            mean[k] = None if not vals or None in vals else float(np.mean(vals))
        ranks = rank_scores(mean, higher)
        for k in SYSTEMS:
            dataset_rank[k].append(ranks[k])
        for k in SYSTEMS[1:]:  # by rank: scores compared as rank_scores compares them
            ours, theirs = ranks["pipesmith"], ranks[k]
            wtl[k][1 if ours == theirs else 0 if ours < theirs else 2] += 1
        ended = [r["wall_s"] for r in rows if r["dataset"] == d]
        last = " (last)" if ranks["pipesmith"] == max(ranks.values()) > min(ranks.values()) \
            else ""  # all tied is no one last
        print(f"| {d} | {spec[d]['metric']} | " + " | ".join(  # noqa: T201
            "fail" if mean[k] is None else f"{mean[k]:.4f}" for k in SYSTEMS)
            + f" | {ranks['pipesmith']:.1f}{last} | {min(ended):.1f}-{max(ended):.1f} s |")
    print("\nmean rank over datasets (seed-mean scores): " + ", ".join(  # noqa: T201
        f"{k} {np.mean(dataset_rank[k]):.2f}" for k in SYSTEMS))
    print("pipesmith W/T/L: " + ", ".join(  # noqa: T201
        f"vs {k} {'/'.join(map(str, v))}" for k, v in wtl.items()))
    ends = [r["wall_s"] / budget for r in rows
            if spec[r["dataset"]]["task"] != "clustering"]
    print(f"budget use (supervised runs): {len(ends)} runs, median {np.median(ends):.0%}, "  # noqa: T201
          f"in 90-105%: {sum(0.9 <= e <= 1.05 for e in ends)}, "
          f"over 105%: {sum(e > 1.05 for e in ends)}, under 90%: {sum(e < 0.9 for e in ends)}")
    print("\n| clustering | ARI per seed | mean | ended at |\n|---|---|---:|---:|")  # noqa: T201
    for d in [d for d in spec if spec[d]["task"] == "clustering"]:
        got = sorted((r["seed"], r.get("score"), r["wall_s"]) for r in rows if r["dataset"] == d)
        if got:
            aris = [g[1] for g in got if g[1] is not None]
            walls = [g[2] for g in got]
            print(f"| {d} | " + ", ".join(  # noqa: T201
                "fail" if g[1] is None else f"{g[1]:.4f}" for g in got)
                + f" | {np.mean(aris):.4f} | {min(walls):.1f}-{max(walls):.1f} s |")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
