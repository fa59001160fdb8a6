"""Knowledge-base figures: retrieval latency at 1k and 10k records, index rebuild time, the
per-call cost of fix rates against a full re-read of the log, and a warm-start measurement.

    .venv/bin/python benchmarks/kb_retrieval.py                 # everything
    .venv/bin/python benchmarks/kb_retrieval.py --skip-warm     # latency and rebuild only
    .venv/bin/python benchmarks/kb_retrieval.py --sizes ""      # the warm start only

Synthetic records (varied task text, meta-features and datasets) are written straight to
the log and indexed by `rebuild()`, which is the operation being timed. Queries go through
the same calls the graph makes (`warm_start`, `similar_runs`, `fix_rates`).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from pipesmith.knowledge_base.records import RepairRecord, RunRecord
from pipesmith.knowledge_base.store import KnowledgeBase

TASKS = ("classification", "regression", "clustering")
WORDS = ("churn", "price", "fraud", "species", "income", "defect", "demand", "risk", "grade",
         "sensor", "clinic", "loan", "energy", "traffic", "weather", "retail")
FAMILIES = ("hist_gradient_boosting", "random_forest", "logistic_regression", "extra_trees",
            "ridge", "knn", "svc", "kmeans")


def synthetic_run(i: int, rng: random.Random) -> RunRecord:
    task = TASKS[i % 3]
    rows, columns = rng.randint(100, 200_000), rng.randint(3, 200)
    categorical = rng.randint(0, columns // 2)
    words = " ".join(rng.sample(WORDS, 3))
    n_classes = rng.randint(2, 10) if task == "classification" else None
    return RunRecord(
        run_id=f"bench-{i:06d}", task_text=f"{task} of {words}", dataset=f"data{i % 997}",
        task_type=task, metric="accuracy", summary=f"{task} task; {rows} rows; "
        f"{columns - categorical} numeric; {categorical} categorical",
        meta_features={"rows": rows, "columns": columns, "numeric": columns - categorical,
                       "categorical": categorical, "missing_share": rng.random() * 0.3,
                       "n_classes": n_classes, "minority_share": rng.random() * 0.5},
        family_scores={f: rng.random() * 0.3 for f in rng.sample(FAMILIES, 3)},
        final_code="def build_pipeline(task):\n" + "    pass\n" * 40, score=rng.random(),
        baseline_score=0.5, outcome="succeeded" if rng.random() < 0.85 else "failed",
        resources={"elapsed_s": rng.random() * 60}, versions={"scikit-learn": "1.9.0"},
        topology="full")


def synthetic_repair(i: int, rng: random.Random) -> RepairRecord:
    return RepairRecord(run_id=f"bench-{i:06d}", signature=f"sig{rng.randint(0, 200)}",
                        taxonomy="data.missing_values", action=rng.choice(
                            ("impute", "scale_features", "shrink_model", "encode_categoricals")),
                        fixed=rng.random() < 0.6, succeeded=True, diff="--- a\n+++ b\n",
                        versions={})


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def timed(call, repeats: int) -> tuple[float, float]:
    """Median and p95 milliseconds of `call(i)` over `repeats` calls."""
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        call(i)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), percentile(times, 0.95)


def full_rescan_fix_rates(kb: KnowledgeBase, signature: str) -> list[str]:
    """The pre-cache behaviour: parse the whole log on every call."""
    tally: dict[str, list[int]] = {}
    for line in kb.log_path.read_text().splitlines():
        raw = json.loads(line)
        if raw.get("kind") == "repair" and raw["signature"] == signature:
            fixed, total = tally.setdefault(raw["action"], [0, 0])
            tally[raw["action"]] = [fixed + raw["fixed"], total + 1]
    return sorted(tally, key=lambda a: tally[a][0] / tally[a][1], reverse=True)


def latency(size: int, root: Path, queries: int) -> dict:
    rng = random.Random(size)
    kb = KnowledgeBase(root / f"kb{size}")
    with kb.log.lock():
        kb.log.append([synthetic_repair(i, rng) for i in range(size)])
        kb.log.append([synthetic_run(i, rng) for i in range(size)])
    start = time.perf_counter()
    kb.rebuild()
    rebuild_s = time.perf_counter() - start
    probe = KnowledgeBase(kb.path)  # a new process-like opener: probe against the log
    start = time.perf_counter()
    probe.index.count()
    probe_s = time.perf_counter() - start
    features = {"rows": 1500, "columns": 20, "numeric": 15, "categorical": 5,
                "missing_share": 0.05, "n_classes": 2, "minority_share": 0.3}

    def warm(i):
        words = " ".join(random.Random(i).sample(WORDS, 2))
        kb.warm_start(f"classification of {words}", "classification", features,
                      versions={"scikit-learn": "1.9.0"})

    def similar(i):
        kb.similar_runs(f"regression of {WORDS[i % len(WORDS)]}", "regression")

    kb.search("warm up", 5)
    warm_med, warm_p95 = timed(warm, queries)
    sim_med, sim_p95 = timed(similar, queries)
    fix_med, fix_p95 = timed(lambda i: kb.fix_rates(f"sig{i % 200}"), queries)
    old_med, old_p95 = timed(lambda i: full_rescan_fix_rates(kb, f"sig{i % 200}"),
                             max(10, queries // 10))
    return {"records": size, "rebuild_s": rebuild_s, "probe_open_s": probe_s,
            "warm_start_ms": (warm_med, warm_p95), "similar_runs_ms": (sim_med, sim_p95),
            "fix_rates_ms": (fix_med, fix_p95), "fix_rates_full_rescan_ms": (old_med, old_p95)}


def breast_cancer_variant(folder: Path, seed: int, share: float = 0.7) -> Path:
    """A random subset of breast_cancer rows: a dataset similar to the others."""
    from sklearn.datasets import load_breast_cancer

    frame = load_breast_cancer(as_frame=True).frame.sample(frac=share, random_state=seed)
    path = folder / f"cancer_{seed}.csv"
    frame.to_csv(path, index=False)
    return path


def reached(report, threshold: float, sign: float) -> tuple[int | None, float | None]:
    """Attempts run, and sandbox seconds spent, until one scored at least `threshold`."""
    seconds = 0.0
    for number, attempt in enumerate(report.attempts, 1):
        seconds += attempt.wall_s + attempt.smoke_s
        if attempt.score is not None and sign * attempt.score >= sign * threshold - 1e-12:
            return number, seconds
    return None, None


def warm_start(root: Path, budget: float) -> dict:
    from pipesmith.api import run
    from pipesmith.core.metrics import get_metric
    from pipesmith.settings import Settings

    data = root / "data"
    data.mkdir()
    settings = Settings(kb_dir=root / "kb-warm", runs_dir=root / "runs", max_candidates=4)
    for seed in (1, 2):  # the earlier, similar datasets
        run(data=breast_cancer_variant(data, seed), target="target", budget_s=budget,
            settings=settings, task_text="classify tumours as malignant or benign")
    target = breast_cancer_variant(data, 3)
    cold = run(data=target, target="target", budget_s=budget, task_text="classify tumours",
               settings=settings.model_copy(update={"use_kb": False}))
    warm = run(data=target, target="target", budget_s=budget, task_text="classify tumours",
               settings=settings)
    sign = 1.0 if get_metric(cold.metric).greater_is_better else -1.0
    best_single = max((a.score for a in cold.attempts if a.score is not None
                       and a.phase != "ensemble"), key=lambda s: sign * s)
    rows = {}
    for name, threshold in (("cold final score", cold.score),
                            ("cold best single candidate", best_single)):
        rows[name] = {"threshold": threshold, "cold": reached(cold, threshold, sign),
                      "warm": reached(warm, threshold, sign)}
    return {"metric": cold.metric, "cold_order": [a.candidate for a in cold.attempts],
            "warm_order": [a.candidate for a in warm.attempts], "cold_score": cold.score,
            "warm_score": warm.score, "reach": rows, "cold_elapsed_s": cold.elapsed_s,
            "warm_elapsed_s": warm.elapsed_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--skip-warm", action="store_true")
    parser.add_argument("--budget", type=float, default=180.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pipesmith-kb-bench-") as tmp:
        root = Path(tmp)
        print("records | rebuild s | probe+open s | warm_start med/p95 ms | "
              "similar_runs med/p95 ms | fix_rates med/p95 ms | full-log rescan med/p95 ms")
        for size in [int(n) for n in args.sizes.split(",") if n.strip()]:
            r = latency(size, root, args.queries)
            print(f"{r['records']:>7} | {r['rebuild_s']:.2f} | {r['probe_open_s']:.2f} | "
                  f"{r['warm_start_ms'][0]:.2f} / {r['warm_start_ms'][1]:.2f} | "
                  f"{r['similar_runs_ms'][0]:.2f} / {r['similar_runs_ms'][1]:.2f} | "
                  f"{r['fix_rates_ms'][0]:.3f} / {r['fix_rates_ms'][1]:.3f} | "
                  f"{r['fix_rates_full_rescan_ms'][0]:.1f} / "
                  f"{r['fix_rates_full_rescan_ms'][1]:.1f} "
                  f"(x{r['fix_rates_full_rescan_ms'][0] / r['fix_rates_ms'][0]:.0f})",
                  flush=True)
        if args.skip_warm:
            return
        w = warm_start(root, args.budget)
        print(f"\nwarm start on a breast_cancer subset after two similar subsets "
              f"({w['metric']}):")
        print(f"  cold order: {w['cold_order']}  final {w['cold_score']:.4f}")
        print(f"  warm order: {w['warm_order']}  final {w['warm_score']:.4f}")
        print("  threshold | value | cold: attempts, sandbox s | warm: attempts, sandbox s")
        for name, row in w["reach"].items():
            cold, warm = row["cold"], row["warm"]
            print(f"  {name} | {row['threshold']:.4f} | {_fmt(cold)} | {_fmt(warm)}")
        print(f"  whole run elapsed: cold {w['cold_elapsed_s']:.1f}s, "
              f"warm {w['warm_elapsed_s']:.1f}s")


def _fmt(pair) -> str:
    attempts, seconds = pair
    return "not reached" if attempts is None else f"{attempts}, {seconds:.1f}"


if __name__ == "__main__":
    main()
