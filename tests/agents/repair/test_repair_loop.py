"""The taxonomy, the diagnostician and the repair loop on real failures in the real sandbox."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.coder.faults import (
    OPERATORS,
    FaultContext,
    FaultInjectingCoder,
    uninstalled_booster,
)
from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.agents.diagnostician.taxonomy import TAXONOMY
from pipesmith.agents.executor import Executor
from pipesmith.agents.families import backends
from pipesmith.agents.planner.agent import Planner
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.prevalidator.agent import Prevalidator, blocking
from pipesmith.agents.schemas import Candidate, RepairRequest
from tests.conftest import make_inputs

pytestmark = pytest.mark.slow

HEADER = """\
import os
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

"""

# One real failing candidate per taxonomy subclass: (dataset, task type, module body).
MISSING = uninstalled_booster() or ("xgboost_not_installed", "XGBClassifier", "")
CASES: dict[str, tuple[str, str, str]] = {
    "resource.timeout": ("iris", "classification",
                         "def build_pipeline(task):\n    while True:\n        pass\n"),
    "resource.out_of_memory": ("iris", "classification",
                               "def build_pipeline(task):\n    np.ones((60000, 60000))\n"),
    "resource.process_limit": ("iris", "classification",
                               "def build_pipeline(task):\n    while True:\n"
                               "        if os.fork() == 0:\n            import time\n"
                               "            time.sleep(30)\n            os._exit(0)\n"),
    "resource.disk": ("iris", "classification",
                      "def build_pipeline(task):\n    with open('big.bin', 'wb') as f:\n"
                      "        for _ in range(20):\n"
                      "            f.write(b'x' * (8 << 20))\n"),
    "infrastructure.sandbox": ("iris", "classification",
                               "def build_pipeline(task):\n    import signal\n"
                               "    os.kill(os.getpid(), signal.SIGKILL)\n"),
    "syntax.invalid_syntax": ("iris", "classification",
                              "def build_pipeline(task)\n    return LogisticRegression()\n"),
    "contract.no_build_pipeline": ("iris", "classification",
                                   "def build_model(task):\n    return LogisticRegression()\n"),
    "contract.wrong_return_type": ("iris", "classification",
                                   "def build_pipeline(task):\n"
                                   "    return LogisticRegression, {'C': 1.0}\n"),
    # Since the referee, fold jobs do not save the model (the refit does): save it here.
    "contract.unpicklable": ("iris", "classification",
                             "def build_pipeline(task):\n    import pickle\n"
                             "    model = make_pipeline(FunctionTransformer(lambda X: X), "
                             "LogisticRegression())\n    pickle.dumps(model)\n"
                             "    return model\n"),
    "contract.predict_shape": ("iris", "classification",
                               "class Short(LogisticRegression):\n"
                               "    def predict(self, X):\n"
                               "        return super().predict(X)[:-1]\n\n"
                               "def build_pipeline(task):\n    return Short()\n"),
    "contract.invalid_predictions": ("iris", "classification",
                                     "class Unnormalised(LogisticRegression):\n"
                                     "    def predict_proba(self, X):\n"
                                     "        return super().predict_proba(X) * 2\n\n"
                                     "def build_pipeline(task):\n    return Unnormalised()\n"),
    "sandbox_policy.network_denied": ("iris", "classification",
                                      "def build_pipeline(task):\n    import urllib.request\n"
                                      "    urllib.request.urlopen('http://198.51.100.7/x.csv',"
                                      " timeout=5)\n    return LogisticRegression()\n"),
    "sandbox_policy.file_access_denied": ("iris", "classification",
                                          "def build_pipeline(task):\n"
                                          "    open('/sys/pipesmith', 'w').write('x')\n"),
    "import.missing_module": ("iris", "classification",
                              "def build_pipeline(task):\n"
                              f"    from {MISSING[0]} import {MISSING[1]}\n"
                              f"    return {MISSING[1]}()\n"),
    "import.version_conflict": ("iris", "classification",
                                "def build_pipeline(task):\n"
                                "    from sklearn.preprocessing import Imputer\n"
                                "    return make_pipeline(Imputer(), LogisticRegression())\n"),
    "api.unexpected_keyword": ("iris", "classification",
                               "def build_pipeline(task):\n"
                               "    return LogisticRegression(multi_class='auto')\n"),
    "api.invalid_parameter": ("iris", "classification",
                              "def build_pipeline(task):\n"
                              "    return LogisticRegression(penalty='l3')\n"),
    "api.incompatible_parameters": ("iris", "classification",
                                    "def build_pipeline(task):\n    return LogisticRegression("
                                    "penalty='l1', solver='lbfgs')\n"),
    "data_flow.shape": ("iris", "classification",
                        "def build_pipeline(task):\n"
                        "    LogisticRegression().fit(np.arange(6.0), [0, 1] * 3)\n"),
    "data_flow.metric_arguments": ("iris", "classification",
                                   "from sklearn.metrics import f1_score\n\n"
                                   "def build_pipeline(task):\n"
                                   "    f1_score([0, 1, 2, 0], [0, 1, 1, 0])\n"),
    "neural.detached": ("iris", "classification",
                        "def build_pipeline(task):\n    import torch\n"
                        "    (torch.ones(2, requires_grad=True) * 2).numpy()\n"),
    "api.removed_attribute": ("iris", "classification",
                              "def build_pipeline(task):\n"
                              "    return LogisticRegression(C=np.float(1))\n"),
    "api.changed_return_type": ("iris", "classification",
                                "def build_pipeline(task):\n"
                                "    model, params = LogisticRegression()\n    return model\n"),
    "api.positional_arguments": ("iris", "classification",
                                 "def build_pipeline(task):\n"
                                 "    return LogisticRegression('l2', False)\n"),
    # A boosting library's own exception (skipped where the library is not installed).
    "library.lightgbm": ("iris", "classification",
                         "def build_pipeline(task):\n    from lightgbm import LGBMClassifier\n"
                         "    return LGBMClassifier(objective='nonsense', verbose=-1)\n"),
    "library.xgboost": ("iris", "classification",
                        "def build_pipeline(task):\n    from xgboost import XGBClassifier\n"
                        "    return XGBClassifier(n_estimators=5, tree_method='nonsense')\n"),
    "library.catboost": ("iris", "classification",
                         "def build_pipeline(task):\n    from catboost import CatBoostClassifier\n"
                         "    return CatBoostClassifier(iterations=5, verbose=0, "
                         "allow_writing_files=False,\n"
                         "                              loss_function='nonsense')\n"),
    "api.out_of_bounds_parameter": ("iris", "classification",
                                    "from sklearn.neighbors import KNeighborsClassifier\n\n"
                                    "def build_pipeline(task):\n"
                                    "    return KNeighborsClassifier(n_neighbors=500)\n"),
    "api.advised_replacement": ("iris", "classification",
                                "def build_pipeline(task):\n    import torch\n"
                                "    torch.ones(3, 4).t().view(-1)\n"),
    "api.user_class_method": ("iris", "classification",
                              "class Shift(BaseEstimator):\n"
                              "    def fit(self, X, y=None):\n        return self\n\n"
                              "    def transfrom(self, X):\n        return X\n\n"
                              "def build_pipeline(task):\n"
                              "    return make_pipeline(Shift(), LogisticRegression())\n"),
    "io.unpickling": ("iris", "classification",
                      "def build_pipeline(task):\n    import pickle\n"
                      "    return pickle.loads(b'not a pickle')\n"),
    "api.removed_function": ("iris", "classification",
                             "def build_pipeline(task):\n    import torch\n"
                             "    torch.matrix_rank(torch.eye(3))\n"),
    "data_flow.small_class": ("iris", "classification",
                              "from sklearn.model_selection import train_test_split\n\n"
                              "def build_pipeline(task):\n    y = [0, 0, 0, 0, 1]\n"
                              "    train_test_split([[0]] * 5, y, stratify=y)\n"),
    "data_flow.metric_needs_scores": ("iris", "classification",
                                      "from sklearn.metrics import roc_auc_score\n\n"
                                      "def build_pipeline(task):\n"
                                      "    roc_auc_score([0, 1, 2, 0], [0, 1, 2, 1])\n"),
    "data_flow.missing_column": ("iris", "classification",
                                 "from sklearn.compose import ColumnTransformer\n\n"
                                 "def build_pipeline(task):\n    return make_pipeline("
                                 "ColumnTransformer([('n', 'passthrough', ['petal_width'])]),"
                                 " LogisticRegression())\n"),
    "data_flow.feature_mismatch": ("iris", "classification",
                                   "def build_pipeline(task):\n"
                                   "    drop = FunctionTransformer(lambda X: np.asarray(X)[:, 1:] "
                                   "if len(X) > 50 else np.asarray(X))\n"
                                   "    return make_pipeline(drop, LogisticRegression())\n"),
    "data_flow.train_validation_mismatch": (
        "iris", "classification",
        "def build_pipeline(task):\n    rename = FunctionTransformer(lambda X: X if len(X) > 50"
        " else X.rename(columns=str.upper))\n"
        "    return make_pipeline(rename, StandardScaler(), LogisticRegression())\n"),
    "data_flow.label_encoding": ("diabetes", "regression",
                                 "class Classify(LogisticRegression):\n"
                                 "    def fit(self, X, y):  # y is a continuous measurement\n"
                                 "        return super().fit(X, np.asarray(y, float) / 7)\n\n"
                                 "def build_pipeline(task):\n    return Classify()\n"),
    "data_flow.nan_input": ("breast_cancer", "classification",
                            "def build_pipeline(task):\n    return make_pipeline("
                            "FunctionTransformer(np.log), LogisticRegression())\n"),
    "data_flow.dtype": ("iris", "classification",
                        "def build_pipeline(task):\n    return make_pipeline("
                        "FunctionTransformer(lambda X: X.astype(str) + 'cm'), "
                        "LogisticRegression())\n"),
    "numerical.divergence": ("breast_cancer", "classification",
                             "from sklearn.neural_network import MLPClassifier\n\n"
                             "def build_pipeline(task):\n    return make_pipeline(StandardScaler(),"
                             " MLPClassifier(solver='sgd', learning_rate_init=10.0, max_iter=30,"
                             " random_state=0))\n"),
    "numerical.non_finite_output": ("diabetes", "regression",
                                    "class Exploding(LinearRegression):\n"
                                    "    def predict(self, X):\n"
                                    "        return super().predict(X) * np.inf\n\n"
                                    "def build_pipeline(task):\n    return Exploding()\n"),
    "numerical.overflow": ("iris", "classification",
                           "def grow(X):\n    with np.errstate(over='raise'):\n"
                           "        return np.exp(np.asarray(X, dtype=float) * 1000)\n\n"
                           "def build_pipeline(task):\n"
                           "    return make_pipeline(FunctionTransformer(grow), "
                           "LogisticRegression())\n"),
    "numerical.singular_matrix": ("iris", "classification",
                                  "def whiten(X):\n    X = np.asarray(X, dtype=float)\n"
                                  "    X = np.hstack([X, X])\n"
                                  "    return X @ np.linalg.inv(X.T @ X)\n\n"
                                  "def build_pipeline(task):\n"
                                  "    return make_pipeline(FunctionTransformer(whiten), "
                                  "LogisticRegression())\n"),
    "numerical.non_convergence": ("breast_cancer", "classification",
                                  "def build_pipeline(task):\n"
                                  "    return LogisticRegression(max_iter=1)\n"),
    "quality.below_baseline": ("iris", "classification",
                               "from sklearn.dummy import DummyClassifier\n\n"
                               "def build_pipeline(task):\n    return DummyClassifier()\n"),
    "quality.suspected_leakage": ("leaky", "classification",
                                  "def build_pipeline(task):\n    return LogisticRegression()\n"),
    "data_flow.value_error": ("iris", "classification",
                              "def build_pipeline(task):\n"
                              "    raise ValueError('the plan said three layers')\n"),
    "runtime.unclassified": ("iris", "classification",
                             "def build_pipeline(task):\n    raise RuntimeError('boom')\n"),
    # Neural-network failures, raised by real PyTorch (tests/agents/families/test_neural.py
    # repairs them).
    "neural.dtype_mismatch": ("iris", "classification",
                              "def build_pipeline(task):\n    import torch\n"
                              "    torch.nn.Linear(4, 2)(torch.ones(3, 4, dtype=torch.float64))\n"),
    "neural.input_width": ("iris", "classification",
                           "def build_pipeline(task):\n    import torch\n"
                           "    torch.nn.Linear(3, 2)(torch.ones(5, 4))\n"),
    "neural.loss_target_mismatch": ("iris", "classification",
                                    "def build_pipeline(task):\n    import torch\n"
                                    "    torch.nn.BCEWithLogitsLoss()(torch.zeros(4, 3),"
                                    " torch.zeros(4, dtype=torch.long))\n"),
    "neural.device": ("iris", "classification",
                      "def build_pipeline(task):\n    import torch\n"
                      "    torch.zeros(1).cuda()\n"),
    "neural.autograd": ("iris", "classification",
                        "def build_pipeline(task):\n    import torch\n"
                        "    loss = (torch.ones(2, requires_grad=True).exp()).sum()\n"
                        "    loss.backward()\n    loss.backward()\n"),
    "neural.loss_usage": ("iris", "classification",
                          "def build_pipeline(task):\n    import torch\n"
                          "    torch.nn.MSELoss(torch.ones(3), torch.zeros(3))\n"),
    "neural.module_registration": ("iris", "classification",
                                   "def build_pipeline(task):\n    import torch\n"
                                   "    torch.optim.SGD([], lr=0.1)\n"),
    "api.routed_keyword": ("iris", "classification",
                           "def build_pipeline(task):\n"
                           "    from sklearn.pipeline import make_pipeline\n"
                           "    make_pipeline(LogisticRegression()).fit(\n"
                           "        np.ones((4, 2)), [0, 1, 0, 1], sample_weight=np.ones(4))\n"),
    "data_flow.array_shape": ("iris", "classification",
                              "def build_pipeline(task):\n"
                              "    np.hstack([np.ones((2, 2)), np.ones(2)])\n"),
    "data_flow.input_type": ("iris", "classification",
                             "def build_pipeline(task):\n    import xgboost as xgb\n"
                             "    import pandas as pd\n"
                             "    frame = pd.DataFrame({'a': [0.0, 1.0] * 5})\n"
                             "    bst = xgb.train({}, xgb.DMatrix(frame, label=[0, 1] * 5), 2)\n"
                             "    bst.predict(frame)\n"),
    "data_flow.read_only": ("iris", "classification",
                            "def build_pipeline(task):\n    a = np.ones(3)\n"
                            "    a.flags.writeable = False\n    a[0] = 2\n"),
    "data_flow.not_fitted": ("iris", "classification",
                             "def build_pipeline(task):\n"
                             "    from sklearn.preprocessing import StandardScaler\n"
                             "    StandardScaler().transform(np.ones((2, 2)))\n"),
    "data_flow.feature_names": ("iris", "classification",
                                "def build_pipeline(task):\n    import pandas as pd\n"
                                "    LogisticRegression().fit(pd.DataFrame({'a': [0.0, 1.0], 1: "
                                "[1.0, 0.0]}), [0, 1])\n"),
    "neural.out_of_memory": ("iris", "classification",
                             "def build_pipeline(task):\n    import torch\n"
                             "    return torch.nn.Linear(200000, 200000)\n"),
    "neural.input_rank": ("iris", "classification",
                          "def build_pipeline(task):\n    import torch\n"
                          "    torch.nn.Conv2d(1, 2, 3)(torch.ones(5, 4))\n"),
    "data_flow.integer_expected": ("iris", "classification",
                                   "def build_pipeline(task):\n"
                                   "    return LogisticRegression(max_iter=100 / 2)\n"),
    "api.advised_keyword": ("iris", "classification",
                            "def build_pipeline(task):\n    import pandas as pd\n"
                            "    pd.qcut(pd.Series([0, 0, 0, 0, 1, 2]), 4)\n"),
    "data_flow.single_class": ("iris", "classification",
                               "def build_pipeline(task):\n"
                               "    LogisticRegression().fit(np.ones((4, 2)), [1, 1, 1, 1])\n"),
    "data_flow.empty_input": ("iris", "classification",
                              "def build_pipeline(task):\n"
                              "    StandardScaler().fit(np.ones((0, 2)))\n"),
}


def leaky_inputs(tmp_path):
    """breast_cancer with a column that is the target itself, renamed."""
    from pipesmith.agents.schemas import RunInputs
    from pipesmith.core.datasets import load_bundled

    frame = load_bundled("breast_cancer").frame
    frame["diagnosis_code"] = frame["target"] * 2 + 1
    path = tmp_path / "data.parquet"
    frame.to_parquet(path, index=False)
    inputs = RunInputs(run_id="t", task_text="t", dataset="leaky", data_path=str(path),
                       target="target", task_type="classification", metric="accuracy",
                       out_dir=str(tmp_path), n_jobs=1)
    return inputs, frame


def diagnose_case(sandbox, tmp_path, dataset, task_type, code, timeout_s=8.0):
    if dataset == "leaky":
        inputs, frame = leaky_inputs(tmp_path)
    else:
        inputs, frame = make_inputs(tmp_path, dataset, task_type=task_type)
    # small, so the disk case is quick; three folds: iris fits on 80 rows, predicts 40
    inputs = inputs.model_copy(update={"disk_mb": 64, "cv_folds": 3})
    profile = profile_table(frame, inputs.target, inputs.task_type)
    doctor = Diagnostician()
    issues = blocking(Prevalidator().check(code))
    if issues:
        return doctor.diagnose_issues(issues, code), None
    candidate = Candidate(id="a1", name="case", phase="draft", code=code)
    result, metrics = Executor(sandbox).run(candidate, inputs, tmp_path / "a1", timeout_s)
    if result.ok:
        return doctor.judge_quality(metrics, profile, inputs.metric), result
    return doctor.diagnose_result(result, code), result


def test_every_subclass_has_a_case():
    assert set(CASES) == {row.key for row in TAXONOMY}


@pytest.mark.parametrize("key", sorted(CASES))
def test_each_subclass_is_diagnosed_from_a_real_failure(key, sandbox, tmp_path):
    dataset, task_type, body = CASES[key]
    if key == "resource.process_limit" and not sandbox.limit_pids:
        pytest.skip("the pids cgroup controller is not writable here")
    if key == "sandbox_policy.network_denied" and not sandbox.isolate_network:
        pytest.skip("no network namespace here: the case would try a real connection")
    if key.startswith("library."):
        pytest.importorskip(key.split(".", 1)[1])
    uses_torch = key.startswith("neural.") or key in ("api.removed_function",
                                                      "api.advised_replacement")
    if uses_torch and not backends.available("torch"):
        pytest.skip("PyTorch is not installed")
    code = HEADER + body
    # importing torch takes seconds; only the endless loop needs a short limit, and the
    # others must not be cut short on a loaded machine (each fold is its own job)
    timeout_s = 90.0 if uses_torch else 8.0 if key == "resource.timeout" else 30.0
    diagnosis, result = diagnose_case(sandbox, tmp_path, dataset, task_type, code, timeout_s)
    detail = result.stderr[-1500:] if result else ""
    assert diagnosis is not None, f"no failure found; {detail}"
    assert f"{diagnosis.taxonomy_class}.{diagnosis.subclass}" == key, detail
    assert diagnosis.severity in ("critical", "recoverable")
    assert diagnosis.summary and diagnosis.evidence and diagnosis.signature.startswith(key)


# --- fault injection operators, diagnosed and repaired through the real sandbox -------------

PREFERRED_FAMILY = {"renamed_keyword": "logistic_regression",
                    "log_of_negative": "logistic_regression", "removed_keyword": "random_forest",
                    "outdated_parameter_value": "hist_gradient_boosting",
                    "huge_ensemble": "random_forest"}


@pytest.fixture(scope="module")
def breast_cancer(tmp_path_factory):
    root = tmp_path_factory.mktemp("bc")
    inputs, frame = make_inputs(root, "breast_cancer")
    # three folds, as diagnose_case: each round is a fold job per fold, and what a fault
    # breaks (a fit, a limit, a score) breaks in every fold alike
    inputs = inputs.model_copy(update={"max_candidates": 6, "cv_folds": 3})
    profile = profile_table(frame, inputs.target, inputs.task_type)
    specs = {s.family: s for s in Planner().plan(inputs, profile, []).candidates}
    return inputs, profile, specs


@pytest.mark.parametrize("operator", OPERATORS, ids=lambda op: op.name)
def test_each_injected_fault_is_diagnosed_and_repaired(operator, breast_cancer, sandbox,
                                                       tmp_path):
    inputs, profile, specs = breast_cancer
    ctx = FaultContext([c.name for c in profile.columns], inputs.task_type,
                       sandbox.isolate_network)
    if operator.name == "network_download" and not sandbox.isolate_network:
        pytest.skip("no network namespace here")
    coder = Coder()
    clean = coder.draft("a1", specs[PREFERRED_FAMILY.get(operator.name, "logistic_regression")],
                        profile, inputs)
    code = operator.mutate(clean.code, random.Random(0), ctx)
    assert code is not None and code != clean.code
    candidate = clean.model_copy(update={"code": code})
    doctor, checks, executor = Diagnostician(), Prevalidator(), Executor(sandbox)
    history, tried, codes, trail = [], [], [], []
    for round_ in range(4):  # the draft and at most three repairs
        codes.append(candidate.code)
        issues = blocking(checks.check(candidate.code))
        diagnosis = doctor.diagnose_issues(issues, candidate.code) if issues else None
        if not issues:
            result, metrics = executor.run(candidate, inputs, tmp_path / candidate.id, 10)
            diagnosis = doctor.judge_quality(metrics, profile, inputs.metric) if result.ok \
                else doctor.diagnose_result(result, candidate.code)
        if diagnosis is None:
            break
        trail.append(f"{diagnosis.taxonomy_class}.{diagnosis.subclass}")
        assert round_ < 3, f"not repaired in three rounds: {trail}"
        request = RepairRequest(candidate=candidate, diagnosis=diagnosis, history=history,
                                tried=tried, lineage_codes=codes,
                                columns=[c.name for c in profile.columns])
        repaired = coder.repair(f"a{round_ + 2}", request, profile, inputs)
        assert repaired is not None, f"no repair for {trail}"
        tried.append(f"{repaired.repair_action}@{diagnosis.signature}")
        history.append(diagnosis)
        candidate = repaired
    assert trail[0] == operator.expected


def test_fault_injection_is_seeded_and_respects_the_rate(iris):
    inputs, profile = iris
    spec = Planner().plan(inputs, profile, [])
    never = FaultInjectingCoder(Coder(), 0.0)
    always = FaultInjectingCoder(Coder(), 1.0)
    for i, s in enumerate(spec.candidates):
        assert never.draft(f"a{i}", s, profile, inputs).injected_fault is None
        first = always.draft(f"a{i}", s, profile, inputs)
        again = always.draft(f"a{i}", s, profile, inputs)
        assert first.injected_fault is not None and first.code == again.code
    with pytest.raises(ValueError):
        FaultInjectingCoder(Coder(), 1.5)


def test_a_run_with_injected_faults_repairs_and_reports(settings, tmp_path):
    from pipesmith import run

    report = run(dataset="wine", out=tmp_path / "run",
                 settings=settings.model_copy(update={"fault_rate": 1.0, "max_candidates": 2}))
    drafts = [a for a in report.attempts if a.phase == "draft"]
    assert all(a.injected_fault for a in drafts)
    assert report.fault_rate == 1.0
    assert report.final_success
    r = report.reliability
    assert 0 < r.score <= 1 and r.lineages == 2
    assert r.first_pass_rate <= 0.5 < r.final_success_rate


# --- pipesmith repair on code nobody generated -------------------------------------------------

OLD_MODULE = '''\
import numpy as np
from sklearn.preprocessing import Imputer, StandardScaler
from sklearn.pipeline import make_pipeline
from sklearn.linear_model import LogisticRegression


def build_pipeline(task):
    # written for an older scikit-learn
    return make_pipeline(Imputer(strategy="median"), StandardScaler(),
                         LogisticRegression(multi_class="auto", max_iter=np.int(500)))
'''

SCRIPT = '''\
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

frame = pd.read_csv("houses.csv")
X, y = frame[["rooms", "area_m2"]], frame["price"]
model = RandomForestRegressor(n_estimators=50, max_features="auto", random_state=0)
model.fit(X, y)
print("train R2", model.score(X, y))
'''


def _pipesmith(*args):
    return subprocess.run([sys.executable, "-m", "pipesmith.cli", *args], capture_output=True,
                          text=True, timeout=600)


def test_repair_a_module_written_for_an_old_library(tmp_path):
    source = tmp_path / "old_module.py"
    source.write_text(OLD_MODULE)
    out = tmp_path / "out"
    done = _pipesmith("repair", str(source), "--dataset", "breast_cancer", "--out", str(out))
    assert done.returncode == 0, done.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["mode"] == "module" and report["status"] == "repaired"
    # One failure at a time, or several in one round when the pre-validator reports them
    # together and the migration table knows each.
    found = [a["diagnosis"]["subclass"] for a in report["attempts"][:-1]]
    assert found[0] == "version_conflict" and 2 <= len(found) <= 3
    assert set(found) <= {"version_conflict", "removed_attribute", "unexpected_keyword"}
    fixed = (out / "old_module.py").read_text()
    assert "SimpleImputer as Imputer" in fixed and "multi_class" not in fixed
    assert "np.int(" not in fixed and "# written for an older scikit-learn" in fixed
    assert (out / "old_module.diff").read_text().startswith("--- a/old_module.py")
    assert source.read_text() == OLD_MODULE  # the user's file is never touched


def _houses_project(tmp_path):
    """A folder with SCRIPT as train.py beside the houses.csv it reads."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "train.py").write_text(SCRIPT)
    rows = ["rooms,area,price"] + [f"{r},{30 + 7 * r},{10 * r + 0.5}" for r in range(1, 60)]
    (folder / "houses.csv").write_text("\n".join(rows) + "\n")
    return folder


def test_repair_a_plain_script(tmp_path):
    folder = _houses_project(tmp_path)
    out = tmp_path / "out"
    done = _pipesmith("repair", str(folder / "train.py"), "--data", str(folder / "houses.csv"),
                      "--target", "price", "--out", str(out), "--rounds", "3")
    assert done.returncode == 0, done.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["mode"] == "script" and report["final_success"]
    # The parameter is caught before the script runs; the column only when it does.
    assert [a["diagnosis"]["subclass"] for a in report["attempts"][:-1]] == [
        "invalid_parameter", "missing_column"]
    assert report["attempts"][0]["status"] == "rejected"
    fixed = (out / "train.py").read_text()
    # "auto" meant all features for a regressor: the migration table keeps that intent.
    assert "['rooms', 'area']" in fixed and 'max_features=1.0' in fixed


def test_repair_gives_up_honestly(tmp_path):
    source = tmp_path / "hopeless.py"
    source.write_text("raise SystemExit('this script always fails')\n")
    done = _pipesmith("repair", str(source), "--out", str(tmp_path / "out"), "--rounds", "2")
    assert done.returncode == 1
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["status"] == "failed" and not report["final_success"]
    # It stops before the round limit, and says why.
    assert report["rounds_used"] < 2 and report["stop_reason"].startswith("no repair left")
    assert f"stopped: {report['stop_reason']}" in " ".join(done.stderr.split())
    assert "hint: offline repair knows the failures in its rule table" in \
        " ".join(done.stderr.split())  # and what would go further: a model (--llm)


def test_repair_stops_at_the_round_limit_and_says_so(tmp_path):
    """The graph's own loop (build_repair_graph) with --rounds 1: the first repair fixes the
    parameter, the column error remains, and the loop says the round limit ended it."""
    folder = _houses_project(tmp_path)
    out = tmp_path / "out"
    done = _pipesmith("repair", str(folder / "train.py"), "--out", str(out), "--rounds", "1")
    assert done.returncode == 1, done.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["rounds_used"] == 1 and report["status"] == "failed"
    assert report["stop_reason"] == \
        "data_flow.missing_column remains and the round limit (1) is reached"
    assert f"stopped: {report['stop_reason']}" in " ".join(done.stderr.split())
    # each attempt's code and logs, as the run graph keeps them
    assert sorted(p.name for p in (out / "attempts").iterdir()) == ["a1_train", "a2_train"]
    assert "max_features=1.0" in (out / "train.py").read_text()


def test_repair_with_a_bad_budget_is_bad_input(tmp_path):
    source = tmp_path / "train.py"
    source.write_text(SCRIPT)
    done = _pipesmith("repair", str(source), "--out", str(tmp_path / "out"), "--budget", "0")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "--budget" in done.stderr and not (tmp_path / "out").exists()


def test_repair_of_a_missing_file_is_bad_input(tmp_path):
    done = _pipesmith("repair", str(tmp_path / "nope.py"))
    assert done.returncode == 2 and "file not found" in done.stderr


def test_taxonomy_doc_lists_every_subclass():
    doc = (Path(__file__).parents[3] / "docs" / "taxonomy.md").read_text()
    for row in TAXONOMY:
        assert f"`{row.key}`" in doc
