"""The issue's own chat phrasings, end to end through the real thread code (one real,
short run: real sandbox, real scikit-learn): families excluded and restricted in words,
columns dropped in the same sentence, a strung approval, a new run from a change said
after a result, and the questions answered from the report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pipesmith.chat.answers import HELP
from pipesmith.chat.thread import Conversation
from pipesmith.settings import Settings

TREES = {"hist_gradient_boosting", "random_forest", "extra_trees", "lightgbm", "xgboost",
         "catboost"}


@pytest.fixture
def customers(tmp_path) -> Path:
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame({"customer_id": range(n), "tenure": rng.integers(1, 60, n),
                          "seats": rng.integers(1, 10, n),
                          "monthly_charges": rng.normal(50, 10, n).round(2)})
    risk = (frame.tenure < 25).astype(int) + (frame.monthly_charges > 55) + rng.normal(0, .6, n)
    frame["churn"] = np.where(risk > 1.0, "yes", "no")
    path = tmp_path / "customers.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.slow  # one real run of a 20 s budget, a short search
def test_the_issues_phrasings_through_the_chat(tmp_path, customers):
    settings = Settings(runs_dir=tmp_path / "runs", use_kb=False, max_candidates=3, n_jobs=1,
                        cv_folds=2, search_share=0.2, permutation_control=False)
    chat = Conversation(settings)
    try:
        plan = chat.say(f"predict churn from {customers} in 20 seconds")
        assert plan.startswith(f"Plan for {customers}: classification of churn")
        assert "(random_forest)" in plan  # planned until the person says otherwise
        excluded = chat.say("exclude random_forest")
        assert "Excluded at your request: random_forest." in excluded
        assert "(random_forest)" not in excluded
        both = chat.say("no random forests please, and don't use seats or customer_id")
        assert "Dropped columns: customer_id, seats." in both
        assert "Excluded at your request: random_forest." in both
        done = chat.say("looks good, go")
        assert done.startswith("Done (succeeded)"), done
        first = Path(chat.state()["runs"][-1])
        report = json.loads((first / "report.json").read_text())
        assert "random_forest" not in {c["family"] for c in report["plan"]["candidates"]}
        assert {c["name"] for c in report["profile"]["columns"]} & {"seats", "customer_id"} \
            == set()
        rows = {r["family"]: r for r in report["leaderboard"]}
        assert rows["random_forest"]["why_not_chosen"] == "not planned: the person excluded it"

        why = chat.say("why did you pick this model?")
        assert why.startswith(f"I picked {report['final_candidate']}")
        features = chat.say("what are the most important features?")
        assert features != HELP and ("tenure" in features or "no feature importances"
                                     in features)
        not_rf = chat.say("why didn't you try random forests?")
        assert not_rf == "You excluded random_forest, so I neither planned nor searched it."
        not_lr = chat.say("why didn't you try logistic regression?")
        assert not_lr.startswith("logistic_regression") and not_lr != HELP

        again = chat.say("now try it with only tree models and 40 seconds")
        assert again.startswith(f"Plan for {customers}: classification of churn"), again
        assert "budget 40s" in again and "Excluded at your request: random_forest." in again
        second = Path(chat.state()["active"])
        assert second != first
        inputs = json.loads((second / "run.json").read_text())["inputs"]
        assert inputs["budget_s"] == 40 and set(inputs["families"]) == TREES
        assert inputs["excluded_families"] == ["random_forest"]
        assert inputs["dropped_columns"] == ["customer_id", "seats"]
        planned = {c["family"] for c in chat.state()["plan"]["candidates"]}
        assert planned and planned <= TREES - {"random_forest"}
    finally:
        chat.close()


def test_an_unknown_thread_is_exit_2_and_one_line(tmp_path):
    runs = tmp_path / "runs"
    done = subprocess.run([sys.executable, "-m", "pipesmith.cli", "chat", "--thread",
                           "nope-123", "--runs", str(runs), "--no-kb"], input="hello\n",
                          capture_output=True, text=True, timeout=120, env={**os.environ})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "no conversation 'nope-123'" in done.stderr
    assert not runs.exists()  # nothing made to find out


def test_the_page_answers_an_unknown_thread_with_a_json_404(tmp_path):
    from fastapi.testclient import TestClient

    from pipesmith.chat.web import create_app

    settings = Settings(runs_dir=tmp_path / "runs", use_kb=False)
    old = Conversation(settings, "kept-1")  # said before this server started
    try:
        old.say("hello")
    finally:
        old.close()
    with TestClient(create_app(settings)) as client:
        for answer in (client.get("/api/threads/nope-123"),
                       client.post("/api/threads/nope-123/messages", json={"text": "hi"}),
                       client.get("/api/threads/nope-123/events")):
            assert answer.status_code == 404
            assert answer.headers["content-type"] == "application/json"
            assert answer.json() == {"detail": "no conversation 'nope-123'; start one with "
                                               "POST /api/threads"}
        assert not (settings.runs_dir / "chat-logs" / "nope-123.jsonl").exists()
        kept = client.get("/api/threads/kept-1")
        assert kept.status_code == 200 and kept.json()["messages"][0]["text"] == "hello"
        new = client.post("/api/threads").json()["thread_id"]
        assert client.get(f"/api/threads/{new}").status_code == 200
