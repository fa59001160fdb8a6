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


def _repair(tmp_path, name, code):
    script = tmp_path / name
    script.write_text(code)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "pipesmith.cli", "repair", str(script),
                           "--no-kb", "--rounds", "2", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
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
