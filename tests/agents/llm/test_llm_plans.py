"""LLM-mode plans: labels follow the code, repeated code is dropped, --backend reaches the
planner, and a fallback to the offline plan is said (tests/openai_standin.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.agents.llm.test_llm import MODEL, PLAN, REPAIRED, session, settings_for
from tests.openai_standin import Reply, StandIn

FOREST = {"name": "forest", "family": "random_forest", "params": {"n_estimators": 50},
          "scale": False, "encoding": "ordinal", "rationale": "trees"}


def test_a_draft_is_labelled_by_the_estimator_its_code_builds(iris):
    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.coder.llm import LLMCoder, family_in_code
    from pipesmith.agents.schemas import CandidateSpec

    inputs, profile = iris
    asked = CandidateSpec(name="forest", family="random_forest")
    with StandIn([Reply(REPAIRED)]) as server:  # the model writes a logistic regression
        s = session(server.base_url)
        made = LLMCoder(s.gateway, s.ledger, Coder(), False).draft("a1", asked, profile, inputs)
    assert (made.name, made.spec.family) == ("logistic_regression", "logistic_regression")
    assert [e["kind"] for e in s.ledger.events] == ["relabelled"]
    assert family_in_code("x = 1", "classification") is None


def test_the_llm_planner_offers_only_the_requested_backends_families(iris):
    from pipesmith.agents.planner.agent import Planner
    from pipesmith.agents.planner.llm import LLMPlanner

    inputs, profile = iris
    inputs = inputs.model_copy(update={"backend": "torch"})
    torch_plan = json.dumps({"candidates": [{**FOREST, "name": "net", "family": "torch_mlp"}]})
    with StandIn([Reply(torch_plan)]) as server:
        s = session(server.base_url)
        plan = LLMPlanner(s.gateway, s.ledger, Planner(), False).plan(inputs, profile, [])
        prompt = server.requests[0]["messages"][-1]["content"]
    assert [c.family for c in plan.candidates] == ["torch_mlp"]
    assert "torch_mlp" in prompt and "random_forest" not in prompt


@pytest.mark.slow
def test_repeated_code_is_dropped_not_relabelled(tmp_path):
    from pipesmith.api import run

    plan = json.loads(PLAN)
    plan["candidates"] += [FOREST, {**FOREST, "name": "extra", "family": "extra_trees"}]
    script = [Reply(json.dumps(plan), expect="Plan up to")] + [Reply(REPAIRED)] * 3
    with StandIn(script, api_key="test-key") as server:
        report = run(dataset="iris", out=tmp_path / "out",
                     settings=settings_for(tmp_path, server.base_url, max_candidates=3))
    assert server.mismatches == []
    assert [(a.id, a.candidate) for a in report.attempts if a.phase == "draft"] == [
        ("a1", "logreg")]  # the same logistic regression three times: run once
    dropped = [e for e in report.llm.events if e["kind"] == "duplicate"]
    assert [e["detail"].split(":")[0] for e in dropped] == ["logistic_regression"] * 2
    assert report.status == "succeeded"


@pytest.mark.slow
def test_a_fallback_to_the_offline_plan_is_said_on_the_terminal_and_in_the_report(tmp_path):
    out = tmp_path / "out"
    with StandIn([Reply("down", status=503)] * 40, api_key="k") as server:
        done = subprocess.run(
            [sys.executable, "-m", "pipesmith.cli", "run", "--dataset", "iris", "--llm",
             "openai", "--model", MODEL, "--base-url", server.base_url, "--fallback",
             "offline", "--no-kb", "--out", str(out), "--budget", "60"],
            capture_output=True, text=True, timeout=300,
            env={**os.environ, "OPENAI_API_KEY": "k", "PIPESMITH_N_JOBS": "1",
                 "PIPESMITH_MAX_CANDIDATES": "1"})
    assert done.returncode == 0, done.stderr
    plan_line = next(line for line in done.stderr.splitlines() if "] plan " in line)
    assert "(offline plan: " in plan_line
    assert "- **plan: the offline planner's** — " in (out / "report.md").read_text()
