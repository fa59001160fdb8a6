"""The pre-validator's object-level API checks and its checks against the data's profile:
each flags a script that really fails in the sandbox, and none flags working code."""

from __future__ import annotations

import ast
import csv
import sys

import pytest

from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.prevalidator.agent import Prevalidator, blocking
from pipesmith.agents.prevalidator.type_flow import check_objects, removal_stub, variable_types
from pipesmith.evals import repair_corpus
from pipesmith.sandbox.base import ExecJob

TABLES = {"iris": ("species", "classification"), "iris_rare": ("species", "classification"),
          "wine": ("cultivar", "classification"), "houses": ("price", "regression"),
          "passengers": ("survived", "classification"), "plant": ("output", "regression"),
          "breast_cancer": ("malignant", "classification")}
READ = "import pandas as pd\ndf = pd.read_csv('data.csv')\n"
TORCH = READ + "import torch\nfrom torch import nn\n"

# (table, code, the class.subclass the checks report); each also fails when it runs.
BROKEN = {
    "frame_method": ("iris", READ + "X = df.drop(columns=['species']).as_matrix()\n",
                     "api.removed_attribute"),
    "method_keyword": ("passengers", READ + "age = df['age'].fillna(method='bfill')\n",
                       "api.unexpected_keyword"),
    "frame_attribute": ("wine", READ + "first = df.ix[0, 'alcohol']\n",
                        "api.removed_attribute"),
    "column_case": ("houses", READ + "y = df['Price']\n", "data_flow.missing_column"),
    "stratify_single": ("iris_rare", READ + "from sklearn.model_selection import "
                        "train_test_split\nparts = train_test_split(df, stratify=df['species'])"
                        "\n", "data_flow.small_class"),
    "labels_to_log_loss": ("wine", READ + "from sklearn.metrics import log_loss\n"
                           "from sklearn.tree import DecisionTreeClassifier\n"
                           "X, y = df.drop(columns=['cultivar']), df['cultivar']\n"
                           "tree = DecisionTreeClassifier().fit(X, y)\n"
                           "print(log_loss(y, tree.predict(X)))\n",
                           "data_flow.metric_needs_scores"),
    "labels_to_roc_auc": ("iris", READ + "from sklearn.metrics import roc_auc_score\n"
                          "from sklearn.tree import DecisionTreeClassifier\n"
                          "X, y = df.drop(columns=['species']), df['species']\n"
                          "labels = DecisionTreeClassifier().fit(X, y).predict(X)\n"
                          "print(roc_auc_score(y, labels))\n", "data_flow.metric_needs_scores"),
    "selected_case": ("passengers", READ + "features = ['Pclass', 'fare']\nX = df[features]\n",
                      "data_flow.missing_column"),
    "rows_appended": ("iris", READ + "part = df.iloc[:75].append(df.iloc[75:])\n",
                      "api.removed_attribute"),
    "dummies_per_part": ("houses", READ + "from sklearn.linear_model import Ridge\n"
                         "df = df.dropna()\ntrain, test = df.iloc[:220], df.iloc[220:]\n"
                         "a = pd.get_dummies(train.drop(columns=['price']))\n"
                         "b = pd.get_dummies(test.drop(columns=['price']))\n"
                         "Ridge().fit(a, train['price']).predict(b)\n",
                         "data_flow.train_validation_mismatch"),
    "text_to_forest": ("houses", READ + "from sklearn.ensemble import RandomForestRegressor\n"
                       "df = df.dropna()\nX = df.drop(columns=['price'])\n"
                       "RandomForestRegressor(n_estimators=5).fit(X, df['price'])\n",
                       "data_flow.dtype"),
    "width": ("iris", TORCH + "X = torch.tensor(df.drop(columns=['species'])"
              ".to_numpy(dtype='float32'))\nnet = nn.Linear(3, 2)\nnet(X)\n",
              "neural.input_width"),
    "float64": ("iris", TORCH + "X = torch.from_numpy(df.drop(columns=['species'])"
                ".to_numpy())\nnet = nn.Linear(4, 3)\nnet(X)\n", "neural.dtype_mismatch"),
    "binary_loss": ("iris", TORCH + "X = torch.tensor(df.drop(columns=['species'])"
                    ".to_numpy(dtype='float32'))\ny = torch.tensor(pd.factorize(df['species'])"
                    "[0])\nnet = nn.Linear(4, 3)\nnn.BCEWithLogitsLoss()(net(X), y)\n",
                    "neural.loss_target_mismatch"),
    "removal_stub": ("iris", TORCH + "print(torch.matrix_rank(torch.eye(3)))\n",
                     "api.removed_function"),
}


def _profile(table: str):
    target, task = TABLES[table]
    frame = repair_corpus.DATA[table]()
    return frame, profile_table(frame, target, task)


@pytest.mark.parametrize("key", sorted(BROKEN))
def test_data_checks_catch_what_really_fails(key, sandbox, tmp_path):
    table, code, expected = BROKEN[key]
    frame, profile = _profile(table)
    issues = blocking(Prevalidator().check_script(code, profile.table_columns, profile))
    assert issues, "not caught statically"
    assert f"{issues[0].taxonomy_class}.{issues[0].subclass}" == expected
    assert issues[0].line is not None
    frame.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "script.py").write_text(code)
    result = sandbox.run(ExecJob(command=[sys.executable, "script.py"], workdir=tmp_path,
                                 timeout_s=120, memory_mb=4096, disk_mb=512))
    assert result.status == "error", result.stdout[-300:]  # it really fails
    diagnosis = Diagnostician().diagnose_result(result, code)
    assert diagnosis.taxonomy_class == issues[0].taxonomy_class  # of the same family


def test_no_blocking_issue_on_the_clean_set():
    """Working scripts and modules of varied style (evals/corpus/clean/), against the table
    each reads: no blocking issue (the benchmark adds the coder's drafts of every family)."""
    root = repair_corpus.ROOT / "clean"
    with (root / "manifest.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) >= 20
    checks, flagged = Prevalidator(), []
    for row in rows:
        _, profile = _profile(row["data"])
        code = (root / f"{row['id']}.py").read_text()
        check = checks.check if row["kind"] == "module" else checks.check_script
        flagged += [(row["id"], i.message) for i in
                    blocking(check(code, profile.table_columns, profile))]
    assert flagged == []


def test_types_follow_installed_annotations_and_only_certain_bindings():
    import keras
    import pandas as pd

    code = ("import pandas as pd\nimport keras\nfrom sklearn.svm import SVC\n"
            "df = pd.read_csv('x.csv')\nclean = df.dropna()\ncolumn = df['a']\n"
            "model = keras.Sequential()\nsvc = SVC().fit(1, 2)\n"
            "chunks = pd.read_csv('x.csv', chunksize=10)\n"
            "again = df\nagain = 3\nfor row in [1]:\n    clean2 = row\n")
    types = variable_types(ast.parse(code))
    assert types.types["df"] is pd.DataFrame and types.types["clean"] is pd.DataFrame
    assert types.types["column"] is pd.Series and types.types["model"] is keras.Sequential
    assert types.types["svc"].__name__ == "SVC"  # fit returns self
    unknown = [n for n in ("chunks", "again", "clean2", "row")
               if isinstance(types.types.get(n), type)]
    assert unknown == []


def test_instance_attributes_columns_and_getattr_classes_are_not_flagged():
    code = ("import pandas as pd\nfrom sklearn.ensemble import RandomForestClassifier\n"
            "from torch import nn\n"
            "df = pd.read_csv('x.csv')\nm = RandomForestClassifier()\n"
            "print(m.n_estimators, m.feature_importances_, df.age, df.sex.str.upper())\n"
            "net = nn.Sequential(nn.Linear(2, 2))\nnet.layer_one\n")
    assert check_objects(ast.parse(code)) == []
    flagged = ("import pandas as pd\ndf = pd.read_csv('x.csv')\ndf.iteritems()\n"
               "df.fillna(method='ffill')\n")
    assert [i.subclass for i in check_objects(ast.parse(flagged))] == \
        ["removed_attribute", "unexpected_keyword"]


def test_keras_binary_loss_on_many_classes_and_not_on_two():
    code = ("import keras\nmodel = keras.Sequential([keras.layers.Dense(3)])\n"
            "model.compile(optimizer='adam', loss='binary_crossentropy')\n")
    _, three = _profile("iris")
    _, two = _profile("breast_cancer")
    flagged = blocking(Prevalidator().check_script(code, three.table_columns, three))
    assert [i.subclass for i in flagged] == ["loss_target_mismatch"]
    assert blocking(Prevalidator().check_script(code, two.table_columns, two)) == []


def test_removal_stubs_are_read_from_the_installed_source():
    import torch

    assert "removed" in removal_stub(torch.matrix_rank)
    assert removal_stub(torch.linalg.matrix_rank) is None
    assert removal_stub(repair_corpus.load) is None


def test_no_blocking_issue_on_the_wild_splits_reference_fixes():
    """Working code rebuilt from public threads (the wild splits' reference fixes) must not
    be refused before it runs: a false alarm here blocks the fix itself, offline or from a
    model. Two did (a column made by the script's own lookup frame; a text column turned
    into numbers by hand)."""
    checks, flagged = Prevalidator(), []
    for split in ("wild", "wild2"):
        for case in repair_corpus.load(split):
            profile = profile_table(repair_corpus.DATA[case.data](), case.target, case.task)
            code = (repair_corpus.reference(split) / case.file.name).read_text()
            flagged += [(case.id, i.message) for i in
                        blocking(checks.check_script(code, profile.table_columns, profile))]
    assert flagged == []
