"""`pipesmith validate FILE`: the pre-validator's verdict on the user's own code."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pipesmith.cli.common import (
    SANDBOX_HELP,
    bad_input,
    exits_on_signal,
    sandbox_override,
)
from pipesmith.errors import InputError


def validate(
    file: Annotated[Path, typer.Argument(help="A module defining build_pipeline(task), or a script.")],
    dataset: Annotated[str | None, typer.Option(help="Bundled dataset for the column checks, smoke run and prediction.")] = None,
    data: Annotated[Path | None, typer.Option(help="CSV or Parquet for the same.")] = None,
    target: Annotated[str | None, typer.Option(help="Target column (with --data).")] = None,
    task: Annotated[str | None, typer.Option(help="classification, regression or clustering (inferred if omitted).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    kb: Annotated[Path | None, typer.Option(help="Knowledge base whose past runs calibrate the prediction.")] = None,
    sandbox: Annotated[str | None, typer.Option(help=SANDBOX_HELP)] = None,
) -> None:
    """Check FILE before running it: syntax, imports, declared requirements, the installed
    libraries' API, the data's columns, security advisories; with data, a smoke run on a
    sample and the predicted peak memory and wall time of the full run. Exit 0 when it
    passes, 1 when it does not, 2 for bad input."""
    from pipesmith.api import validate as validate_code
    from pipesmith.settings import Settings

    settings = Settings(**({"kb_dir": kb} if kb else {}), **sandbox_override(sandbox))
    try:
        with exits_on_signal():
            report = validate_code(file, dataset=dataset, data=data, target=target, task=task,
                                   settings=settings)
    except InputError as exc:
        bad_input(exc)
    out = Console()
    if json_out:
        out.print_json(report.model_dump_json())
        raise typer.Exit(0 if report.passed else 1)
    for issue in report.issues:
        kind = "advisory" if issue.advisory else "error"
        out.print(f"{report.file}:{issue.line or '-'}: {kind} "
                  f"{issue.taxonomy_class}.{issue.subclass}: {issue.message}",
                  highlight=False, soft_wrap=True)
    if report.smoke:
        s = report.smoke
        what = "passed" if s.diagnosis is None else (
            f"failed: {s.diagnosis.taxonomy_class}.{s.diagnosis.subclass}: {s.diagnosis.summary}")
        out.print(f"smoke run on {s.rows} rows {what} ({s.wall_s:.1f}s, {s.peak_mem_mb:.0f} MB)",
                  highlight=False, soft_wrap=True)
    if report.prediction:
        p = report.prediction
        out.print(f"full run predicted: {p.peak_mem_mb:.0f} MB peak (bound {p.mem_bound_mb:.0f}),"
                  f" {p.wall_s:.1f}s (bound {p.wall_bound_s:.1f}), from {p.basis}",
                  highlight=False, soft_wrap=True)
    out.print("passed" if report.passed else "did not pass", highlight=False)
    raise typer.Exit(0 if report.passed else 1)


def register(app: typer.Typer) -> None:
    app.command()(validate)
