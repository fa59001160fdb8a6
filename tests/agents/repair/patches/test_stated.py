"""Repairs whose cure the failure states (agents/repair/patches/stated.py), each on a small
script that fails as the library makes it fail, patched, and run again."""

from __future__ import annotations

import pytest

from tests.agents.repair.sandboxed import repaired_here

KNN = """\
from sklearn.datasets import load_iris
from sklearn.neighbors import KNeighborsClassifier

X, y = load_iris(return_X_y=True)
clf = KNeighborsClassifier(n_neighbors=200).fit(X[::3], y[::3])
assert clf.score(X, y) > 0.3
"""


def test_a_parameter_past_the_datas_bound_is_set_to_it():
    new, diagnosis = repaired_here(KNN, "clamp_to_bound")
    assert f"{diagnosis.taxonomy_class}.{diagnosis.subclass}" == "api.out_of_bounds_parameter"
    assert "KNeighborsClassifier(n_neighbors=50)" in new


def test_a_parameter_outside_an_open_interval_goes_to_its_middle():
    pytest.importorskip("xgboost")
    code = ("import xgboost as xgb\nfrom sklearn.datasets import load_breast_cancer\n\n"
            "X, y = load_breast_cancer(return_X_y=True)\n"
            "clf = xgb.XGBClassifier(n_estimators=5, base_score=1.0, n_jobs=1).fit(X, y)\n")
    new, diagnosis = repaired_here(code, "clamp_to_bound")
    assert f"{diagnosis.taxonomy_class}.{diagnosis.subclass}" == "library.xgboost"
    assert "base_score=0.5" in new


def test_the_method_a_library_advises_replaces_the_one_that_failed():
    pytest.importorskip("torch")
    code = ("import torch\n\nx = torch.arange(12.0).reshape(3, 4).t()\n"
            "flat = x.view(-1).float()\nassert flat.shape == (12,)\n")
    new, diagnosis = repaired_here(code, "follow_replacement")
    assert f"{diagnosis.taxonomy_class}.{diagnosis.subclass}" == "api.advised_replacement"
    assert "flat = x.reshape(-1).float()" in new


def test_numpy_casts_the_failing_calls_data_to_the_dtype_it_names():
    code = ("import numpy as np\n\ny = np.array([0.0, 1.0, 1.0, 2.0])\n"
            "counts = np.bincount(y)\nassert counts.tolist() == [1, 2, 1]\n")
    new, diagnosis = repaired_here(code, "cast_at_call")
    assert f"{diagnosis.taxonomy_class}.{diagnosis.subclass}" == "data_flow.dtype"
    assert "np.bincount(_pipesmith_np.asarray(y).astype('int64'))" in new


def test_float_codes_into_an_embedding_are_made_long_at_the_call():
    pytest.importorskip("torch")
    code = ("import torch\n\nemb = torch.nn.Embedding(5, 3)\n"
            "codes = torch.tensor([0.0, 1.0, 4.0])\nout = emb(codes)\n"
            "assert out.shape == (3, 3)\n")
    new, diagnosis = repaired_here(code, "cast_at_call")
    assert f"{diagnosis.taxonomy_class}.{diagnosis.subclass}" == "neural.dtype_mismatch"
    assert "out = emb(codes.long())" in new


def test_missing_values_cast_to_int_take_the_nullable_type_pandas_names():
    code = ("import pandas as pd\n\ns = pd.Series([1.0, None, 3.0])\nt = s.astype(int)\n"
            "assert t.isna().sum() == 1\n")
    new, diagnosis = repaired_here(code, "nullable_integer")
    assert f"{diagnosis.taxonomy_class}.{diagnosis.subclass}" == "data_flow.nan_input"
    assert "s.astype('Int64')" in new


def test_a_module_that_never_called_its_base_init_calls_it_first():
    pytest.importorskip("torch")
    code = ("import torch\n\n\nclass Net(torch.nn.Module):\n"
            "    def __init__(self, width):\n"
            "        \"\"\"Two layers.\"\"\"\n"
            "        self.fc = torch.nn.Linear(width, 1)\n\n"
            "    def forward(self, x):\n        return self.fc(x)\n\n\n"
            "net = Net(2)\nassert net(torch.ones(1, 2)).shape == (1, 1)\n")
    new, diagnosis = repaired_here(code, "call_super_init")
    assert f"{diagnosis.taxonomy_class}.{diagnosis.subclass}" == "neural.module_registration"
    assert '        """Two layers."""\n        super().__init__()\n        self.fc' in new


@pytest.mark.parametrize("library", ["sklearn", "torch"])
def test_a_misspelt_method_the_library_calls_is_renamed_with_its_calls(library):
    if library == "sklearn":
        code = (
            "import numpy as np\nfrom sklearn.base import BaseEstimator, TransformerMixin\n"
            "from sklearn.linear_model import LinearRegression\n"
            "from sklearn.pipeline import Pipeline\n\n\n"
            "class AddOne(BaseEstimator, TransformerMixin):\n"
            "    def fit(self, X, y=None):\n        return self\n\n"
            "    def transfrom(self, X):\n        return X + 1\n\n\n"
            "X = np.arange(10.0).reshape(-1, 1)\n"
            "pipe = Pipeline([('add', AddOne()), ('lr', LinearRegression())]).fit(X, X.ravel())\n"
            "assert AddOne().fit(X).transfrom(X).shape == (10, 1)\n")
        wanted = "def transform(self, X)"
    else:
        pytest.importorskip("torch")
        code = ("import torch\n\n\nclass Net(torch.nn.Module):\n"
                "    def __init__(self):\n        super().__init__()\n"
                "        self.fc = torch.nn.Linear(2, 1)\n\n"
                "    def foward(self, x):\n        return self.fc(x)\n\n\n"
                "out = Net()(torch.ones(1, 2))\n")
        wanted = "def forward(self, x)"
    new, diagnosis = repaired_here(code, "rename_near_method")
    assert f"{diagnosis.taxonomy_class}.{diagnosis.subclass}" == "api.user_class_method"
    assert wanted in new
    if library == "sklearn":  # the script's own call follows the rename
        assert ".transform(X).shape" in new and "transfrom" not in new
