"""The pre-validator: static checks, smoke runs and resource prediction, on real code."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.agents.executor import Executor
from pipesmith.agents.planner.agent import Planner
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.prevalidator.agent import Prevalidator, blocking
from pipesmith.agents.prevalidator.resources import conformal_margin, fold_job_wall_s, predict
from pipesmith.agents.schemas import Candidate
from tests.conftest import make_inputs

IRIS = ["sepal length (cm)", "sepal width (cm)", "petal length (cm)", "petal width (cm)",
        "target"]
HEADER = ("import numpy as np\nfrom sklearn.compose import ColumnTransformer\n"
          "from sklearn.impute import SimpleImputer\n"
          "from sklearn.linear_model import LogisticRegression\n"
          "from sklearn.pipeline import make_pipeline\n"
          "from sklearn.preprocessing import OneHotEncoder\n\n")

# Faults the static checks must catch, each also run for real to show it is no false alarm.
STATIC = {
    "api.unexpected_keyword": "def build_pipeline(task):\n"
                              "    return LogisticRegression(multi_class='auto')\n",
    "api.invalid_parameter": "def build_pipeline(task):\n    return make_pipeline("
                             "SimpleImputer(strategy='medain'), LogisticRegression())\n",
    "api.removed_attribute": "def build_pipeline(task):\n"
                             "    return LogisticRegression(C=np.float(1))\n",
    "import.version_conflict": "from sklearn.preprocessing import Imputer\n\n"
                               "def build_pipeline(task):\n"
                               "    return make_pipeline(Imputer(), LogisticRegression())\n",
    "contract.wrong_return_type": "def build_pipeline(task):\n"
                                  "    return LogisticRegression(), {'C': 1.0}\n",
    "data_flow.missing_column": "def build_pipeline(task):\n    return make_pipeline("
                                "ColumnTransformer([('n', 'passthrough', ['sepal length (cm)', "
                                "'petal widht (cm)'])]), LogisticRegression())\n",
}


@pytest.mark.parametrize("key", sorted(STATIC))
def test_static_check_catches_what_would_crash(key, sandbox, tmp_path, iris):
    code = HEADER + STATIC[key]
    issues = blocking(Prevalidator().check(code, IRIS))
    assert issues, "not caught statically"
    assert f"{issues[0].taxonomy_class}.{issues[0].subclass}" == key
    assert issues[0].line is not None
    inputs, _ = iris
    candidate = Candidate(id="a1", name="x", phase="draft", code=code)
    result, _ = Executor(sandbox).run(candidate, inputs, tmp_path / "a1", 60)
    assert result.status == "error"  # it really would have crashed ...
    diagnosis = Diagnostician().diagnose_result(result, code)
    assert f"{diagnosis.taxonomy_class}.{diagnosis.subclass}" == key  # ... the same way


def test_declared_requirements_are_checked_against_installed_versions():
    code = ("# requirements: scikit-learn<1.2, numpy>=1.20, nosuchpackage==1.0\n"
            "def build_pipeline(task):\n    pass\n")
    issues = Prevalidator().check(code)
    messages = {f"{i.taxonomy_class}.{i.subclass}": i.message for i in issues}
    assert "is installed but the code requires scikit-learn<1.2" in \
        messages["import.version_conflict"]
    assert "nosuchpackage" in messages["import.missing_module"]
    assert len(issues) == 2  # numpy>=1.20 is satisfied
    listed = "REQUIREMENTS = ['pandas>=99']\ndef build_pipeline(task):\n    pass\n"
    assert "pandas>=99" in Prevalidator().check(listed)[0].message


def test_security_findings_are_advisory():
    code = ("import socket\nimport subprocess\n\ndef build_pipeline(task):\n"
            "    subprocess.run(['ls'])\n    open('/etc/passwd').read()\n"
            "    from sklearn.linear_model import Ridge\n    return Ridge()\n")
    issues = Prevalidator().check(code)
    assert {i.subclass for i in issues} == {"network_denied", "denied_call",
                                           "file_access_denied"}
    assert all(i.advisory for i in issues) and blocking(issues) == []


@pytest.mark.parametrize("dataset", ["iris", "wine", "breast_cancer", "digits", "diabetes"])
def test_no_false_positives_on_clean_drafts(dataset, tmp_path):
    inputs, frame = make_inputs(tmp_path, dataset)
    inputs = inputs.model_copy(update={"max_candidates": 10})
    profile = profile_table(frame, inputs.target, inputs.task_type)
    columns = list(frame.columns)
    for spec in Planner().plan(inputs, profile, []).candidates:
        code = Coder().draft("a1", spec, profile, inputs).code
        assert Prevalidator().check(code, columns) == [], spec.family


def test_conformal_margin():
    assert conformal_margin([1.1] * 5, default=1.5) == 1.5  # too few runs: the default
    ratios = [1.0 + i / 100 for i in range(40)]  # 1.00 .. 1.39
    # ceil(41 * 0.95) = 39th smallest of 40
    assert conformal_margin(ratios, default=9.0) == pytest.approx(1.38)
    assert conformal_margin([0.5] * 40, default=9.0) == 1.0  # never below the prediction


def test_prediction_scales_with_data_and_model(iris):
    from pipesmith.agents.schemas import CandidateSpec

    _, profile = iris
    small = CandidateSpec(name="rf", family="random_forest", params={"n_estimators": 10})
    big = small.model_copy(update={"params": {"n_estimators": 5000}})
    a = predict(profile, small, 3, None, 300, [])
    b = predict(profile, big, 3, None, 300, [])
    assert b.peak_mem_mb > a.peak_mem_mb and b.wall_s > a.wall_s
    assert a.mem_bound_mb == pytest.approx(a.peak_mem_mb * 1.5, rel=0.01)
    smoked = predict(profile, small, 3, {"peak_mem_mb": 300.0, "wall_s": 4.0}, 300, [])
    assert smoked.basis == "smoke" and smoked.peak_mem_mb >= 300.0


def test_a_fold_job_is_the_smoke_run_plus_what_the_extra_rows_cost(iris):
    from pipesmith.agents.schemas import CandidateSpec

    _, profile = iris
    hgb = CandidateSpec(name="hgb", family="hist_gradient_boosting", params={"max_iter": 100})
    smoke = {"peak_mem_mb": 200.0, "wall_s": 3.0}
    # the smoke run measured a job on the sample: no more rows, no more seconds
    assert fold_job_wall_s(profile, hgb, 100, smoke, 300) == pytest.approx(3.0)
    many = profile.model_copy(update={"n_rows": 20_000})
    fold = fold_job_wall_s(many, hgb, 16_000, smoke, 300)
    assert fold > 3.0 and fold_job_wall_s(many, hgb, 20_000, smoke, 300) > fold
    # multiclass boosting grows a tree per class a round; more rounds cost more
    binary = many.model_copy(update={"n_classes": 2})
    assert fold_job_wall_s(binary, hgb, 16_000, smoke, 300) < fold
    longer = hgb.model_copy(update={"params": {"max_iter": 400}})
    assert fold_job_wall_s(many, longer, 16_000, smoke, 300) > fold
    assert fold_job_wall_s(many, hgb, 16_000, None, 300) > 0  # no smoke: the model alone


@pytest.mark.slow
def test_smoke_run_catches_what_static_checks_cannot(settings, tmp_path):
    from pipesmith import run
    from pipesmith.core.driver import default_deps

    class LogsStandardisedValues(Coder):
        """Logistic regression rejects the NaN that log() of negative values makes."""

        def draft(self, candidate_id, spec, profile, inputs, examples=None):
            candidate = super().draft(candidate_id, spec, profile, inputs)
            if spec.family != "logistic_regression":
                return candidate
            code = candidate.code.replace(
                'numeric_steps = [SimpleImputer(strategy="median", keep_empty_features=True)]',
                'numeric_steps = [SimpleImputer(strategy="median", keep_empty_features=True), '
                'StandardScaler(), '
                'FunctionTransformer(np.log)]').replace(
                "from sklearn.compose", "import numpy as np\n"
                "from sklearn.preprocessing import FunctionTransformer\nfrom sklearn.compose")
            return candidate.model_copy(update={"code": code})

    deps = default_deps(settings)
    deps.coder = LogsStandardisedValues()
    # no search and no repair: the test is about the smoke run alone
    settings = settings.model_copy(update={"max_candidates": 2, "search_share": 0.0,
                                           "max_repair_rounds": 0})
    report = run(dataset="digits", out=tmp_path / "run", settings=settings, deps=deps)
    broken = next(a for a in report.attempts if a.candidate == "logistic_regression")
    folder = tmp_path / "run" / "attempts" / f"{broken.id}_logistic_regression"
    assert Prevalidator().check((folder / "candidate.py").read_text()) == []  # invisible
    assert broken.smoke and broken.status == "error" and broken.smoke_s > 0
    assert (broken.diagnosis.taxonomy_class, broken.diagnosis.subclass) == (
        "data_flow", "nan_input")
    assert not (folder / "folds").exists()  # the full run never started
    assert report.smoke_s >= broken.smoke_s and report.final_success


@pytest.mark.slow
def test_limits_come_from_the_prediction_and_oversized_models_shrink(settings, tmp_path):
    from pipesmith import run
    from pipesmith.core.driver import default_deps

    class Oversized(Coder):
        def draft(self, candidate_id, spec, profile, inputs, examples=None):
            candidate = super().draft(candidate_id, spec, profile, inputs)
            return candidate.model_copy(update={
                "code": candidate.code.replace("n_estimators=300", "n_estimators=400000")})

    deps = default_deps(settings)
    deps.coder = Oversized()
    settings = settings.model_copy(update={"max_candidates": 3})
    report = run(dataset="wine", out=tmp_path / "run", settings=settings, deps=deps)
    forest = next(a for a in report.attempts if a.candidate == "random_forest")
    assert forest.resource_adjustment == "shrink_model" and forest.succeeded
    assert "n_estimators=100" in (tmp_path / "run" / "attempts" / "a3_random_forest"
                                  / "candidate.py").read_text()
    for attempt in report.attempts:
        if attempt.status == "ok":
            assert attempt.predicted_mem_mb and attempt.mem_bound_mb >= attempt.predicted_mem_mb
            assert 512 <= attempt.memory_limit_mb <= 4096
            assert attempt.peak_mem_mb <= attempt.memory_limit_mb


def _pipesmith(*args):
    return subprocess.run([sys.executable, "-m", "pipesmith.cli", *args], capture_output=True,
                          text=True, timeout=300)


def test_validate_command(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(HEADER + STATIC["api.unexpected_keyword"])
    done = _pipesmith("validate", str(bad), "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] is False and report["issues"][0]["subclass"] == "unexpected_keyword"
    good = tmp_path / "good.py"
    good.write_text(HEADER + "def build_pipeline(task):\n    return LogisticRegression()\n")
    done = _pipesmith("validate", str(good), "--dataset", "digits", "--kb", str(tmp_path / "kb"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "smoke run on 300 rows passed" in done.stdout
    assert "full run predicted" in done.stdout
    assert _pipesmith("validate", str(tmp_path / "none.py")).returncode == 2


def test_class_labels_that_share_the_targets_name_are_not_read_as_columns():
    """A stacking's classes (target `dead`, labels alive/dead) were flagged as a missing
    column 'alive' and the ensemble was rejected unrun (a 300 s run on nass_cds)."""
    from pipesmith.agents.prevalidator.static_checks import check_columns

    code = ("def build_pipeline(task):\n"
            "    return Stack(columns=['alive', 'dead'], classes=['alive', 'dead'])\n")
    tree = __import__("ast").parse(code)
    columns = ["airbag", "seatbelt", "dead"]
    assert check_columns(tree, columns, target="dead") == []
    typo = __import__("ast").parse("use = ['airbag', 'seatbelts', 'dead']\n")
    assert [i.message for i in check_columns(typo, columns, target="dead")] == [
        "['seatbelts'] not in index: the data has no column 'seatbelts'"]
