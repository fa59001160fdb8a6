"""The command line: `app`, its global options, and every command module registered the same
way (each has `register(app)`)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from pipesmith.cli import (
    chat,
    doctor,
    eval,
    export,
    kb,
    predict,
    repair,
    run,
    sandbox,
    serve,
    validate,
)

app = typer.Typer(help="Turn a dataset and a task into a trained, validated ML pipeline.",
                  no_args_is_help=True, add_completion=False)


@app.callback()
def main(
    ctx: typer.Context,
    log_json: Annotated[bool, typer.Option("--log-json", help="Machine-readable JSON logs on stderr.")] = False,
    log_level: Annotated[str, typer.Option(help="debug, info, warning or error.")] = "warning",
) -> None:
    """Every command first sweeps what a killed pipesmith left behind (sandbox/owner.py)
    and handles SIGTERM like Ctrl-C."""
    from pipesmith.logs import configure_logging
    from pipesmith.runtime import signals
    from pipesmith.sandbox.container_sweep import safe_sweep_containers
    from pipesmith.sandbox.owner import safe_sweep
    from pipesmith.settings import Settings

    configure_logging(json_logs=log_json, level=log_level)
    signals.install()
    swept = safe_sweep()
    try:
        docker_host = Settings().docker_host
    except Exception:  # a bad setting is reported by the command that uses it
        docker_host = None
    safe_sweep_containers(docker_host, swept)  # only where an engine is configured
    ctx.obj = {"sweep": swept}


COMMANDS = (run, repair, validate, predict, kb, sandbox, eval, export, serve, doctor, chat)
for command in COMMANDS:
    command.register(app)

if __name__ == "__main__":
    sys.exit(app())
