"""Keywords a library moved to the constructor or to callbacks follow the live library
instead of being dropped (#25)."""

from __future__ import annotations

import pytest

from pipesmith.agents.repair.patches.keyword_moves import best_factory, callback_factories
from tests.agents.repair.sandboxed import repaired_here

DATA = ("from sklearn.datasets import make_classification\n"
        "from sklearn.model_selection import train_test_split\n"
        "X, y = make_classification(n_samples=200, n_features=5, random_state=0)\n"
        "X_fit, X_val, y_fit, y_val = train_test_split(X, y, random_state=0)\n")


def test_lightgbm_fit_keywords_become_callbacks_and_early_stopping_still_stops():
    pytest.importorskip("lightgbm")
    code = DATA + (
        "from lightgbm import LGBMClassifier\n"
        "model = LGBMClassifier(n_estimators=400, verbose=-1, n_jobs=1)\n"
        "model.fit(X_fit, y_fit, eval_set=[(X_val, y_val)], early_stopping_rounds=5,"
        " verbose=False)\n"
        "assert model.best_iteration_ < 400, model.best_iteration_\n")
    new, diagnosis = repaired_here(code, "move_keyword")
    assert "callbacks=[_lightgbm.early_stopping(5, verbose=False)]" in new
    assert "import lightgbm as _lightgbm" in new
    assert diagnosis.subclass == "unexpected_keyword"


def test_lightgbm_train_keywords_become_callbacks_through_the_codes_alias():
    pytest.importorskip("lightgbm")
    code = DATA + (
        "import lightgbm as lgb\n"
        "dtrain = lgb.Dataset(X_fit, y_fit)\n"
        "dval = lgb.Dataset(X_val, y_val, reference=dtrain)\n"
        "booster = lgb.train({'objective': 'binary', 'verbose': -1, 'num_threads': 1}, dtrain,"
        " num_boost_round=400, valid_sets=[dval], verbose_eval=False,"
        " early_stopping_rounds=5)\n"
        "assert booster.best_iteration < 400\n")
    new, diagnosis = repaired_here(code, "move_keyword")
    assert "callbacks=[lgb.log_evaluation(False), lgb.early_stopping(5)]" in new
    assert diagnosis.subclass == "unexpected_keyword"


def test_xgboost_early_stopping_moves_to_the_constructor_that_declares_it():
    pytest.importorskip("xgboost")
    code = DATA + (
        "from xgboost import XGBClassifier\n"
        "model = XGBClassifier(n_estimators=400, n_jobs=1)\n"
        "model.fit(X_fit, y_fit, eval_set=[(X_val, y_val)], early_stopping_rounds=5,"
        " verbose=False)\n"
        "assert model.best_iteration < 399, model.best_iteration\n")
    new, diagnosis = repaired_here(code, "move_keyword")
    assert "XGBClassifier(n_estimators=400, n_jobs=1, early_stopping_rounds=5)" in new
    assert "early_stopping_rounds" not in new.splitlines()[-2]
    assert diagnosis.subclass == "unexpected_keyword"


def test_a_keyword_no_callback_covers_is_left_for_fix_keyword():
    pytest.importorskip("lightgbm")
    factories = callback_factories("lightgbm")
    assert best_factory("early_stopping_rounds", factories) == "early_stopping"
    assert best_factory("verbose_eval", factories) == "log_evaluation"
    assert best_factory("eval_metric", factories) is None  # a parameter, not a callback
