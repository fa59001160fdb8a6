"""PyTorch and Keras candidates: planned, written, checked, run in the real sandbox,
and their own failures diagnosed and repaired from real torch/TensorFlow exceptions.

Marked `torch` / `tensorflow`; they skip only where the library is not installed.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.coder.faults import NEURAL_OPERATORS, FaultContext
from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.agents.executor import Executor
from pipesmith.agents.families import backends
from pipesmith.agents.planner.agent import Planner
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.prevalidator.agent import Prevalidator, blocking
from pipesmith.agents.schemas import RepairRequest
from tests.conftest import make_inputs

pytestmark = pytest.mark.slow
TORCH = [pytest.mark.torch, pytest.mark.skipif(not backends.available("torch"),
                                              reason="PyTorch is not installed")]
TENSORFLOW = [pytest.mark.tensorflow,
              pytest.mark.skipif(not backends.available("tensorflow"),
                                 reason="TensorFlow/Keras is not installed")]
MARKS = {"torch": TORCH, "tensorflow": TENSORFLOW}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """Prepared inputs and profiles per dataset, made once for the module."""
    cache = {}

    def get(dataset: str, backend: str):
        if dataset not in cache:
            inputs, frame = make_inputs(tmp_path_factory.mktemp(dataset), dataset)
            cache[dataset] = inputs, profile_table(frame, inputs.target, inputs.task_type)
        inputs, profile = cache[dataset]
        return inputs.model_copy(update={"backend": backend, "cv_folds": 0}), profile

    return get


def draft(inputs, profile, index: int = 0):
    spec = Planner().plan(inputs, profile, []).candidates[index]
    return Coder().draft("a1", spec, profile, inputs)


# --- end to end through the real sandbox ---------------------------------------------------


@pytest.mark.parametrize("backend,dataset", [
    pytest.param("torch", "breast_cancer", marks=TORCH),
    pytest.param("torch", "diabetes", marks=TORCH),
    pytest.param("tensorflow", "iris", marks=TENSORFLOW),
    pytest.param("tensorflow", "diabetes", marks=TENSORFLOW),
])
def test_neural_candidate_trains_and_scores_in_the_sandbox(backend, dataset, prepared, sandbox,
                                                           tmp_path):
    inputs, profile = prepared(dataset, backend)
    candidate = draft(inputs, profile)
    assert candidate.spec.family.startswith("torch" if backend == "torch" else "keras")
    assert blocking(Prevalidator().check(candidate.code, [c.name for c in profile.columns])) == []
    result, metrics = Executor(sandbox).run(candidate, inputs, tmp_path / "a1", 240)
    assert result.ok, result.stderr[-2000:]
    assert metrics["score"] > metrics["baseline_score"] + 0.1  # a network that learnt
    loss = metrics["loss"]  # the estimator's own loss curve, read by the harness
    assert loss["finite"] and loss["last"] < loss["first"]
    assert {"predictions.npz", "diagnostics.json"} <= set(result.files)
    if inputs.task_type == "classification":
        import numpy as np

        proba = np.load(tmp_path / "a1" / "oof.npz")["proba"]
        assert proba.shape[1] == profile.n_classes and np.allclose(proba.sum(axis=1), 1, atol=1e-4)


@pytest.mark.parametrize("backend", [pytest.param("torch", marks=TORCH)])
def test_standalone_pipeline_retrains_a_neural_winner(backend, prepared, tmp_path):
    from pipesmith.core.report import standalone_script

    inputs, profile = prepared("breast_cancer", backend)
    candidate = draft(inputs, profile)
    script = tmp_path / "pipeline.py"
    script.write_text(standalone_script(candidate.code, inputs))
    done = subprocess.run([sys.executable, str(script), "--data", inputs.data_path, "--out",
                           str(tmp_path / "model.joblib")], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    check = (f"import joblib, pandas as pd\n"
             f"model = joblib.load({str(tmp_path / 'model.joblib')!r})\n"
             f"frame = pd.read_parquet({inputs.data_path!r})\n"
             f"X, y = frame.drop(columns={inputs.target!r}), frame[{inputs.target!r}]\n"
             f"print((model.predict(X) == y).mean())\n")
    loaded = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                            cwd=elsewhere, timeout=300)
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert float(loaded.stdout) > 0.85  # trained on every row, loaded in a fresh process


# --- backend-specific failures, diagnosed and repaired ---------------------------------------

NEURAL_FAULT_CASES = [
    pytest.param(op.name, backend, dataset, marks=MARKS[backend], id=f"{op.name}-{backend}")
    for op in NEURAL_OPERATORS
    for backend, dataset in (("torch", "breast_cancer"),)
] + [
    pytest.param("hardcoded_input_width", "tensorflow", "iris", marks=TENSORFLOW,
                 id="hardcoded_input_width-tensorflow"),
    pytest.param("wrong_loss", "tensorflow", "iris", marks=TENSORFLOW,
                 id="wrong_loss-tensorflow"),
]


@pytest.mark.parametrize("name,backend,dataset", NEURAL_FAULT_CASES)
def test_neural_fault_is_diagnosed_and_repaired(name, backend, dataset, prepared, sandbox,
                                                tmp_path):
    """Inject the fault, run it for real, and let diagnosis and repair fix it: the first
    diagnosis is the operator's taxonomy class, and the lineage ends with a trusted run."""
    operator = next(op for op in NEURAL_OPERATORS if op.name == name)
    inputs, profile = prepared(dataset, backend)
    clean = draft(inputs, profile)
    ctx = FaultContext([c.name for c in profile.columns], inputs.task_type, False)
    code = operator.mutate(clean.code, random.Random(0), ctx)
    assert code is not None and code != clean.code
    candidate = clean.model_copy(update={"code": code})
    coder, doctor, checks, executor = Coder(), Diagnostician(), Prevalidator(), Executor(sandbox)
    history, tried, codes, trail = [], [], [], []
    for round_ in range(4):  # the faulty draft and at most three repairs
        codes.append(candidate.code)
        assert blocking(checks.check(candidate.code)) == []
        result, metrics = executor.run(candidate, inputs, tmp_path / candidate.id, 240)
        diagnosis = doctor.judge_quality(metrics, profile, inputs.metric) if result.ok \
            else doctor.diagnose_result(result, candidate.code)
        if diagnosis is None:
            break
        trail.append((f"{diagnosis.taxonomy_class}.{diagnosis.subclass}", diagnosis.summary))
        assert round_ < 3, f"not repaired in three rounds: {trail}"
        request = RepairRequest(candidate=candidate, diagnosis=diagnosis, history=history,
                                tried=tried, lineage_codes=codes,
                                columns=[c.name for c in profile.columns])
        repaired = coder.repair(f"a{round_ + 2}", request, profile, inputs)
        assert repaired is not None, f"no repair for {trail}"
        tried.append(f"{repaired.repair_action}@{diagnosis.signature}")
        history.append(diagnosis)
        candidate = repaired
    assert trail and trail[0][0] == operator.expected, trail
    assert metrics["score"] > metrics["baseline_score"]


# --- choosing backends ------------------------------------------------------------------------


@pytest.fixture
def without_neural_extras(monkeypatch):
    """Point the backends at module names that are really not installed."""
    monkeypatch.setitem(backends.MODULES, "torch", ("pipesmith_test_no_torch",))
    monkeypatch.setitem(backends.MODULES, "tensorflow", ("pipesmith_test_no_tensorflow",))


@pytest.mark.parametrize("backend", [pytest.param("torch", marks=TORCH)])
def test_planner_follows_the_backend(backend, prepared):
    inputs, profile = prepared("digits", "torch")  # 1,437 development rows (of 1,797)
    assert {s.family for s in Planner().plan(inputs, profile, []).candidates} == {
        "torch_mlp", "torch_mlp_wide"}
    auto = Planner().plan(inputs.model_copy(update={"backend": "auto"}), profile, [])
    families = [s.family for s in auto.candidates]
    assert len(families) == inputs.max_candidates and families[-1] == "torch_mlp"
    assert all(not f.startswith(("torch", "keras")) for f in families[:-1])
    small, small_profile = prepared("iris", "auto")  # 150 rows: too few for a network
    assert all(not s.family.startswith(("torch", "keras"))
               for s in Planner().plan(small, small_profile, []).candidates)


def test_without_the_extras_nothing_neural_is_planned(without_neural_extras, prepared):
    inputs, profile = prepared("breast_cancer", "auto")
    assert all(not s.family.startswith(("torch", "keras"))
               for s in Planner().plan(inputs, profile, []).candidates)
    for backend in ("torch", "tensorflow"):
        with pytest.raises(backends.InputError, match=rf'pip install "pipesmith\[{backend}\]"'):
            backends.check_backend(backend)
    with pytest.raises(backends.InputError, match="must be one of"):
        backends.check_backend("jax")


def test_cli_names_the_missing_extra(without_neural_extras, tmp_path):
    from typer.testing import CliRunner

    from pipesmith.cli import app

    result = CliRunner().invoke(app, ["run", "--dataset", "iris", "--backend", "torch",
                                      "--no-kb", "--out", str(tmp_path / "run"), "-q"])
    assert result.exit_code == 2
    assert 'pip install "pipesmith[torch]"' in result.output
    assert not (tmp_path / "run").exists()  # bad input: nothing written


@pytest.mark.parametrize("backend", [pytest.param("torch", marks=TORCH)])
def test_resources_know_the_framework_and_the_network(backend, prepared):
    from pipesmith.agents.prevalidator.resources import predict, sized_from_code
    from pipesmith.agents.repair import table as repairs

    inputs, profile = prepared("breast_cancer", backend)
    neural = draft(inputs, profile)
    sklearn = draft(inputs.model_copy(update={"backend": "sklearn"}), profile)
    neural_mb = predict(profile, sized_from_code(neural.spec, neural.code), 0, None, 0, [])
    sklearn_mb = predict(profile, sized_from_code(sklearn.spec, sklearn.code), 0, None, 0, [])
    assert neural_mb.peak_mem_mb - sklearn_mb.peak_mem_mb >= 150  # torch's own import
    ctx = FaultContext([c.name for c in profile.columns], inputs.task_type, False)
    huge = next(op for op in NEURAL_OPERATORS if op.name == "huge_network").mutate(
        neural.code, random.Random(0), ctx)
    bound = predict(profile, sized_from_code(neural.spec, huge), 0, None, 0, []).mem_bound_mb
    assert bound > inputs.memory_mb  # the execute node shrinks it before it runs ...
    shrunk = repairs.apply("shrink_model", huge, None, repairs.RepairContext())
    assert "hidden=(256, 256)" in shrunk  # ... to widths that fit
    assert predict(profile, sized_from_code(neural.spec, shrunk), 0, None, 0,
                   []).mem_bound_mb < inputs.memory_mb
