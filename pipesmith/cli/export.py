"""pipesmith export: a deployment bundle from a finished run (docs/export.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from pipesmith.errors import InputError

err = Console(stderr=True)


def export_command(
    run_dir: Annotated[Path, typer.Argument(help="The folder of a finished, successful run.")],
    out: Annotated[Path | None, typer.Option("--out", help="The bundle folder to write [default: RUN_DIR-bundle, or RUN_DIR-mlflow with --format mlflow, beside the run].", show_default=False)] = None,
    fmt: Annotated[str, typer.Option("--format", help="bundle (predict.py, train.py, requirements, Dockerfile, pipeline.yaml, MLflow model, model card) or mlflow (the MLflow model only).")] = "bundle",
    force: Annotated[bool, typer.Option("--force", help="Replace a non-empty --out.")] = False,
) -> None:
    """Write a deployment bundle that predicts without the run folder or pipesmith."""
    from pipesmith.export.bundle import export

    if out is None:  # beside the run, not inside it: the run folder stays as the run wrote it
        suffix = "mlflow" if fmt == "mlflow" else "bundle"
        out = run_dir.parent / f"{run_dir.resolve().name}-{suffix}"
    try:
        written = export(run_dir, out, fmt=fmt, force=force)
    except InputError as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    Console().print(f"exported {run_dir} to {written} ({fmt})", highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("export")(export_command)
