"""The command line: pipesmith run | resume | repair | validate | predict (cli_predict.py) |
kb (cli_kb.py) | sandbox (cli_sandbox.py) | eval | topologies (cli_eval.py) | chat
(cli_chat.py) | serve (cli_serve.py)."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pipesmith.cli_kb import kb_app
from pipesmith.cli_sandbox import sandbox_app
from pipesmith.errors import InputError

app = typer.Typer(help="Turn a dataset and a task into a trained, validated ML pipeline.",
                  no_args_is_help=True, add_completion=False)
app.add_typer(kb_app, name="kb")
app.add_typer(sandbox_app, name="sandbox")
err = Console(stderr=True)


SANDBOX_HELP = ("Where generated code runs: local (bubblewrap; refuses to run without it), "
                "docker, or unsafe-local (no bubblewrap: the host's files are visible to the "
                "code) [default: settings.sandbox_backend].")


@app.callback()
def main(
    ctx: typer.Context,
    log_json: Annotated[bool, typer.Option("--log-json", help="Machine-readable JSON logs on stderr.")] = False,
    log_level: Annotated[str, typer.Option(help="debug, info, warning or error.")] = "warning",
) -> None:
    """Every command first sweeps what a killed pipesmith left behind (sandbox/owner.py)
    and handles SIGTERM like Ctrl-C."""
    from pipesmith import signals
    from pipesmith.logs import configure_logging
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


def _sandbox_override(sandbox: str | None) -> dict:
    from pipesmith.sandbox.factory import BACKENDS

    if sandbox is None:
        return {}
    if sandbox not in BACKENDS:
        _bad_input(InputError(f"unknown --sandbox {sandbox!r}: choose one of {', '.join(BACKENDS)}"))
    return {"sandbox_backend": sandbox}


@contextlib.contextmanager
def exits_on_signal():
    """Ctrl-C or SIGTERM during a command: its `finally` blocks have cleaned up; one line,
    exit 130 or 143."""
    from pipesmith.signals import exit_status

    try:
        yield
    except KeyboardInterrupt as exc:
        status = exit_status(exc)
        err.print("terminated" if status == 143 else "interrupted", highlight=False)
        raise typer.Exit(status) from None


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _finish(report, out_console: Console) -> None:
    cv = report.cv_score
    spread = f" ± {cv.std:.4f}" if cv is not None and cv.std is not None else ""
    folds = f", {cv.folds} folds" if cv is not None else ""
    inferred = f" (inferred: {', '.join(report.inferred)})" if report.inferred else ""
    out_console.print(
        f"{report.status}: {report.task_type}{inferred}, {report.metric}: "
        f"CV {_num(report.score)}{spread}{folds} (dummy {_num(report.baseline_score)}); "
        f"test {_num(report.test_score)} (dummy {_num(report.test_baseline_score)}); "
        f"final {report.final_candidate}; report in {report.out_dir}",
        soft_wrap=True, highlight=False)
    raise typer.Exit(0 if report.final_success else 1)


def _bad_input(exc: InputError) -> None:
    from rich.markup import escape  # messages may hold brackets, e.g. "pipesmith[torch]"

    err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def _exit_now(status: int, progress) -> None:
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


def _with_progress(budget_s: float, quiet: bool, call, after=None) -> None:
    """Run `call(on_event)` with live progress, then `after(report)` if given; map the
    outcome to the exit code."""
    from pipesmith.api import LLMRunError, OutOfSpace, RunInterrupted
    from pipesmith.progress import Progress
    from pipesmith.signals import exit_status

    progress = None if quiet else Progress(budget_s, err)
    try:
        report = call(progress)
    except InputError as exc:
        _bad_input(exc)
    except RunInterrupted as exc:
        status = exit_status(exc)
        what = "terminated (SIGTERM)" if status == 143 else "interrupted"
        err.print(f"{what}; continue with: pipesmith resume {exc.run_dir}", soft_wrap=True,
                  highlight=False)
        _exit_now(status, progress)
    except KeyboardInterrupt as exc:  # before the run had a directory: nothing to resume
        status = exit_status(exc)
        err.print("terminated" if status == 143 else "interrupted", highlight=False)
        _exit_now(status, progress)
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
    _finish(report, Console())


@app.command()
def run(
    words: Annotated[str | None, typer.Argument(metavar="[TASK]", help='The task in plain words, e.g. "predict churn" (with --data, instead of --target).', show_default=False)] = None,
    task_text: Annotated[str | None, typer.Option(help="The task in plain words (the same as TASK).")] = None,
    dataset: Annotated[str | None, typer.Option(help="Bundled dataset: iris, wine, breast_cancer, digits, diabetes.")] = None,
    data: Annotated[Path | None, typer.Option(help="A CSV or Parquet file.")] = None,
    target: Annotated[str | None, typer.Option(help="Target column (with --data).")] = None,
    task: Annotated[str | None, typer.Option(help="classification, regression or clustering (inferred if omitted).")] = None,
    metric: Annotated[str | None, typer.Option(help="e.g. accuracy, balanced_accuracy, roc_auc, r2, rmse, silhouette (inferred if omitted).")] = None,
    budget: Annotated[float | None, typer.Option(help="Wall-clock budget in seconds [default: 60].")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed for the split and the models [default: 0].")] = None,
    out: Annotated[Path | None, typer.Option(help="Run directory [default: runs/<run-id>].")] = None,
    llm: Annotated[str | None, typer.Option(help="'offline' (built-in agents) or 'openai' (any OpenAI-compatible endpoint; docs/llm.md) [default: offline, or PIPESMITH_LLM].")] = None,
    model: Annotated[str | None, typer.Option(help="Model name for --llm openai (PIPESMITH_LLM_MODEL).")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (OPENAI_BASE_URL). The key comes from OPENAI_API_KEY.")] = None,
    llm_cache: Annotated[Path | None, typer.Option(help="Persistent LLM response cache (SQLite): a rerun with the same prompts replays it exactly, with no network.")] = None,
    fallback: Annotated[str | None, typer.Option(help="'offline': when a model call fails, the offline agent does that step (the report says so) [default: none].")] = None,
    max_tokens_total: Annotated[int | None, typer.Option(help="Stop calling the model once the run has spent this many tokens; the best result so far is kept.")] = None,
    max_cost: Annotated[float | None, typer.Option(help="Stop calling the model once the run has spent this many USD (needs --price-input/--price-output).")] = None,
    price_input: Annotated[float | None, typer.Option(help="USD per 1M input tokens of --model, for cost accounting.")] = None,
    price_output: Annotated[float | None, typer.Option(help="USD per 1M output tokens of --model.")] = None,
    llm_stream: Annotated[bool, typer.Option("--llm-stream", help="Stream the coder's answers (server-sent events).")] = False,
    kb: Annotated[Path | None, typer.Option(help="Knowledge-base directory [default: the user's data directory].")] = None,
    no_kb: Annotated[bool, typer.Option("--no-kb", help="Neither read nor write the knowledge base.")] = False,
    fault_rate: Annotated[float, typer.Option(help="Inject a realistic fault into this share of drafts (0-1), to measure the repair loop.")] = 0.0,
    fault_model: Annotated[str, typer.Option(help="drafts, or every_generation: repairs and redrafts carry faults at the same rate.")] = "drafts",
    test_size: Annotated[float | None, typer.Option(help="Share of rows kept as the untouched test part (stratified for classification) [default: 0.2].")] = None,
    topology: Annotated[str, typer.Option(help="Graph variant: full, single-pass, self-repair, fdicr, automl-pipeline, sage-loop, or an ablation of full (see `pipesmith topologies`).")] = "full",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live progress.")] = False,
    backend: Annotated[str | None, typer.Option(help="Model library: sklearn, torch, tensorflow, or auto (adds a neural network where the data suits one and the library is installed) [default: sklearn].")] = None,
    mlflow_dir: Annotated[Path | None, typer.Option(help="Also log the run (params, metrics, attempts, model) to a local MLflow file store in this folder (the mlflow extra).")] = None,
    sandbox: Annotated[str | None, typer.Option(help=SANDBOX_HELP)] = None,
) -> None:
    """Plan, write, check, run, repair and ensemble pipelines; write the report to --out."""
    from pipesmith.api import run as run_pipeline
    from pipesmith.cli_llm import llm_overrides
    from pipesmith.settings import Settings

    overrides = {"use_kb": not no_kb, "fault_rate": fault_rate, "fault_model": fault_model,
                 "topology": topology} | ({"kb_dir": kb} if kb else {})
    overrides |= {"backend": backend} if backend else {}
    overrides |= _sandbox_override(sandbox)
    if fault_model not in ("drafts", "every_generation"):
        _bad_input(InputError(f"unknown fault model {fault_model!r}; known: drafts, "
                              "every_generation"))
    overrides |= {"test_size": test_size} if test_size is not None else {}
    try:
        overrides |= llm_overrides(llm=llm, model=model, base_url=base_url, cache=llm_cache,
                                   fallback=fallback, max_tokens_total=max_tokens_total,
                                   max_cost=max_cost, price_input=price_input,
                                   price_output=price_output, stream=llm_stream)
    except InputError as exc:
        _bad_input(exc)
    settings = Settings(**overrides)
    after = None
    if mlflow_dir is not None:
        from pipesmith.export_bundle import check_mlflow
        from pipesmith.mlflow_tracking import log_run

        try:
            check_mlflow()
        except InputError as exc:
            _bad_input(exc)
        after = lambda report: log_run(report, mlflow_dir)  # noqa: E731
    _with_progress(budget or settings.budget_s, quiet, lambda progress: run_pipeline(
        dataset=dataset, data=data, target=target, task=task, metric=metric, budget_s=budget,
        seed=seed, out=out, task_text=task_text or words, settings=settings,
        on_event=progress), after)


@app.command()
def resume(
    run_dir: Annotated[Path, typer.Argument(help="The directory of the interrupted run.")],
    quiet: Annotated[bool, typer.Option("--quiet", "-q")] = False,
) -> None:
    """Continue an interrupted run from its last checkpoint."""
    import json

    from pipesmith.api import resume as resume_run

    budget = 0.0
    try:
        if (run_dir / "run.json").is_file():
            budget = float(json.loads((run_dir / "run.json").read_text())["inputs"]["budget_s"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        _bad_input(InputError(f"{run_dir} is not a readable pipesmith run directory "
                              f"(run.json: {str(exc)[:100]})"))
    _with_progress(budget, quiet, lambda progress: resume_run(run_dir, on_event=progress))


@app.command()
def repair(
    file: Annotated[Path, typer.Argument(help="A module defining build_pipeline(task), or a plain training script.")],
    dataset: Annotated[str | None, typer.Option(help="Bundled dataset to score a module on.")] = None,
    data: Annotated[Path | None, typer.Option(help="CSV or Parquet to score a module on.")] = None,
    target: Annotated[str | None, typer.Option(help="Target column (with --data).")] = None,
    task: Annotated[str | None, typer.Option(help="classification, regression or clustering (inferred if omitted).")] = None,
    rounds: Annotated[int, typer.Option(help="Repair rounds at most.")] = 3,
    budget: Annotated[float | None, typer.Option(help="Seconds the loop may spend in all [default: every round may run to its time limit].")] = None,
    out: Annotated[Path | None, typer.Option(help="Output directory [default: runs/repair-<id>].")] = None,
    kb: Annotated[Path | None, typer.Option(help="Knowledge base whose past fixes go first, and which records these repairs.")] = None,
    no_kb: Annotated[bool, typer.Option("--no-kb", help="Neither read nor write the knowledge base.")] = False,
    sandbox: Annotated[str | None, typer.Option(help=SANDBOX_HELP)] = None,
) -> None:
    """Run FILE in the sandbox, diagnose each failure and patch it, up to --rounds times:
    the run graph's own diagnose-repair loop. Says why it stopped.

    A module is scored by the harness on the data; a script succeeds when it exits 0.
    Writes the repaired file, a unified diff and report.json to --out. Exit 0 when the
    final version works, 1 when it does not, 2 for bad input."""
    from pipesmith.api import repair as repair_code
    from pipesmith.settings import Settings

    settings = Settings(use_kb=not no_kb, **({"kb_dir": kb} if kb else {}),
                        **_sandbox_override(sandbox))

    def show(event) -> None:
        a = event["attempt"]
        d = a.diagnosis
        what = f"{d.taxonomy_class}.{d.subclass}: {d.summary[:100]}" if d else "works"
        via = f" (after {a.repair_action})" if a.repair_action else ""
        err.print(f"{a.id}{via}: {a.status} — {what}", highlight=False, soft_wrap=True)

    try:
        with exits_on_signal():
            report = repair_code(file, dataset=dataset, data=data, target=target, task=task,
                                 rounds=rounds, out=out, settings=settings, on_event=show,
                                 budget_s=budget)
    except InputError as exc:
        _bad_input(exc)
    where = report.repaired_file or "unchanged"
    Console().print(f"{report.status} after {report.rounds_used} round(s): {where}",
                    soft_wrap=True, highlight=False)
    err.print(f"stopped: {report.stop_reason}", highlight=False, soft_wrap=True)
    raise typer.Exit(0 if report.final_success else 1)


@app.command()
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

    settings = Settings(**({"kb_dir": kb} if kb else {}), **_sandbox_override(sandbox))
    try:
        with exits_on_signal():
            report = validate_code(file, dataset=dataset, data=data, target=target, task=task,
                                   settings=settings)
    except InputError as exc:
        _bad_input(exc)
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


from pipesmith.cli_doctor import register as register_doctor  # noqa: E402
from pipesmith.cli_eval import register as register_eval  # noqa: E402  (eval, topologies)
from pipesmith.cli_export import register as register_export  # noqa: E402
from pipesmith.cli_predict import register as register_predict  # noqa: E402
from pipesmith.cli_serve import register as register_serve  # noqa: E402

register_predict(app)
register_eval(app)
register_export(app)
register_serve(app)
register_doctor(app)

from pipesmith.cli_chat import register as register_chat  # noqa: E402  (chat)

register_chat(app)

if __name__ == "__main__":
    sys.exit(app())
