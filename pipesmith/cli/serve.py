"""`pipesmith serve`: with no TARGET, the chat's web page (pipesmith/chat/web.py); with a run
directory or bundle as TARGET, the prediction service (pipesmith/serve/app.py): POST /predict
with {"rows": [...]}, GET /health."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

LOCAL = ("127.0.0.1", "localhost", "::1")


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        target: Annotated[Path | None, typer.Argument(help="A run directory or an exported bundle: serve its predictions. Without it: the chat's web page.", show_default=False)] = None,
        host: Annotated[str, typer.Option(help="Interface to bind. Anything but 127.0.0.1 exposes the page, with no authentication, to the network (docs/chat.md).")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="Port; 0 picks a free one (printed).")] = 8000,
        runs: Annotated[Path | None, typer.Option(help="Where runs and the conversations (chat.sqlite) are kept [default: runs].")] = None,
        kb: Annotated[Path | None, typer.Option(help="Knowledge-base directory [default: the user's data directory].")] = None,
        no_kb: Annotated[bool, typer.Option("--no-kb", help="Neither read nor write the knowledge base.")] = False,
    ) -> None:
        """Serve the chat as a local web page (or, given TARGET, a model's predictions)."""
        err = Console(stderr=True, highlight=False, soft_wrap=True)
        if target is not None:
            from rich.markup import escape

            from pipesmith.errors import InputError
            from pipesmith.serve.app import serve_predictions

            try:
                serve_predictions(target, host=host, port=port)
            except InputError as exc:
                err.print(f"[red]error:[/] {escape(str(exc))}")
                raise typer.Exit(2) from None
            return
        import socket

        import uvicorn

        from pipesmith.chat.web import create_app
        from pipesmith.settings import Settings

        settings = Settings(use_kb=not no_kb, **({"kb_dir": kb} if kb else {}),
                            **({"runs_dir": runs} if runs else {}))
        if host not in LOCAL:
            err.print(f"warning: binding {host}: anyone who can reach it can run code and read "
                      "your runs; there is no authentication")
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
            sock.listen(128)  # connections wait in the backlog while the app starts
        except OSError as exc:
            from rich.markup import escape

            err.print(f"[red]error:[/] cannot listen on {escape(host)}:{port}: {exc.strerror}")
            raise typer.Exit(2) from None
        bound = sock.getsockname()[1]
        err.print(f"pipesmith chat page on http://{host}:{bound}/ (Ctrl-C stops it)")
        server = uvicorn.Server(uvicorn.Config(create_app(settings), log_level="warning",
                                               timeout_graceful_shutdown=2))
        server.run(sockets=[sock])
