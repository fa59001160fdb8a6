"""The boosting libraries' refusals repaired from what their message names (#25), each on a
small real script with the installed library."""

from __future__ import annotations

import pytest

from pipesmith.agents.repair import table
from tests.agents.repair.sandboxed import repaired_here

FRAME = """\
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
n = 240
frame = pd.DataFrame({"size": rng.normal(size=n), "colour": rng.choice(["red", "blue"], n),
                      "age": rng.integers(1, 80, n)})
y = ((frame["colour"] == "red") & (frame["size"] > 0)).astype(int)
"""


def test_catboost_parameter_twins_keep_the_library_name_and_report_a_lost_value():
    pytest.importorskip("catboost")
    code = FRAME + (
        "from catboost import CatBoostClassifier\n"
        "shared = {'max_depth': 4}\n"
        "defaults = {'iterations': 20, 'depth': 6, 'verbose': 0, 'allow_writing_files': False}\n"
        "model = CatBoostClassifier(**defaults, **shared)\n"
        "model.fit(frame, y, cat_features=['colour'])\n")
    new, diagnosis = repaired_here(code, "one_of_parameters")
    assert diagnosis.taxonomy_class == "library"
    assert "shared = {}" in new and "'depth': 6" in new
    notes = table.caveats("one_of_parameters", "library.catboost", code, new, diagnosis)
    assert len(notes) == 1 and "dropped max_depth=4" in notes[0]


def test_catboost_silent_twins_lose_nothing():
    pytest.importorskip("catboost")
    code = FRAME + (
        "from catboost import CatBoostClassifier\n"
        "model = CatBoostClassifier(iterations=20, verbose=0, logging_level='Silent',\n"
        "                           allow_writing_files=False)\n"
        "model.fit(frame, y, cat_features=['colour'])\n")
    new, diagnosis = repaired_here(code, "one_of_parameters")
    assert "logging_level" not in new and "verbose=0" in new
    assert table.caveats("one_of_parameters", "library.catboost", code, new, diagnosis) == []


@pytest.mark.parametrize("setup, fit", [
    # positions taken from a wider frame point past the fitted one
    ("cat_idx = [frame.columns.get_loc('colour'), 3]\n", "cat_features=cat_idx"),
    # a category column CatBoost was not told about
    ("frame['colour'] = frame['colour'].astype('category')\n", ""),
])
def test_catboost_cat_features_become_the_fitted_frames_text_columns(setup, fit):
    pytest.importorskip("catboost")
    code = FRAME + setup + (
        "from catboost import CatBoostClassifier\n"
        "model = CatBoostClassifier(iterations=20, verbose=0, allow_writing_files=False)\n"
        f"model.fit(frame, y{', ' + fit if fit else ''})\n"
        "assert model.get_cat_feature_indices() == [1]\n")
    new, diagnosis = repaired_here(code, "declare_cat_features")
    assert "cat_features=_pipesmith_cat_columns(frame)" in new


@pytest.mark.parametrize("library, params, train", [
    ("lightgbm", "{'objective': 'multiclass', 'verbose': -1, 'num_threads': 1}",
     "lib.train(params, lib.Dataset(X, label=y), num_boost_round=10)"),
    ("xgboost", "{'objective': 'multi:softprob', 'nthread': 1}",
     "lib.train(params, lib.DMatrix(X, label=y), num_boost_round=10)"),
])
def test_multiclass_booster_gets_num_class_from_its_labels(library, params, train):
    pytest.importorskip(library)
    code = (f"import {library} as lib\n"
            "from sklearn.datasets import load_iris\n"
            "X, y = load_iris(return_X_y=True)\n"
            f"params = {params}\n"
            f"booster = {train}\n"
            "pred = booster.predict(X[:20] if 'lightgbm' == lib.__name__ else lib.DMatrix(X))\n"
            "assert pred.shape[1] == 3, pred.shape\n")
    new, diagnosis = repaired_here(code, "add_num_class")
    assert '{**params, "num_class": int(max(y)) + 1}' in new


def test_a_prediction_frame_loses_the_columns_the_training_frame_dropped():
    pytest.importorskip("lightgbm")
    code = FRAME + (
        "import lightgbm as lgb\n"
        "frame['target'] = y\n"
        "frame['row_id'] = range(n)\n"
        "frame = frame[['size', 'age', 'row_id', 'target']]\n"
        "X_train = frame.drop(columns=['target', 'row_id']).to_numpy()\n"
        "booster = lgb.train({'objective': 'binary', 'verbose': -1, 'num_threads': 1},\n"
        "                    lgb.Dataset(X_train, label=y), num_boost_round=10)\n"
        "test = frame.iloc[:30]\n"
        "proba = booster.predict(test.to_numpy())\n"
        "assert proba.shape == (30,)\n")
    new, diagnosis = repaired_here(code, "predict_without_dropped")
    assert "booster.predict(test.drop(columns=['target', 'row_id'], " \
           "errors=\"ignore\").to_numpy())" in new


def test_a_booster_given_a_frame_gets_the_container_the_message_names():
    pytest.importorskip("xgboost")
    code = FRAME + (
        "import xgboost as xgb\n"
        "X = frame[['size', 'age']]\n"
        "bst = xgb.train({'objective': 'binary:logistic', 'nthread': 1},\n"
        "                xgb.DMatrix(X, label=y), num_boost_round=10)\n"
        "proba = bst.predict(X)\n"
        "assert proba.shape == (240,)\n")
    new, diagnosis = repaired_here(code, "wrap_input_type")
    assert diagnosis.subclass == "input_type"
    assert "bst.predict(xgb.DMatrix(X))" in new
