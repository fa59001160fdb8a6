"""Ensembles composed from the exact code of their members, run in the real sandbox."""

from __future__ import annotations

import pytest

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.ensembler.compose import compose_module
from pipesmith.agents.executor import Executor
from pipesmith.agents.families.registry import get_family
from pipesmith.agents.prevalidator.agent import Prevalidator
from pipesmith.agents.schemas import Candidate, CandidateSpec


def _member(iris, cid: str, name: str) -> Candidate:
    inputs, profile = iris
    family = get_family("classification", name)
    spec = CandidateSpec(name=name, family=name, params=family.params, scale=family.scale,
                         encoding=family.encoding)
    return Coder().draft(cid, spec, profile, inputs)


def _repaired(member: Candidate) -> Candidate:
    """A repair that changed the code away from what its spec would render."""
    code = member.code.replace("n_estimators=300", "n_estimators=37")
    assert code != member.code
    return member.model_copy(update={"id": "a4", "phase": "repair", "parent": member.id,
                                     "code": code, "repair_action": "shrink_model"})


@pytest.mark.parametrize("strategy", ["caruana", "stacking"])
def test_composed_ensemble_runs_the_members_code_as_scored(tmp_path, sandbox, iris,
                                                           strategy):
    inputs, profile = iris
    members = [_member(iris, "a1", "logistic_regression"),
               _repaired(_member(iris, "a3", "random_forest"))]
    # stacking: a level-2 model that adds each class's probabilities of both members
    level2 = None if strategy == "caruana" else {
        "coef": [[1.0 * (j == c) for _ in members for j in range(3)] for c in range(3)],
        "intercept": [0.0, 0.0, 0.0], "columns": ["0", "1", "2"], "classes": ["0", "1", "2"]}
    ensemble = Coder().ensemble("a5", members, profile, inputs, strategy=strategy,
                                weights=[2.0, 1.0], level2=level2)
    assert "n_estimators=37" in ensemble.code  # the repair survives; no re-rendering
    assert "n_estimators=300" not in ensemble.code
    assert not Prevalidator().check(ensemble.code, profile.table_columns)
    result, metrics = Executor(sandbox).run(ensemble, inputs, tmp_path / "a5", timeout_s=120)
    assert result.ok, result.stderr[-2000:]
    assert metrics["score"] > 0.8
    namespace: dict = {}
    exec(compile(ensemble.code, "ensemble.py", "exec"), namespace)  # noqa: S102 - ours
    model = namespace["build_pipeline"]({"seed": 0, "n_jobs": 1})
    assert [name for name, _ in model.estimators] == ["a1", "a4"]
    if strategy == "caruana":
        assert model.weights == [2.0, 1.0]


def test_members_with_clashing_names_stay_apart():
    tail = "\n\ndef build_pipeline(task):\n    return helper()\n"
    one = "X = 1\n\ndef helper():\n    return X" + tail
    two = "X = 2\n\ndef helper(X=X):\n    return X" + tail
    code = compose_module([("a1", one), ("a2", two)], "caruana", [1, 0], "regression")
    assert "m1_helper" in code and "m2_" not in code  # weight 0: left out
    code = compose_module([("a1", one), ("a2", two)], "stacking", [1, 1], "regression",
                          level2={"coef": [0.4, 0.6], "intercept": [1.0]})
    namespace: dict = {}
    exec(compile(code, "e.py", "exec"), namespace)  # noqa: S102 - built here
    assert (namespace["m1_helper"](), namespace["m2_helper"]()) == (1, 2)


def test_a_stacking_keeps_only_the_members_its_level2_model_uses():
    """Non-negative least squares gives some members no weight: they are not refitted, and
    the level-2 model's coefficients are the kept members' (by position)."""
    member = "def build_pipeline(task):\n    return {}\n"
    members = [(f"a{i}", member.format(f"'m{i}'")) for i in range(3)]
    code = compose_module(members, "stacking", [0.25, 0.0, 0.75], "regression",
                          level2={"coef": [0.3, 0.0, 0.9], "intercept": [2.0]})
    assert "a1" not in code and "coef=[0.3, 0.9]" in code and "intercept=[2.0]" in code
    classifier = compose_module(members, "stacking", [0.5, 0.0, 0.5], "classification",
                                level2={"coef": [[1, 2, 3, 4, 5, 6]], "intercept": [0.1],
                                        "columns": ["x", "y"], "classes": ["x", "y"]})
    assert "coef=[[1.0, 2.0, 5.0, 6.0]]" in classifier
    with pytest.raises(ValueError, match="level-2"):
        compose_module(members, "stacking", [1, 1, 1], "regression")


def test_single_strategy_is_the_member_code_itself():
    assert compose_module([("a1", "A"), ("a2", "B")], "single", [0, 1], "regression") == "B"


def test_consensus_module_clusters_with_its_members_code(tmp_path):
    """Three k-means members with different seeds: the composed consensus module runs
    their exact code and recovers the blobs as well as they do."""
    from sklearn.datasets import make_blobs
    from sklearn.metrics import adjusted_rand_score

    member = ("from sklearn.cluster import KMeans\n\n"
              "def build_pipeline(task):\n"
              "    return KMeans(n_clusters=3, n_init=1, random_state={seed})\n")
    members = [(f"a{i}", member.format(seed=i)) for i in range(3)]
    code = compose_module(members, "consensus", [1, 1, 1], "clustering", n_clusters=3)
    assert "random_state=2" in code and "ConsensusClustering" in code
    namespace: dict = {}
    exec(compile(code, "consensus.py", "exec"), namespace)  # noqa: S102 - built here
    X, truth = make_blobs(n_samples=2500, centers=3, random_state=0)
    labels = namespace["build_pipeline"]({"seed": 0, "n_jobs": 1}).fit_predict(X)
    from sklearn.cluster import KMeans

    alone = [adjusted_rand_score(truth, KMeans(n_clusters=3, n_init=1, random_state=i)
                                 .fit_predict(X)) for i in range(3)]
    assert len(labels) == 2500
    assert adjusted_rand_score(truth, labels) >= min(alone) - 0.01


def test_single_member_with_class_weights_runs_in_the_sandbox(tmp_path, sandbox, iris):
    """The best single member, deciding by class-weighted probabilities: its own code, wrapped,
    scored by the harness like any candidate."""
    inputs, profile = iris
    member = _member(iris, "a1", "logistic_regression")
    weights = {"0": 1.0, "1": 1.0, "2": 0.05}  # class 2 almost never wins
    code = compose_module([("a1", member.code)], "single", [1.0], "classification",
                          class_weights=weights)
    assert "ClassWeightedClassifier(m1_build_pipeline(task)" in code
    ensemble = Candidate(id="a2", name="ensemble", phase="ensemble", code=code,
                         members=["a1"])
    assert not Prevalidator().check(ensemble.code, profile.table_columns)
    result, metrics = Executor(sandbox).run(ensemble, inputs, tmp_path / "a2", timeout_s=120)
    assert result.ok, result.stderr[-2000:]
    plain, plain_metrics = Executor(sandbox).run(member, inputs, tmp_path / "a1",
                                                 timeout_s=120)
    assert plain.ok
    assert metrics["score"] < plain_metrics["score"]  # the weights change the decisions
