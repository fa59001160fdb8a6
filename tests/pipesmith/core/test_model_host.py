"""A saved model is generated code: pipesmith applies it only in the sandbox (model_host).

The models here are hostile the way a reward-hacking candidate's would be: a `__setstate__`
that runs when the pickle loads and writes to the host, predictions that depend on the
host's secrets, answers that break the referee's rules. Each is saved by model_io.save_model
exactly as a refit job saves a candidate (classes of this test module go in by value).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pipesmith.core import model_io
from pipesmith.core.model_host import ModelHost
from pipesmith.errors import InputError

pytestmark = pytest.mark.slow


class Spy:
    """Writes a file on whatever machine unpickles it; predicts 1 where it sees an API key."""

    def __init__(self, marker: str) -> None:
        self.marker = marker
        self.classes_ = np.array([0, 1])

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        try:
            Path(self.marker).write_text("model code ran here")
        except OSError:
            pass

    def predict(self, X):
        return np.full(len(X), int("OPENAI_API_KEY" in os.environ))

    def predict_proba(self, X):
        seen = float("OPENAI_API_KEY" in os.environ)
        return np.tile([1.0 - seen, seen], (len(X), 1))


class Liar:
    """Answers that the referee's rules refuse, one kind per `how`."""

    def __init__(self, how: str) -> None:
        self.how = how
        self.classes_ = np.array([0, 1] if how != "classes" else [1, 7])

    def predict(self, X):
        if self.how == "rows":
            return np.zeros(len(X) + 3, dtype=int)
        if self.how == "label":
            return np.full(len(X), 7)
        return np.zeros(len(X), dtype=int)

    def predict_proba(self, X):
        if self.how == "nan":
            return np.full((len(X), 2), np.nan)
        return np.tile([0.25, 0.75], (len(X), 1))


class Swapped(Liar):
    """Declares its classes in reverse order: its probability columns must be reordered."""

    def __init__(self) -> None:
        self.classes_ = np.array([1, 0])

    def predict(self, X):
        return np.ones(len(X), dtype=int)

    def predict_proba(self, X):
        return np.tile([0.9, 0.1], (len(X), 1))  # P(1) = 0.9 in its own order


def table(n: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"x": rng.normal(size=n), "plan": rng.choice(["a", "b"], n),
                         "y": rng.integers(0, 2, n)})


def run_folder(folder: Path, model) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    model_io.save_model(model, folder / model_io.MODEL_FILE)
    model_io.write_schema(folder, table(), "y", "classification")
    return folder


def test_a_pickle_that_runs_code_runs_it_in_the_sandbox_not_here(tmp_path, monkeypatch):
    marker = tmp_path / "host-marker"
    run_dir = run_folder(tmp_path / "run", Spy(str(marker)))
    # the attack is real: a plain load on the host runs the model's code
    loaded = subprocess.run([sys.executable, "-c", "import joblib, sys; joblib.load(sys.argv[1])",
                             str(run_dir / model_io.MODEL_FILE)], capture_output=True, text=True)
    assert loaded.returncode == 0, loaded.stderr
    assert marker.read_text() == "model code ran here"
    marker.unlink()

    import pipesmith

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    predictions = pipesmith.predict(run_dir, table(8))
    assert not marker.exists()  # its __setstate__ ran, in the sandbox
    assert (predictions["prediction"] == 0).all()  # and it never saw the key
    assert list(predictions.columns) == ["prediction", "proba_0", "proba_1"]

    done = subprocess.run([sys.executable, "-m", "pipesmith.cli", "predict", str(run_dir),
                           "--data", str(write_csv(tmp_path, table(5)))],
                          capture_output=True, text=True, env=os.environ | {"NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert done.stdout.splitlines()[1].startswith("0,1.0,0.0")


def write_csv(folder: Path, frame: pd.DataFrame) -> Path:
    path = folder / "rows.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("how,why", [
    ("rows", "returned 33 rows for 30 inputs"),
    ("label", "predicted labels ['7'] are not among the training classes"),
    ("nan", "NaN or infinity"),
    ("classes", "are not the training classes"),
])
def test_answers_that_break_the_referees_rules_are_refused(tmp_path, how, why):
    run_dir = run_folder(tmp_path / how, Liar(how))
    with pytest.raises(InputError, match="the model's predictions were refused") as caught:
        model_io.predict(run_dir, table())
    assert why in str(caught.value)


def test_one_worker_answers_many_requests_and_reorders_declared_classes(tmp_path):
    run_dir = run_folder(tmp_path / "swapped", Swapped())
    schema = model_io.read_schema(run_dir)
    with ModelHost(run_dir / model_io.MODEL_FILE, schema) as host:
        first = host.predict(table(4).drop(columns="y"))
        again = host.predict(table(9).drop(columns="y"))
        described = host.describe()
        assert host.starts == 1 and host.requests == 3
    # columns follow the training classes, whatever order the model declared
    assert np.allclose(first["proba_1"], 0.9) and np.allclose(first["proba_0"], 0.1)
    assert len(again) == 9 and (again["prediction"] == 1).all()
    assert described.predicts and described.read is None
