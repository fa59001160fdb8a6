"""An A/B of two `pipesmith eval` folders run side by side (the same datasets, seeds and
budget, two commits): each job's test score in both, paired by dataset and seed, where
each run ended, and the ensemble its report chose (strategy, and kept or why not); per
arm, the runs that ended in 90-105% of the budget, the ensembles left out because their
members' cost did not fit, and the search winners that could adopt their trial.

    python benchmarks/ab_pairs.py BEFORE_DIR AFTER_DIR
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def rows(out: Path) -> dict[tuple[str, int], dict]:
    """(dataset, seed) -> the topology-full row of results.jsonl."""
    found = {}
    for line in (out / "results.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["topology"] == "full":
            found[(row["dataset"], row["seed"])] = row
    return found


def report(out: Path, dataset: str, seed: int) -> dict | None:
    """The job's report.json (None: the job wrote none)."""
    for path in (out / "jobs" / f"{dataset}__full__s{seed}").glob("**/report.json"):
        return json.loads(path.read_text())
    return None


def ensemble(out: Path, dataset: str, seed: int) -> str:
    """The run's ensemble outcome in a few words, from its report (absent: '?')."""
    found = report(out, dataset, seed)
    if found is None:
        return "?"
    chosen = found.get("ensemble") or {}
    why = "kept" if chosen.get("kept") else (chosen.get("reason") or "-")[:28]
    return f"{chosen.get('strategy', '-')} ({why})"


def search_winners(out: Path, dataset: str, seed: int) -> int | None:
    """How many of the run's search winners could adopt their trial (None: no search)."""
    search = (report(out, dataset, seed) or {}).get("search") or {}
    return len(search["adoptable"]) if "adoptable" in search else None


def arm_summary(name: str, out: Path, found: dict, keys: list) -> str:
    """Where the arm's runs ended against the budget (90-105%), its ensembles left out for
    cost, and its search winners."""
    budget = json.loads((out / "eval.json").read_text())["budget_s"]
    walls = [found[k]["wall_s"] / budget for k in keys]
    adoptable = [n for n in (search_winners(out, *k) for k in keys) if n is not None]
    costly = sum("members' cost" in (((report(out, *k) or {}).get("ensemble") or {})
                                     .get("reason") or "") for k in keys)
    return (f"{name}: {sum(0.9 <= w <= 1.05 for w in walls)} runs in 90-105% of the budget, "
            f"{sum(w > 1.05 for w in walls)} over, {sum(w < 0.9 for w in walls)} under; "
            f"ensembles left out for their members' cost {costly}; "
            f"adoptable search winners per search {statistics.mean(adoptable or [0]):.2f}, "
            f"searches with none {adoptable.count(0)} of {len(adoptable)}")


def _score(value: float | None) -> str:
    return "failed" if value is None else f"{value:.4f}"


def main(before: Path, after: Path) -> None:
    a, b = rows(before), rows(after)
    pairs = sorted(set(a) & set(b))
    print("| dataset | seed | before | after | | ended at (s) | before's ensemble | "
          "after's ensemble |\n|---|---:|---:|---:|---|---:|---|---|")
    tally = {"better": 0, "worse": 0, "same": 0}
    for key in pairs:
        x, y = a[key]["score"], b[key]["score"]
        tag = "same" if x == y else "better" if (y or 0) > (x or 0) else "worse"
        tally[tag] += 1
        print(f"| {key[0]} | {key[1]} | {_score(x)} | {_score(y)} | {tag} | "
              f"{a[key]['wall_s']:.0f} / {b[key]['wall_s']:.0f} | "
              f"{ensemble(before, *key)} | {ensemble(after, *key)} |")
    if pairs:
        print(f"\n{len(pairs)} pairs: after better {tally['better']}, worse {tally['worse']}, "
              f"same {tally['same']}; mean test score before "
              f"{statistics.mean(a[k]['score'] or 0 for k in pairs):.4f}, after "
              f"{statistics.mean(b[k]['score'] or 0 for k in pairs):.4f}")
        print(arm_summary("before", before, a, pairs))
        print(arm_summary("after", after, b, pairs))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python benchmarks/ab_pairs.py BEFORE_DIR AFTER_DIR")
    main(Path(sys.argv[1]), Path(sys.argv[2]))
