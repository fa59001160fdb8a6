"""What a large table's run tells the person about the rows it used (report.json
`rows_used`, report.md and the progress lines; graph/rows.py decides them)."""

from __future__ import annotations

from pipesmith.agents.schemas import Attempt, DataProfile, RefitOutcome, RunInputs
from pipesmith.core.report import rows_used
from pipesmith.runtime.progress import describe

INPUTS = RunInputs(run_id="r", task_text="t", dataset="d", data_path="p", target="y",
                   task_type="classification", metric="accuracy", out_dir="o")
PROFILE = DataProfile(n_rows=800_000, n_columns=2, columns=[], target="y")


def test_a_sampled_run_says_how_many_rows_it_cross_validated_and_refit_on():
    sampled = INPUTS.model_copy(update={"cv_rows": 50_000})
    refit = RefitOutcome(status="ok", n_dev=410_000, sampled_from=800_000)
    used = rows_used(sampled, PROFILE, refit)
    assert (used.development, used.cross_validation, used.refit) == (800_000, 50_000, 410_000)
    assert used.notes == [
        "cross-validated on 50,000 of 800,000 development rows to fit the budget",
        "refit on 410,000 of 800,000 development rows to fit the budget"]
    # a refit on every row adds no note; a failed one fitted nothing
    whole = rows_used(sampled, PROFILE, RefitOutcome(status="ok", n_dev=800_000))
    assert whole.refit == 800_000 and len(whole.notes) == 1
    assert rows_used(sampled, PROFILE, RefitOutcome(status="timeout")).refit is None
    # every row used: nothing to say
    assert rows_used(INPUTS, PROFILE, refit) is None


def test_the_progress_lines_say_it_as_it_happens():
    ran = Attempt(id="a1", parent=None, candidate="hist_gradient_boosting", phase="draft",
                  status="ok", score=0.95, wall_s=8.0, peak_mem_mb=160.0)
    line = describe("execute", {"attempts": {"a1": ran},
                                "inputs": INPUTS.model_copy(update={"cv_rows": 50_000})})
    assert line.endswith("cross-validated on a sample of 50,000 rows to fit the budget")
    assert "sample" not in describe("execute", {"attempts": {"a1": ran}})
    refit = RefitOutcome(status="ok", n_dev=410_000, sampled_from=800_000)
    assert describe("report", {"report_path": "r.json", "refit": refit}).endswith(
        "refit on 410,000 of 800,000 rows to fit the budget")
