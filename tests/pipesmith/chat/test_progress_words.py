"""The web page's progress in plain words, from hand-made graph task events."""

from __future__ import annotations

from types import SimpleNamespace as NS

from pipesmith.chat.progress_words import PlainProgress, clock

PLAN = NS(candidates=[NS(name="logistic_regression"), NS(name="random_forest")])
INPUTS = NS(budget_s=45.0)


def start(node: str, **state) -> dict:
    return {"id": "t", "name": node, "input": {"inputs": INPUTS, "plan": PLAN, **state},
            "triggers": []}


def test_a_run_reads_as_stages_candidates_and_time_left():
    words = PlainProgress()
    assert words(start("profile", plan=None), 0.5) == {
        "stage": "profiling", "text": "Looking at the data", "left": None}
    profiled = {"name": "profile", "result": {"profile": NS(n_rows=150, n_columns=4)}}
    assert words(profiled, 1.0)["text"] == "The data has 150 rows and 4 feature columns"
    planned = words({"name": "plan", "result": {"plan": PLAN}}, 1.2)
    assert planned["stage"] == "planning" and planned["left"] is None  # before approval
    assert planned["text"] == "Planned 2 candidate models: logistic_regression, random_forest"
    drafting = words(start("draft", next_index=1), 5.0)
    assert drafting == {"stage": "candidates", "left": "40s left of 45s",
                        "text": "Writing the code of candidate 2 of 2 (random_forest)"}
    current = NS(name="random_forest", phase="draft")
    assert words(start("execute", current=current), 6.0)["text"] == (
        "Training and cross-validating candidate 2 of 2 (random_forest)")
    ran = NS(candidate="random_forest", phase="draft", status="ok", score=0.91234, wall_s=3.2)
    assert words({"name": "execute", "result": {"attempts": {"a2": ran}}}, 9.4)["text"] == (
        "Candidate 2 of 2 (random_forest) scored 0.9123 in 3s")
    failed = NS(candidate="logistic_regression", phase="draft", status="timeout", score=None,
                wall_s=12.0)
    assert words({"name": "execute", "result": {"attempts": {"a1": failed}}}, 20.0)["text"] \
        == "Candidate 1 of 2 (logistic_regression) did not finish (timeout) in 12s"
    final = words(start("report"), 50.0)
    assert final["stage"] == "final fit" and final["left"] == "over the 45s budget by 5s"


def test_no_line_for_internal_steps_and_a_failure_is_said():
    words = PlainProgress()
    assert words(start("approve"), 0.1) is None
    assert words(start("setup"), 0.1) is None
    assert words({"name": "prevalidate", "result": {"attempts": {}}}, 1.0) is None
    failed = words({"name": "search", "error": "ValueError('x')"}, 1.0)
    assert failed["stage"] == "search"
    assert failed["text"] == "A step failed (search): ValueError('x')"
    blend = words(start("execute", current=NS(name="ensemble", phase="ensemble")), 2.0)
    assert blend["stage"] == "candidates" and blend["text"].endswith("the blend")
    assert "execute" not in str(blend) and "prevalidate" not in str(
        words(start("prevalidate", current=NS(name="random_forest", phase="repair")), 2.0))


def test_clock_words():
    assert clock(10.2, 60) == "50s left of 60s"
    assert clock(61, 60) == "over the 60s budget by 1s"
    assert clock(3, None) is None
