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
