"""The chat in a terminal, scripted through stdin; and the plain-language `pipesmith run`."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest


def pipesmith(*args, stdin: str | None = None, env: dict | None = None, timeout=600):
    return subprocess.run([sys.executable, "-m", "pipesmith.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def customers(tmp_path) -> Path:
    rng = np.random.default_rng(0)
    n = 240
    frame = pd.DataFrame({"customer_id": range(n), "tenure": rng.integers(1, 60, n),
                          "seats": rng.integers(1, 10, n),
                          "monthly_charges": rng.normal(50, 10, n).round(2)})
    risk = (frame.tenure < 25).astype(int) + (frame.monthly_charges > 55) + rng.normal(0, .6, n)
    frame["churn"] = np.where(risk > 1.0, "yes", "no")  # learnable, not a copy of a column
    path = tmp_path / "customers.csv"
    frame.to_csv(path, index=False)
    return path


def replies(stdout: str) -> list[str]:
    """The assistant's replies, one string each (a reply may span lines)."""
    return [r.strip() for r in stdout.split("pipesmith> ")[1:]]


@pytest.mark.slow
def test_scripted_conversation_then_a_second_process_recalls_it(tmp_path, customers):
    runs = tmp_path / "runs"
    env = {"PIPESMITH_MAX_CANDIDATES": "2", "PIPESMITH_N_JOBS": "1"}
    script = "\n".join([
        f"I want to predict churn from {customers} in 60 seconds",
        "use r2",  # a metric of another task: said, plan unchanged
        "drop column seats",
        "only tree models",
        "yes",
        "what score did the best model get?",
        "compare the candidates",
        "why did a2 fail?",
        f"predict on {customers}",
        "quit",
        "this line is never read",
    ])
    done = pipesmith("chat", "--runs", str(runs), "--kb", str(tmp_path / "kb"),
                     stdin=script + "\n", env=env)
    assert done.returncode == 0, done.stderr
    thread = re.search(r"continue it later with --thread (\S+)", done.stderr).group(1)
    said = replies(done.stdout)
    assert len(said) == 9, done.stdout
    assert said[0].startswith(f"Plan for {customers}: classification of churn")
    assert "budget 60s" in said[0] and "MB" in said[0]
    assert "metric 'r2' is for regression" in said[1]
    assert "Dropped columns: seats." in said[2]
    assert "random_forest" in said[3] and "logistic_regression" not in said[3]
    report = json.loads(next(runs.glob("*/report.json")).read_text())
    assert report["plan"]["candidates"][0]["family"] in ("hist_gradient_boosting",
                                                         "random_forest", "extra_trees")
    assert "seats" not in [c["name"] for c in report["profile"]["columns"]]
    assert said[4].startswith(f"Done ({report['status']})")
    for node in ("plan", "approve", "draft", "execute", "report"):  # run's progress lines
        assert f"] {node}" in done.stderr
    assert f"{report['score']:.4f}" in said[5]
    assert all(a["id"] in said[6] for a in report["attempts"])
    assert said[7].startswith("a2 (")
    predictions = Path(report["out_dir"]) / "customers.predictions.csv"
    assert f"written to {predictions}" in said[8]
    assert len(pd.read_csv(predictions)) == 240

    again = pipesmith("chat", "--thread", thread, "--runs", str(runs), "--kb",
                      str(tmp_path / "kb"), stdin="which model won?\n", env=env)
    assert again.returncode == 0, again.stderr
    assert f"continuing thread {thread} (9 exchanges)" in again.stderr
    assert replies(again.stdout) == [
        f"{report['final_candidate']} ({report['final_attempt']}) won with "
        f"{report['metric']} {report['score']:.4f}" + replies(again.stdout)[0].split(
            f"{report['score']:.4f}", 1)[1]]


def test_bad_input_in_the_chat_is_one_sentence_and_nothing_is_written(tmp_path, customers):
    runs = tmp_path / "runs"
    script = "\n".join([
        f"predict churn from {tmp_path}/nope.csv",
        f"predict churn from {tmp_path}/broken.parquet",
        f"predict something from {customers}",
        "the weather",
        "churn in 30 seconds",  # the answer, with words of its own: the plan is shown ...
        "use rmse",  # ... an edit that cannot apply leaves it as it was ...
        "cancel",  # ... and cancelling removes the run that never ran
        "what score did the best model get?",
    ])
    (tmp_path / "broken.parquet").write_bytes(b"\x00\x01 not a table")
    done = pipesmith("chat", "--runs", str(runs), "--no-kb", stdin=script + "\n")
    assert done.returncode == 0, done.stderr
    said = replies(done.stdout)
    assert said[0] == f"Sorry, data file not found: {tmp_path}/nope.csv."
    assert said[1].startswith(f"Sorry, cannot read {tmp_path}/broken.parquet")
    assert said[2].startswith(f"Which column of {customers} should I predict?")
    assert "churn" in said[2]
    assert said[3].startswith("Which column should I predict?")
    assert said[4].startswith(f"Plan for {customers}: classification of churn")
    assert "budget 30s" in said[4]
    assert "Not changed: metric 'rmse' is for regression, not classification" in said[5]
    assert said[6].startswith("Cancelled; nothing ran.")
    assert said[7].startswith("Tell me what to predict")
    assert len(said) == 8 and "Traceback" not in done.stderr
    assert [p.name for p in runs.iterdir()] == ["chat.sqlite"]  # no run directory


def test_run_without_target_or_words_names_the_columns(tmp_path, customers):
    done = pipesmith("run", "--data", str(customers), "--no-kb", "--out", str(tmp_path / "r"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        'error: --data needs --target COLUMN, a task in words (e.g. "predict churn") or '
        "--task clustering; columns: customer_id, tenure, seats, monthly_charges, churn"]
    unclear = pipesmith("run", "--data", str(customers), "predict the weather", "--no-kb",
                        "--out", str(tmp_path / "r"))
    assert unclear.returncode == 2 and "cannot tell which column to predict" in unclear.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_run_takes_the_task_in_words(tmp_path, customers):
    out = tmp_path / "r"
    done = pipesmith("run", "--data", str(customers),
                     "predict churn in 45 seconds, drop column seats", "--no-kb", "--out",
                     str(out), env={"PIPESMITH_MAX_CANDIDATES": "1", "PIPESMITH_N_JOBS": "1"})
    assert done.returncode == 0, done.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["target"] == "churn" and report["task_text"].startswith("predict churn")
    assert json.loads((out / "run.json").read_text())["inputs"]["budget_s"] == 45
    clocks = re.findall(r"s / (\d+)s\]", done.stderr)  # the progress lines: [ 1.2s / 45s]
    assert clocks and set(clocks) == {"45"}, done.stderr
    assert "seats" not in [c["name"] for c in report["profile"]["columns"]]
    assert "target: churn" in done.stderr  # guessed from the words: the CLI says which


@pytest.mark.slow
def test_the_export_command_the_chat_suggests_runs(tmp_path, customers):
    from pipesmith.chat.answers import export
    from pipesmith.core.report import load_report

    out = tmp_path / "r"
    done = pipesmith("run", "--data", str(customers), "--target", "churn", "--no-kb", "--out",
                     str(out), "--budget", "60", "-q",
                     env={"PIPESMITH_MAX_CANDIDATES": "1", "PIPESMITH_N_JOBS": "1"})
    assert done.returncode == 0, done.stderr
    said = export(load_report(out / "report.json"), None)
    pipeline = (out / "pipeline.py").read_text()
    assert "plain scikit-learn" not in said and "plain scikit-learn" not in pipeline
    assert pipeline.startswith("# pipeline.py of run ") and "scikit-learn" in pipeline[:400]
    command = shlex.split(re.search(r"`(pipesmith export [^`]+)`", said).group(1))
    exported = pipesmith(*command[1:])
    assert exported.returncode == 0, exported.stderr[-2000:]
    assert (tmp_path / "r-bundle" / "predict.py").is_file()


@pytest.mark.slow
def test_in_llm_mode_the_model_reads_the_request_and_answers_what_rules_do_not(
        tmp_path, customers):
    from pipesmith.chat.thread import Conversation
    from tests.agents.llm.test_llm import PLAN, REPAIRED, settings_for
    from tests.openai_standin import Reply, StandIn

    reading = json.dumps({"data_path": str(customers), "target": "churn", "task_type": None,
                          "metric": None, "budget_s": 60, "drop_columns": ["seats", "nope"],
                          "families": [], "exclude_families": ["random_forest", "forests"]})
    script = [Reply(reading, expect="Columns of the named data file"), Reply(PLAN),
              Reply(REPAIRED), Reply("It beat the dummy baseline; fine for a first try.",
                                     expect="good enough for production")]
    with StandIn(script, api_key="test-key") as server:
        chat = Conversation(settings_for(tmp_path, server.base_url))
        try:
            plan = chat.say(f"here is {customers}: who is going to leave us?")
            assert "monthly_charges" in server.requests[0]["messages"][-1]["content"]
            assert plan.startswith(f"Plan for {customers}: classification of churn")
            assert "Dropped columns: seats." in plan  # "nope" is not a column: left out
            assert "Excluded at your request: random_forest." in plan  # "forests": no family
            done = chat.say("go")
            assert done.startswith("Done (succeeded)"), done
            said = chat.say("is this model good enough for production?")
        finally:
            chat.close()
    report = json.loads(next((tmp_path / "runs").glob("*/report.json")).read_text())
    assert said == "It beat the dummy baseline; fine for a first try."
    assert f"{report['score']:.4f}" in server.requests[-1]["messages"][-1]["content"]
    assert server.mismatches == []
