"""LLM mode: the real ChatOpenAI client against a stand-in OpenAI-compatible server on
127.0.0.1, answering from a script (tests/openai_standin.py)."""

from __future__ import annotations

import json
import socket

import pytest

from pipesmith.agents.llm import prompts
from pipesmith.agents.llm.cache import ResponseCache, cache_key
from pipesmith.agents.llm.config import LLMConfig, ModelSettings
from pipesmith.agents.llm.gateway import LLMError
from pipesmith.agents.llm.ledger import BudgetExhausted
from pipesmith.agents.llm.parsing import code_problem, extract_code, fenced_blocks
from pipesmith.agents.llm.schemas import DiagnosisExplanation, PlanProposal
from pipesmith.agents.llm.session import LLMSession
from tests.openai_standin import Reply, StandIn

MODEL = "stand-in-model"
PLAN = json.dumps({"candidates": [{
    "name": "logreg", "family": "logistic_regression", "params": {"C": 1.0},
    "scale": True, "encoding": "onehot", "rationale": "a linear model suits four features"}],
    "notes": ["one candidate is enough for iris"]})
BUGGY = '''Here is the module.

```python
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler


def build_pipeline(task):
    model = LogisticRegression(C=-1.0, max_iter=500, random_state=task["seed"])
    return Pipeline([("scale", StandardScaler()), ("model", model)])
```
'''
EXPLANATION = json.dumps({"explanation": "C must be positive; -1.0 is rejected at fit.",
                          "suggested_fix": "use C=1.0"})
REPAIRED = BUGGY.replace("C=-1.0", "C=1.0").replace("Here is the module.", "Fixed: C=1.0.")


def settings_for(tmp_path, url, **extra):
    from pipesmith.settings import Settings

    values = dict(kb_dir=tmp_path / "kb", runs_dir=tmp_path / "runs", max_candidates=1,
                  budget_s=120, n_jobs=1, use_kb=False, llm="openai", llm_model=MODEL,
                  llm_base_url=url, llm_api_key="test-key",
                  llm_agents={name: {"max_retries": 0, "timeout_s": 20}
                              for name in ("planner", "coder", "diagnostician")})
    return Settings(**(values | extra))


def full_script() -> list[Reply]:
    return [Reply(PLAN, expect="Plan up to"), Reply(BUGGY, expect="Write the Python module"),
            Reply(EXPLANATION, expect="Explain this failure"),
            Reply(REPAIRED, expect="C=-1.0")]


def session(url, **agent) -> LLMSession:
    settings = ModelSettings(**({"max_retries": 0, "timeout_s": 10} | agent))
    return LLMSession.open(LLMConfig(model=MODEL, base_url=url, agents={
        "planner": settings, "coder": settings, "diagnostician": settings}))


USER = [{"role": "user", "content": "say something"}]
