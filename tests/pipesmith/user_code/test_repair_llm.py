"""`pipesmith repair` in LLM mode: the configured model writes the repairs, through the real
ChatOpenAI client against a stand-in OpenAI-compatible server on 127.0.0.1
(tests/openai_standin.py); the script runs in the real sandbox. What the model's answer
drops of the user's code is found from the two versions and makes the repair partial."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pipesmith.agents.repair.losses import dropped_keywords
from pipesmith.api import repair
from pipesmith.settings import Settings
from tests.openai_standin import Reply, StandIn

BROKEN = ("from sklearn.datasets import make_classification\n"
          "from sklearn.ensemble import RandomForestClassifier\n"
          "X, y = make_classification(n_samples=120, random_state=0)\n"
          "model = RandomForestClassifier(n_estimators=-5, max_depth=3, random_state=0)\n"
          "print('score=%.3f' % model.fit(X, y).score(X, y))\n")
EXPLANATION = json.dumps({"explanation": "n_estimators must be a positive integer.",
                          "suggested_fix": "use n_estimators=50"})


def fenced(code: str) -> str:
    return f"Here is the fixed script.\n```python\n{code}```\n"


def settings_for(tmp_path, url: str) -> Settings:
    return Settings(use_kb=False, runs_dir=tmp_path / "runs", run_timeout_s=60, llm="openai",
                    llm_model="stand-in-model", llm_base_url=url, llm_api_key="test-key",
                    llm_agents={name: {"max_retries": 0, "timeout_s": 20}
                                for name in ("planner", "coder", "diagnostician")})


@pytest.mark.slow
def test_the_models_repair_is_run_and_reported_with_its_usage(tmp_path, sandbox):
    script = tmp_path / "train.py"
    script.write_text(BROKEN)
    fixed = BROKEN.replace("n_estimators=-5", "n_estimators=50")
    with StandIn([Reply(EXPLANATION, expect="Explain this failure"),
                  Reply(fenced(fixed), expect="n_estimators")]) as server:
        report = repair(script, rounds=2, out=tmp_path / "out", sandbox=sandbox,
                        settings=settings_for(tmp_path, server.base_url))
        repair_prompt = server.requests[1]["messages"][-1]["content"]
    assert server.mismatches == []
    assert report.status == "repaired" and report.notes == []
    assert report.attempts[-1].repair_action == "llm_repair"
    assert (tmp_path / "out" / "train.py").read_text() == fixed
    # the model was shown the error and the code it had to fix
    assert "InvalidParameterError" in repair_prompt or "n_estimators" in repair_prompt
    assert "max_depth=3" in repair_prompt
    assert report.llm is not None and report.llm.total["calls"] == 2
    assert "Suggested fix: use n_estimators=50" in report.attempts[0].diagnosis.explanation


@pytest.mark.slow
def test_a_model_answer_that_drops_the_users_keyword_is_partial(tmp_path, sandbox):
    script = tmp_path / "train.py"
    script.write_text(BROKEN)
    lossy = BROKEN.replace("n_estimators=-5, max_depth=3, ", "")
    with StandIn([Reply(EXPLANATION), Reply(fenced(lossy))]) as server:
        report = repair(script, rounds=2, out=tmp_path / "out", sandbox=sandbox,
                        settings=settings_for(tmp_path, server.base_url))
    assert report.final_success and report.status == "partial"
    assert any(n.startswith("dropped keyword max_depth from RandomForestClassifier()")
               for n in report.notes), report.notes


@pytest.mark.slow
def test_a_failing_endpoint_ends_the_loop_with_its_reason_and_keeps_the_attempts(
        tmp_path, sandbox):
    script = tmp_path / "train.py"
    script.write_text(BROKEN)
    with StandIn([Reply("overloaded", status=500)]) as server:
        report = repair(script, rounds=2, out=tmp_path / "out", sandbox=sandbox,
                        settings=settings_for(tmp_path, server.base_url))
    assert report.status == "failed" and not report.final_success
    assert report.stop_reason.startswith("the model failed:") and "500" in report.stop_reason
    assert [a.id for a in report.attempts] == ["a1"]
    assert json.loads((tmp_path / "out" / "report.json").read_text())["status"] == "failed"


def test_dropped_keywords_counts_a_moved_keyword_as_kept():
    before = "m = XGBClassifier()\nm.fit(X, y, early_stopping_rounds=5, verbose=False)\n"
    moved = "m = XGBClassifier(early_stopping_rounds=5)\nm.fit(X, y, verbose=False)\n"
    as_key = "params = {'early_stopping_rounds': 5}\nm = XGBClassifier(**params)\nm.fit(X, y)\n"
    assert dropped_keywords(before, moved) == []
    assert dropped_keywords(before, as_key) == [
        "dropped keyword verbose from fit(): the repaired code no longer passes it"]
    assert dropped_keywords(before, "m.fit(X, y)\n") == [
        "dropped keyword early_stopping_rounds from fit(): the repaired code no longer passes "
        "it", "dropped keyword verbose from fit(): the repaired code no longer passes it"]
    assert dropped_keywords(before, "def broken(:\n") == []  # nothing can be said


def test_an_unknown_llm_mode_is_one_line_and_exit_2(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(BROKEN)
    proc = subprocess.run([sys.executable, "-m", "pipesmith.cli", "repair", str(script),
                           "--llm", "bogus", "--out", str(tmp_path / "out"), "--no-kb"],
                          capture_output=True, text=True, timeout=120,
                          env=os.environ | {"PIPESMITH_RUNS_DIR": str(tmp_path / "runs")})
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "bogus" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out").exists()
