"""Each agent on its own, with real inputs (real sandbox runs where they need one)."""

from __future__ import annotations

import ast

import numpy as np
import pandas as pd
import pytest

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.diagnostician.agent import Diagnostician, candidate_line, last_exception
from pipesmith.agents.ensembler.agent import Ensembler, combined_score
from pipesmith.agents.executor import Executor
from pipesmith.agents.planner.agent import Planner, family_evidence
from pipesmith.agents.planner.profiler import column_kind, profile_table
from pipesmith.agents.prevalidator.agent import Prevalidator
from pipesmith.agents.schemas import Attempt, Candidate, Diagnosis, PastRun, RepairRequest
from pipesmith.sandbox.base import ExecResult

# --- profiler ---------------------------------------------------------------------------


def test_column_kinds():
    n = 200
    frame = pd.DataFrame({
        "customer_id": range(n),
        "age": np.arange(n) % 50,
        "plan": ["a", "b", "c", None] * (n // 4),
        "when": [f"2024-01-{i % 28 + 1:02d}" for i in range(n)],
        "token": [f"tok{i}" for i in range(n)],
        "same": [1] * n,
    })
    kinds = {c: column_kind(frame[c]) for c in frame}
    assert kinds == {"customer_id": "id", "age": "numeric", "plan": "categorical",
                     "when": "datetime", "token": "id", "same": "constant"}


def test_profile_target_statistics(iris):
    _, profile = iris
    # the development part: 80% of 150 rows (the test part is never profiled)
    assert (profile.n_rows, profile.n_columns, profile.n_classes) == (120, 4, 3)
    assert profile.minority_share == pytest.approx(1 / 3, abs=1e-3)
    assert "120 rows" in profile.summary("classification")


# --- planner ----------------------------------------------------------------------------


def test_planner_picks_distinct_families_for_the_task(iris):
    inputs, profile = iris
    plan = Planner().plan(inputs.model_copy(update={"max_candidates": 4}), profile, [])
    families = [c.family for c in plan.candidates]
    assert len(families) == 4 == len(set(families))
    assert families[0] == "hist_gradient_boosting"


def test_planner_puts_families_that_won_on_similar_data_first(iris):
    inputs, profile = iris
    past = [PastRun(run_id="r", summary="s", task_type="classification", distance=0.1,
                    family_scores={"knn": 0.5, "logistic_regression": 0.2})]
    plan = Planner().plan(inputs.model_copy(update={"max_candidates": 3}), profile, past)
    assert [c.family for c in plan.candidates[:2]] == ["knn", "logistic_regression"]
    assert "similar past" in plan.candidates[0].rationale


def test_the_plan_always_keeps_the_floor_in_its_default_configuration(iris):
    """Past runs may push HistGradientBoosting out of the plan or re-parameterise it; its
    default configuration stays (issue 24's floor), in the last place of a full plan."""
    inputs, profile = iris
    inputs = inputs.model_copy(update={"max_candidates": 2})
    default = Planner().plan(inputs, profile, []).candidates[0]
    assert default.family == "hist_gradient_boosting"
    past = [PastRun(run_id="r", summary="s", task_type="classification", distance=0.1,
                    family_scores={"knn": 0.5, "logistic_regression": 0.2})]
    pushed = Planner().plan(inputs, profile, past).candidates
    assert [c.family for c in pushed] == ["knn", "hist_gradient_boosting"]
    assert pushed[1].params == default.params and "floor" in pushed[1].rationale
    tuned = [PastRun(run_id="t", summary="s", task_type="classification", distance=0.1,
                     family_scores={"hist_gradient_boosting": 0.5},
                     family_params={"hist_gradient_boosting": {"max_iter": 60}})]
    kept = Planner().plan(inputs, profile, tuned).candidates
    assert [(c.name, c.params.get("max_iter")) for c in kept] == [
        ("hist_gradient_boosting", 60), ("hist_gradient_boosting_default", 200)]
    # the person's choice comes first: no floor where they asked for linear models only
    linear = Planner().plan(inputs.model_copy(update={"families": ["logistic_regression"]}),
                            profile, past).candidates
    assert [c.family for c in linear] == ["logistic_regression"]


def test_family_evidence_weights_by_distance():
    runs = [PastRun(run_id="a", summary="", task_type="regression", distance=0.0,
                    family_scores={"ridge": 1.0}),
            PastRun(run_id="b", summary="", task_type="regression", distance=1.0,
                    family_scores={"ridge": 0.0})]
    assert family_evidence(runs)["ridge"] == pytest.approx(2 / 3)


def test_clustering_plan_varies_the_cluster_count(tmp_path):
    from tests.conftest import make_inputs

    inputs, frame = make_inputs(tmp_path, "wine", task_type="clustering", metric="silhouette")
    profile = profile_table(frame, inputs.target, "clustering")
    plan = Planner().plan(inputs.model_copy(update={"max_candidates": 4}), profile, [])
    assert {c.params.get("n_clusters", c.params.get("n_components")) for c in plan.candidates} \
        == {2, 3}


# --- coder ------------------------------------------------------------------------------


def test_drafts_are_valid_modules_for_every_planned_family(iris):
    inputs, profile = iris
    coder = Coder()
    plan = Planner().plan(inputs.model_copy(update={"max_candidates": 10}), profile, [])
    for spec in plan.candidates:
        code = coder.draft("a1", spec, profile, inputs).code
        tree = ast.parse(code)
        assert "build_pipeline" in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert Prevalidator().check(code) == []


TIMEOUT = Diagnosis(taxonomy_class="resource", subclass="timeout", severity="recoverable",
                    summary="slow", signature="resource.timeout||",
                    repair_actions=["remove_infinite_loop", "shrink_model", "redraft"])


def _random_forest(iris):
    inputs, profile = iris
    spec = next(c for c in Planner().plan(inputs.model_copy(update={"max_candidates": 6}),
                                          profile, []).candidates
                if c.family == "random_forest")
    return Coder().draft("a1", spec, profile, inputs)


def test_repair_patches_the_failing_code_then_redrafts_then_gives_up(iris):
    inputs, profile = iris
    coder, first = Coder(), _random_forest(iris)
    request = RepairRequest(candidate=first, diagnosis=TIMEOUT, lineage_codes=[first.code])
    patched = coder.repair("a2", request, profile, inputs)
    assert (patched.parent, patched.phase, patched.repair_action) == ("a1", "repair",
                                                                     "shrink_model")
    assert "n_estimators=100" in patched.code and "n_estimators=300" in first.code
    # The same action on the same error is not tried twice: next comes a fresh redraft.
    request = RepairRequest(candidate=patched, diagnosis=TIMEOUT, history=[TIMEOUT],
                            tried=["shrink_model@resource.timeout||"],
                            lineage_codes=[first.code, patched.code])
    redrafted = coder.repair("a3", request, profile, inputs)
    assert redrafted.repair_action == "redraft"
    assert "n_estimators=50" in redrafted.code  # the family's light parameters
    request = request.model_copy(update={
        "candidate": redrafted, "tried": request.tried + ["redraft@resource.timeout||"],
        "lineage_codes": request.lineage_codes + [redrafted.code]})
    assert coder.repair("a4", request, profile, inputs) is None


def test_after_two_failed_repairs_a_redraft_goes_first(iris):
    inputs, profile = iris
    first = _random_forest(iris)
    request = RepairRequest(candidate=first, diagnosis=TIMEOUT, history=[TIMEOUT, TIMEOUT],
                            lineage_codes=[first.code])
    assert Coder().repair("a4", request, profile, inputs).repair_action == "redraft"


def test_fixes_that_worked_before_go_first():
    from pipesmith.agents.coder.agent import rank_actions

    assert rank_actions(["a", "b", "c"], ["c", "x"]) == ["c", "a", "b"]


# --- pre-validator ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "key", "line"),
    [
        ("def build_pipeline(task)\n    pass\n", "syntax.invalid_syntax", 1),
        ("import sklearn_nope\ndef build_pipeline(task):\n    pass\n", "import.missing_module", 1),
        ("from sklearn.nope import X\ndef build_pipeline(task):\n    pass\n",
         "import.missing_module", 1),
        ("x = 1\n", "contract.no_build_pipeline", None),
        ("def build_pipeline():\n    pass\n", "contract.no_build_pipeline", 1),
    ],
)
def test_prevalidator_finds_issues(code, key, line):
    issues = Prevalidator().check(code)
    assert issues, code
    assert f"{issues[0].taxonomy_class}.{issues[0].subclass}" == key
    assert issues[0].line == line


def test_prevalidator_accepts_stdlib_and_installed_imports():
    code = "import os, math, json\nfrom sklearn.linear_model import Ridge\n" \
           "def build_pipeline(task):\n    return Ridge()\n"
    assert Prevalidator().check(code) == []


# --- diagnostician (real failures from the real sandbox) ---------------------------------

FAILURES = {
    "data_flow.missing_column": "    return make_pipeline(ColumnTransformer("
                                "[('s', 'passthrough', ['no_such_column'])]), "
                                "LogisticRegression())\n",
    "data_flow.dtype": "    import numpy as np\n    class Bad(LogisticRegression):\n"
                       "        def fit(self, X, y):\n"
                       "            return super().fit(np.full(X.shape, 'a'), y)\n"
                       "    return Bad()\n",
    "import.missing_module": "    import xgboost_not_installed\n",
    "api.unexpected_keyword": "    return LogisticRegression(max_iterations=10)\n",
    "data_flow.nan_input": "    import numpy as np\n    class Bad(LogisticRegression):\n"
                           "        def fit(self, X, y):\n"
                           "            return super().fit(X * np.nan, y)\n"
                           "    return Bad()\n",
    "contract.wrong_return_type": "    return 'a string'\n",
}
HEADER = ("from sklearn.compose import ColumnTransformer\n"
          "from sklearn.linear_model import LogisticRegression\n"
          "from sklearn.pipeline import make_pipeline\n\n"
          "def build_pipeline(task):\n")


@pytest.mark.parametrize("key", sorted(FAILURES))
def test_diagnoses_real_failures(key, sandbox, tmp_path, iris):
    inputs, _ = iris
    code = HEADER + FAILURES[key]
    candidate = Candidate(id="a1", name="broken", phase="draft", code=code)
    result, _ = Executor(sandbox).run(candidate, inputs, tmp_path / "a1", timeout_s=60)
    assert result.status == "error"
    diagnosis = Diagnostician().diagnose_result(result, code)
    assert f"{diagnosis.taxonomy_class}.{diagnosis.subclass}" == key, result.stderr[-800:]
    assert diagnosis.evidence and diagnosis.repair_actions
    if key != "contract.wrong_return_type":  # raised by the harness, not in candidate code
        assert diagnosis.line is not None and ">" in diagnosis.excerpt


def test_timeout_is_a_resource_failure():
    diagnosis = Diagnostician().diagnose_result(
        ExecResult(status="timeout", wall_s=5.0), "def build_pipeline(task): pass")
    assert (diagnosis.taxonomy_class, diagnosis.subclass) == ("resource", "timeout")
    assert "shrink_model" in diagnosis.repair_actions


def test_traceback_parsing():
    stderr = ('Traceback (most recent call last):\n'
              '  File "/x/harness.py", line 9, in main\n'
              '  File "/w/candidate.py", line 12, in build_pipeline\n'
              '  File "/lib/sklearn/base.py", line 3, in fit\n'
              'sklearn.exceptions.NotFittedError: This model is not fitted yet\n')
    assert last_exception(stderr) == ("NotFittedError", "This model is not fitted yet")
    assert candidate_line(stderr) == 12


def test_prevalidation_issues_become_a_diagnosis():
    code = "def build_pipeline(task)\n    pass\n"
    diagnosis = Diagnostician().diagnose_issues(Prevalidator().check(code), code)
    assert diagnosis.taxonomy_class == "syntax" and diagnosis.line == 1
    assert "build_pipeline" in diagnosis.excerpt


# --- ensembler --------------------------------------------------------------------------


def _attempt(tmp_path, attempt_id: str, proba: np.ndarray, y: np.ndarray, score: float):
    workdir = tmp_path / attempt_id
    workdir.mkdir()
    classes = np.array([0, 1])
    np.savez(workdir / "oof.npz", index=np.arange(len(y)), y_true=y,
             pred=classes[proba.argmax(1)], proba=proba, classes=classes)
    return Attempt(id=attempt_id, parent=None, candidate=attempt_id, phase="draft",
                   status="ok", score=score, workdir=str(workdir))


def test_ensembler_combines_complementary_models(tmp_path, iris):
    inputs, _ = iris
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    truth = np.stack([1 - y, y], axis=1).astype(float)
    # Each model is informative with independent noise: their combination beats each one.
    probas = [0.35 * truth + 0.65 * rng.dirichlet([1, 1], 200) for _ in range(3)]
    attempts = [_attempt(tmp_path, f"a{i}", p, y, 0.8) for i, p in enumerate(probas, 1)]
    proposal = Ensembler().propose(attempts, inputs)
    assert proposal is not None and proposal.strategy in ("caruana", "stacking")
    assert proposal.estimated_score > proposal.nested_scores["single"]
    assert len(proposal.weights) == len(proposal.members) == 3
    ensemble = Attempt(id="a4", parent=None, candidate="ensemble", phase="ensemble",
                       status="ok", score=0.95)
    outcome = Ensembler().decide(proposal, ensemble, [*attempts, ensemble], "accuracy")
    assert outcome.kept and outcome.score == 0.95 and outcome.nested_scores


def test_ensembler_prefers_the_single_model_when_others_add_noise(tmp_path, iris):
    inputs, _ = iris
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    good = np.stack([1 - y, y], axis=1) * 0.8 + 0.1
    noise = [rng.dirichlet([1, 1], 200) for _ in range(2)]
    attempts = [_attempt(tmp_path, "a1", good, y, 1.0),
                *(_attempt(tmp_path, f"a{i}", p, y, 0.5) for i, p in enumerate(noise, 2))]
    proposal = Ensembler().propose(attempts, inputs)
    assert proposal.strategy in ("single", "caruana")
    assert proposal.weights[0] / sum(proposal.weights) > 0.9
    assert combined_score("accuracy", [np.load(tmp_path / "a1" / "oof.npz")]) == 1.0
    outcome = Ensembler().decide(proposal.model_copy(update={"strategy": "single"}), None,
                                 attempts, "accuracy")
    assert outcome.strategy == "single" and not outcome.kept


def test_ensembler_declines_too_few_rows(tmp_path, iris):
    inputs, _ = iris
    y = np.array([0, 1])
    a = _attempt(tmp_path, "a1", np.array([[.9, .1], [.1, .9]]), y, 1.0)
    b = _attempt(tmp_path, "a2", np.array([[.4, .6], [.6, .4]]), y, 0.0)
    assert Ensembler().propose([a, b], inputs) is None
    assert combined_score("accuracy", [np.load(tmp_path / "a1" / "oof.npz")]) == 1.0


def test_ensemble_whose_cv_score_is_worse_is_not_kept(tmp_path, iris):
    from pipesmith.agents.schemas import EnsembleProposal

    single = Attempt(id="a1", parent=None, candidate="x", phase="draft", status="ok", score=0.9)
    ens = Attempt(id="a2", parent=None, candidate="ensemble", phase="ensemble", status="ok",
                  score=0.89)
    proposal = EnsembleProposal(strategy="caruana", members=["a1", "a9"], estimated_score=0.95)
    outcome = Ensembler().decide(proposal, ens, [single, ens], "accuracy")
    assert not outcome.kept and outcome.score == 0.89


def test_a_search_winner_must_beat_the_planned_candidates_clearly():
    """Its score is the best of many trials on the same folds: within one standard error of
    the paired fold differences, the planned candidate is chosen."""
    from pipesmith.agents.ensembler.agent import best_attempt

    def attempt(aid, name, folds):
        return Attempt(id=aid, parent=None, candidate=name, phase="draft", status="ok",
                       score=float(np.mean(folds)), fold_scores=folds)

    planned = attempt("a1", "ridge", [0.35, 0.30, 0.35, 0.30, 0.33])
    noisy = attempt("a2", "hist_gradient_boosting_tuned", [0.50, 0.10, 0.60, 0.20, 0.40])
    assert noisy.score > planned.score and best_attempt([planned, noisy], "r2") is planned
    clear = attempt("a3", "lightgbm_tuned", [0.40, 0.36, 0.41, 0.35, 0.38])
    assert best_attempt([planned, noisy, clear], "r2") is clear
    assert best_attempt([planned, clear], "rmse") is planned  # a loss: lower is better
    other = attempt("a4", "lasso", [0.50, 0.10, 0.60, 0.20, 0.40])  # not searched: no guard
    assert best_attempt([planned, other], "r2") is other
