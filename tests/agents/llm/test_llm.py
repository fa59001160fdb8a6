"""LLM mode: the real ChatOpenAI client against a stand-in OpenAI-compatible server on
127.0.0.1, answering from a script (tests/openai_standin.py)."""

from __future__ import annotations

import json
import os
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


# -- pure parts ---------------------------------------------------------------------------

def test_fenced_code_parser_picks_the_module():
    text = ("Plan:\n```json\n{\"a\": 1}\n```\nHelper:\n```python\nx = 1\n```\n"
            "Module:\n~~~py\ndef build_pipeline(task):\n    return None\n~~~\n")
    assert [info for info, _ in fenced_blocks(text)] == ["json", "python", "py"]
    assert extract_code(text) == "def build_pipeline(task):\n    return None\n"
    assert extract_code("````python\na = '```'\n````") == "a = '```'\n"  # longer fence
    assert extract_code("```\nprint(1)\n") == "print(1)\n"  # untagged, unclosed
    assert extract_code("no code at all") is None
    assert extract_code("```bash\nls\n```") is None


def test_code_problem_names_what_is_wrong():
    assert "no fenced" in code_problem("def build_pipeline(task): pass")
    assert "does not parse" in code_problem("```python\ndef build_pipeline(task)\n```")
    assert "does not define" in code_problem("```python\nx = 1\n```")
    assert code_problem("```python\ndef build_pipeline(task):\n    return 1\n```") is None


def test_prompts_render_strictly_and_are_hashed():
    with pytest.raises(KeyError):
        prompts.render("format_error.md")  # $problem missing
    assert "bad" in prompts.render("format_error.md", problem="bad")
    hashes = prompts.template_hashes()
    assert set(hashes) == set(prompts.TEMPLATE_NAMES)
    assert all(len(h) == 16 and int(h, 16) >= 0 for h in hashes.values())


def test_cache_key_covers_model_params_and_every_message():
    base = cache_key("m", {"temperature": 0}, USER, None)
    assert base == cache_key("m", {"temperature": 0}, [dict(USER[0])], None)
    assert base != cache_key("m2", {"temperature": 0}, USER, None)
    assert base != cache_key("m", {"temperature": 0.5}, USER, None)
    assert base != cache_key("m", {"temperature": 0}, USER + USER, None)
    assert base != cache_key("m", {"temperature": 0}, USER, {"name": "x", "schema": {}})


# -- the gateway against the stand-in server ---------------------------------------------

def test_text_call_follows_the_contract_and_counts_usage():
    with StandIn([Reply("hello there")], api_key="k") as server:
        s = LLMSession.open(LLMConfig(model=MODEL, base_url=server.base_url, api_key="k"))
        assert s.gateway.text("draft", "coder", USER) == "hello there"
        body = server.requests[0]
    assert body["model"] == MODEL and body["messages"] == USER and body["stream"] is False
    assert body["max_completion_tokens"] == 4096 and body["temperature"] == 0.0
    usage = server.usages[0]
    row = s.ledger.per_node["draft"]
    assert (row["calls"], row["input_tokens"], row["output_tokens"], row["total_tokens"]) == (
        1, usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"])


def test_streaming_assembles_chunks_and_reads_the_usage_chunk():
    answer = "streamed " * 50
    with StandIn([Reply(answer)]) as server:
        s = session(server.base_url, stream=True)
        assert s.gateway.text("draft", "coder", USER) == answer
        body = server.requests[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert s.ledger.per_node["draft"]["output_tokens"] == server.usages[0]["completion_tokens"]


def test_structured_output_uses_a_json_schema_response_format():
    with StandIn([Reply(EXPLANATION)]) as server:
        s = session(server.base_url)
        parsed, _ = s.gateway.structured("diagnose", "diagnostician", USER,
                                         DiagnosisExplanation)
        fmt = server.requests[0]["response_format"]
    assert parsed.suggested_fix == "use C=1.0"
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "DiagnosisExplanation"
    assert set(fmt["json_schema"]["schema"]["required"]) == {"explanation", "suggested_fix"}


def test_malformed_plan_is_fed_back_once(iris):
    from pipesmith.agents.planner.agent import Planner
    from pipesmith.agents.planner.llm import LLMPlanner

    inputs, profile = iris
    with StandIn([Reply("I think logistic regression."), Reply(PLAN)]) as server:
        s = session(server.base_url)
        plan = LLMPlanner(s.gateway, s.ledger, Planner(), False).plan(inputs, profile, [])
        retry = server.requests[1]["messages"]
    assert [c.family for c in plan.candidates] == ["logistic_regression"]
    assert retry[-2] == {"role": "assistant", "content": "I think logistic regression."}
    assert "could not be used" in retry[-1]["content"]
    assert s.ledger.per_node["plan"]["format_errors"] == 1
    assert s.ledger.per_node["plan"]["calls"] == 2


def test_malformed_code_twice_is_a_failed_attempt(iris):
    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.coder.llm import LLMCoder
    from pipesmith.agents.prevalidator.agent import Prevalidator, blocking
    from pipesmith.agents.schemas import CandidateSpec

    inputs, profile = iris
    spec = CandidateSpec(name="logreg", family="logistic_regression")
    with StandIn([Reply("Sure, just use LogisticRegression."),
                  Reply("```python\nmodel = LogisticRegression(\n```")]) as server:
        s = session(server.base_url)
        made = LLMCoder(s.gateway, s.ledger, Coder(), False).draft("a1", spec, profile, inputs)
    assert made.code == "model = LogisticRegression(\n"  # what the model wrote, unchanged
    assert blocking(Prevalidator().check(made.code, profile.table_columns))  # rejected
    assert s.ledger.per_node["draft"]["format_errors"] == 2


def test_draft_prompt_shows_the_knowledge_bases_code_examples(iris):
    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.coder.llm import LLMCoder
    from pipesmith.agents.schemas import CandidateSpec, CodeExample

    inputs, profile = iris
    spec = CandidateSpec(name="logreg", family="logistic_regression")
    example = CodeExample(run_id="r-past", dataset="wine", task_text="classify wines",
                          family="logistic_regression", code="# PAST-WINNER\nx = 1\n",
                          gain=0.5, distance=0.1)
    with StandIn([Reply(REPAIRED), Reply(REPAIRED)]) as server:
        s = session(server.base_url)
        coder = LLMCoder(s.gateway, s.ledger, Coder(), False)
        coder.draft("a1", spec, profile, inputs, examples=[example])
        coder.draft("a2", spec, profile, inputs)
        with_example, without = (r["messages"][-1]["content"] for r in server.requests)
    assert "# PAST-WINNER" in with_example and "on wine (classify wines" in with_example
    assert "# PAST-WINNER" not in without


def test_a_500_is_retried_with_backoff_and_then_reported():
    with StandIn([Reply("overloaded", status=500), Reply("fine")]) as server:
        s = session(server.base_url, max_retries=1)
        assert s.gateway.text("draft", "coder", USER) == "fine"
        assert len(server.requests) == 2
    with StandIn([Reply("overloaded", status=500)]) as server:
        s = session(server.base_url)
        with pytest.raises(LLMError, match="HTTP 500"):
            s.gateway.text("draft", "coder", USER)
    assert s.ledger.per_node["draft"]["failures"] == 1


def test_rate_limit_is_retried_after_the_servers_delay():
    with StandIn([Reply("slow down", status=429), Reply("ok")]) as server:
        s = session(server.base_url, max_retries=2)
        assert s.gateway.text("draft", "coder", USER) == "ok"
    with StandIn([Reply("slow down", status=429)]) as server:
        with pytest.raises(LLMError, match="rate limited"):
            session(server.base_url).gateway.text("draft", "coder", USER)


def test_timeout_auth_and_unreachable_endpoint_give_clear_messages():
    with StandIn([Reply("late", delay_s=3.0)]) as server:
        with pytest.raises(LLMError, match=r"no answer from .* within 0.5s"):
            session(server.base_url, timeout_s=0.5).gateway.text("draft", "coder", USER)
    with StandIn([Reply("never")], api_key="right") as server:
        config = LLMConfig(model=MODEL, base_url=server.base_url, api_key="wrong", agents={
            "coder": ModelSettings(max_retries=0)})
        with pytest.raises(LLMError, match="authentication failed"):
            LLMSession.open(config).gateway.text("draft", "coder", USER)
        assert server.script  # nothing was answered
    with socket.socket() as probe:  # a closed local port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(LLMError, match="cannot reach"):
        session(f"http://127.0.0.1:{port}/v1").gateway.text("draft", "coder", USER)


def test_budget_guard_refuses_the_next_live_call():
    with StandIn([Reply("one two three")]) as server:
        s = session(server.base_url)
        s.ledger.max_tokens_total = 3
        s.gateway.text("draft", "coder", USER)
        with pytest.raises(BudgetExhausted, match="token budget spent"):
            s.gateway.text("draft", "coder", USER)
        assert len(server.requests) == 1


def test_cache_replays_with_the_server_stopped(tmp_path):
    config = LLMConfig(model=MODEL, cache_path=tmp_path / "cache.sqlite",
                       agents={"planner": ModelSettings(max_retries=0, timeout_s=5)})
    with StandIn([Reply(PLAN)]) as server:
        live = LLMSession.open(config.model_copy(update={"base_url": server.base_url}))
        first, _ = live.gateway.structured("plan", "planner", USER, PlanProposal)
    replay = LLMSession.open(config.model_copy(update={"base_url": server.base_url}))
    second, _ = replay.gateway.structured("plan", "planner", USER, PlanProposal)
    assert second == first
    assert replay.ledger.per_node["plan"]["cached_calls"] == 1
    assert replay.ledger.per_node["plan"]["calls"] == 0
    assert len(ResponseCache(tmp_path / "cache.sqlite")) == 1


# -- whole runs through the graph ------------------------------------------------------------

def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/v1"


@pytest.mark.slow
def test_run_repairs_a_real_bug_with_the_model(tmp_path):
    from pipesmith.api import run

    with StandIn(full_script(), api_key="test-key") as server:
        report = run(dataset="iris", out=tmp_path / "out",
                     settings=settings_for(tmp_path, server.base_url, use_kb=True))
    assert server.mismatches == [] and server.script == []  # every answer used, in order
    assert report.status == "succeeded" and report.plan.candidates[0].name == "logreg"
    assert "planned by stand-in-model" in report.plan.notes
    draft, repaired = report.attempts
    assert draft.status in ("rejected", "error")  # the pre-validator or the sandbox caught it
    assert draft.diagnosis.subclass == "invalid_parameter"
    assert draft.diagnosis.explanation.startswith("C must be positive")
    assert (repaired.phase, repaired.parent, repaired.repair_action) == ("repair", "a1",
                                                                        "llm_repair")
    assert repaired.succeeded and repaired.score > repaired.baseline_score
    assert report.final_attempt == "a2"
    assert "C=1.0" in (tmp_path / "out" / "pipeline.py").read_text()
    saved = json.loads((tmp_path / "out" / "report.json").read_text())["llm"]
    assert {node: row["calls"] for node, row in saved["usage"].items()} == {
        "plan": 1, "draft": 1, "diagnose": 1, "repair": 1}
    assert saved["total"]["total_tokens"] == sum(u["total_tokens"] for u in server.usages)
    assert saved["prompt_templates"] == prompts.template_hashes()
    assert saved["stopped_by_budget"] is None and "api_key" not in json.dumps(saved)


@pytest.mark.slow
def test_token_budget_stops_the_run_keeping_the_best_so_far(tmp_path):
    from pipesmith.api import run

    plan = json.loads(PLAN)
    plan["candidates"].append({**plan["candidates"][0], "name": "forest",
                               "family": "random_forest"})
    limit = 450
    with StandIn([Reply(json.dumps(plan)), Reply(REPAIRED)]) as server:
        report = run(dataset="iris", out=tmp_path / "out", settings=settings_for(
            tmp_path, server.base_url, max_candidates=2, max_tokens_total=limit))
    plan_tokens, draft_tokens = (u["total_tokens"] for u in server.usages)
    assert plan_tokens < limit <= plan_tokens + draft_tokens  # spent during the first draft
    assert len(report.plan.candidates) == 2 and len(report.attempts) == 1  # no second draft
    assert report.status == "succeeded" and report.final_attempt == "a1"
    assert report.llm.stopped_by_budget.startswith("token budget spent")
    assert report.llm.total["total_tokens"] == plan_tokens + draft_tokens


@pytest.mark.slow
def test_exact_replay_from_the_cache_with_the_server_stopped(tmp_path):
    from pipesmith.api import run

    cache = tmp_path / "llm-cache.sqlite"
    with StandIn(full_script()) as server:
        first = run(dataset="iris", out=tmp_path / "first",
                    settings=settings_for(tmp_path, server.base_url, llm_cache=cache))
    # The server is gone: its port is closed, and every answer must come from the cache.
    second = run(dataset="iris", out=tmp_path / "second",
                 settings=settings_for(tmp_path, server.base_url, llm_cache=cache))
    def codes(name):
        return sorted(p.read_text() for p in (tmp_path / name / "attempts").glob("*/*.py"))

    assert codes("second") == codes("first") and len(codes("first")) == 2
    assert [(a.id, a.status, a.score) for a in second.attempts] == \
        [(a.id, a.status, a.score) for a in first.attempts]
    assert second.llm.total["calls"] == 0 and second.llm.total["cached_calls"] == 4
    assert second.llm.total["cached_tokens"] == first.llm.total["total_tokens"]


@pytest.mark.slow
def test_unreachable_endpoint_falls_back_to_the_offline_agents(tmp_path):
    from pipesmith.api import run

    report = run(dataset="iris", out=tmp_path / "out", settings=settings_for(
        tmp_path, closed_port_url(), llm_fallback="offline"))
    assert report.status == "succeeded"
    kinds = {(e["node"], e["kind"]) for e in report.llm.events}
    assert {("plan", "fallback"), ("draft", "fallback")} <= kinds
    assert all("cannot reach" in e["detail"] for e in report.llm.events)
    assert any("offline plan" in note for note in report.plan.notes)
    assert report.llm.total["calls"] == 0 and report.llm.total["failures"] >= 2


def cli(*args, env=None):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "pipesmith.cli", *args], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **(env or {})})


@pytest.mark.slow
def test_cli_run_with_a_model(tmp_path):
    out = tmp_path / "out"
    with StandIn(full_script(), api_key="secret") as server:
        done = cli("run", "--dataset", "iris", "--llm", "openai", "--model", MODEL,
                   "--base-url", server.base_url, "--no-kb", "--out", str(out), "-q",
                   "--price-input", "1.0", "--price-output", "2.0", "--llm-stream",
                   env={"OPENAI_API_KEY": "secret", "PIPESMITH_N_JOBS": "1"})
    assert done.returncode == 0, done.stderr
    assert "succeeded" in done.stdout
    saved = json.loads((out / "report.json").read_text())["llm"]
    tokens_in = sum(u["prompt_tokens"] for u in server.usages)
    tokens_out = sum(u["completion_tokens"] for u in server.usages)
    assert saved["total"]["cost_usd"] == pytest.approx((tokens_in + 2 * tokens_out) / 1e6)
    assert [r["stream"] for r in server.requests] == [False, True, False, True]  # the coder
    assert "secret" not in (out / "run.json").read_text()


def test_cli_llm_errors(tmp_path):
    done = cli("run", "--dataset", "iris", "--llm", "openai", "--no-kb", "--out",
               str(tmp_path / "a"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: --llm openai needs --model NAME (or PIPESMITH_LLM_MODEL)"]
    done = cli("run", "--dataset", "iris", "--llm", "openai", "--model", MODEL, "--no-kb",
               "--max-cost", "1", "--base-url", closed_port_url(), "--out", str(tmp_path / "b"))
    assert done.returncode == 2 and "--max-cost needs a price" in done.stderr
    no_key = {"OPENAI_API_KEY": "", "PIPESMITH_LLM_API_KEY": ""}
    done = cli("run", "--dataset", "iris", "--llm", "openai", "--model", MODEL, "--no-kb",
               "--out", str(tmp_path / "b"), env=no_key)
    assert done.returncode == 2 and "no API key" in done.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    out = tmp_path / "c"
    done = cli("run", "--dataset", "iris", "--llm", "openai", "--model", MODEL, "--no-kb",
               "--base-url", closed_port_url(), "--out", str(out), "-q",
               env={"PIPESMITH_LLM_AGENTS": '{"planner": {"max_retries": 0}}'})
    assert done.returncode == 1
    assert "cannot reach" in done.stderr and f"pipesmith resume {out}" in done.stderr


def test_no_langsmith_tracing_by_default(monkeypatch):
    from langsmith.utils import tracing_is_enabled

    for switch in ("LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING", "LANGCHAIN_TRACING"):
        monkeypatch.delenv(switch, raising=False)
    session(closed_port_url())
    assert not tracing_is_enabled()
    assert os.environ["LANGCHAIN_TRACING_V2"] == os.environ["LANGSMITH_TRACING"] == "false"


def test_a_server_without_json_schema_support_gets_the_prompt_only():
    with StandIn([Reply("response_format is not supported", status=400),
                  Reply(f"```json\n{EXPLANATION}\n```")]) as server:
        s = session(server.base_url)
        parsed, _ = s.gateway.structured("diagnose", "diagnostician", USER,
                                         DiagnosisExplanation)
        assert "response_format" in server.requests[0]
        assert "response_format" not in server.requests[1]
    assert parsed.suggested_fix == "use C=1.0"
    assert [e["kind"] for e in s.ledger.events] == ["format_unsupported"]


def test_prompts_do_not_name_the_run_directory():
    from pipesmith.agents.llm.conversation import without_run_paths

    trace = 'File "/tmp/run-1/attempts/a1_logreg/candidate.py", line 7, in build_pipeline'
    assert without_run_paths(trace) == \
        'File "<run>/attempts/a1_logreg/candidate.py", line 7, in build_pipeline'


def test_cost_budget_and_usage_reducer():
    from pipesmith.agents.llm.config import Price
    from pipesmith.agents.llm.ledger import Ledger, add_usage, budget_reason

    ledger = Ledger(price=Price(input=1.0, output=2.0), max_cost=0.003)
    ledger.record_call("draft", {"input_tokens": 1000, "output_tokens": 500,
                                 "total_tokens": 1500}, cached=False, seconds=0.1)
    assert ledger.per_node["draft"]["cost_usd"] == pytest.approx(0.002)
    ledger.check_budget()  # 0.002 < 0.003: one more call may start
    ledger.record_call("repair", {"input_tokens": 1000, "output_tokens": 0,
                                  "total_tokens": 1000}, cached=False, seconds=0.1)
    with pytest.raises(BudgetExhausted, match="cost budget spent"):
        ledger.check_budget()
    state = add_usage(add_usage({}, ledger.drain()["llm_usage"]), {"draft": {"calls": 1}})
    assert state["draft"]["calls"] == 2 and state["repair"]["cost_usd"] == pytest.approx(0.001)
    assert budget_reason(state, None, 0.003).startswith("cost budget spent")
    assert ledger.drain() == {}  # drained once


@pytest.mark.slow
def test_a_failed_call_mid_run_is_checkpointed_and_resumes(tmp_path, monkeypatch):
    from pipesmith.api import LLMRunError, resume, run

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "out"
    with StandIn(full_script()[:2]) as server:  # then the script runs dry: HTTP 500
        with pytest.raises(LLMRunError, match="HTTP 500"):
            run(dataset="iris", out=out, settings=settings_for(tmp_path, server.base_url))
        assert not (out / "report.json").exists()
        server.add(*full_script()[2:])
        report = resume(out)
    assert report.status == "succeeded" and [a.id for a in report.attempts] == ["a1", "a2"]
    assert {node: row["calls"] for node, row in report.llm.usage.items()} == {
        "plan": 1, "draft": 1, "diagnose": 1, "repair": 1}
    assert "test-key" not in (out / "run.json").read_text()
