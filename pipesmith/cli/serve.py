"""`pipesmith serve`: with no TARGET, the chat's web page (pipesmith/chat/web.py); with a run
directory or bundle as TARGET, the prediction service (pipesmith/serve/app.py): POST /predict
with {"rows": [...]}, GET /health. Both print the URL they listen on (the real port with
--port 0) on stderr at start."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated, NoReturn

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
            _serve_model(err, target, host, port)
        else:
            _serve_page(err, host, port, runs, kb, no_kb)


def _serve_model(err: Console, target: Path, host: str, port: int) -> None:
    """The prediction service of a run or bundle (pipesmith/serve/app.py)."""
    from pipesmith.errors import InputError
    from pipesmith.serve.app import load_predictor, serve_predictions

    try:
        predictor = load_predictor(target)
    except InputError as exc:
        _fail(err, str(exc))
    sock = _listen(err, host, port)
    err.print(f"pipesmith prediction server for {predictor.name} on {_url(sock)} "
              "(POST /predict, GET /health; Ctrl-C stops it)")
    serve_predictions(predictor, sock)


def _serve_page(err: Console, host: str, port: int, runs: Path | None, kb: Path | None,
                no_kb: bool) -> None:
    """The chat's web page (pipesmith/chat/web.py)."""
    import uvicorn

    from pipesmith.chat.web import create_app
    from pipesmith.settings import Settings

    settings = Settings(use_kb=not no_kb, **({"kb_dir": kb} if kb else {}),
                        **({"runs_dir": runs} if runs else {}))
    if host not in LOCAL:
        err.print(f"warning: binding {host}: anyone who can reach it can run code and read "
                  "your runs; there is no authentication")
    sock = _listen(err, host, port)
    err.print(f"pipesmith chat page on {_url(sock)} (Ctrl-C stops it)")
    server = uvicorn.Server(uvicorn.Config(create_app(settings), log_level="warning",
                                           timeout_graceful_shutdown=2))
    server.run(sockets=[sock])


def _fail(err: Console, message: str) -> NoReturn:
    from rich.markup import escape

    err.print(f"[red]error:[/] {escape(message)}")
    raise typer.Exit(2)


def _listen(err: Console, host: str, port: int) -> socket.socket:
    """A listening socket, bound before the app starts so the printed URL has the real port
    (with --port 0 too) and connections wait in the backlog meanwhile."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        _fail(err, f"cannot listen on {host}:{port}: {exc.strerror}")
    return sock


def _url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"
