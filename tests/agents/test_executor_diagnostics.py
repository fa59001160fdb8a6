"""What the executor takes from a job's diagnostics.json: the job wrote it, so only
sanitised, capped values reach the report (the refit's estimator class included)."""

from __future__ import annotations

import json

from pipesmith.agents.executor import ESTIMATOR_CHARS, read_diagnostics
from pipesmith.sandbox.harness import final_step


def test_the_estimator_a_job_claims_is_reduced_to_a_short_identifier(tmp_path):
    (tmp_path / "diagnostics.json").write_text(json.dumps(
        {"estimator": "Lookup\n<b>rejected?</b> " + "x" * 500, "fit_s": 1.5}))
    read = read_diagnostics(tmp_path)
    assert read["estimator"].startswith("Lookupbrejectedb")
    assert len(read["estimator"]) == ESTIMATOR_CHARS and read["fit_s"] == 1.5
    (tmp_path / "diagnostics.json").write_text(json.dumps({"estimator": ["not", "text"]}))
    assert "estimator" not in read_diagnostics(tmp_path)


def test_the_harness_names_a_pipelines_last_step():
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    class Odd:
        steps = None  # not a pipeline's

    assert final_step(make_pipeline(StandardScaler(), Ridge())) == "Ridge"
    assert final_step(Odd()) == "Odd"
