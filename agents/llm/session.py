"""One run's LLM session: config, ledger, cache and gateway, and the agents built on them."""

from __future__ import annotations

import os
from dataclasses import dataclass

from pipesmith.agents.llm import prompts
from pipesmith.agents.llm.cache import ResponseCache
from pipesmith.agents.llm.config import LLMConfig
from pipesmith.agents.llm.gateway import Gateway
from pipesmith.agents.llm.ledger import Ledger

TRACING_SWITCHES = ("LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING")


@dataclass
class LLMSession:
    config: LLMConfig
    ledger: Ledger
    gateway: Gateway
    cache: ResponseCache | None = None

    @classmethod
    def open(cls, config: LLMConfig, http_client=None, model_factory=None) -> LLMSession:
        for switch in TRACING_SWITCHES:  # no LangSmith tracing unless the user turned it on
            os.environ.setdefault(switch, "false")
        ledger = Ledger(price=config.price, max_tokens_total=config.max_tokens_total,
                        max_cost=config.max_cost)
        cache = ResponseCache(config.cache_path) if config.cache_path else None
        gateway = Gateway(config, ledger, cache, http_client=http_client,
                          model_factory=model_factory)
        return cls(config, ledger, gateway, cache)

    def agents(self, planner, coder, diagnostician):
        """The LLM planner, coder and diagnostician over the given offline ones."""
        from pipesmith.agents.coder.llm import LLMCoder
        from pipesmith.agents.diagnostician.llm import LLMDiagnostician
        from pipesmith.agents.planner.llm import LLMPlanner

        fallback = self.config.fallback == "offline"
        return (LLMPlanner(self.gateway, self.ledger, planner, fallback),
                LLMCoder(self.gateway, self.ledger, coder, fallback),
                LLMDiagnostician(self.gateway, self.ledger, diagnostician, fallback))

    def describe(self) -> dict:
        """What the report says about the model side of the run (never the API key)."""
        c = self.config
        return {
            "provider": c.provider, "model": c.model, "base_url": c.base_url,
            "agents": {name: s.model_dump() for name, s in c.agents.items()},
            "price": c.price.model_dump() if c.price else None,
            "fallback": c.fallback, "cache": str(c.cache_path) if c.cache_path else None,
            "max_tokens_total": c.max_tokens_total, "max_cost": c.max_cost,
            "prompt_templates": prompts.template_hashes(),
        }
