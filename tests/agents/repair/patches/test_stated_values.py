"""Repairs that change the value a failure points at (agents/repair/patches/stated_values.py),
each on a small script that fails as the library makes it fail, patched, and run again."""

from __future__ import annotations

import pytest

from pipesmith.agents.repair import table
from tests.agents.repair.sandboxed import diagnose_here, repaired_here


def _key(diagnosis) -> str:
    return f"{diagnosis.taxonomy_class}.{diagnosis.subclass}"


def test_the_flag_a_message_blames_is_flipped_on_the_failing_call():
    code = ("import pandas as pd\n\n"
            "df = pd.DataFrame({'x': range(10), 'y': [0] * 8 + [1] * 2})\n"
            "n = (df.y == 0).sum()\n"
            "parts = [g.sample(n=n, random_state=0) for _, g in df.groupby('y')]\n"
            "assert len(pd.concat(parts)) == 16\n")
    new, diagnosis = repaired_here(code, "flip_stated_flag")
    assert _key(diagnosis) == "api.out_of_bounds_parameter"
    assert "g.sample(n=n, random_state=0, replace=True)" in new


def test_an_advised_keyword_takes_the_other_documented_option():
    code = ("import pandas as pd\n\ncalls = pd.Series([0, 0, 0, 0, 0, 0, 1, 1, 2, 5])\n"
            "bands = pd.qcut(calls, 4, labels=False)\nassert bands.nunique() >= 2\n")
    new, diagnosis = repaired_here(code, "other_option")
    assert _key(diagnosis) == "api.advised_keyword"
    assert "pd.qcut(calls, 4, labels=False, duplicates='drop')" in new


def test_a_float_slice_bound_is_made_an_int():
    code = ("import numpy as np\n\nX = np.arange(20).reshape(10, 2)\nn = len(X)\n"
            "split = 0.8 * n\ntrain, test = X[:split], X[split:]\n"
            "assert len(train) == 8 and len(test) == 2\n")
    new, diagnosis = repaired_here(code, "int_where_float")
    assert _key(diagnosis) == "data_flow.integer_expected"
    assert "train, test = X[:int(split)], X[int(split):]" in new


def test_a_float_count_to_range_is_made_an_int():
    code = ("values = list(range(10))\nhalf = [values[i] for i in range(len(values) / 2)]\n"
            "assert half == [0, 1, 2, 3, 4]\n")
    new, diagnosis = repaired_here(code, "int_where_float")
    assert _key(diagnosis) == "data_flow.integer_expected"
    assert "range(int(len(values) / 2))" in new


def test_an_integer_parameter_drawn_as_a_float_is_made_an_int_where_it_is_set():
    code = ("import numpy as np\nfrom sklearn.datasets import load_iris\n"
            "from sklearn.ensemble import RandomForestClassifier\n\n"
            "X, y = load_iris(return_X_y=True)\n"
            "params = {'n_estimators': np.round(12.4), 'max_depth': 3, 'random_state': 0}\n"
            "model = RandomForestClassifier(**params).fit(X, y)\n"
            "assert model.score(X, y) > 0.9\n")
    new, diagnosis = repaired_here(code, "int_where_float")
    assert _key(diagnosis) == "data_flow.integer_expected"
    assert "'n_estimators': int(np.round(12.4))" in new


def test_a_metric_that_meets_one_class_gets_the_models_classes():
    code = ("import numpy as np\nfrom sklearn.linear_model import LogisticRegression\n"
            "from sklearn.metrics import log_loss\n\n"
            "X = np.arange(8.0).reshape(-1, 1)\ny = np.array([0, 0, 0, 0, 1, 1, 1, 1])\n"
            "model = LogisticRegression().fit(X, y)\n"
            "loss = log_loss(y[y == 1], model.predict_proba(X[y == 1]))\n"
            "assert loss < 1.0\n")
    new, diagnosis = repaired_here(code, "metric_labels")
    assert _key(diagnosis) == "data_flow.metric_arguments"
    assert "labels=model.classes_" in new


def test_a_report_naming_absent_classes_gets_the_models_classes():
    code = ("import numpy as np\nfrom sklearn.metrics import classification_report\n"
            "from sklearn.tree import DecisionTreeClassifier\n\n"
            "X = np.arange(9.0).reshape(-1, 1)\ny = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])\n"
            "clf = DecisionTreeClassifier(random_state=0)\nclf.fit(X, y)\n"
            "test = X[:6]\n"
            "text = classification_report(y[:6], clf.predict(test), "
            "target_names=['a', 'b', 'c'])\nassert 'c' in text\n")
    new, diagnosis = repaired_here(code, "metric_labels")
    assert _key(diagnosis) == "api.advised_keyword"
    assert "labels=clf.classes_" in new


def test_a_parameter_past_an_unnumbered_bound_goes_back_to_its_default_and_says_so():
    code = ("from sklearn.datasets import load_breast_cancer\n"
            "from sklearn.discriminant_analysis import LinearDiscriminantAnalysis\n\n"
            "X, y = load_breast_cancer(return_X_y=True)\n"
            "Z = LinearDiscriminantAnalysis(n_components=2).fit_transform(X, y)\n"
            "assert Z.shape[0] == len(X)\n")
    new, diagnosis = repaired_here(code, "default_past_bound")
    assert _key(diagnosis) == "api.out_of_bounds_parameter"
    assert "LinearDiscriminantAnalysis().fit_transform(X, y)" in new
    lost = table.caveats("default_past_bound", _key(diagnosis), code, new, diagnosis)
    assert lost and "n_components" in lost[0]


def test_an_unshuffled_split_that_left_one_class_is_shuffled_and_says_so():
    code = ("from sklearn.datasets import load_iris\n"
            "from sklearn.linear_model import LogisticRegression\n"
            "from sklearn.model_selection import train_test_split\n\n"
            "X, y = load_iris(return_X_y=True)  # sorted by species\n"
            "X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.7, shuffle=False)\n"
            "model = LogisticRegression(max_iter=500).fit(X_tr, y_tr)\n"
            "assert model.score(X_te, y_te) > 0.5\n")
    new, diagnosis = repaired_here(code, "shuffle_split")
    assert _key(diagnosis) == "data_flow.single_class"
    assert "train_test_split(X, y, test_size=0.7)" in new
    assert table.caveats("shuffle_split", _key(diagnosis), code, new, diagnosis)


def test_a_count_loop_below_the_stated_minimum_starts_at_it():
    code = ("from sklearn.cluster import KMeans\nfrom sklearn.datasets import load_iris\n"
            "from sklearn.metrics import silhouette_score\n\n"
            "X, _ = load_iris(return_X_y=True)\nscores = {}\n"
            "for k in range(1, 4):\n"
            "    labels = KMeans(n_clusters=k, n_init=1, random_state=0).fit_predict(X)\n"
            "    scores[k] = silhouette_score(X, labels)\n"
            "assert max(scores, key=scores.get) in (2, 3)\n")
    new, diagnosis = repaired_here(code, "loop_from_valid")
    assert _key(diagnosis) == "api.out_of_bounds_parameter"
    assert "for k in range(2, 4):" in new


def test_a_keyword_allowed_only_under_a_condition_is_dropped_and_said():
    pytest.importorskip("torch")
    code = ("import torch\nfrom torch.utils.data import DataLoader, TensorDataset\n\n"
            "data = TensorDataset(torch.ones(8, 2), torch.zeros(8))\n"
            "loader = DataLoader(data, batch_size=4, prefetch_factor=2)\n"
            "assert sum(len(x) for x, _ in loader) == 8\n")
    new, diagnosis = repaired_here(code, "drop_conditional_keyword")
    assert _key(diagnosis) == "api.incompatible_parameters"
    assert "DataLoader(data, batch_size=4)" in new
    lost = table.caveats("drop_conditional_keyword", _key(diagnosis), code, new, diagnosis)
    assert lost and "prefetch_factor" in lost[0]


def test_an_empty_selection_is_named_and_left_to_a_redraft():
    code = ("import numpy as np\nfrom sklearn.preprocessing import MinMaxScaler\n\n"
            "X = np.arange(6.0).reshape(3, 2)\nMinMaxScaler().fit(X[X[:, 0] > 10])\n")
    diagnosis = diagnose_here(code)
    assert _key(diagnosis) == "data_flow.empty_input"
    assert diagnosis.repair_actions == ["redraft"]
