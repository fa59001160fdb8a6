"""Deps: the run's dependencies, passed to every node as LangGraph runtime context."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.agents.ensembler.agent import Ensembler
from pipesmith.agents.executor import Executor
from pipesmith.agents.planner.agent import Planner
from pipesmith.agents.prevalidator.agent import Prevalidator
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
    clock: RunClock | None = None  # the time outside nodes counts against the budget
