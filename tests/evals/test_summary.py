"""The eval summary's ranks (evals/summary.py)."""

from __future__ import annotations

from pipesmith.evals.summary import rank_scores


def test_ranks_compare_scores_as_the_baselines_store_them():
    # a run's unrounded accuracy and three baselines' rounded one: the same 67 of 69 rows
    tied = rank_scores({"pipesmith": 67 / 69, "hgb": 0.971014, "flaml": 0.971014,
                        "autogluon": 0.971014}, higher=True)
    assert tied == {"pipesmith": 2.5, "hgb": 2.5, "flaml": 2.5, "autogluon": 2.5}
    ranked = rank_scores({"a": 0.2, "b": None, "c": 0.1, "d": 0.2}, higher=False)
    assert ranked == {"c": 1.0, "a": 2.5, "d": 2.5, "b": 4.0}  # None after every score
