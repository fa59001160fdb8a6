"""pipesmith predict: apply a run's fitted pipeline to new rows."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from pipesmith.errors import InputError

err = Console(stderr=True)
PARQUET = (".parquet", ".pq")


def _check_out(out: Path, data: Path) -> None:
    if out.suffix.lower() not in (".csv", *PARQUET):
        raise InputError(f"--out must end in .csv or .parquet, not {out.name!r}")
    if not out.parent.is_dir():
        raise InputError(f"the folder of --out does not exist: {out.parent}")
    if out.resolve() == data.resolve():
        raise InputError("--out is the input file; choose another path")


def _write(predictions, out: Path | None) -> None:
    if out is None:
        predictions.to_csv(sys.stdout, index=False)
        return
    tmp = out.with_name(f".{out.name}.tmp")
    try:  # atomic: a reader never sees half a file
        if out.suffix.lower() in PARQUET:
            predictions.to_parquet(tmp, index=False)
        else:
            predictions.to_csv(tmp, index=False)
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)


def predict(
    run_dir: Annotated[Path, typer.Argument(help="A run folder written by `pipesmith run` (it holds model.joblib and schema.json).")],
    data: Annotated[Path, typer.Option(help="New rows: a CSV or Parquet file with the run's feature columns (the target column may be there; it is ignored).")],
    out: Annotated[Path | None, typer.Option(help="Where to write the predictions, .csv or .parquet (default: CSV on stdout).")] = None,
) -> None:
    """Apply RUN_DIR's final pipeline to the rows of --data.

    Output: one row per input row, in the input's order, with a `prediction` column and, for classifiers, one `proba_<class>` column per class (CSV on stdout unless --out is given).

    The rows are checked against the run's schema (schema.json) first: a missing feature column, a value that cannot be converted to the column's type, an empty file or a folder without a model is an error (exit 2, nothing written); extra columns are ignored with a note on stderr. The model is applied inside the sandbox (it is generated code: a pickle can run code when loaded), so it needs the libraries it was trained with, e.g. the torch extra of pipesmith for a torch run, and bubblewrap.
    """
    from pipesmith.core.datasets import load_file
    from pipesmith.core.model_host import predict_run
    from pipesmith.core.model_io import check_frame, model_path, read_schema

    try:
        model_path(run_dir)
        schema = read_schema(run_dir)
        X, ignored = check_frame(schema, load_file(data, None).frame)
        if out is not None:
            _check_out(out, data)
        predictions = predict_run(run_dir, X, schema)  # applied in the sandbox
    except InputError as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    if ignored:
        shown = ", ".join(ignored[:10]) + (f" and {len(ignored) - 10} more" if len(ignored) > 10
                                           else "")
        err.print(f"note: ignored {len(ignored)} column(s) the model does not use: "
                  f"{escape(shown)}", highlight=False, soft_wrap=True)
    _write(predictions, out)
    if out is not None:
        err.print(f"wrote {len(predictions)} predictions to {escape(str(out))}",
                  highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command()(predict)
