"""pipesmith serve [TARGET]: predictions for a bundle or run folder (pipesmith.serving),
or, with no TARGET, the chat web page (pipesmith.web, issue #17)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from pipesmith.errors import InputError

err = Console(stderr=True)


def serve_command(
    target: Annotated[Path | None, typer.Argument(help="A bundle from `pipesmith export`, or a run folder; omit it for the chat page.")] = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8000,
) -> None:
    """Serve predictions over HTTP: POST /predict with {"rows": [...]}, GET /health."""
    try:
        if target is None:
            try:
                from pipesmith.web import serve_chat
            except ImportError:
                raise InputError("no chat page in this version: give a bundle or run folder "
                                 "to serve its predictions") from None
            serve_chat(host=host, port=port)
            return
        from pipesmith.serving import serve_predictions

        serve_predictions(target, host=host, port=port)
    except InputError as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_command)
