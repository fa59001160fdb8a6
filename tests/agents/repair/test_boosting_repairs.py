"""The boosting libraries' refusals repaired end to end by `pipesmith repair` on small real
scripts (#25): XGBoost's labels must be 0..k-1, CatBoost's categorical features hold no NaN."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

XGBOOST_LABELS = """\
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from xgboost import XGBClassifier

X, y = make_classification(n_samples=150, n_features=4, n_informative=3, n_redundant=0,
                           n_classes=3, random_state=0)
y = y + 1  # classes numbered from 1, as in the source data
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0, stratify=y)
model = XGBClassifier(n_estimators=20, max_depth=3)
model.fit(X_train, y_train)
pred = model.predict(X_test)
assert set(pred) <= {1, 2, 3}, set(pred)  # the original labels come back
print(f"score={(pred == y_test).mean():.3f}")
"""

CATBOOST_NAN = """\
import numpy as np
import pandas as pd
from catboost import CatBoostClassifier

rng = np.random.default_rng(0)
colour = rng.choice(["red", "blue", None], size=200)
size = rng.normal(size=200)
frame = pd.DataFrame({"colour": colour, "size": size})
y = ((colour == "red") | (size > 1)).astype(int)
model = CatBoostClassifier(iterations=30, verbose=0, allow_writing_files=False,
                           cat_features=["colour"])
model.fit(frame, y)
print(f"score={(model.predict(frame) == y).mean():.3f}")
"""


def _repair(tmp_path, name, code, exit_code=0):
    script = tmp_path / name
    script.write_text(code)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "pipesmith.cli", "repair", str(script),
                           "--no-kb", "--rounds", "2", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == exit_code, done.stdout + done.stderr
    return json.loads((out / "report.json").read_text()), (out / name).read_text()


def test_xgboost_labels_are_encoded_before_fit_and_decoded_after_predict(tmp_path):
    pytest.importorskip("xgboost")
    report, fixed = _repair(tmp_path, "labels.py", XGBOOST_LABELS)
    first = report["attempts"][0]["diagnosis"]
    assert (first["taxonomy_class"], first["subclass"]) == ("data_flow", "label_encoding")
    assert report["status"] == "repaired"
    assert [a["repair_action"] for a in report["attempts"]] == [None, "encode_labels"]
    assert "_pipesmith_encode_labels(XGBClassifier(" in fixed


def test_catboost_missing_categories_become_a_category(tmp_path):
    pytest.importorskip("catboost")
    report, fixed = _repair(tmp_path, "cats.py", CATBOOST_NAN)
    first = report["attempts"][0]["diagnosis"]
    assert (first["taxonomy_class"], first["subclass"]) == ("data_flow", "nan_input")
    assert report["status"] == "repaired"
    assert [a["repair_action"] for a in report["attempts"]] == [None, "fill_missing_categories"]
    assert "_pipesmith_text_nan(CatBoostClassifier(" in fixed


CATBOOST_FLOAT_CATEGORY = """\
import numpy as np
import pandas as pd
from catboost import CatBoostRegressor

rng = np.random.default_rng(0)
year = rng.integers(1950, 2010, 300).astype(float)
year[:20] = np.nan  # unknown build year
frame = pd.DataFrame({"decade": year // 10 * 10, "size": rng.normal(size=300)})
y = frame["size"] * 2 + (frame["decade"].fillna(2000) - 1950) / 10
model = CatBoostRegressor(iterations=60, depth=3, verbose=0, thread_count=1,
                          allow_writing_files=False)
model.fit(frame, y, cat_features=["decade"])
print(f"score={model.score(frame, y):.3f}")
"""

LIGHTGBM_MOVED_KEYWORDS = """\
from lightgbm import LGBMClassifier
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

X, y = make_classification(n_samples=300, n_features=6, random_state=0)
X_fit, X_val, y_fit, y_val = train_test_split(X, y, random_state=0)
model = LGBMClassifier(n_estimators=500, verbose=-1, n_jobs=1)
model.fit(X_fit, y_fit, eval_set=[(X_val, y_val)], early_stopping_rounds=5, verbose=False)
assert model.best_iteration_ < 500  # early stopping still stops
print(f"score={model.score(X_val, y_val):.3f}")
"""


def test_catboost_float_categories_with_nan_become_text_and_fit_keywords_still_arrive(
        tmp_path):
    pytest.importorskip("catboost")
    report, fixed = _repair(tmp_path, "decades.py", CATBOOST_FLOAT_CATEGORY)
    first = report["attempts"][0]["diagnosis"]
    assert (first["taxonomy_class"], first["subclass"]) == ("data_flow", "nan_input")
    assert report["status"] == "repaired"
    assert "_pipesmith_text_nan(CatBoostRegressor(" in fixed
    assert 'cat_features=["decade"]' in fixed


def test_lightgbm_keywords_moved_to_callbacks_is_a_full_repair(tmp_path):
    pytest.importorskip("lightgbm")
    report, fixed = _repair(tmp_path, "stopping.py", LIGHTGBM_MOVED_KEYWORDS)
    assert report["status"] == "repaired" and not report.get("notes")
    assert [a["repair_action"] for a in report["attempts"]] == [None, "move_keyword"]
    assert "early_stopping(5, verbose=False)" in fixed


CATBOOST_TWINS = """\
from catboost import CatBoostClassifier
from sklearn.datasets import make_classification

X, y = make_classification(n_samples=200, n_features=5, random_state=0)
tuned = {{"{twin}": {value}}}
model = CatBoostClassifier(iterations=30, {kept}, thread_count=1, allow_writing_files=False,
                           **tuned)
model.fit(X, y)
print(f"score={{model.score(X, y):.3f}}")
"""


@pytest.mark.parametrize("kept, twin, value, status", [
    ("depth=6, verbose=0", "max_depth", "4", "partial"),  # the author's 4 is lost
    ("depth=4, verbose=0", "logging_level", "'Silent'", "repaired"),  # says what verbose=0 says
])
def test_catboost_parameter_twins_through_the_loop(tmp_path, kept, twin, value, status):
    pytest.importorskip("catboost")
    code = CATBOOST_TWINS.format(kept=kept, twin=twin, value=value)
    report, fixed = _repair(tmp_path, "twins.py", code, exit_code=int(status == "partial"))
    assert report["attempts"][0]["diagnosis"]["taxonomy_class"] == "library"
    assert [a["repair_action"] for a in report["attempts"]] == [None, "one_of_parameters"]
    assert report["status"] == status and twin not in fixed
    assert bool(report.get("notes")) == (status == "partial")


BOOSTER_MULTICLASS = """\
import lightgbm as lgb
import numpy as np
from sklearn.datasets import make_classification

X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_classes=3,
                           random_state=0)
params = {"objective": "multiclass", "verbose": -1, "num_threads": 1}
booster = lgb.train(params, lgb.Dataset(X, label=y), num_boost_round=20)
print(f"score={np.mean(booster.predict(X).argmax(axis=1) == y):.3f}")
"""


def test_lightgbm_multiclass_booster_gets_num_class_through_the_loop(tmp_path):
    pytest.importorskip("lightgbm")
    report, fixed = _repair(tmp_path, "multi.py", BOOSTER_MULTICLASS)
    assert report["status"] == "repaired"
    assert [a["repair_action"] for a in report["attempts"]] == [None, "add_num_class"]
    assert '"num_class": int(max(y)) + 1' in fixed
