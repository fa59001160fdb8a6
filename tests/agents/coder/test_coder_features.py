"""What the offline coder makes of imbalanced classes under a balanced metric, fitted for real."""

from __future__ import annotations

import types

import numpy as np
import pandas as pd
from sklearn.metrics import balanced_accuracy_score

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.planner.agent import Planner
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.core.inputs import prepare_inputs
from pipesmith.settings import Settings


def _prepared(tmp_path, frame, target, metric):
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    inputs, dev = prepare_inputs(tmp_path / "run", data=path, target=target, metric=metric,
                                 settings=Settings(n_jobs=1, kb_dir=tmp_path / "kb"))
    return inputs, dev, profile_table(dev, inputs.target, inputs.task_type)


def _module(code: str) -> types.ModuleType:
    module = types.ModuleType("candidate")
    exec(compile(code, "candidate.py", "exec"), module.__dict__)
    return module


def _fitted(tmp_path, frame, target, metric, family):
    inputs, dev, profile = _prepared(tmp_path, frame, target, metric)
    plan = Planner().plan(inputs.model_copy(update={"max_candidates": 6}), profile, [])
    spec = next(c for c in plan.candidates if c.family == family)
    code = Coder().draft("a1", spec, profile, inputs).code
    pipeline = _module(code).build_pipeline({"seed": 0, "n_jobs": 1})
    train, test = dev.iloc[: len(dev) * 2 // 3], dev.iloc[len(dev) * 2 // 3:]
    pipeline.fit(train.drop(columns=[target]), train[target])
    return code, pipeline, test


def test_balanced_metrics_weigh_the_rare_class(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(1500, 3))
    rare = (x[:, 0] + rng.normal(scale=1.0, size=1500)) > 2.0  # about 5% of rows
    frame = pd.DataFrame(x, columns=["a", "b", "c"]).assign(
        label=np.where(rare, "bad", "good"))
    code, pipeline, test = _fitted(tmp_path, frame, "label", "balanced_accuracy",
                                   "logistic_regression")
    assert "class_weight='balanced'" in code
    weighted = balanced_accuracy_score(test["label"],
                                       pipeline.predict(test.drop(columns=["label"])))
    code, pipeline, test = _fitted(tmp_path / "acc", frame, "label", "accuracy",
                                   "logistic_regression")
    assert "class_weight" not in code  # accuracy rewards the majority: no weights
    plain = balanced_accuracy_score(test["label"], pipeline.predict(test.drop(columns=["label"])))
    assert weighted > plain + 0.05


def test_gradient_boosting_splits_categories_as_categories(tmp_path):
    # the level decides the target through an arbitrary mapping of names: an ordinal code
    # (alphabetical) orders the levels wrongly, a categorical split does not care
    rng = np.random.default_rng(0)
    levels = [f"L{i:02d}" for i in range(40)]
    good = set(rng.choice(levels, 20, replace=False))
    n = 1200
    frame = pd.DataFrame({
        "level": rng.choice(levels, n),
        "ticket": [f"T{i}" for i in rng.integers(0, 400, n)],  # too many levels for a split
        "noise": rng.normal(size=n)})
    frame["y"] = np.where(frame["level"].isin(good), "yes", "no")
    inputs, dev, profile = _prepared(tmp_path, frame, "y", "accuracy")
    spec = next(c for c in Planner().plan(inputs, profile, []).candidates
                if c.family == "hist_gradient_boosting")
    module = _module(Coder().draft("a1", spec, profile, inputs).code)
    assert module.FEW_LEVEL_COLUMNS == ["level"]  # "ticket" has 400 levels: it stays numeric
    pipeline = module.build_pipeline({"seed": 0, "n_jobs": 1})
    model = pipeline.named_steps["model"]
    start = len(module.NUMERIC_COLUMNS)
    assert model.categorical_features == [start + module.CATEGORICAL_COLUMNS.index("level")]
    train, test = dev.iloc[:800], dev.iloc[800:]
    pipeline.fit(train.drop(columns=["y"]), train["y"])
    assert model.is_categorical_.sum() == 1
    # unseen and learnt levels alike: an exact rule, found by one categorical split
    assert (pipeline.predict(test.drop(columns=["y"])) == test["y"]).mean() > 0.97


def test_a_column_empty_in_the_fitted_rows_keeps_the_categorical_positions(tmp_path):
    """ames at 60 s: a rare category column (a pool's quality, 99% missing) had no value in
    the smoke run's rows, the imputer dropped it, and the default HistGradientBoosting -- the
    run's floor -- failed with "categorical_features set as integer indices must be in [0,
    n_features - 1]"."""
    rng = np.random.default_rng(0)
    n = 600
    frame = pd.DataFrame({
        # a value in the last 60 rows only
        "pool": np.where(np.arange(n) >= n - 60, rng.choice(["Gd", "Ex"], n), None),
        "zone": rng.choice(["A", "B", "C"], n),
        "area": rng.normal(size=n),
        "lot": np.where(np.arange(n) >= n - 60, rng.normal(size=n), np.nan)})
    frame["y"] = frame["area"] + (frame["zone"] == "B") + rng.normal(scale=0.1, size=n)
    inputs, dev, profile = _prepared(tmp_path, frame, "y", "r2")
    spec = next(c for c in Planner().plan(inputs, profile, []).candidates
                if c.family == "hist_gradient_boosting")
    module = _module(Coder().draft("a1", spec, profile, inputs).code)
    assert module.FEW_LEVEL_COLUMNS == ["pool", "zone"] and "lot" in module.NUMERIC_COLUMNS
    assert module.CATEGORICAL_COLUMNS.index("pool") < module.CATEGORICAL_COLUMNS.index("zone")
    pipeline = module.build_pipeline({"seed": 0, "n_jobs": 1})
    empty = dev[dev["pool"].isna() & dev["lot"].isna()]  # the rows without a pool
    pipeline.fit(empty.drop(columns=["y"]), empty["y"])
    assert pipeline.score(dev.drop(columns=["y"]), dev["y"]) > 0.8
