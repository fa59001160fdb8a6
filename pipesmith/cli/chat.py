"""`pipesmith chat`: the conversation in a terminal (prompt-toolkit on a tty, plain lines
from a pipe, so it can be scripted). Exits 0 at the end of input or on "quit"."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pipesmith.errors import InputError


def _lines(prompt: str) -> Iterator[str]:
    if sys.stdin.isatty():
        from prompt_toolkit import PromptSession

        session = PromptSession()
        while True:
            try:
                yield session.prompt(prompt)
            except (EOFError, KeyboardInterrupt):
                return
    else:
        for line in sys.stdin:
            yield line.rstrip("\n")


def register(app: typer.Typer) -> None:
    @app.command()
    def chat(
        thread: Annotated[str | None, typer.Option(help="Continue this conversation (its id is printed when it starts).")] = None,
        kb: Annotated[Path | None, typer.Option(help="Knowledge-base directory [default: the user's data directory].")] = None,
        runs: Annotated[Path | None, typer.Option(help="Where runs and the conversations (chat.sqlite) are kept [default: runs].")] = None,
        no_kb: Annotated[bool, typer.Option("--no-kb", help="Neither read nor write the knowledge base.")] = False,
        llm: Annotated[str | None, typer.Option(help="'offline' or 'openai' (docs/llm.md), for the runs' agents.")] = None,
        model: Annotated[str | None, typer.Option(help="Model name for --llm openai.")] = None,
        base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint (OPENAI_BASE_URL).")] = None,
        fallback: Annotated[str | None, typer.Option(help="'offline': a failed model call falls back to the offline agent.")] = None,
        backend: Annotated[str | None, typer.Option(help="Model library: sklearn, torch, tensorflow or auto.")] = None,
    ) -> None:
        """Talk to pipesmith: name your data and what to predict, approve or edit the plan,
        watch the run, then ask about the result."""
        from pipesmith.api import RunInterrupted
        from pipesmith.chat.thread import QUIT_WORDS, Conversation
        from pipesmith.cli.llm_options import llm_overrides
        from pipesmith.runtime.progress import Progress
        from pipesmith.settings import Settings

        err, out = Console(stderr=True), Console(highlight=False, soft_wrap=True)
        try:
            overrides = llm_overrides(llm=llm, model=model, base_url=base_url, cache=None,
                                      fallback=fallback, max_tokens_total=None,
                                      max_cost=None, price_input=None, price_output=None,
                                      stream=False)
            settings = Settings(use_kb=not no_kb, **overrides,
                                **({"kb_dir": kb} if kb else {}),
                                **({"runs_dir": runs} if runs else {}),
                                **({"backend": backend} if backend else {}))
            if settings.llm != "offline":
                from pipesmith.core.run_folder import llm_config

                llm_config(settings)
            if thread is not None and not Conversation.exists(settings, thread):
                raise InputError(f"no conversation {thread!r} in {settings.runs_dir}; leave "
                                 "out --thread to start a new one")
        except InputError as exc:
            from rich.markup import escape

            err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        conversation = Conversation(settings, thread)
        said = len(conversation.state().get("messages") or [])
        what = f"continuing thread {conversation.thread_id} ({said // 2} exchanges)" if said \
            else f"thread {conversation.thread_id}; continue it later with --thread " \
                 f"{conversation.thread_id}"
        err.print(what, highlight=False, soft_wrap=True)
        try:
            for text in _lines("you> "):
                if not text.strip():
                    continue
                if text.strip().lower() in QUIT_WORDS:
                    break
                plan = conversation.state().get("plan") or {}
                progress = Progress(plan.get("budget_s") or settings.budget_s, err)
                try:
                    reply = conversation.say(text, on_event=progress)
                except RunInterrupted as exc:
                    err.print(f"interrupted; continue the run with: pipesmith resume "
                              f"{exc.run_dir}", highlight=False, soft_wrap=True)
                    raise typer.Exit(130) from None
                finally:
                    progress.close()
                out.print(f"pipesmith> {reply}", markup=False)
        finally:
            conversation.close()
