"""The repair rule table, the migration table, and a sample of the real-failure corpus."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

from pipesmith.agents.diagnostician.taxonomy import BY_KEY, TAXONOMY
from pipesmith.agents.repair import table as repairs
from pipesmith.agents.repair.patches import migrations
from pipesmith.agents.schemas import Diagnosis
from pipesmith.evals import repair_corpus

BENCHMARK = Path(__file__).parents[2] / "benchmarks" / "repair_corpus.py"


def diagnosis(key: str, summary: str) -> Diagnosis:
    cls, sub = key.split(".")
    return Diagnosis(taxonomy_class=cls, subclass=sub, severity="recoverable",
                     summary=summary, repair_actions=list(BY_KEY[key].repair_actions))


def test_every_rule_answers_a_taxonomy_class_and_every_action_has_a_rule():
    assert {rule.key for rule in repairs.RULES} <= set(BY_KEY)
    for row in TAXONOMY:
        for action in row.repair_actions:
            assert action == "redraft" or repairs.rule_for(action, row.key).key == row.key


def test_each_migration_row_is_well_formed_and_sourced():
    rows = migrations.table()
    assert len(rows) >= 60
    libraries = {row.library for row in rows}
    assert {"scikit-learn", "pandas", "numpy", "torch", "keras"} <= libraries
    for row in rows:
        assert row.source.startswith("https://"), row
        assert row.kind in ("import", "module", "keyword", "value", "method", "attribute",
                            "function", "rewrite"), row
        if row.kind == "rewrite":
            assert row.new in migrations.REWRITES, row


@pytest.mark.parametrize(("key", "summary", "code", "expected"), [
    ("api.unexpected_keyword",
     "TypeError: OneHotEncoder.__init__() got an unexpected keyword argument 'sparse'",
     "enc = OneHotEncoder(sparse=False, handle_unknown='ignore')\n",
     "enc = OneHotEncoder(sparse_output=False, handle_unknown='ignore')\n"),
    ("api.invalid_parameter",
     "InvalidParameterError: The 'max_features' parameter of RandomForestRegressor must be "
     "an int in the range [1, inf), a float in the range (0.0, 1.0], a str among "
     "{'sqrt', 'log2'} or None. Got 'auto' instead.",
     "m = RandomForestRegressor(max_features='auto')  # all features\n",
     "m = RandomForestRegressor(max_features=1.0)  # all features\n"),
    ("api.removed_attribute", "AttributeError: 'Series' object has no attribute 'iteritems'",
     "for k, v in counts.iteritems():\n    print(k)\n",
     "for k, v in counts.items():\n    print(k)\n"),
    ("api.removed_attribute", "AttributeError: 'DataFrame' object has no attribute 'append'",
     "import pandas as pd\nres = res.append({'a': 1}, ignore_index=True)\n",
     "import pandas as pd\nres = pd.concat([res, pd.DataFrame([{'a': 1}])], "
     "ignore_index=True)\n"),
    ("api.unexpected_keyword",
     "TypeError: mean_squared_error() got an unexpected keyword argument 'squared'",
     "import sklearn.metrics as m\nr = m.mean_squared_error(y, p, squared=False)\n",
     "import sklearn.metrics as m\nr = m.root_mean_squared_error(y, p)\n"),
    ("api.removed_function",
     "RuntimeError: This function was deprecated since version 1.9 and is now removed. "
     "Please use the `torch.linalg.matrix_rank` function instead.",
     "import torch as t\nr = t.matrix_rank(x)\n",
     "import torch as t\nr = t.linalg.matrix_rank(x)\n"),
])
def test_migration_repairs_keep_the_rest_of_the_line(key, summary, code, expected):
    fixed = repairs.apply("migrate_api", code, diagnosis(key, summary), repairs.RepairContext())
    assert fixed == expected


def test_dummies_encoded_apart_are_aligned_to_the_training_columns():
    code = ("import pandas as pd\nX_train = pd.get_dummies(train)\n"
            "X_test = pd.get_dummies(test)\nmodel.fit(X_train, y)\n")
    fixed = repairs.apply("align_features", code, diagnosis(
        "data_flow.train_validation_mismatch", "ValueError: The feature names should match"),
        repairs.RepairContext())
    assert "X_test = X_test.reindex(columns=X_train.columns, fill_value=0)\n" \
           "model.fit" in fixed


def test_a_script_gets_its_fitted_estimator_wrapped():
    code = ("import pandas as pd\nfrom sklearn.svm import SVC\n\nmodel = SVC(C=2)\n"
            "model.fit(X, y)\n")
    fixed = repairs.apply("add_imputation", code, diagnosis(
        "data_flow.nan_input", "ValueError: Input X contains NaN."), repairs.RepairContext())
    assert "model = _pipesmith_guard(SVC(C=2))" in fixed
    tree = ast.parse(fixed)
    helper = next(i for i, n in enumerate(tree.body) if isinstance(n, ast.FunctionDef))
    use = next(i for i, n in enumerate(tree.body) if isinstance(n, ast.Assign))
    assert helper < use  # defined before the script uses it


def test_the_corpus_is_sourced_split_and_classed():
    cases = repair_corpus.load()
    assert len(cases) >= 60
    assert len({c.id for c in cases}) == len(cases)
    for case in cases:
        assert case.file.is_file(), case.id
        assert case.source.startswith("https://"), case.id
        assert case.expected in BY_KEY or (case.split in repair_corpus.WILD_SPLITS
                                           and case.expected == "unknown"), case.id
        assert case.kind in ("script", "module") and case.data in repair_corpus.DATA
    for family in {c.family for c in cases}:
        halves = {c.split for c in cases if c.family == family}
        assert halves <= {"dev", "heldout", "fresh", *repair_corpus.WILD_SPLITS}
    dev, held = repair_corpus.load("dev"), repair_corpus.load("heldout")
    assert abs(len(dev) - len(held)) <= len({c.family for c in cases})


SAMPLE = ("ohe_sparse_titanic", "titanic_nan_ages", "rf_max_features_auto_classifier",
          "stratify_single_member")  # a class of one row: repair splits off no test part


@pytest.mark.slow
@pytest.mark.parametrize("case_id", SAMPLE)
def test_a_sample_of_the_corpus_is_repaired(case_id, tmp_path):
    spec = importlib.util.spec_from_file_location("repair_corpus_benchmark", BENCHMARK)
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    case = next(c for c in repair_corpus.load() if c.id == case_id)
    row = bench.run_case(case, rounds=3, timeout_s=60, workdir=tmp_path)
    assert row["diagnosed"] == case.expected
    assert row["repaired"], row


def test_the_honest_fault_model_puts_faults_in_repairs_too(iris):
    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.coder.faults import REAL_WORLD_OPERATORS, FaultInjectingCoder
    from pipesmith.agents.planner.agent import Planner
    from pipesmith.agents.schemas import RepairRequest

    inputs, profile = iris
    specs = Planner().plan(inputs, profile, []).candidates
    honest = FaultInjectingCoder(Coder(), 1.0, every_generation=True)
    drafts_only = FaultInjectingCoder(Coder(), 1.0)
    assert set(REAL_WORLD_OPERATORS) <= set(honest.operators)
    assert not set(REAL_WORLD_OPERATORS) & set(drafts_only.operators)
    first = honest.draft("a1", specs[0], profile, inputs)
    assert first.injected_fault is not None
    broken = diagnosis("runtime.unclassified", "RuntimeError: boom")  # only a redraft helps
    request = RepairRequest(candidate=first, diagnosis=broken, lineage_codes=[first.code])
    repaired = honest.repair("a2", request, profile, inputs)
    clean = drafts_only.repair("a2", request, profile, inputs)
    assert repaired.repair_action == clean.repair_action == "redraft"
    assert repaired.injected_fault is not None and clean.injected_fault is None
    assert repaired.code != clean.code


@pytest.mark.parametrize("name", ["max_features_auto", "penalty_none_string",
                                  "multi_class_keyword", "boosting_loss_renamed",
                                  "nan_sentinel_alias"])
def test_real_world_operators_apply_to_drafts_and_the_migration_table_undoes_them(name, iris):
    import random
    import re

    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.coder.faults import BY_NAME, FaultContext
    from pipesmith.agents.planner.agent import Planner

    inputs, profile = iris
    family = {"max_features_auto": "random_forest",
              "boosting_loss_renamed": "hist_gradient_boosting"}.get(name, "logistic_regression")
    spec = next(s for s in Planner().plan(inputs.model_copy(update={"max_candidates": 6}),
                                          profile, []).candidates if s.family == family)
    clean = Coder().draft("a1", spec, profile, inputs).code
    operator = BY_NAME[name]
    broken = operator.mutate(clean, random.Random(0), FaultContext([], "classification", False))
    assert broken and broken != clean
    messages = {  # what the installed libraries say about each
        "api.invalid_parameter": "InvalidParameterError: The '{kw}' parameter of {cls} must "
                                 "be a str among {{...}}. Got '{value}' instead.",
        "api.unexpected_keyword": "TypeError: {cls}.__init__() got an unexpected keyword "
                                  "argument '{kw}'",
        "api.removed_attribute": "AttributeError: module 'numpy' has no attribute 'NaN'",
    }
    changed = next(line for line in broken.splitlines() if line not in clean.splitlines()
                   and not line.startswith("import"))
    found = re.search(r"(\w+)\((\w+)=\"(\w+)\"", changed)
    fields = dict(cls=found.group(1), kw=found.group(2), value=found.group(3)) if found else {}
    summary = messages[operator.expected].format(**fields)
    fixed = repairs.apply("migrate_api", broken, diagnosis(operator.expected, summary),
                          repairs.RepairContext())
    assert fixed is not None and "np.NaN" not in fixed
    assert fixed.count("\n") >= broken.count("\n") - 1  # a minimal diff, not a rewrite


def test_the_offline_coder_replays_a_past_fix_and_prefers_the_located_patch():
    import difflib

    from pipesmith.agents.coder.agent import Coder, demote_failed, replay_fixes, touches
    from pipesmith.agents.schemas import Candidate, RepairRequest

    before = "import numpy as np\n\nx = np.float(1)\ny = 2\n"
    after = "import numpy as np\n\nx = float(1)\ny = 2\n"
    diff = "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True)))
    elsewhere = "# another module\nimport numpy as np\n\nx = np.float(1)\ny = 2\nz = 3\n"
    assert replay_fixes(elsewhere, [diff]) == elsewhere.replace("np.float(1)", "float(1)")
    assert replay_fixes("nothing alike\n", [diff]) is None
    assert touches(before, after, 3) and not touches(before, after, 9)
    key = diagnosis("api.unexpected_keyword", "x")
    tried = ["fix_keyword@api.unexpected_keyword|TypeError|..."]
    assert demote_failed(["fix_keyword", "migrate_api", "redraft"], tried, key) == \
        ["migrate_api", "redraft", "fix_keyword"]
    # The knowledge base's diff goes first when it applies.
    failed = Candidate(id="a1", name="m", phase="draft", code=elsewhere)
    broken = diagnosis("api.removed_attribute",
                       "AttributeError: module 'numpy' has no attribute 'float'")
    request = RepairRequest(candidate=failed, diagnosis=broken, lineage_codes=[elsewhere],
                            past_fixes=["replace_attribute"], past_fix_diffs=[diff])
    repaired = Coder().repair("a2", request, None, None)
    assert repaired.repair_action == "replay_fix" and "np.float" not in repaired.code


def test_capability_checks_catch_nan_and_text_and_spare_working_drafts(tmp_path):
    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.planner.agent import Planner
    from pipesmith.agents.planner.profiler import profile_table
    from pipesmith.agents.prevalidator.agent import Prevalidator, blocking
    from pipesmith.core.inputs import prepare_inputs
    from pipesmith.settings import Settings

    path = tmp_path / "passengers.csv"
    repair_corpus.passengers().to_csv(path, index=False)
    inputs, frame = prepare_inputs(tmp_path, data=path, target="survived",
                                   settings=Settings(max_candidates=4))
    profile = profile_table(frame, inputs.target, inputs.task_type)
    checks = Prevalidator()
    no_imputer = ("from sklearn.svm import SVC\nfrom sklearn.compose import ColumnTransformer\n"
                  "from sklearn.preprocessing import OneHotEncoder\n"
                  "from sklearn.pipeline import make_pipeline\n\n\ndef build_pipeline(task):\n"
                  "    prep = ColumnTransformer([('c', OneHotEncoder(), ['sex'])],\n"
                  "                             remainder='passthrough')\n"
                  "    return make_pipeline(prep, SVC())\n")
    raw = "from sklearn.linear_model import LogisticRegression\n\n\n" \
          "def build_pipeline(task):\n    return LogisticRegression()\n"
    flagged = [i.subclass for i in blocking(checks.check(raw, profile.table_columns, profile))]
    assert flagged == ["nan_input", "dtype"]
    assert [i.subclass for i in blocking(checks.check(no_imputer, profile.table_columns,
                                                      profile))] == ["nan_input"]
    for spec in Planner().plan(inputs, profile, []).candidates:  # the coder's own drafts
        draft = Coder().draft("a1", spec, profile, inputs)
        assert not blocking(checks.check(draft.code, profile.table_columns, profile))


def test_densify_asks_the_encoder_for_dense_output():
    code = "enc = OneHotEncoder(handle_unknown='ignore')\nother = OneHotEncoder()\n"
    fixed = repairs.apply("densify", code, diagnosis(
        "data_flow.dtype", "TypeError: Sparse data was passed for X, but dense data is "
                           "required."), repairs.RepairContext())
    assert fixed == ("enc = OneHotEncoder(handle_unknown='ignore', sparse_output=False)\n"
                     "other = OneHotEncoder(sparse_output=False)\n")


def test_lambdas_are_lifted_to_module_functions_only_when_self_contained():
    code = ("import numpy as np\n\n\ndef build_pipeline(task):\n    k = 2\n"
            "    a = FunctionTransformer(lambda X: np.log1p(X))\n"
            "    b = FunctionTransformer(lambda X: X * k)\n    return a, b\n")
    fixed = repairs.apply("lift_lambdas", code, diagnosis(
        "contract.unpicklable", "PicklingError: Can't pickle <function <lambda>>"),
        repairs.RepairContext())
    assert "FunctionTransformer(_pipesmith_step_1)" in fixed
    assert "def _pipesmith_step_1(X):\n    return np.log1p(X)" in fixed
    assert "lambda X: X * k" in fixed  # it needs the local k: left alone


def test_fault_draws_are_paired_across_runs_of_one_dataset(iris):
    """Each eval job has its own copy of the data (jobs/<dataset>__<topology>__s<seed>/):
    the draws depend on the dataset, seed and candidate, not on that folder, so every
    topology meets the same faults in the same candidates."""
    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.coder.faults import FaultInjectingCoder
    from pipesmith.agents.planner.agent import Planner

    inputs, profile = iris
    specs = Planner().plan(inputs, profile, []).candidates
    elsewhere = inputs.model_copy(update={"dataset": "/elsewhere/full/" +
                                          inputs.dataset.rsplit("/", 1)[-1]})
    other_seed = inputs.model_copy(update={"seed": inputs.seed + 1})
    coder = FaultInjectingCoder(Coder(), 0.5, every_generation=True)
    drawn = {name: [(coder.draft(f"a{i}", spec, profile, run_inputs).injected_fault)
                    for i, spec in enumerate(specs * 3)]
             for name, run_inputs in [("here", inputs), ("elsewhere", elsewhere),
                                      ("other_seed", other_seed)]}
    assert drawn["here"] == drawn["elsewhere"]
    assert any(drawn["here"]) and drawn["here"] != drawn["other_seed"]
