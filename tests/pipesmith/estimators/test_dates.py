"""Date columns are features (year, month, day, day of week, days since 1970), not dropped:
the offline coder's modules pass them through DateFeatures (session 3's `full` lost to
FLAML on cars, R2 0.73 vs 0.89, because the model year was dropped)."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd


def _frame(n=120):
    rng = np.random.default_rng(0)
    years = rng.integers(1970, 1983, n)
    return pd.DataFrame({
        "weight": rng.normal(3000, 500, n),
        "year": [f"{y}-01-01" for y in years],
        "origin": rng.choice(["USA", "Europe", "Japan"], n),
        "mpg": 0.8 * (years - 1970) - 0.004 * rng.normal(3000, 500, n) + 30,
    })


def test_date_features_turn_dates_into_numbers_and_pickle_by_reference():
    from pipesmith.estimators import DateFeatures

    X = pd.DataFrame({"when": ["2020-03-01", "not a date", None, "2021-06-01T10:00:00+02:00"]})
    out = DateFeatures().fit(X).transform(X)
    assert out.shape == (4, 5) and out[0, :4].tolist() == [2020, 3, 1, 6]
    assert np.isnan(out[1:3]).all() and out[3, :3].tolist() == [2021, 6, 1]
    assert b"pipesmith.estimators.dates" in pickle.dumps(DateFeatures().fit(X))


def test_the_offline_coder_uses_date_columns_as_features(tmp_path):
    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.families.registry import get_family
    from pipesmith.agents.planner.profiler import profile_table
    from pipesmith.agents.prevalidator.agent import Prevalidator, blocking
    from pipesmith.agents.schemas import CandidateSpec
    from pipesmith.core.inputs import prepare_inputs
    from pipesmith.sandbox.harness import load_candidate
    from pipesmith.settings import Settings

    _frame().to_csv(tmp_path / "cars.csv", index=False)
    inputs, frame = prepare_inputs(tmp_path / "run", data=tmp_path / "cars.csv", target="mpg",
                                   task="regression", metric="r2",
                                   settings=Settings(n_jobs=1, kb_dir=tmp_path / "kb"))
    profile = profile_table(frame, inputs.target, inputs.task_type)
    assert profile.names("datetime") == ["year"]
    family = get_family("regression", "ridge")
    code = Coder().draft("a1", CandidateSpec(name="ridge", family="ridge", params=family.params,
                                             scale=True, encoding="onehot"),
                         profile, inputs).code
    assert "DATETIME_COLUMNS = ['year']" in code and "DROPPED_COLUMNS = []" in code
    assert blocking(Prevalidator().check(code, profile.table_columns)) == []
    (tmp_path / "m.py").write_text(code)
    pipeline = load_candidate(tmp_path / "m.py").build_pipeline({"seed": 0, "n_jobs": 1})
    X, y = frame.drop(columns=["mpg"]), frame["mpg"]
    with_year = pipeline.fit(X, y).score(X, y)
    without = load_candidate(tmp_path / "m.py").build_pipeline({"seed": 0, "n_jobs": 1}) \
        .fit(X.assign(year=None), y).score(X.assign(year=None), y)
    assert with_year > without + 0.2  # the year carries most of the signal here
