"""`pipesmith kb ...`: inspect, search and maintain the knowledge base."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

kb_app = typer.Typer(help="Inspect, search and maintain the knowledge base of past runs and "
                          "repairs (a record log, indexed by Chroma).", no_args_is_help=True)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

KbDir = Annotated[Path | None, typer.Option(
    "--kb", help="Knowledge-base directory [default: the user's data directory, "
                 "or PIPESMITH_KB_DIR].")]
KbUrl = Annotated[str | None, typer.Option(
    "--kb-url", help="A Chroma server for the index, e.g. http://127.0.0.1:8000 "
                     "[default: embedded, or PIPESMITH_KB_URL].")]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]

SEED_DATASETS = (  # (bundled dataset, task): every task type the offline pipeline handles
    ("iris", "classification"), ("wine", "classification"), ("breast_cancer", "classification"),
    ("digits", "classification"), ("diabetes", "regression"), ("iris", "clustering"),
)


def open_kb(kb: Path | None, kb_url: str | None, create: bool = False):
    """The store; a command that only reads (or re-indexes) it never creates the folder:
    a missing store is one line and exit 2, with nothing written."""
    from pipesmith.knowledge_base.store import KnowledgeBase
    from pipesmith.settings import Settings

    overrides = ({"kb_dir": kb} if kb else {}) | ({"kb_url": kb_url} if kb_url else {})
    settings = Settings(**overrides)
    if not create and not settings.kb_dir.is_dir():
        fail(f"no knowledge base at {settings.kb_dir}" + (
            " (it is not a directory)" if settings.kb_dir.exists() else
            " (the first run or `pipesmith kb import` creates one)"))
    return KnowledgeBase.from_settings(settings)


def writable_file(path: Path) -> None:
    """A file this command may create or replace: checked before anything is opened."""
    if path.is_dir():
        fail(f"{path} is a directory; give a file path")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        fail(f"cannot write {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        fail(f"cannot write {path}: permission denied")


def fail(message: str) -> None:
    err.print(f"[red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def one_line_errors(command):
    """A path that cannot be read or written, or a file that does not decode: one line,
    exit 2, never a traceback."""

    @functools.wraps(command)
    def guarded(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except UnicodeDecodeError as exc:
            fail(f"not UTF-8 text (byte {exc.start})")
        except OSError as exc:
            where = f" {exc.filename}" if exc.filename else ""
            fail(f"cannot use{where}: {exc.strerror or exc}")

    return guarded


def holds_records(data: bytes) -> bool:
    """True when some line is a knowledge-base record (or the file is empty); checked
    quietly, before the store is opened, so a wrong file writes nothing."""
    from pipesmith.knowledge_base.records import parse_record

    lines = [line for line in data.splitlines() if line.strip()]
    for line in lines:
        try:
            raw = json.loads(line)
            if isinstance(raw, dict) and parse_record(raw) is not None:
                return True
        except ValueError:
            continue
    return not lines


def emit(data) -> None:
    out.print_json(json.dumps(data, default=str))


@kb_app.command("stats")
@one_line_errors
def stats(kb: KbDir = None, kb_url: KbUrl = None, as_json: AsJson = False) -> None:
    """How many runs and repairs the knowledge base holds, by task type and outcome."""
    numbers = open_kb(kb, kb_url).stats()
    if as_json:
        return emit(numbers)
    out.print(f"{numbers['runs']} runs ({numbers['failed_runs']} failed), "
              f"{numbers['repairs']} repairs ({numbers['repairs_fixed']} fixed the failure) "
              f"over {numbers['signatures']} error signatures; log {numbers['path']}")
    for task_type, outcomes in sorted(numbers["runs_by_task"].items()):
        for outcome, n in sorted(outcomes.items()):
            out.print(f"  {task_type:<15} {outcome:<10} {n}")


@kb_app.command("search")
@one_line_errors
def search(
    query: Annotated[str, typer.Argument(help="Free text: a task, a dataset description.")],
    task: Annotated[str | None, typer.Option(help="Only this task type.")] = None,
    outcome: Annotated[str | None, typer.Option(help="Only 'succeeded' or 'failed' runs.")] = None,
    k: Annotated[int, typer.Option("--k", "-k", help="How many results.")] = 5,
    kb: KbDir = None, kb_url: KbUrl = None, as_json: AsJson = False,
) -> None:
    """Runs nearest to QUERY, best first."""
    if task not in (None, "classification", "regression", "clustering"):
        fail(f"--task must be classification, regression or clustering, not {task!r}")
    if outcome not in (None, "succeeded", "failed"):
        fail(f"--outcome must be succeeded or failed, not {outcome!r}")
    if k < 1:
        fail("--k must be at least 1")
    found = open_kb(kb, kb_url).search(query, k, task_type=task, outcome=outcome)
    rows = [{"rank": rank, "run_id": r.run_id, "distance": round(d, 4), "task_text": r.task_text,
             "dataset": r.dataset, "task_type": r.task_type, "outcome": r.outcome,
             "metric": r.metric, "score": r.score}
            for rank, (r, d) in enumerate(found, 1)]
    if as_json:
        return emit(rows)
    if not rows:
        out.print("no matching runs")
    for row in rows:
        score = "-" if row["score"] is None else f"{row['score']:.4f}"
        out.print(f"{row['rank']}. {row['run_id']}  {row['dataset']}  {row['outcome']}  "
                  f"{row['metric']} {score}  (distance {row['distance']:.3f})\n"
                  f"   {row['task_text']}")


@kb_app.command("show")
@one_line_errors
def show(
    run_id: Annotated[str, typer.Argument(help="A run id (or a unique prefix of one).")],
    kb: KbDir = None, kb_url: KbUrl = None, as_json: AsJson = False,
) -> None:
    """One run record in full, with the repairs made during that run."""
    store = open_kb(kb, kb_url)
    matches = [r for r in store.records() if r.run_id.startswith(run_id)]
    exact = [r for r in matches if r.run_id == run_id]
    if len(exact or matches) != 1:
        fail(f"no run {run_id!r} in {store.path}" if not matches else
             f"{run_id!r} matches {len(matches)} runs; give more of the id")
    record = (exact or matches)[0]
    repairs = store.repairs_of(record.run_id)
    if as_json:
        return emit({"run": record.model_dump(), "repairs": [r.model_dump() for r in repairs]})
    score = "-" if record.score is None else f"{record.score:.4f}"
    out.print(f"{record.run_id}: {record.outcome}, {record.task_text}\n"
              f"dataset {record.dataset}; {record.summary}\n"
              f"{record.metric} {score} (baseline {record.baseline_score}); "
              f"final family {record.final_family}; topology {record.topology}\n"
              f"family gains: {json.dumps(record.family_scores)}\n"
              f"resources: {json.dumps(record.resources)}\n"
              f"versions: {json.dumps(record.versions)}")
    for repair in repairs:
        out.print(f"repair {repair.taxonomy} [{repair.signature[:12]}] via {repair.action}: "
                  f"{'fixed' if repair.fixed else 'not fixed'}")
    if record.final_code:
        out.print("--- final code ---\n" + record.final_code)


@kb_app.command("rebuild")
@one_line_errors
def rebuild(kb: KbDir = None, kb_url: KbUrl = None, as_json: AsJson = False) -> None:
    """Drop the Chroma index and re-index every run of the record log."""
    count = open_kb(kb, kb_url).rebuild()
    emit({"reindexed": count}) if as_json else out.print(f"re-indexed {count} run records")


@kb_app.command("export")
@one_line_errors
def export(
    path: Annotated[Path, typer.Argument(help="JSON-lines file to write.")],
    kb: KbDir = None, kb_url: KbUrl = None, as_json: AsJson = False,
) -> None:
    """Write every record (runs and repairs) to a JSON-lines file."""
    writable_file(path)
    count = open_kb(kb, kb_url).export_records(path)
    emit({"exported": count, "path": str(path)}) if as_json else \
        out.print(f"exported {count} records to {path}")


@kb_app.command("import")
@one_line_errors
def import_(
    path: Annotated[Path, typer.Argument(help="A JSON-lines file from `kb export`.")],
    kb: KbDir = None, kb_url: KbUrl = None, as_json: AsJson = False,
) -> None:
    """Add the records of an export that this knowledge base does not have yet."""
    if not path.is_file():
        fail(f"file not found: {path}")
    if not holds_records(path.read_bytes()):
        fail(f"{path} holds no knowledge-base records (not a `pipesmith kb export` file)")
    runs, repairs = open_kb(kb, kb_url, create=True).import_records(path)
    emit({"runs_added": runs, "repairs_added": repairs}) if as_json else \
        out.print(f"added {runs} runs and {repairs} repairs")


@kb_app.command("seed")
@one_line_errors
def seed(
    budget: Annotated[float, typer.Option(help="Seconds per dataset.")] = 60.0,
    candidates: Annotated[int, typer.Option(help="Candidates per dataset.")] = 2,
    datasets: Annotated[str | None, typer.Option(
        help="Comma-separated subset, e.g. iris,diabetes [default: "
             + ", ".join(sorted({name for name, _ in SEED_DATASETS})) + "].")] = None,
    kb: KbDir = None, kb_url: KbUrl = None, as_json: AsJson = False,
) -> None:
    """Fill the knowledge base by running the offline pipeline over the bundled datasets,
    so a first LLM run already has examples. Datasets already recorded are skipped."""
    from pipesmith.api import run as run_pipeline
    from pipesmith.settings import Settings

    if budget <= 0 or candidates < 1:
        fail("--budget must be positive and --candidates at least 1")
    wanted = SEED_DATASETS
    if datasets:
        names = {name.strip() for name in datasets.split(",") if name.strip()}
        unknown = names - {name for name, _ in SEED_DATASETS}
        if unknown:
            fail(f"unknown seed dataset(s) {', '.join(sorted(unknown))}")
        wanted = tuple(pair for pair in SEED_DATASETS if pair[0] in names)
    store = open_kb(kb, kb_url, create=True)
    done = {(r.dataset, r.task_type) for r in store.records()}
    added, skipped = [], []
    from pipesmith.sandbox.owner import temporary_folder

    with temporary_folder("seed") as tmp:  # owner-tagged: swept if this process is killed
        settings = Settings(kb_dir=store.path, kb_url=store.url, runs_dir=Path(tmp),
                            max_candidates=candidates)
        for number, (dataset, task) in enumerate(wanted, 1):
            if (dataset, task) in done:
                skipped.append(f"{dataset}/{task}")
                err.print(f"[{number}/{len(wanted)}] {dataset} {task}: already recorded")
                continue
            err.print(f"[{number}/{len(wanted)}] {dataset} {task} ...")
            report = run_pipeline(dataset=dataset, task=task, budget_s=budget,
                                  settings=settings, deps=None)
            added.append({"dataset": dataset, "task_type": task, "run_id": report.run_id,
                          "status": report.status, "metric": report.metric,
                          "score": report.score})
            score = "-" if report.score is None else f"{report.score:.4f}"
            err.print(f"    {report.status}: {report.metric} {score}")
    if as_json:
        return emit({"added": added, "skipped": skipped, "stats": store.stats()})
    out.print(f"seeded {len(added)} runs ({len(skipped)} already there); "
              f"{store.stats()['runs']} runs in {store.path}")


def register(app: typer.Typer) -> None:
    app.add_typer(kb_app, name="kb")
