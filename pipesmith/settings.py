"""Settings: defaults, overridable by PIPESMITH_* environment variables and CLI flags."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from pipesmith.knowledge_base.store import default_kb_dir


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PIPESMITH_", frozen=True)

    budget_s: float = 60.0
    seed: int = 0
    max_candidates: int = 4
    max_repair_rounds: int = 3
    run_timeout_s: float = 120.0
    n_jobs: int = max(1, os.cpu_count() or 1)
    test_size: float = 0.2  # the referee's untouched test part (docs/architecture.md)
    memory_mb: int = 4096  # per candidate run (address space; floor 2048)
    disk_mb: int = 1024  # largest file a candidate run may write
    cv_folds: int = 5  # K for selection; fewer for small data or budgets (referee.choose_folds)
    # fold fits as forks of warm sandboxed workers, one per fold (agents/warm_folds.py);
    # off: a fresh sandbox job per fold, as before (PIPESMITH_WARM_WORKERS=0)
    warm_workers: bool = True
    # fit the chosen pipeline on shuffled training labels before the refit and reject it
    # when it still beats the dummy (pipesmith/core/permutation.py); off only to compare
    permutation_control: bool = True
    runs_dir: Path = Path("runs")
    kb_dir: Path = Field(default_factory=default_kb_dir)  # evaluated per instance
    use_kb: bool = True
    kb_embedding: Literal["hashing", "semantic"] = "hashing"  # semantic: extra `semantic`
    kb_url: str | None = None  # a Chroma server (`chroma run`) for the index; log in kb_dir
    topology: str = "full"
    smoke_rows: int = 300  # rows of the smoke run before each full run; 0 turns it off
    # share of the time left after the first valid model that the search gets (topologies
    # that search; docs/search.md); 0 turns the search off
    search_share: float = Field(0.6, ge=0.0, le=0.9)
    backend: str = "sklearn"  # sklearn, torch, tensorflow or auto (see docs/backends.md)
    fault_rate: float = 0.0  # inject a realistic fault into this share of drafts (research)
    # drafts: faults in first drafts only; every_generation: in drafts, repairs, redrafts and
    # ensembles alike, from the whole catalogue (the honest fault model, docs/taxonomy.md)
    fault_model: Literal["drafts", "every_generation"] = "drafts"
    # --- sandbox (docs/sandbox.md) ---
    sandbox_backend: Literal["local", "docker", "unsafe-local"] = "local"  # unsafe: no bwrap
    docker_image: str = "pipesmith-sandbox:host-runtime"  # built by .ci/docker-engine.sh image
    docker_host: str | None = None  # e.g. unix:///tmp/pipesmith-docker/docker.sock; DOCKER_HOST
    docker_host_runtime: bool = True  # bind the host's Python read-only into a minimal image

    # --- LLM mode (issue 6): docs/llm.md -------------------------------------------------
    llm: str = "offline"  # "offline" or "openai" (any OpenAI-compatible endpoint)
    llm_model: str | None = None
    llm_base_url: str | None = Field(None, validation_alias=AliasChoices(
        "llm_base_url", "PIPESMITH_LLM_BASE_URL", "OPENAI_BASE_URL"))
    # Never written to run.json; read from the environment again on resume.
    llm_api_key: SecretStr | None = Field(None, exclude=True, validation_alias=AliasChoices(
        "llm_api_key", "PIPESMITH_LLM_API_KEY", "OPENAI_API_KEY"))
    llm_agents: dict[str, dict] = {}  # per-agent overrides: {"coder": {"temperature": 0.2}}
    llm_prices: dict[str, dict[str, float]] = {}  # model -> {"input", "output"} USD per 1M tokens
    llm_cache: Path | None = None  # persistent response cache, for exact replay
    llm_fallback: str = "none"  # "none" or "offline": an LLM failure uses the offline agent
    llm_stream: bool = False  # stream the coder's answers (server-sent events)
    max_tokens_total: int | None = None  # stop the run cleanly once this many tokens are spent
    max_cost: float | None = None  # ... or this many USD (needs a price for the model)
