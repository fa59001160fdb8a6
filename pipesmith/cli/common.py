"""What the commands share: one-line errors (exit 2), the exit on Ctrl-C or SIGTERM,
the run summary line and live progress."""

from __future__ import annotations

import contextlib
import sys

import typer
from rich.console import Console

from pipesmith.errors import InputError

err = Console(stderr=True)


SANDBOX_HELP = ("Where generated code runs: local (bubblewrap; refuses to run without it), "
                "docker, or unsafe-local (no bubblewrap: the host's files are visible to the "
                "code) [default: settings.sandbox_backend].")


def sandbox_override(sandbox: str | None) -> dict:
    from pipesmith.sandbox.factory import BACKENDS

    if sandbox is None:
        return {}
    if sandbox not in BACKENDS:
        bad_input(InputError(f"unknown --sandbox {sandbox!r}: choose one of {', '.join(BACKENDS)}"))
    return {"sandbox_backend": sandbox}


@contextlib.contextmanager
def exits_on_signal():
    """Ctrl-C or SIGTERM during a command: its `finally` blocks have cleaned up; one line,
    exit 130 or 143."""
    from pipesmith.runtime.signals import exit_status

    try:
        yield
    except KeyboardInterrupt as exc:
        status = exit_status(exc)
        err.print("terminated" if status == 143 else "interrupted", highlight=False)
        raise typer.Exit(status) from None


def num(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def finish(report, out_console: Console) -> None:
    cv = report.cv_score
    spread = f" ± {cv.std:.4f}" if cv is not None and cv.std is not None else ""
    folds = f", {cv.folds} folds" if cv is not None else ""
    inferred = f" (inferred: {', '.join(report.inferred)})" if report.inferred else ""
    out_console.print(
        f"{report.status}: {report.task_type}{inferred}, {report.metric}: "
        f"CV {num(report.score)}{spread}{folds} (dummy {num(report.baseline_score)}); "
        f"test {num(report.test_score)} (dummy {num(report.test_baseline_score)}); "
        f"final {report.final_candidate}; report in {report.out_dir}",
        soft_wrap=True, highlight=False)
    for warning in report.warnings:
        err.print(f"warning: {warning}", soft_wrap=True, highlight=False)
    raise typer.Exit(0 if report.final_success else 1)


def bad_input(exc: InputError) -> None:
    from rich.markup import escape  # messages may hold brackets, e.g. "pipesmith[torch]"

    err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def exit_now(status: int, progress) -> None:
    """Leave an interrupted run at once. Every `finally` has run by now (checkpoint kept,
    sandbox jobs stopped, cgroups removed); interpreter teardown could still meet a daemon
    thread inside a C extension (the knowledge base's background open) and crash."""
    import os
    import threading
    import time

    deadline = time.monotonic() + 30  # fold-job threads remove their cgroups as they end
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    if progress:
        progress.close()
    from pipesmith.sandbox.bwrap import remove_etc_copy

    remove_etc_copy()  # atexit does not run after os._exit
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def with_progress(budget_s: float, quiet: bool, call, after=None) -> None:
    """Run `call(on_event)` with live progress, then `after(report)` if given; map the
    outcome to the exit code."""
    from pipesmith.api import LLMRunError, OutOfSpace, RunInterrupted
    from pipesmith.runtime.progress import Progress
    from pipesmith.runtime.signals import exit_status

    progress = None if quiet else Progress(budget_s, err)
    try:
        report = call(progress)
    except InputError as exc:
        bad_input(exc)
    except RunInterrupted as exc:
        status = exit_status(exc)
        what = "terminated (SIGTERM)" if status == 143 else "interrupted"
        err.print(f"{what}; continue with: pipesmith resume {exc.run_dir}", soft_wrap=True,
                  highlight=False)
        exit_now(status, progress)
    except KeyboardInterrupt as exc:  # before the run had a directory: nothing to resume
        status = exit_status(exc)
        err.print("terminated" if status == 143 else "interrupted", highlight=False)
        exit_now(status, progress)
    except OutOfSpace as exc:
        err.print(f"[red]error:[/] {exc}; free some space, then continue with: "
                  f"pipesmith resume {exc.run_dir}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    except LLMRunError as exc:
        err.print(f"[red]error:[/] {exc}; the run is checkpointed, continue with: "
                  f"pipesmith resume {exc.run_dir}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    finally:
        if progress:
            progress.close()
    if after is not None:
        after(report)
    finish(report, Console())
