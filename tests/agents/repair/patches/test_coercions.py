"""Type and shape coercions at the failing expression (#25)."""

from __future__ import annotations

import pytest

from tests.agents.repair.sandboxed import repaired_here

DATA = ("import numpy as np\nimport pandas as pd\n"
        "from sklearn.model_selection import train_test_split\n"
        "rng = np.random.default_rng(0)\n"
        "df = pd.DataFrame({'size': rng.normal(size=60), 'kind': ['a', 'b', 'c'] * 20})\n"
        "df['label'] = (df['size'] > 0).astype(int)\n")


@pytest.mark.parametrize("code", [
    DATA + "from sklearn.linear_model import LogisticRegression\n"
    "X_tr, X_te, y_tr, y_te = train_test_split(df['size'], df['label'], random_state=0)\n"
    "model = LogisticRegression().fit(X_tr, y_tr)\nprint(model.score(X_te, y_te))\n",
    # the test array is built apart from the training one: the model's tags say 2-D only
    DATA + "from sklearn.neighbors import KNeighborsClassifier\n"
    "from sklearn.preprocessing import LabelEncoder\n"
    "train, test = df.iloc[:40], df.iloc[40:]\nlabels = LabelEncoder().fit(train['kind'])\n"
    "knn = KNeighborsClassifier(n_neighbors=3)\n"
    "knn.fit(train['size'], labels.transform(train['kind']))\n"
    "print(knn.predict(test['size'])[:3], labels.transform(test['kind'])[:3])\n",
    DATA + "from sklearn.preprocessing import StandardScaler\n"
    "scaled = StandardScaler().fit_transform(df['size'].values)\nprint(scaled.shape)\n",
])
def test_a_single_feature_becomes_a_column_where_estimators_take_it(code):
    new, diagnosis = repaired_here(code, "reshape_2d")
    assert (diagnosis.taxonomy_class, diagnosis.subclass) == ("data_flow", "shape")
    assert "_pipesmith_2d(" in new
    assert "_pipesmith_2d(y_tr)" not in new and "_pipesmith_2d(y_te)" not in new
    assert "labels.transform(_pipesmith_2d" not in new  # LabelEncoder's tags: 1-D input


TORCH = ("import numpy as np\nimport torch\n"
         "w = torch.ones(3, requires_grad=True)\nout = w * 2\n")


@pytest.mark.parametrize(("code", "fixed"), [
    (TORCH + "print(out.numpy().sum())\n", "out.detach().numpy()"),
    (TORCH + "print(np.asarray(out).sum())\n", "np.asarray(out.detach())"),
])
def test_a_tensor_with_gradients_is_detached_before_numpy(code, fixed):
    pytest.importorskip("torch")
    new, diagnosis = repaired_here(code, "detach_tensor")
    assert diagnosis.subclass == "detached" and fixed in new


@pytest.mark.parametrize(("code", "fixed"), [
    (DATA + "print(df.mean())\n", "df.mean(numeric_only=True)"),
    (DATA + "print(df.corr(method='spearman'))\n", "df.corr(method='spearman', numeric_only=True)"),
])
def test_a_reduction_over_text_columns_takes_the_numeric_ones(code, fixed):
    new, diagnosis = repaired_here(code, "numeric_only")
    assert diagnosis.subclass == "dtype" and fixed in new


@pytest.mark.parametrize(("code", "fixed"), [
    ("import torch\ndevice = 'cuda'\nx = torch.ones(3).to(device)\nprint(x.sum().item())\n",
     "device = \"cpu\""),
    ("import torch\nx = torch.ones(3).cuda()\nprint((x * 2).sum().item())\n",
     "torch.ones(3).cpu()"),
])
def test_a_gpu_asked_for_on_a_cpu_build_runs_on_the_cpu(code, fixed):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is here: the script does not fail")
    new, diagnosis = repaired_here(code, "use_cpu")
    assert diagnosis.subclass == "device" and fixed in new


def test_an_array_written_in_place_is_copied_from_its_read_only_frame():
    code = (DATA + "size = df['size'].to_numpy()\n"
            "size[size > 1] = 1\n"
            "assert size.max() <= 1 and df['size'].max() > 1\n")
    new, diagnosis = repaired_here(code, "writable_copy")
    assert diagnosis.subclass == "read_only"
    assert "size = (df['size'].to_numpy()).copy()" in new
