"""summary.md and its plots from an eval directory's rows: the paper-style tables.

    python -m pipesmith.evals.summary OUT_DIR    (also written at the end of every eval)

Definitions (also printed in the summary):
- success: a job succeeded when the run ended with a working pipeline (final_success);
  first-pass when its first draft worked unrepaired.
- critical failure: a job that ended with no working pipeline; its reduction versus
  single-pass is 1 - rate / single-pass rate over the same datasets and seeds.
- mean rank: per dataset (score averaged over seeds), topologies and baselines ranked
  together, best = 1, ties share the mean rank, a missing or failed score ranks last.
- wins/ties/losses: per dataset and seed against each baseline's score on the same split;
  a tie is within TIE of it; a failed run is a loss.
- confidence intervals: 95% percentile bootstrap over the topology's jobs (dataset x seed),
  2000 resamples from a fixed seed (evals/bootstrap.py); paired differences resample the
  jobs two topologies share.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

from pipesmith.evals import results
from pipesmith.evals.bootstrap import bootstrap_ci, fmt_ci

TIE = 0.005


def greater_is_better(metric: str) -> bool:
    from pipesmith.core.metrics import METRICS

    return METRICS[metric].greater_is_better if metric in METRICS else True


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.mean(values) if values else None


def _fmt(value, digits: int = 3, pct: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:.1%}" if pct else f"{value:.{digits}f}"


def rank_scores(scores: dict[str, float | None], higher: bool) -> dict[str, float]:
    """Rank 1 is best; ties share the mean rank; None ranks after every score. Scores are
    compared at 6 decimals, as baselines.jsonl stores them: unrounded, a run's 0.97101449
    beat three baselines' 0.971014, the same 67 of 69 test rows right."""
    scores = {k: None if v is None else round(v, 6) for k, v in scores.items()}
    order = sorted(scores, key=lambda k: (scores[k] is None,
                                          0 if scores[k] is None else
                                          (-scores[k] if higher else scores[k])))
    ranks: dict[str, float] = {}
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in order[i:j + 1]:
            ranks[k] = (i + j) / 2 + 1
        i = j + 1
    return ranks


class Summary:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.record = json.loads((out / "eval.json").read_text()) \
            if (out / "eval.json").exists() else {}
        self.rows = results.pipeline_rows(out)
        self.baseline_rows = list(results.latest(results.read(out / results.BASELINES),
                                                 ("dataset", "baseline", "seed")).values())
        self.baseline_scores = results.baseline_table(out)
        specs = self.record.get("specs", {})
        self.metric = {name: spec["metric"] for name, spec in specs.items()}
        self.task = {name: spec["task"] for name, spec in specs.items()}
        self.topologies = [t for t in self.record.get("topologies", [])
                           if any(r["topology"] == t for r in self.rows)]
        self.baselines = [b for b in self.record.get("baselines", [])
                          if any(r["baseline"] == b and r.get("score") is not None
                                 for r in self.baseline_rows)]
        self.datasets = [d for d in self.record.get("datasets", [])
                         if any(r["dataset"] == d for r in self.rows)]

    def by_topology(self, topology: str) -> list[dict]:
        return [r for r in self.rows if r["topology"] == topology]

    def score(self, dataset: str, system: str, field: str = "score") -> float | None:
        """Mean score over seeds (`field`: the dataset's metric, or nmi for clustering);
        None when no seed produced one."""
        if system in self.topologies:
            return _mean(r.get(field) for r in self.rows
                         if r["dataset"] == dataset and r["topology"] == system)
        if field != "score":
            return None
        return _mean(scores.get(system) for (d, _), scores in self.baseline_scores.items()
                     if d == dataset)

    # --- tables ---------------------------------------------------------------------------

    def header(self) -> list[str]:
        expected = len(self.record.get("datasets", [])) * len(self.record.get("topologies", [])) \
            * self.record.get("seeds", 1)
        complete = [r for r in self.rows if not str(r["status"]).startswith("error")]
        lines = ["# Evaluation summary", ""]
        if self.record.get("command"):
            lines += ["Command:", "", f"    {self.record['command']}", ""]
        lines += [f"Fault rate {self.record.get('fault_rate')}, budget "
                  f"{self.record.get('budget_s')} s per run, {self.record.get('seeds')} seed(s),"
                  f" {len(self.datasets)} datasets; {len(complete)} of {expected} "
                  f"dataset x topology x seed jobs finished"
                  + (f", {len(self.rows) - len(complete)} ended in a harness error"
                     if len(self.rows) > len(complete) else "") + "."]
        missing = expected - len(complete)
        if missing > 0:
            lines += ["", f"**Incomplete: {missing} job(s) have no row yet** (resume with the "
                      "same command and --out)."]
        return lines + [""]

    def scores_table(self) -> list[str]:
        systems = self.topologies + self.baselines
        lines = ["## Scores per dataset", "",
                 "Mean over seeds on the untouched test part (clustering: ARI against the held-out"
                 " labels). **Bold** is the best; `fail` means no working pipeline.", "",
                 "| dataset | task | metric | " + " | ".join(systems) + " |",
                 "|---|---|---|" + "---:|" * len(systems)]
        lines[2] += " Clustering datasets have a second row with NMI."
        rows = [(d, self.metric.get(d, ""), "score") for d in self.datasets]
        rows += [(d, "nmi", "nmi") for d in self.datasets
                 if any(r.get("nmi") is not None for r in self.rows if r["dataset"] == d)]
        rows.sort(key=lambda row: self.datasets.index(row[0]))
        for dataset, metric, field in rows:
            scores = {s: self.score(dataset, s, field) for s in systems}
            known = [v for v in scores.values() if v is not None]
            best = (max if greater_is_better(metric) else min)(known) if known else None
            cells = []
            for system in systems:
                value = scores[system]
                if value is None:
                    cells.append(self._missing(dataset, system))
                else:
                    text = f"{value:.4f}"
                    cells.append(f"**{text}**" if abs(value - best) < 1e-6 else text)
            lines.append(f"| {dataset} | {self.task.get(dataset, '')} | {metric} | "
                         + " | ".join(cells) + " |")
        return lines + [""]

    def _missing(self, dataset: str, system: str) -> str:
        """Why a cell has no score: the run failed, the baseline does not apply, or no row."""
        if system in self.topologies:
            return "fail"
        if self.task.get(dataset) == "clustering":
            return "n/a"
        ran = any(system in b for (d, _), b in self.baseline_scores.items() if d == dataset)
        return "fail" if ran else "—"

    def success_table(self) -> list[str]:
        baseline_rate = None
        if "single-pass" in self.topologies:
            baseline_rate = 1 - _mean(r["final_success"] for r in self.by_topology("single-pass"))
        lines = ["## Success and reliability", "",
                 "Critical failure: a job that ended with no working pipeline. Reduction is "
                 "versus single-pass. Rounds: repair rounds before the first working "
                 "candidate. Reliability: docs/taxonomy.md, over failures classified by the "
                 "same taxonomy for every topology.", "",
                 "| topology | jobs | first-pass success | final success | critical failures "
                 "| reduction vs single-pass | mean rounds | reliability | mean wall s "
                 "| peak MB | tokens |",
                 "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for topology in self.topologies:
            rows = self.by_topology(topology)
            critical = 1 - _mean(r["final_success"] for r in rows)
            reduction = None
            if baseline_rate:
                reduction = 1 - critical / baseline_rate
            lines.append(
                f"| {topology} | {len(rows)} "
                f"| {_fmt(_mean(r['first_pass_success'] for r in rows), pct=True)} "
                f"| {_fmt(_mean(r['final_success'] for r in rows), pct=True)} "
                f"| {_fmt(critical, pct=True)} "
                f"| {_fmt(reduction, pct=True) if baseline_rate else 'n/a (no failures)'} "
                f"| {_fmt(_mean(r['rounds'] for r in rows if r['final_success']), 2)} "
                f"| {_fmt(_mean(r['reliability_score'] for r in rows))} "
                f"| {_fmt(_mean(r['wall_s'] for r in rows), 1)} "
                f"| {_fmt(max((r['peak_mem_mb'] for r in rows), default=None), 0)} "
                f"| {sum(r['tokens'] for r in rows)} |")
        return lines + [""]

    def job_ranks(self) -> dict[tuple[str, str, int], float]:
        """Each job's rank among the topologies on its dataset and seed (best = 1, ties
        share the mean rank, a failed run ranks last)."""
        ranks: dict[tuple[str, str, int], float] = {}
        units = {(r["dataset"], r["seed"]) for r in self.rows}
        for dataset, seed in units:
            scores = {r["topology"]: r["score"] for r in self.rows
                      if (r["dataset"], r["seed"]) == (dataset, seed)}
            higher = greater_is_better(self.metric.get(dataset, ""))
            for topology, rank in rank_scores(scores, higher).items():
                ranks[(dataset, topology, seed)] = rank
        return ranks

    def ci_table(self) -> list[str]:
        ranks = self.job_ranks()
        lines = ["## Confidence intervals", "",
                 "Mean [95% bootstrap interval] over each topology's jobs (dataset x seed; "
                 "2000 resamples, fixed seed). Final and first-pass success as a share of jobs."
                 " Mean test score over the jobs that produced a working pipeline (metrics "
                 "differ by dataset: compare topologies on the same jobs, i.e. by rank). Rank:"
                 " per dataset and seed among the topologies, best = 1, a failed run last."
                 " Recovered: of the jobs whose first draft failed, the share that still ended "
                 "with a working pipeline (what repair did, apart from the first draft's luck).",
                 "", "| topology | jobs | final success | first-pass success | recovered "
                 "| mean test score | scored jobs | mean rank |",
                 "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for topology in self.topologies:
            rows = self.by_topology(topology)
            scored = [r["score"] for r in rows if r["score"] is not None]
            rank = bootstrap_ci([ranks[(r["dataset"], topology, r["seed"])] for r in rows])
            missed = [r["final_success"] for r in rows if not r["first_pass_success"]]
            lines.append(
                f"| {topology} | {len(rows)} "
                f"| {fmt_ci(bootstrap_ci([r['final_success'] for r in rows]))} "
                f"| {fmt_ci(bootstrap_ci([r['first_pass_success'] for r in rows]))} "
                f"| {fmt_ci(bootstrap_ci(missed))} ({len(missed)}) "
                f"| {fmt_ci(bootstrap_ci(scored))} | {len(scored)} "
                f"| {fmt_ci(rank, 2)} |")
        return lines + [""] + self.paired_table(ranks)

    def paired_table(self, ranks: dict[tuple[str, str, int], float]) -> list[str]:
        """full against each other topology on the jobs both ran: final success and rank."""
        if "full" not in self.topologies or len(self.topologies) < 2:
            return []
        full = {(r["dataset"], r["seed"]): r for r in self.by_topology("full")}
        lines = ["## full against each topology (paired)", "",
                 "Per job (same dataset and seed), mean [95% bootstrap interval] of full's final"
                 " success minus the other's (above 0: full ends with a working pipeline more "
                 "often) and of the other's rank minus full's (above 0: full ranks better). An "
                 "interval that contains 0 is no evidence either way.", "",
                 "| topology | jobs | final success: full - it | rank: it - full |",
                 "|---|---:|---:|---:|"]
        for topology in self.topologies:
            if topology == "full":
                continue
            pairs = [(full[(r["dataset"], r["seed"])], r) for r in self.by_topology(topology)
                     if (r["dataset"], r["seed"]) in full]
            success = [int(f["final_success"]) - int(o["final_success"]) for f, o in pairs]
            rank = [ranks[(o["dataset"], topology, o["seed"])]
                    - ranks[(f["dataset"], "full", f["seed"])] for f, o in pairs]
            lines.append(f"| {topology} | {len(pairs)} | {fmt_ci(bootstrap_ci(success))} "
                         f"| {fmt_ci(bootstrap_ci(rank), 2)} |")
        return lines + [""]

    def rank_table(self) -> list[str]:
        systems = self.topologies + self.baselines
        ranked = defaultdict(list)
        for dataset in self.datasets:
            if self.task.get(dataset) == "clustering" and self.baselines:
                pool = self.topologies  # no baseline clusters: rank topologies among themselves
            else:
                pool = systems
            ranks = rank_scores({s: self.score(dataset, s) for s in pool},
                                greater_is_better(self.metric.get(dataset, "")))
            for system, rank in ranks.items():
                ranked[system].append(rank)
        lines = ["## Mean rank", "", "Lower is better; ranked per dataset (clustering datasets "
                 "rank the topologies only, as no baseline clusters).", "",
                 "| system | mean rank | datasets |", "|---|---:|---:|"]
        for system in sorted(systems, key=lambda s: _mean(ranked[s]) or 99):
            lines.append(f"| {system} | {_fmt(_mean(ranked[system]), 2)} | "
                         f"{len(ranked[system])} |")
        return lines + [""]

    def versus_table(self) -> list[str]:
        if not self.baselines:
            return []
        lines = ["## Wins / ties / losses against the baselines", "",
                 f"Per dataset and seed on the same split; a tie is within {TIE}; a failed run "
                 "is a loss.", "",
                 "| topology | " + " | ".join(f"vs {b}" for b in self.baselines) + " |",
                 "|---|" + "---:|" * len(self.baselines)]
        for topology in self.topologies:
            cells = []
            for baseline in self.baselines:
                tally = Counter()
                for row in self.by_topology(topology):
                    theirs = self.baseline_scores.get((row["dataset"], row["seed"]), {}).get(
                        baseline)
                    if theirs is None:
                        continue
                    ours = row["score"]
                    higher = greater_is_better(self.metric.get(row["dataset"], ""))
                    if ours is None:
                        tally["L"] += 1
                    elif abs(ours - theirs) <= TIE:
                        tally["T"] += 1
                    else:
                        tally["W" if (ours > theirs) == higher else "L"] += 1
                cells.append(f"{tally['W']}/{tally['T']}/{tally['L']}")
            lines.append(f"| {topology} | " + " | ".join(cells) + " |")
        models = sorted({m for r in self.baseline_rows if r["baseline"] == "autogluon"
                         for m in r.get("models", [])})
        if models:
            lines += ["", "AutoGluon model families that ran: " + ", ".join(models) + "."]
        broken = [(r["baseline"], r["dataset"], str(r["status"]).removeprefix("error: "))
                  for r in self.baseline_rows
                  if str(r["status"]).startswith(("error", "timeout"))]
        if broken:
            lines += ["", "Baseline errors and timeouts (ranked last): " + "; ".join(
                f"{b} on {d}: {status[:120]}" for b, d, status in broken[:8])]
        return lines + [""]

    def failures_table(self) -> list[str]:
        classes = sorted({k.split(".")[0] for r in self.rows for k in r["failures_by_class"]})
        if not classes:
            return ["## Failures by class", "", "No failed attempts.", ""]
        lines = ["## Failures by class", "", "Failed attempts (drafts and repairs), classified "
                 "by the error taxonomy.", "",
                 "| topology | " + " | ".join(classes) + " | total |",
                 "|---|" + "---:|" * (len(classes) + 1)]
        for topology in self.topologies:
            counts = self.class_counts(topology)
            lines.append(f"| {topology} | " + " | ".join(str(counts[c]) for c in classes)
                         + f" | {sum(counts.values())} |")
        return lines + [""]

    def injected_table(self) -> list[str]:
        """Which fault operators the noisy coder drew (drafts, and with the honest model
        repairs and redrafts too), per topology."""
        counts = {t: Counter() for t in self.topologies}
        for row in self.rows:
            counts.setdefault(row["topology"], Counter()).update(row.get("injected_faults", {}))
        operators = sorted({op for c in counts.values() for op in c})
        if not operators:
            return []
        lines = ["## Injected faults", "",
                 f"Fault model {self.record.get('fault_model', 'drafts')}: operators drawn, "
                 "counted over attempts.", "",
                 "| operator | " + " | ".join(self.topologies) + " |",
                 "|---|" + "---:|" * len(self.topologies)]
        lines += [f"| {op} | " + " | ".join(str(counts[t][op]) for t in self.topologies) + " |"
                  for op in operators]
        return lines + [""]

    def class_counts(self, topology: str) -> Counter:
        counts: Counter = Counter()
        for row in self.by_topology(topology):
            for key, n in row["failures_by_class"].items():
                counts[key.split(".")[0]] += n
        return counts

    # --- plots ----------------------------------------------------------------------------

    def plots(self) -> list[str]:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        written = []
        # success by round
        fig, ax = plt.subplots(figsize=(6, 4))
        top = max((r["rounds"] for r in self.rows), default=0)
        for topology in self.topologies:
            rows = self.by_topology(topology)
            curve = [sum(r["final_success"] and r["rounds"] <= k for r in rows) / len(rows)
                     for k in range(top + 1)]
            ax.plot(range(top + 1), curve, marker="o", label=topology)
        ax.set(xlabel="repair rounds", ylabel="jobs with a working pipeline",
               ylim=(0, 1.05), title="Success by repair round")
        ax.set_xticks(range(top + 1))
        ax.legend(fontsize=8)
        written.append(self._save(fig, "success_by_round.png"))
        # score per dataset per topology
        fig, ax = plt.subplots(figsize=(max(6, len(self.datasets) * 0.9), 4))
        width = 0.8 / max(1, len(self.topologies))
        for i, topology in enumerate(self.topologies):
            values = [self.score(d, topology) or 0.0 for d in self.datasets]
            ax.bar([x + i * width for x in range(len(self.datasets))], values, width,
                   label=topology)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(self.datasets))])
        ax.set_xticklabels(self.datasets, rotation=45, ha="right", fontsize=8)
        ax.set(ylabel="score (dataset metric; failed = 0)", title="Score per dataset")
        ax.legend(fontsize=7)
        written.append(self._save(fig, "scores.png"))
        # failure classes
        fig, ax = plt.subplots(figsize=(6, 4))
        classes = sorted({k.split(".")[0] for r in self.rows for k in r["failures_by_class"]})
        bottom = [0] * len(self.topologies)
        for cls in classes:
            counts = [self.class_counts(t)[cls] for t in self.topologies]
            ax.bar(self.topologies, counts, bottom=bottom, label=cls)
            bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
        ax.set(ylabel="failed attempts", title="Failures by taxonomy class")
        ax.tick_params(axis="x", labelrotation=30)
        if classes:
            ax.legend(fontsize=7)
        written.append(self._save(fig, "failure_classes.png"))
        return written

    def _save(self, fig, name: str) -> str:
        fig.tight_layout()
        fig.savefig(self.out / name, dpi=110)
        import matplotlib.pyplot as plt

        plt.close(fig)
        return name

    def markdown(self, plots: list[str]) -> str:
        lines = self.header() + self.scores_table() + self.success_table() + \
            self.ci_table() + self.rank_table() + self.versus_table() + self.failures_table() + \
            self.injected_table()
        lines += ["## Plots", ""] + [f"![{p[:-4]}]({p})" for p in plots]
        return "\n".join(lines) + "\n"


def write_summary(out: Path) -> Path:
    summary = Summary(Path(out))
    plots = summary.plots() if summary.rows else []
    path = Path(out) / "summary.md"
    path.write_text(summary.markdown(plots))
    return path


if __name__ == "__main__":
    sys.stdout.write(f"{write_summary(Path(sys.argv[1]))}\n")
