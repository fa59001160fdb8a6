"""How many development rows the time affords is a pure function (graph/rows.py)."""

from __future__ import annotations

from pipesmith.graph import rows


def linear(per_row_s: float, start_s: float = 2.0):
    """A job's seconds, growing with its training rows like a histogram boosting fit."""
    return lambda train: start_s + per_row_s * train


def test_all_rows_when_the_folds_and_the_refit_fit_the_time():
    job = linear(1e-5)  # 640,000 training rows: 8.4 s; the refit of 800,000: 10 s
    assert rows.cv_rows(800_000, 60.0, job, job, folds=1, workers=2) is None
    # a table too small to sample is never sampled, whatever the time
    assert rows.cv_rows(15_000, 1.0, job, job, folds=5, workers=2) is None


def test_a_large_table_cross_validates_on_the_most_rows_its_share_of_the_time_allows():
    job = linear(5e-5)  # 640,000 training rows: 34 s, and a refit of 800,000 rows: 42 s
    sampled = rows.cv_rows(800_000, 60.0, job, job, folds=1, workers=2)
    # its folds take at most 30% of the 60 s: 2 + 5e-5 x 0.8 x rows <= 18 s
    assert sampled == 400_000
    assert sampled % rows.RULES.step_rows == 0
    assert job(rows.train_rows(sampled, 1)) <= rows.RULES.cv_share * 60.0
    assert job(rows.train_rows(sampled + rows.RULES.step_rows, 1)) > rows.RULES.cv_share * 60.0
    # K folds, two at a time: three rounds of fold jobs share the same 18 s
    five = rows.cv_rows(800_000, 60.0, job, job, folds=5, workers=2)
    assert 3 * job(rows.train_rows(five, 5)) <= 18.0 < 3 * job(rows.train_rows(five + 10_000, 5))
    # and however short the time, never fewer than the rules' floor
    assert rows.cv_rows(800_000, 1.0, job, job, folds=1, workers=2) == rows.RULES.min_rows


def test_the_refit_takes_every_row_the_time_left_affords_from_the_finals_own_fits():
    # the final's fold job: 10 s on 160,000 training rows, 2 s of it a job's start
    assert abs(rows.refit_s(800_000, 10.0, 160_000, 2.0) - (2.0 + 1.5 * 8.0 * 5)) < 1e-9
    assert rows.refit_rows(800_000, 70.0, 10.0, 160_000, 2.0) is None  # 62 s: all rows
    fitted = rows.refit_rows(800_000, 40.0, 10.0, 160_000, 2.0, floor_rows=200_000)
    assert fitted == 500_000  # 2 + 7.5e-5 x 500,000 = 39.5 s
    assert rows.refit_s(fitted, 10.0, 160_000, 2.0) <= 40.0 < rows.refit_s(
        fitted + rows.RULES.step_rows, 10.0, 160_000, 2.0)
    # never fewer rows than the candidate was cross-validated on
    assert rows.refit_rows(800_000, 5.0, 10.0, 160_000, 2.0, floor_rows=200_000) == 200_000


def test_the_person_reads_what_was_done_in_words():
    assert rows.note("cross-validated", 200_000, 800_000) == \
        "cross-validated on 200,000 of 800,000 development rows to fit the budget"


def test_what_does_not_grow_with_the_rows_is_a_fresh_jobs_start():
    from pipesmith.agents.schemas import Attempt

    # measured at 1,000,000 rows (docs/figures.md): a fold job on 40,000 of a 50,000-row
    # sample took 8.04 s, its smoke run's fresh job 3.70 s; the refit on 410,000 rows then
    # took 71.2 s, its fit 43.0 s of it (reading, predicting and writing rows grow too)
    measured = Attempt(id="a1", parent=None, candidate="hgb", phase="draft", status="ok",
                       fold_wall_s=8.04, smoke_s=3.70)
    assert rows.fixed_s(measured) == 3.70
    predicted = rows.refit_s(410_000, 8.04, rows.train_rows(50_000, 1), rows.fixed_s(measured))
    assert abs(predicted - 71.2) < 0.1 * 71.2
    # a fold job quicker than its smoke run (the load rose in between): half of the job
    # still grows with the rows, so more rows never come free
    busy = measured.model_copy(update={"fold_wall_s": 7.8, "smoke_s": 9.9})
    assert rows.fixed_s(busy) == 3.9
    assert abs(rows.refit_s(800_000, 7.8, 16_000, rows.fixed_s(busy))
               - (3.9 + 1.5 * 3.9 * 50)) < 1e-6
