"""`pipesmith run` and `pipesmith resume`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pipesmith.cli import llm_options
from pipesmith.cli.common import (
    SANDBOX_HELP,
    bad_input,
    err,
    sandbox_override,
    with_progress,
)
from pipesmith.errors import InputError


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
    llm: llm_options.Llm = None,
    model: llm_options.Model = None,
    base_url: llm_options.BaseUrl = None,
    llm_cache: llm_options.LlmCache = None,
    fallback: llm_options.Fallback = None,
    max_tokens_total: llm_options.MaxTokensTotal = None,
    max_cost: llm_options.MaxCost = None,
    price_input: llm_options.PriceInput = None,
    price_output: llm_options.PriceOutput = None,
    llm_stream: llm_options.LlmStream = False,
    kb: Annotated[Path | None, typer.Option(help="Knowledge-base directory [default: the user's data directory].")] = None,
    no_kb: Annotated[bool, typer.Option("--no-kb", help="Neither read nor write the knowledge base.")] = False,
    fault_rate: Annotated[float, typer.Option(help="Inject a realistic fault into this share of drafts (0-1), to measure the repair loop.")] = 0.0,
    fault_model: Annotated[str, typer.Option(help="drafts, or every_generation: repairs and redrafts carry faults at the same rate.")] = "drafts",
    test_size: Annotated[float | None, typer.Option(help="Share of rows kept as the untouched test part (stratified for classification) [default: 0.2].")] = None,
    topology: Annotated[str, typer.Option(help="Graph variant: full, single-pass, self-repair, fdicr, automl-pipeline, sage-loop, or an ablation of full (see `pipesmith topologies`).")] = "full",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live progress.")] = False,
    backend: Annotated[str | None, typer.Option(help="Model library: sklearn, torch, tensorflow, or auto (adds a neural network where the data suits one and the library is installed) [default: sklearn].")] = None,
    mlflow_dir: Annotated[Path | None, typer.Option(help="Also log the run (params, metrics, attempts, model) to a local MLflow store in this folder (the mlflow extra).")] = None,
    mlflow_register: Annotated[str | None, typer.Option(envvar="PIPESMITH_MLFLOW_REGISTER", help="With --mlflow-dir: register the logged model under this name in the store's model registry (a new version per run).")] = None,
    sandbox: Annotated[str | None, typer.Option(help=SANDBOX_HELP)] = None,
    plan_only: Annotated[bool, typer.Option("--plan-only", help="Print what the run would do (target, task, drop, metric, budget_s, families, excluded_families) as JSON, and stop: nothing runs, nothing is written.")] = False,
) -> None:
    """Plan, write, check, run, repair and ensemble pipelines; write the report to --out."""
    from pipesmith.api import run as run_pipeline
    from pipesmith.cli.llm_options import llm_overrides
    from pipesmith.settings import Settings

    overrides = {"use_kb": not no_kb, "fault_rate": fault_rate, "fault_model": fault_model,
                 "topology": topology} | ({"kb_dir": kb} if kb else {})
    overrides |= {"backend": backend} if backend else {}
    overrides |= sandbox_override(sandbox)
    if fault_model not in ("drafts", "every_generation"):
        bad_input(InputError(f"unknown fault model {fault_model!r}; known: drafts, "
                              "every_generation"))
    overrides |= {"test_size": test_size} if test_size is not None else {}
    try:
        overrides |= llm_overrides(llm=llm, model=model, base_url=base_url, cache=llm_cache,
                                   fallback=fallback, max_tokens_total=max_tokens_total,
                                   max_cost=max_cost, price_input=price_input,
                                   price_output=price_output, stream=llm_stream)
    except InputError as exc:
        bad_input(exc)
    settings = Settings(**overrides)
    if plan_only:
        _print_plan(dataset=dataset, data=data, target=target, task=task, metric=metric,
                    budget_s=budget, seed=seed, task_text=task_text or words, settings=settings)
        return
    after = None
    if mlflow_dir is not None:
        from pipesmith.export.bundle import check_mlflow
        from pipesmith.export.mlflow_tracking import log_run

        try:
            check_mlflow()
        except InputError as exc:
            bad_input(exc)
        after = lambda report: log_run(  # noqa: E731
            report, mlflow_dir, register_as=mlflow_register,
            on_step=None if quiet else mlflow_step)
    def started(progress):
        def on_start(inputs) -> None:
            if progress is not None:  # the budget the words asked for, not the default
                progress.budget_s = inputs.budget_s
            if "target" in inputs.inferred:
                said_target(inputs.target, "target_guessed" in inputs.inferred)
        return on_start

    with_progress(budget or settings.budget_s, quiet, lambda progress: run_pipeline(
        dataset=dataset, data=data, target=target, task=task, metric=metric, budget_s=budget,
        seed=seed, out=out, task_text=task_text or words, settings=settings,
        on_event=progress, on_start=started(progress)), after)


def said_target(column: str, guessed: bool = False) -> None:
    """One line on stderr: the target was read from the words, so say which column (and
    that it is a guess when the words only hinted at it)."""
    how = "a guess from" if guessed else "read from"
    err.print(f"target: {column} ({how} the task's words; --target COLUMN picks another)",
              highlight=False, soft_wrap=True, markup=False)


def mlflow_step(line: str) -> None:
    """One line on stderr per step of the MLflow logging, which takes seconds after the run."""
    err.print(f"mlflow      {line}", highlight=False, soft_wrap=True, markup=False)


def _print_plan(**request) -> None:
    import json

    from pipesmith.core.plan_only import plan_only

    try:
        plan = plan_only(**request)
    except InputError as exc:
        bad_input(exc)
    if plan["target_from_words"]:
        said_target(plan["target"], plan["target_guessed"])
    typer.echo(json.dumps(plan))


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
        bad_input(InputError(f"{run_dir} is not a readable pipesmith run directory "
                              f"(run.json: {str(exc)[:100]})"))
    with_progress(budget, quiet, lambda progress: resume_run(run_dir, on_event=progress))


def register(app: typer.Typer) -> None:
    app.command()(run)
    app.command()(resume)
