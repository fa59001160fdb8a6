"""Input cleaning chosen from the estimator's own tags, wherever the script builds the
estimator it fits (#25)."""

from __future__ import annotations

import pytest

from pipesmith.agents.repair import table
from tests.agents.repair.sandboxed import diagnose_here, repaired_here

DATA = ("import numpy as np\nimport pandas as pd\n"
        "rng = np.random.default_rng(0)\n"
        "X = pd.DataFrame({'a': rng.normal(size=80), 'b': rng.normal(size=80),\n"
        "                  'city': rng.choice(['x', 'y', 'z'], size=80)})\n"
        "y = (X['a'] > 0).astype(int)\n")
WITH_NAN = DATA + "X.loc[::7, 'b'] = np.nan\nX = X.drop(columns='city')\n"


@pytest.mark.parametrize("code", [
    # inside make_pipeline, handed to cross-validation
    WITH_NAN + "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import cross_val_score\n"
    "from sklearn.pipeline import make_pipeline\nfrom sklearn.preprocessing import StandardScaler\n"
    "print(cross_val_score(make_pipeline(StandardScaler(), LogisticRegression()), X, y).mean())\n",
    # fitted on the spot
    WITH_NAN + "from sklearn.svm import SVC\nprint(SVC().fit(X, y).score(X, y))\n",
    # a Pipeline assigned, then fitted
    WITH_NAN + "from sklearn.pipeline import Pipeline\n"
    "from sklearn.neighbors import KNeighborsClassifier\n"
    "pipe = Pipeline([('knn', KNeighborsClassifier())])\npipe.fit(X, y)\nprint(pipe.score(X, y))\n",
])
def test_nan_is_imputed_in_front_of_an_estimator_that_refuses_it(code):
    new, diagnosis = repaired_here(code, "clean_inputs")
    assert diagnosis.subclass == "nan_input" and "_pipesmith_clean(" in new


@pytest.mark.parametrize("code", [
    DATA + "from sklearn.ensemble import RandomForestClassifier\n"
    "print(RandomForestClassifier(n_estimators=10).fit(X, y).score(X, y))\n",
    DATA + "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import cross_val_score\n"
    "print(cross_val_score(LogisticRegression(), X, y, error_score='raise').mean())\n",
])
def test_text_columns_are_encoded_in_front_of_an_estimator_that_takes_no_strings(code):
    new, diagnosis = repaired_here(code, "clean_inputs")
    assert diagnosis.subclass == "dtype" and "_pipesmith_clean(" in new


def test_an_estimator_whose_tags_allow_nan_is_left_alone():
    code = (WITH_NAN + "from sklearn.ensemble import HistGradientBoostingClassifier\n"
            "from sklearn.linear_model import LogisticRegression\n"
            "HistGradientBoostingClassifier(max_iter=5).fit(X, y)\n"
            "LogisticRegression().fit(X, y)\n")
    diagnosis = diagnose_here(code)
    new = table.apply("clean_inputs", code, diagnosis, table.RepairContext())
    assert "_pipesmith_clean(LogisticRegression())" in new
    assert "_pipesmith_clean(HistGradientBoostingClassifier" not in new


def test_labels_are_encoded_for_a_classifier_built_inside_a_pipeline():
    pytest.importorskip("xgboost")
    code = ("from sklearn.datasets import make_classification\n"
            "from sklearn.pipeline import make_pipeline\n"
            "from sklearn.preprocessing import StandardScaler\nfrom xgboost import XGBClassifier\n"
            "X, y = make_classification(n_samples=80, random_state=0)\n"
            "pipe = make_pipeline(StandardScaler(), XGBClassifier(n_estimators=5))\n"
            "print(pipe.fit(X, y + 1).score(X, y + 1))\n")
    new, diagnosis = repaired_here(code, "encode_labels")
    assert diagnosis.subclass == "label_encoding"
    assert "_pipesmith_encode_labels(make_pipeline(" in new
