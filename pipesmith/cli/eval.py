"""The research commands: pipesmith eval and pipesmith topologies."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pipesmith.errors import InputError

err = Console(stderr=True)


def _split(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


class JobProgress:
    """A rich progress bar over eval jobs: done, running and failed."""

    def __init__(self, console: Console) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.progress = Progress(TextColumn("eval"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[state]}"), TimeElapsedColumn(),
                                 console=console, transient=False)
        self.task = None
        self.running = self.failed = 0
        self.skipped = 0

    def __call__(self, kind: str, *args) -> None:
        if kind == "total":
            todo, total = args
            self.skipped = total - todo
            self.progress.start()
            self.task = self.progress.add_task("eval", total=total, completed=self.skipped,
                                               state=self._state())
            return
        if kind == "start":
            self.running += 1
        elif kind == "done":
            job, row, failed = args
            self.running -= 1
            self.failed += bool(failed)
            self.progress.advance(self.task)
            what = getattr(job, "topology", None) or getattr(job, "baseline", "")
            score = row.get("score")
            self.progress.console.print(
                f"{job.spec.name} {what} seed {job.seed}: {row['status']}"
                + (f", score {score:.4f}" if isinstance(score, float) else ""),
                highlight=False, soft_wrap=True)
        self.progress.update(self.task, state=self._state())

    def _state(self) -> str:
        resumed = f", {self.skipped} from earlier" if self.skipped else ""
        return f"running {self.running}, failed {self.failed}{resumed}"

    def close(self) -> None:
        self.progress.stop()


def eval_command(
    suite: Annotated[str | None, typer.Option(help="Dataset suite: smoke (3, for CI), core (~12) or full (all).")] = None,
    only: Annotated[str, typer.Option("--datasets", help="Comma-separated: only these datasets of the suite.")] = "",
    topologies: Annotated[str, typer.Option(help="Comma-separated topologies (see `pipesmith topologies`).")] = "single-pass,full",
    seeds: Annotated[int, typer.Option(help="Seeds per dataset and topology (0..N-1).")] = 1,
    fault_rate: Annotated[float, typer.Option(help="Inject a realistic fault into this share of drafts (0-1).")] = 0.0,
    fault_model: Annotated[str, typer.Option(help="drafts (faults in first drafts only) or every_generation (drafts, repairs and redrafts alike; the honest model).")] = "drafts",
    budget: Annotated[float, typer.Option(help="Seconds per run, and per baseline fit.")] = 60.0,
    baselines: Annotated[str, typer.Option(help="Comma-separated: hgb, flaml, autogluon (none by default).")] = "",
    workers: Annotated[int, typer.Option(help="Jobs run at once.")] = 1,
    threads: Annotated[int, typer.Option(help="Threads per job (each candidate run and baseline fit).")] = 1,
    executor: Annotated[str, typer.Option(help="local (worker processes) or ray (Ray tasks; RAY_ADDRESS for a cluster).")] = "local",
    out: Annotated[Path, typer.Option(help="Output directory; running again resumes it.")] = Path("evals-out"),
    data: Annotated[Path | None, typer.Option(help="Evaluate on this CSV or Parquet file instead of a suite.")] = None,
    target: Annotated[str | None, typer.Option(help="Target column of --data (for clustering: the label column used to score).")] = None,
    task: Annotated[str | None, typer.Option(help="Task of --data: classification, regression or clustering (inferred if omitted).")] = None,
    metric: Annotated[str | None, typer.Option(help="Metric for --data (inferred if omitted; ari or nmi for clustering).")] = None,
    kb: Annotated[Path | None, typer.Option(help="A knowledge base every job reads and writes (jobs then learn from each other, so order matters) [default: an empty one per job].")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Run topologies (and baselines) over a dataset suite or a file; write results.jsonl,
    baselines.jsonl, summary.md and plots to --out. Running the same command again resumes:
    jobs with a row are skipped. Exit 0 when every job ran, 1 when some failed, 2 for bad
    input."""
    from pipesmith.evals.baselines import BASELINES
    from pipesmith.evals.executors import EXECUTORS
    from pipesmith.evals.runner import EvalPlan, run_eval
    from pipesmith.evals.suite import custom_spec
    from pipesmith.evals.suite import suite as suite_specs
    from pipesmith.graph.topologies import TOPOLOGIES

    progress = None
    try:
        if (suite is None) == (data is None):
            raise InputError("give exactly one of --suite NAME or --data PATH")
        datasets = suite_specs(suite) if suite else [custom_spec(data, target, task, metric)]
        if only:
            wanted = _split(only)
            unknown = [d for d in wanted if d not in {s.name for s in datasets}]
            if unknown:
                raise InputError(f"--datasets: not in the suite: {', '.join(unknown)}")
            datasets = [s for s in datasets if s.name in wanted]
        names = _split(topologies)
        unknown = [t for t in names if t not in TOPOLOGIES]
        if not names or unknown:
            raise InputError(f"unknown topology {', '.join(unknown) or '(none)'}; known: "
                             + ", ".join(TOPOLOGIES))
        chosen = _split(baselines)
        if any(b not in BASELINES for b in chosen):
            raise InputError(f"unknown baseline in {baselines!r}; known: {', '.join(BASELINES)}")
        if executor not in EXECUTORS:
            raise InputError(f"unknown executor {executor!r}; known: {', '.join(EXECUTORS)}")
        if seeds < 1 or workers < 1 or threads < 1 or budget <= 0 or not 0 <= fault_rate <= 1:
            raise InputError("--seeds, --workers and --threads must be at least 1, --budget positive and "
                             "--fault-rate between 0 and 1")
        if fault_model not in ("drafts", "every_generation"):
            raise InputError(f"unknown fault model {fault_model!r}; known: drafts, every_generation")
        plan = EvalPlan(datasets=datasets, topologies=names, out=out, seeds=seeds,
                        fault_model=fault_model,
                        fault_rate=fault_rate, budget_s=budget, baselines=chosen,
                        workers=workers, threads=threads, executor=executor,
                        command="pipesmith " + shlex.join(sys.argv[1:]),
                        kb_dir=kb.resolve() if kb else None)
        progress = None if quiet else JobProgress(err)
        summary = run_eval(plan, on_event=progress)
    except InputError as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        err.print(f"interrupted; resume with the same command (--out {out})", soft_wrap=True)
        raise typer.Exit(130) from None
    finally:
        if progress is not None:
            progress.close()
    from pipesmith.evals import results

    rows = results.pipeline_rows(out)
    failed = sum(not r["final_success"] for r in rows)
    Console().print(f"{len(rows)} runs, {failed} without a working pipeline; summary in "
                    f"{summary}", highlight=False, soft_wrap=True)
    raise typer.Exit(1 if failed else 0)


def topologies_command(
    mermaid: Annotated[bool, typer.Option("--mermaid", help="Print each topology's graph as Mermaid.")] = False,
    write: Annotated[Path | None, typer.Option(help="Write the Markdown page with every drawing (docs/topologies.md).")] = None,
) -> None:
    """List the named topologies: which nodes each wires."""
    from pipesmith.graph.diagrams import markdown
    from pipesmith.graph.diagrams import mermaid as draw
    from pipesmith.graph.topologies import TOPOLOGIES

    if write is not None:
        write.write_text(markdown())
        Console().print(f"wrote {write}")
        return
    out = Console()
    width = max(len(name) for name in TOPOLOGIES)
    for topology in TOPOLOGIES.values():
        out.print(f"{topology.name:<{width}} {topology.summary}", highlight=False,
                  soft_wrap=True)
        if mermaid:
            out.print(draw(topology.name), highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
    app.command("topologies")(topologies_command)
