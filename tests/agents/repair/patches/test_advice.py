"""Repairs the library's message spells out, read from the message and the installed
signatures (#25)."""

from __future__ import annotations

from pipesmith.agents.repair.patches.advice import positive_label
from tests.agents.repair.sandboxed import repaired_here

WINE = ("import numpy as np\nimport pandas as pd\nfrom sklearn.datasets import load_wine\n"
        "X, y = load_wine(return_X_y=True, as_frame=True)\n")


def test_the_parameter_the_message_says_to_set_is_set_on_the_failing_call():
    code = (WINE + "from sklearn.linear_model import Ridge\n"
            "from sklearn.model_selection import KFold, cross_val_score\n"
            "cv = KFold(n_splits=5, random_state=42)\n"
            "print(cross_val_score(Ridge(), X, y, cv=cv).mean())\n")
    new, diagnosis = repaired_here(code, "follow_advice")
    assert diagnosis.subclass == "incompatible_parameters"
    assert "KFold(n_splits=5, random_state=42, shuffle=True)" in new


def test_text_labels_get_the_positive_class_the_message_lists():
    code = (WINE + "from sklearn.linear_model import LogisticRegression\n"
            "from sklearn.metrics import f1_score\n"
            "target = np.where(y == 0, 'yes', 'no')\n"
            "pred = LogisticRegression(max_iter=5000).fit(X, target).predict(X)\n"
            "score = f1_score(target, pred)\n"
            "assert score == f1_score(target == 'yes', pred == 'yes')\n")
    new, diagnosis = repaired_here(code, "positive_label")
    assert diagnosis.subclass == "label_encoding"
    assert "f1_score(target, pred, pos_label='yes')" in new
    assert positive_label(["benign", "malignant"]) == "malignant"  # what 1 coded
    assert positive_label(["a", "b", "c"]) is None  # no positive class among three


def test_grid_names_get_the_prefix_of_the_pipeline_step_that_declares_them():
    code = (WINE + "from sklearn.model_selection import GridSearchCV\n"
            "from sklearn.pipeline import make_pipeline\n"
            "from sklearn.preprocessing import StandardScaler\n"
            "from sklearn.svm import SVC\n"
            "pipe = make_pipeline(StandardScaler(), SVC())\n"
            "grid = GridSearchCV(pipe, {'C': [0.1, 1], 'gamma': ['scale', 0.01]}, cv=3)\n"
            "grid.fit(X, y)\nassert set(grid.best_params_) == {'svc__C', 'svc__gamma'}\n")
    new, diagnosis = repaired_here(code, "prefix_step_parameters")
    assert diagnosis.subclass == "invalid_parameter"
    assert "{'svc__C': [0.1, 1], 'svc__gamma': ['scale', 0.01]}" in new


def test_numpy_2_copy_false_becomes_copy_if_needed():
    code = WINE + "Z = np.array(X, dtype=np.float32, copy=False)\nassert Z.dtype == np.float32\n"
    new, diagnosis = repaired_here(code, "copy_if_needed")
    assert diagnosis.subclass == "invalid_parameter"
    assert "np.array(X, dtype=np.float32, copy=None)" in new


def test_torch_load_follows_its_own_advice_on_a_checkpoint_the_script_wrote(tmp_path,
                                                                             monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = ("import numpy as np\nimport torch\n"
            "torch.save({'w': torch.ones(2), 'mean': np.zeros(2)}, 'checkpoint.pt')\n"
            "checkpoint = torch.load('checkpoint.pt')\n"
            "assert checkpoint['mean'].shape == (2,)\n")
    new, diagnosis = repaired_here(code, "follow_advice")
    assert (diagnosis.taxonomy_class, diagnosis.subclass) == ("io", "unpickling")
    assert "torch.load('checkpoint.pt', weights_only=False)" in new


def test_a_keyword_a_pipeline_routes_takes_the_step_name_its_message_gives():
    code = (WINE + "from sklearn.linear_model import LogisticRegression\n"
            "from sklearn.pipeline import make_pipeline\n"
            "from sklearn.preprocessing import StandardScaler\n"
            "weights = np.where(y == 0, 2.0, 1.0)\n"
            "pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))\n"
            "pipe.fit(X, y, sample_weight=weights)\n"
            "assert pipe.score(X, y) > 0.9\n")
    new, diagnosis = repaired_here(code, "step_keyword")
    assert diagnosis.subclass == "routed_keyword"
    assert "pipe.fit(X, y, logisticregression__sample_weight=weights)" in new
