"""The permutation control's fits on a large table (agents/executor.py permuted): a seeded
sample of permutation.MAX_ROWS rows, which still exposes a pipeline that looks up the
labels of the rows it predicts. Real sandbox, real module."""

from __future__ import annotations

import pytest

from pipesmith.agents.executor import Executor
from pipesmith.agents.schemas import Candidate
from pipesmith.core import permutation
from tests.conftest import make_inputs
from tests.graph.test_permutation_control import lookup_code


@pytest.mark.slow
def test_a_large_table_is_controlled_on_a_sample_that_still_catches_a_lookup(
        tmp_path, sandbox, monkeypatch):
    monkeypatch.setattr(permutation, "MAX_ROWS", 240)  # breast_cancer's 455 rows: "large"
    inputs, dev = make_inputs(tmp_path, "breast_cancer", out_dir=str(tmp_path), cv_folds=3)
    assert len(dev) > permutation.MAX_ROWS
    cheat = Candidate(id="a1", name="lookup", phase="draft", code=lookup_code())
    result, measured = Executor(sandbox, warm=True).permuted(cheat, inputs,
                                                            tmp_path / "control", 60.0)
    assert result.ok and result.backend != "warm"  # fold jobs on the sample's own folds
    assert measured["folds"] == permutation.COLD_FOLDS
    assert measured["n_val"] == pytest.approx(240 / 3, abs=2)  # one third of the sample
    verdict, _, z = permutation.judge(inputs.metric, measured["score"],
                                      measured["baseline_score"], measured["null_mean"],
                                      measured["null_sd"], 1.0, 0.6)
    assert verdict == "rejected" and z > permutation.Z


# A fit that takes `seconds` whatever it is given.
SLEEPY_FIT = '''
import time

import numpy as np


class Slow:
    def fit(self, X, y):
        time.sleep({seconds})
        self.classes_ = np.unique(np.asarray(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def build_pipeline(task):
    return Slow()
'''


def test_the_controls_time_limit_bounds_all_its_folds_not_each(tmp_path, sandbox):
    # one job at a time (n_jobs=1): the control's two folds run in turn, so a 3 s limit
    # leaves each 1.5 s, and a 2 s fit is past it (given 3 s each, both fits would pass)
    inputs, _ = make_inputs(tmp_path, "iris", out_dir=str(tmp_path), cv_folds=3)
    assert inputs.n_jobs == 1
    quick = Candidate(id="a1", name="quick", phase="draft", code=SLEEPY_FIT.format(seconds=0))
    slow = Candidate(id="a2", name="slow", phase="draft", code=SLEEPY_FIT.format(seconds=2))
    executor = Executor(sandbox, warm=True)
    try:
        assert executor.run(quick, inputs, tmp_path / "a1", 60.0)[0].backend == "warm"
        result, measured = executor.permuted(slow, inputs, tmp_path / "control", 3.0)
    finally:
        executor.close()
    assert result.backend == "warm" and result.status == "timeout" and measured is None
