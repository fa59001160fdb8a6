"""`pipesmith repair FILE`: the run graph's diagnose-repair loop on the user's own code."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pipesmith.cli import llm_options
from pipesmith.cli.common import (
    SANDBOX_HELP,
    bad_input,
    err,
    exits_on_signal,
    sandbox_override,
)
from pipesmith.errors import InputError


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
) -> None:
    """Run FILE in the sandbox, diagnose each failure and patch it, up to --rounds times:
    the run graph's own diagnose-repair loop. Says why it stopped.

    A module is scored by the harness on the data; a script succeeds when it exits 0.
    Writes the repaired file, a unified diff and report.json to --out. Exit 0 when the
    final version works, 1 when it does not or when a repair had to drop something to make
    it work (status partial: the lines "dropped keyword ..." say what), 2 for bad input.

    With --llm openai the configured model writes each repair from the diagnosis, the
    error and the code (docs/llm.md), as in a run's LLM mode."""
    from pipesmith.api import repair as repair_code
    from pipesmith.cli.llm_options import llm_overrides
    from pipesmith.settings import Settings

    try:
        overrides = llm_overrides(llm=llm, model=model, base_url=base_url, cache=llm_cache,
                                  fallback=fallback, max_tokens_total=max_tokens_total,
                                  max_cost=max_cost, price_input=price_input,
                                  price_output=price_output, stream=llm_stream)
    except InputError as exc:
        bad_input(exc)
    settings = Settings(use_kb=not no_kb, **({"kb_dir": kb} if kb else {}),
                        **sandbox_override(sandbox), **overrides)

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
        bad_input(exc)
    where = report.repaired_file or "unchanged"
    Console().print(f"{report.status} after {report.rounds_used} round(s): {where}",
                    soft_wrap=True, highlight=False)
    for note in report.notes:  # a partial repair: what the working code no longer does
        err.print(note, highlight=False, soft_wrap=True)
    err.print(f"stopped: {report.stop_reason}", highlight=False, soft_wrap=True)
    if not report.final_success and settings.llm == "offline":
        err.print(OFFLINE_HINT, highlight=False, soft_wrap=True)
    raise typer.Exit(0 if report.final_success and not report.notes else 1)


# Offline, the rule table repairs the failures it knows; on breakage it was never shown
# it rarely does (docs/figures.md, the wild splits), where a model's repair is kept.
OFFLINE_HINT = ("hint: offline repair knows the failures in its rule table (docs/repairs.md); "
                "for others, a model writes the repair: --llm openai --base-url URL --model "
                "NAME (docs/llm.md)")


def register(app: typer.Typer) -> None:
    app.command()(repair)
