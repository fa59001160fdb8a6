"""Column names a library refuses are made safe in front of the estimator (#25)."""

from __future__ import annotations

import pytest

from tests.agents.repair.sandboxed import repaired_here

FRAME = (
    "import numpy as np\nimport pandas as pd\n"
    "rng = np.random.default_rng(0)\n"
    "X = pd.DataFrame(rng.normal(size=(120, 3)),"
    " columns=['fare, GBP', 'age_band_(0, 12]', 'size<5'])\n"
    "y = (X.iloc[:, 0] + X.iloc[:, 1] > 0).astype(int)\n")


@pytest.mark.parametrize(("library", "construction"), [
    ("xgboost", "from xgboost import XGBClassifier\n"
                "model = XGBClassifier(n_estimators=20, max_depth=2, n_jobs=1)\n"),
    ("lightgbm", "from lightgbm import LGBMClassifier\n"
                 "model = LGBMClassifier(n_estimators=20, verbose=-1, n_jobs=1)\n"),
])
def test_refused_names_are_renamed_for_fit_cross_validation_and_predict(library,
                                                                        construction):
    pytest.importorskip(library)
    code = FRAME + construction + (
        "from sklearn.model_selection import cross_val_score\n"
        "scores = cross_val_score(model, X, y, cv=3, scoring='roc_auc')\n"
        "assert scores.mean() > 0.8, scores\n"
        "model.fit(X, y)\n"
        "assert (model.predict(X) == y).mean() > 0.8\n")
    new, diagnosis = repaired_here(code, "sanitize_feature_names")
    assert (diagnosis.taxonomy_class, diagnosis.subclass) == ("data_flow", "feature_names")
    assert "model = _pipesmith_safe_names(" in new


def test_mixed_type_column_names_are_made_strings_for_scikit_learn():
    code = ("import numpy as np\nimport pandas as pd\n"
            "from sklearn.linear_model import LogisticRegression\n"
            "X = pd.DataFrame(np.random.default_rng(0).normal(size=(60, 2)), columns=[0, 'b'])\n"
            "y = (X[0] > 0).astype(int)\n"
            "model = LogisticRegression()\nmodel.fit(X, y)\nprint(model.score(X, y))\n")
    new, diagnosis = repaired_here(code, "sanitize_feature_names")
    assert diagnosis.subclass == "feature_names" and "_pipesmith_safe_names(" in new
