"""Reusable models: a run's model.joblib loads in a fresh process from any directory, and
`pipesmith predict` applies it to new rows after checking them against schema.json.

Every load and prediction here happens in a new Python process started in a directory
that is neither the repository nor the run folder.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from pipesmith.agents.families import backends

pytestmark = pytest.mark.slow
TORCH = [pytest.mark.torch, pytest.mark.skipif(not backends.available("torch"),
                                              reason="PyTorch is not installed")]
TENSORFLOW = [pytest.mark.tensorflow,
              pytest.mark.skipif(not backends.available("tensorflow"),
                                 reason="TensorFlow/Keras is not installed")]


def python_in(cwd, code: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout)


def pipesmith_in(cwd, *args, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipesmith.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout)


def small_run(folder, **run_args):
    """One candidate, no knowledge base, no spread folds: the quickest honest run."""
    from pipesmith import run
    from pipesmith.settings import Settings

    settings = Settings(max_candidates=1, use_kb=False, cv_folds=0, smoke_rows=0, n_jobs=1,
                        runs_dir=folder, backend=run_args.pop("backend", "sklearn"))
    report = run(budget_s=180, out=folder / "run", settings=settings, **run_args)
    assert report.final_success, [a.diagnosis for a in report.attempts]
    return folder / "run"


def mixed_table(n: int = 240, seed: int = 0) -> pd.DataFrame:
    """Numbers, integers and strings, and string classes: what coercion has to get right."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"x": rng.normal(size=n),
                          "colour": rng.choice(["red", "green", "blue"], n),
                          "count": rng.integers(0, 10, n)})
    signal = frame["x"] + 1.5 * (frame["colour"] == "red") + 0.2 * frame["count"]
    frame["label"] = np.where(signal > 1.2, "yes", "no")
    return frame


@pytest.fixture(scope="module")
def sklearn_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sklearn")
    mixed_table().to_csv(folder / "train.csv", index=False)
    return small_run(folder, data=folder / "train.csv", target="label")


@pytest.fixture(scope="module")
def torch_run(tmp_path_factory):
    return small_run(tmp_path_factory.mktemp("torch"), dataset="breast_cancer", backend="torch")


@pytest.fixture
def elsewhere(tmp_path):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


def new_rows(run_dir, n: int = 60):
    """Rows the model saw in training, shuffled, with the target kept aside and a column
    the model does not know."""
    frame = pd.read_parquet(run_dir / "data.parquet")
    target = json.loads((run_dir / "schema.json").read_text())["target"]
    rows = frame.sample(n=n, random_state=1)
    truth = rows.pop(target).to_numpy()
    return rows.assign(comment="new"), truth


# --- a run's model, from another directory ---------------------------------------------------


@pytest.mark.parametrize("which", ["sklearn", pytest.param("torch", marks=TORCH)])
def test_predict_applies_the_run_model_from_another_directory(which, request, elsewhere):
    run_dir = request.getfixturevalue(f"{which}_run")
    rows, truth = new_rows(run_dir)
    rows.to_csv(elsewhere / "new.csv", index=False)
    done = pipesmith_in(elsewhere, "predict", str(run_dir), "--data", "new.csv", "--out",
                        "preds.csv")
    assert done.returncode == 0, done.stderr
    assert "note: ignored 1 column(s) the model does not use: comment" in done.stderr
    preds = pd.read_csv(elsewhere / "preds.csv")
    schema = json.loads((run_dir / "schema.json").read_text())
    assert list(preds.columns) == ["prediction"] + [f"proba_{c}" for c in schema["classes"]]
    assert np.allclose(preds.filter(like="proba_").sum(axis=1), 1.0, atol=1e-5)
    # Same answers as the model itself, loaded with plain joblib in a fresh process ...
    loaded = python_in(elsewhere, f"""
        import joblib, pandas as pd
        model = joblib.load({str(run_dir / "model.joblib")!r})
        rows = pd.read_csv("new.csv").drop(columns="comment")
        print(type(model.steps[-1][1]).__module__)
        pd.Series(model.predict(rows)).to_csv("direct.csv", index=False)
        """)
    assert loaded.returncode == 0, loaded.stderr
    direct = pd.read_csv(elsewhere / "direct.csv").iloc[:, 0]
    assert (preds["prediction"].astype(str) == direct.astype(str)).all()
    if which == "torch":
        assert loaded.stdout.strip() == "pipesmith.estimators.torch_mlp"
    # ... in the input's row order: shuffled rows still get their own labels.
    accuracy = (preds["prediction"].astype(str).to_numpy() == truth.astype(str)).mean()
    assert accuracy > 0.8


def test_python_predict_keeps_the_index_and_ignores_the_target(sklearn_run):
    import pipesmith

    frame = pd.read_parquet(sklearn_run / "data.parquet").iloc[::-1].head(20)
    preds = pipesmith.predict(sklearn_run, frame)
    assert list(preds.index) == list(frame.index)
    assert (preds["prediction"] == frame["label"]).mean() > 0.8
    without = pipesmith.predict(sklearn_run, frame.drop(columns="label"))
    assert preds.equals(without)


def test_columns_are_coerced_to_their_training_types(sklearn_run):
    """Integers read as text, numbers as strings: converted, not refused."""
    import pipesmith

    frame = pd.read_parquet(sklearn_run / "data.parquet").head(30).drop(columns="label")
    as_text = frame.astype({"x": str, "count": str})
    assert pipesmith.predict(sklearn_run, as_text).equals(pipesmith.predict(sklearn_run, frame))


# --- bad input: one line, exit 2, nothing written ------------------------------------------------


def _bad_inputs(run_dir, folder):
    frame = pd.read_parquet(run_dir / "data.parquet").head(10)
    frame.drop(columns="colour").to_csv(folder / "missing.csv", index=False)
    frame.assign(count=["ten"] + list(frame["count"][1:])).to_csv(folder / "text.csv", index=False)
    frame.head(0).to_csv(folder / "header_only.csv", index=False)
    (folder / "zero_bytes.csv").write_text("")
    frame.to_csv(folder / "good.csv", index=False)
    (folder / "not_a_run").mkdir()
    return {
        "missing_column": (run_dir, "missing.csv", "missing feature column the model needs: "
                                                   "'colour'"),
        "uncoercible": (run_dir, "text.csv", "column 'count' must be numeric (int64), not "
                                             "'ten' (row 1)"),
        "header_only": (run_dir, "header_only.csv", "the data has no rows"),
        "zero_bytes": (run_dir, "zero_bytes.csv", "data file is empty"),
        "no_model": (folder / "not_a_run", "good.csv", "has no model.joblib"),
        "missing_file": (run_dir, "nowhere.csv", "data file not found"),
    }


@pytest.mark.parametrize("case", ["missing_column", "uncoercible", "header_only", "zero_bytes",
                                  "no_model", "missing_file"])
def test_bad_input_is_one_line_exit_2_and_nothing_written(case, sklearn_run, elsewhere):
    run_dir, data, message = _bad_inputs(sklearn_run, elsewhere)[case]
    before = set(elsewhere.rglob("*"))
    done = pipesmith_in(elsewhere, "predict", str(run_dir), "--data", data, "--out",
                        "preds.csv")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert set(elsewhere.rglob("*")) == before and done.stdout == ""


def test_help_says_what_comes_out():
    done = pipesmith_in(None, "predict", "--help")
    assert done.returncode == 0
    for words in ("--data", "--out", "prediction", "proba_<class>", "stdout", "exit 2"):
        assert words in done.stdout


# --- models a fresh process must load: Keras, and classes a candidate defines itself -------------


@pytest.mark.parametrize("_", [pytest.param("tensorflow", marks=TENSORFLOW)])
def test_a_keras_model_loads_in_a_fresh_process(_, tmp_path, elsewhere):
    saved = tmp_path / "keras.joblib"
    trained = python_in(tmp_path, f"""
        from sklearn.datasets import load_iris
        from pipesmith.estimators import KerasMLPClassifier
        from pipesmith.core.model_io import save_model
        X, y = load_iris(return_X_y=True)
        model = KerasMLPClassifier(hidden=(16,), epochs=5).fit(X, y)
        save_model(model, {str(saved)!r})
        print(model.predict_proba(X[:5]).round(4).tolist())
        """)
    assert trained.returncode == 0, trained.stderr[-2000:]
    loaded = python_in(elsewhere, f"""
        import joblib
        from sklearn.datasets import load_iris
        model = joblib.load({str(saved)!r})
        print(model.predict_proba(load_iris(return_X_y=True)[0][:5]).round(4).tolist())
        """)
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert loaded.stdout.strip().splitlines()[-1] == trained.stdout.strip().splitlines()[-1]


OWN_CLASS = '''
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression


class Centred(ClassifierMixin, BaseEstimator):
    """An estimator class only this module defines."""

    def fit(self, X, y):
        self.mean_ = np.asarray(X, dtype=float).mean(axis=0)
        self.model_ = LogisticRegression(max_iter=500).fit(np.asarray(X) - self.mean_, y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(np.asarray(X) - self.mean_)

    def predict_proba(self, X):
        return self.model_.predict_proba(np.asarray(X) - self.mean_)


def build_pipeline(task):
    return Centred()
'''


def test_a_class_the_candidate_defines_is_saved_by_value(iris, sandbox, tmp_path, elsewhere):
    """The harness loads a candidate as module `candidate`, which no other process can
    import: its classes go into the refit job's model.joblib by value."""
    from pipesmith.agents.executor import Executor
    from pipesmith.agents.schemas import Candidate

    inputs, _ = iris
    candidate = Candidate(id="a1", name="own_class", phase="draft", code=OWN_CLASS)
    result, metrics = Executor(sandbox).refit(candidate, inputs, tmp_path / "a1", 120)
    assert result.ok, result.stderr[-2000:]
    loaded = python_in(elsewhere, f"""
        import joblib
        from sklearn.datasets import load_iris
        X, y = load_iris(return_X_y=True, as_frame=True)
        model = joblib.load({str(tmp_path / "a1" / "model.joblib")!r})
        print(type(model).__name__, (model.predict(X) == y).mean())
        """)
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    name, accuracy = loaded.stdout.split()
    assert name == "Centred" and float(accuracy) > 0.9


# --- pipeline.py: retrain on every row, keep the run's model -----------------------------------


def test_pipeline_py_retrains_on_all_rows_and_keeps_the_run_model(sklearn_run, elsewhere):
    run_model = (sklearn_run / "model.joblib").read_bytes()
    done = subprocess.run([sys.executable, str(sklearn_run / "pipeline.py")],
                          capture_output=True, text=True, cwd=sklearn_run, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    n_rows = len(pd.read_parquet(sklearn_run / "data.parquet"))
    assert f"trained on all {n_rows} rows" in done.stdout
    assert (sklearn_run / "model.joblib").read_bytes() == run_model
    loaded = python_in(elsewhere, f"""
        import joblib, pandas as pd
        model = joblib.load({str(sklearn_run / "retrained.joblib")!r})
        frame = pd.read_parquet({str(sklearn_run / "data.parquet")!r})
        print((model.predict(frame.drop(columns="label")) == frame["label"]).mean())
        """)
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert float(loaded.stdout) > 0.8
    (sklearn_run / "retrained.joblib").unlink()
