"""`pipesmith sandbox exec FILE`: run any Python file in the sandbox, print the ExecResult."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

sandbox_app = typer.Typer(help="Run code in the sandbox, as candidates are run.",
                          no_args_is_help=True)
err = Console(stderr=True)


def _fail(message: str) -> None:
    err.print(f"[red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


@sandbox_app.command("exec")
def exec_file(
    file: Annotated[Path, typer.Argument(help="The Python file to run.")],
    backend: Annotated[str | None, typer.Option("--backend", "--sandbox", help="local (bubblewrap; refuses without it), docker, or unsafe-local (no bubblewrap: the host's files are visible) [default: settings.sandbox_backend].")] = None,
    timeout: Annotated[float, typer.Option(help="Wall-clock limit in seconds.")] = 60.0,
    memory: Annotated[int | None, typer.Option(help="Memory limit in MB [default: settings.memory_mb].")] = None,
    disk: Annotated[int | None, typer.Option(help="Disk cap in MB [default: settings.disk_mb].")] = None,
    workdir: Annotated[Path | None, typer.Option(help="Keep the run's files here [default: a temporary folder, removed].")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the ExecResult as JSON.")] = False,
) -> None:
    """Copy FILE into a fresh workdir, run it there with the sandbox's limits and print what
    happened: status, exit code or signal, times, peak memory, output, files written.
    Exits 0 when the status is ok, 1 otherwise, 2 on bad input."""
    from pipesmith.cli.common import exits_on_signal
    from pipesmith.core.run_folder import check_out_dir, read_source
    from pipesmith.errors import InputError
    from pipesmith.sandbox.base import ExecJob
    from pipesmith.sandbox.factory import BACKENDS, make_sandbox
    from pipesmith.sandbox.owner import mkdtemp
    from pipesmith.settings import Settings

    settings = Settings()
    chosen = backend or settings.sandbox_backend
    try:
        read_source(file)
        if chosen not in BACKENDS:
            raise InputError(f"unknown backend {chosen!r}: choose one of {', '.join(BACKENDS)}")
        if timeout <= 0:
            raise InputError("--timeout must be positive")
        for name, value in (("--memory", memory), ("--disk", disk)):
            if value is not None and value <= 0:
                raise InputError(f"{name} must be a positive number of MB")
        if workdir is not None and not workdir.is_dir():
            check_out_dir(workdir, "--workdir")  # it can be created (an existing one may hold files)
        elif workdir is not None and not os.access(workdir, os.W_OK | os.X_OK):
            raise InputError(f"--workdir {workdir} is not writable")
        sandbox = make_sandbox(chosen, settings.docker_image, settings.docker_host,
                               settings.docker_host_runtime)
    except InputError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot use --workdir {workdir}: {exc.strerror or exc}")
    temporary = workdir is None
    try:
        folder = mkdtemp("exec") if temporary else workdir
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _fail(f"cannot create the workdir {workdir}: {exc.strerror or exc}")
    try:
        with exits_on_signal():
            shutil.copy(file, folder / file.name)
            result = sandbox.run(ExecJob(
                command=[sys.executable, file.name], workdir=folder, timeout_s=timeout,
                cpu_time_s=timeout, memory_mb=memory or settings.memory_mb,
                disk_mb=disk or settings.disk_mb))
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)
    _print(result, as_json)
    raise typer.Exit(0 if result.ok else 1)


def _print(result, as_json: bool) -> None:
    out = Console(highlight=False, soft_wrap=True)
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        return
    ended = f"exit {result.exit_code}" if result.signal is None else f"signal {result.signal}"
    out.print(f"status: {result.status} ({ended}) on {result.backend}; {result.wall_s:.2f}s wall, "
              f"{result.cpu_s:.2f}s CPU, peak {result.peak_mem_mb:.0f} MB")
    if result.detail:
        out.print(f"detail: {result.detail}")
    if result.files:
        out.print(f"files: {', '.join(result.files)}")
    for name in ("stdout", "stderr"):
        text = getattr(result, name)
        if text:
            out.print(f"--- {name}{' (truncated)' if getattr(result, name + '_truncated') else ''}")
            out.print(text.rstrip("\n"), markup=False)


def register(app: typer.Typer) -> None:
    app.add_typer(sandbox_app, name="sandbox")
