"""A large table's sampled rows (agents/executor.py, graph/rows.py): every candidate is
cross-validated on the run's one seeded sample, and the refit on the rows it is given,
scored on the whole untouched test part. Real sandbox, the offline coder's module."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.executor import Executor, cv_development, load_oof
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.schemas import CandidateSpec
from tests.conftest import make_inputs


@pytest.mark.slow
def test_candidates_share_the_runs_sample_and_the_refit_fits_the_rows_it_is_given(
        tmp_path, sandbox):
    inputs, dev = make_inputs(tmp_path, "breast_cancer", out_dir=str(tmp_path),
                              cv_folds=1, cv_rows=200)
    sample = cv_development(inputs)
    assert len(sample) == 200 and len(dev) > 200
    # stratified: the sample keeps the development part's class shares
    assert sample[inputs.target].mean() == pytest.approx(dev[inputs.target].mean(), abs=0.01)
    assert cv_development(inputs).equals(sample)  # seeded: the same rows for every candidate

    profile = profile_table(dev, inputs.target, inputs.task_type)
    executor = Executor(sandbox)
    oofs = []
    for n, family in enumerate(("logistic_regression", "random_forest")):
        spec = CandidateSpec(name=family, family=family, encoding="onehot",
                             scale=family == "logistic_regression")
        candidate = Coder().draft(f"a{n + 1}", spec, profile, inputs)
        result, metrics = executor.run(candidate, inputs, tmp_path / f"a{n + 1}", 60.0)
        assert result.ok, result.stderr[-2000:]
        assert metrics["n_val"] == 40  # the holdout fold: 20% of the 200 sampled rows
        oofs.append(load_oof(tmp_path / f"a{n + 1}"))
    # the out-of-fold rows line up, so the ensembler can combine them
    assert np.array_equal(oofs[0]["index"], oofs[1]["index"])
    assert np.array_equal(oofs[0]["y_true"], sample[inputs.target].to_numpy()[oofs[0]["index"]])

    result, scores = executor.refit(candidate, inputs, tmp_path / "refit", 60.0, rows=300)
    assert result.ok, result.stderr[-2000:]
    assert (scores["n_dev"], scores["sampled_from"]) == (300, len(dev))
    assert scores["n_test"] == len(pd.read_parquet(inputs.test_path))  # every test row
    assert scores["test_score"] > 0.8
    _, every = executor.refit(candidate, inputs, tmp_path / "refit_all", 60.0)
    assert (every["n_dev"], every["sampled_from"]) == (len(dev), None)

