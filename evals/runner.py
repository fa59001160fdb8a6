"""Run an eval dataset by dataset (its baselines, then its topologies x seeds), then the
summary.

Rows are appended to results.jsonl / baselines.jsonl as jobs finish; running the same
command again skips what is there (resume). eval.json records what the directory holds,
so a resume with different fault rate or budget is refused rather than mixed in.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pipesmith.errors import InputError
from pipesmith.evals import results
from pipesmith.evals.executors import executor
from pipesmith.evals.jobs import BaselineJob, PipelineJob
from pipesmith.evals.suite import DataSpec

Event = Callable[..., None]
PINNED = ("fault_rate", "fault_model", "budget_s", "max_repair_rounds")  # must match to resume


@dataclass(frozen=True)
class EvalPlan:
    datasets: list[DataSpec]
    topologies: list[str]
    out: Path
    seeds: int = 1
    fault_rate: float = 0.0
    budget_s: float = 60.0
    baselines: list[str] = field(default_factory=list)
    workers: int = 1
    executor: str = "local"
    max_repair_rounds: int = 3
    # Threads per job (candidate runs and baseline fits). One by default: scale with
    # --workers instead; OpenMP threads on a busy machine spin and time runs out.
    threads: int = 1
    command: str = ""  # the command line, recorded for the summary
    # One knowledge base for every job (they learn from each other, so results depend on
    # the order); None gives each job an empty one of its own, for clean comparisons.
    kb_dir: Path | None = None
    fault_model: str = "drafts"  # or every_generation: faults in repairs and redrafts too

    @property
    def n_jobs(self) -> int:
        return max(1, self.threads)

    def pipeline_jobs(self) -> list[PipelineJob]:
        return [PipelineJob(spec, topology, seed, self.fault_rate, self.budget_s,
                            str(self.out), self.n_jobs, self.max_repair_rounds,
                            str(self.kb_dir) if self.kb_dir else None, self.fault_model)
                for seed in range(self.seeds) for spec in self.datasets
                for topology in self.topologies]

    def baseline_jobs(self) -> list[BaselineJob]:
        return [BaselineJob(spec, name, seed, self.budget_s, str(self.out), self.n_jobs)
                for seed in range(self.seeds) for spec in self.datasets
                for name in self.baselines]

    def record(self) -> dict:
        return {"datasets": [d.name for d in self.datasets], "topologies": self.topologies,
                "seeds": self.seeds, "fault_rate": self.fault_rate,
                "fault_model": self.fault_model, "budget_s": self.budget_s,
                "baselines": self.baselines, "max_repair_rounds": self.max_repair_rounds,
                "threads": self.threads,
                "specs": {d.name: {"source": d.source, "task": d.task, "target": d.target,
                                   "metric": d.metric, "drop": list(d.drop),
                                   "max_rows": d.max_rows} for d in self.datasets},
                "command": self.command}


def _check_resumable(plan: EvalPlan) -> None:
    saved_path = plan.out / "eval.json"
    if not saved_path.exists():
        return
    saved = json.loads(saved_path.read_text())
    for key in PINNED:
        if saved.get(key) != getattr(plan, key):
            raise InputError(f"{plan.out} holds an eval with {key}={saved.get(key)}, not "
                             f"{getattr(plan, key)}; use another --out")


def _merge_record(plan: EvalPlan) -> None:
    """eval.json: the union of what every run into this directory asked for."""
    path = plan.out / "eval.json"
    record = plan.record()
    if path.exists():
        saved = json.loads(path.read_text())
        for key in ("datasets", "topologies", "baselines"):
            record[key] = list(dict.fromkeys(saved.get(key, []) + record[key]))
        record["specs"] = saved.get("specs", {}) | record["specs"]
        record["seeds"] = max(saved.get("seeds", 1), record["seeds"])
    path.write_text(json.dumps(record, indent=2))


def run_eval(plan: EvalPlan, on_event: Event | None = None) -> Path:
    """Run what is missing, write summary.md and the plots; returns the summary's path."""
    from pipesmith.evals.summary import write_summary

    on_event = on_event or (lambda *args: None)
    plan.out.mkdir(parents=True, exist_ok=True)
    _check_resumable(plan)
    _merge_record(plan)
    run_jobs = executor(plan.executor)
    done_baselines = results.finished(results.read(plan.out / results.BASELINES),
                                      ("dataset", "baseline", "seed"))
    done_runs = results.finished(results.read(plan.out / results.RESULTS),
                                 ("dataset", "topology", "seed"))
    baseline_jobs = [j for j in plan.baseline_jobs() if j.key not in done_baselines]
    pipeline_jobs = [j for j in plan.pipeline_jobs() if j.key not in done_runs]
    on_event("total", len(baseline_jobs) + len(pipeline_jobs),
             len(plan.baseline_jobs()) + len(plan.pipeline_jobs()))
    # Interleaved dataset by dataset (its baselines, then its runs), so a change in the
    # machine's load hits every system on a dataset alike.
    for key in dict.fromkeys([(j.spec.name, j.seed) for j in baseline_jobs + pipeline_jobs]):
        group = [j for j in baseline_jobs if (j.spec.name, j.seed) == key]
        for job, row in run_jobs(group, plan.workers, lambda j: on_event("start", j)):
            results.append(plan.out / results.BASELINES, row)
            on_event("done", job, row, row["status"] not in ("ok", "not applicable"))
        table = results.baseline_table(plan.out)
        group = [j for j in pipeline_jobs if (j.spec.name, j.seed) == key]
        for job, row in run_jobs(group, plan.workers, lambda j: on_event("start", j)):
            row["baseline_scores"] = table.get((job.spec.name, job.seed), {})
            results.append(plan.out / results.RESULTS, row)
            on_event("done", job, row, not row["final_success"])
    return write_summary(plan.out)
