"""Deps: the run's dependencies, passed to every node as LangGraph runtime context.

The agents are typed by their contracts (agents/protocols.py), so any implementation of
a protocol fits; the nodes call protocol methods only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pipesmith.agents.protocols import (
    Coder,
    Diagnostician,
    Ensembler,
    Executor,
    Planner,
    Prevalidator,
)
from pipesmith.graph.clock import RunClock
from pipesmith.knowledge_base.store import KnowledgeBase

if TYPE_CHECKING:
    from pipesmith.agents.llm.session import LLMSession
    from pipesmith.settings import Settings


@dataclass
class Deps:
    planner: Planner
    coder: Coder
    prevalidator: Prevalidator
    executor: Executor
    diagnostician: Diagnostician
    ensembler: Ensembler
    kb: KnowledgeBase | None
    topology: str = "full"
    llm: LLMSession | None = None  # LLM mode: the ledger each node drains into the state
    settings: Settings | None = None  # what the setup node resolves plain input with
    # the time outside nodes counts against the budget; stopped (counting nothing) until
    # api.advance starts it for the drive
    clock: RunClock = field(default_factory=RunClock.stopped)
