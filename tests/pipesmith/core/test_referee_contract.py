"""Hostile candidates through the real sandbox, each held to the score its predictions earn.

Every module below memorises what it can: a lookup table from feature rows to labels. Where
an attack got it the labels of the rows it predicts, R² on diabetes would be ~1.0; held to
its predictions it earns what a constant predictor earns, the dummy baseline (~0).
"""

from __future__ import annotations

import numpy as np
import pytest

from pipesmith.agents.executor import Executor, load_oof
from pipesmith.agents.schemas import Candidate
from tests.conftest import make_inputs

LOOKUP = '''
import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

STOLEN = []  # labelled frames an attack managed to read


class Lookup(BaseEstimator, RegressorMixin):
    """Predicts the label of any row it has seen; the training mean otherwise."""

    def fit(self, X, y):
        import pandas as pd
        rows = [X.assign(__y=np.asarray(y))] + [
            f.rename(columns={TARGET: "__y"}) for f in STOLEN if TARGET in f]
        table = pd.concat(rows)
        self.features_ = list(X.columns)
        self.table_ = {tuple(np.round(r[:-1], 6)): r[-1]
                       for r in table[self.features_ + ["__y"]].to_numpy(dtype=float)}
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.array([self.table_.get(tuple(np.round(r, 6)), self.mean_)
                         for r in X[self.features_].to_numpy(dtype=float)])

'''

ATTACKS = {
    # Reads the data from disk: every path it knows or can find above its folder.
    "reads_the_data_from_disk": '''
def build_pipeline(task):
    import glob, os
    import pandas as pd
    for path in KNOWN + glob.glob("../**/*.parquet", recursive=True) + \\
            glob.glob("/tmp/**/*.parquet", recursive=True)[:200]:
        if os.path.realpath(path).startswith(os.getcwd() + os.sep):
            continue  # its own fold's files: it may read those
        try:
            STOLEN.append(pd.read_parquet(path))
            print("LEAKED", path)
        except Exception:
            pass
    return Lookup()
''',
    # Rebuilds the harness's old split from the data file named in task.
    "rebuilds_the_split": '''
def build_pipeline(task):
    import pandas as pd
    from sklearn.model_selection import train_test_split
    for key in ("data_path", "test_path", "path"):
        if task.get(key):
            frame = pd.read_parquet(task[key])
            _, held = train_test_split(frame, test_size=0.2, random_state=task["seed"])
            STOLEN.append(held)
            print("LEAKED", key)
    return Lookup()
''',
    # Rewrites the metrics (and any score file) at exit, after the harness has finished.
    "rewrites_metrics_at_exit": '''
import atexit, json

def _cheat():
    for name in ("metrics.json", "score.json", "diagnostics.json"):
        with open(name, "w") as f:
            json.dump({"score": 1.0, "baseline_score": -1.0, "fold_scores": [1.0]}, f)

atexit.register(_cheat)

def build_pipeline(task):
    return Lookup()
''',
    # Patches the scorer and the harness in its own process.
    "patches_the_scorer": '''
def build_pipeline(task):
    import sklearn.metrics
    import pipesmith.core.metrics
    import pipesmith.sandbox.harness as harness
    pipesmith.core.metrics.Metric.score = lambda self, *a, **k: 1.0
    sklearn.metrics.r2_score = lambda *a, **k: 1.0
    harness.loss_summary = lambda est: {"first": 1.0, "last": 0.0, "min": 0.0, "finite": True}
    return Lookup()
''',
    # Writes files where the referee keeps its own (the attempt folder, the run folder).
    "writes_files_into_the_job_folder": '''
def build_pipeline(task):
    import numpy as np
    for path in ("oof.npz", "../oof.npz", "../../oof.npz", "../../../report.json",
                 "../../metrics.json"):
        try:
            np.savez(path, index=np.arange(3), pred=np.zeros(3), y_true=np.zeros(3))
            print("WROTE", path)
        except Exception:
            pass
    return Lookup()
''',
    # Prints fake scores in every format a naive parser might read.
    "prints_fake_scores": '''
print("r2=1.0\\nscore: 1.0\\n{\\"score\\": 1.0}")

def build_pipeline(task):
    print("final r2 score 1.0")
    return Lookup()
''',
}


@pytest.fixture(scope="module")
def diabetes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("diabetes")
    inputs, _ = make_inputs(folder, "diabetes")
    return inputs.model_copy(update={"cv_folds": 2}), folder


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_hostile_module_earns_only_what_its_predictions_earn(sandbox, tmp_path, diabetes,
                                                               attack):
    if attack == "reads_the_data_from_disk" and getattr(sandbox, "isolation", "") != "bwrap":
        pytest.skip("without bubblewrap the host filesystem is visible to the job")
    inputs, folder = diabetes
    known = [str(folder / "data.parquet"), inputs.data_path, inputs.test_path]
    code = f"TARGET = {inputs.target!r}\nKNOWN = {known!r}\n" + LOOKUP + ATTACKS[attack]
    candidate = Candidate(id="a1", name=attack, phase="draft", code=code)
    result, metrics = Executor(sandbox).run(candidate, inputs, tmp_path / "a1", timeout_s=60)
    assert result.status == "ok", result.stderr[-2000:]
    assert "LEAKED" not in result.stdout
    # A constant (the training mean) for every row it predicts: the baseline, nothing more.
    assert metrics["score"] == pytest.approx(metrics["baseline_score"], abs=0.02)
    assert metrics["score"] < 0.05
    oof = load_oof(tmp_path / "a1")  # the referee's own file, not the one the module wrote
    assert oof["index"].tolist() == list(range(len(oof["index"]))) and len(oof["index"]) > 300


def test_the_refit_is_held_to_its_test_predictions_too(sandbox, tmp_path, diabetes):
    inputs, folder = diabetes
    code = (f"TARGET = {inputs.target!r}\nKNOWN = {[inputs.test_path]!r}\n" + LOOKUP
            + ATTACKS["reads_the_data_from_disk"] + ATTACKS["rewrites_metrics_at_exit"])
    candidate = Candidate(id="a1", name="refit_attack", phase="draft", code=code)
    result, scores = Executor(sandbox).refit(candidate, inputs, tmp_path / "refit", 60)
    assert result.status == "ok", result.stderr[-2000:]
    if getattr(sandbox, "isolation", "") == "bwrap":
        assert "LEAKED" not in result.stdout
    assert scores["test_score"] == pytest.approx(scores["test_baseline_score"], abs=0.05)
    assert scores["test_score"] < 0.05


def test_an_honest_model_is_scored_well_above_the_baseline(sandbox, tmp_path, diabetes):
    inputs, _ = diabetes
    code = ("from sklearn.linear_model import Ridge\n"
            "def build_pipeline(task):\n    return Ridge(alpha=0.1)\n")
    candidate = Candidate(id="a1", name="ridge", phase="draft", code=code)
    result, metrics = Executor(sandbox).run(candidate, inputs, tmp_path / "a1", timeout_s=60)
    assert result.status == "ok", result.stderr[-2000:]
    assert metrics["score"] > 0.35 > metrics["baseline_score"]
    assert np.isfinite(load_oof(tmp_path / "a1")["pred"]).all()
