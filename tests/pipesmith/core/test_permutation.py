"""The permutation control's parts (pipesmith/core/permutation.py): the shuffle, the
threshold on honest models of several kinds and data sets (none rejected, two seeds) and on a label
lookup (rejected), and the executor's control fits through the real sandbox."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn import datasets
from sklearn.ensemble import (
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.executor import Executor
from pipesmith.agents.planner.agent import Planner
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.core import permutation, referee
from pipesmith.core.inputs import prepare_inputs
from pipesmith.settings import Settings


def test_the_shuffle_keeps_the_labels_counts_dtype_and_index_and_is_seeded():
    y = pd.Series(pd.Categorical(list("aabbbcc") * 10), index=np.arange(70) * 3, name="t")
    once, again = permutation.shuffle_labels(y, 5), permutation.shuffle_labels(y, 5)
    assert once.equals(again) and not once.equals(permutation.shuffle_labels(y, 6))
    assert once.dtype == y.dtype and once.name == "t" and (once.index == y.index).all()
    assert (once.value_counts() == y.value_counts()).all()
    assert (once.to_numpy() != y.to_numpy()).mean() > 0.3  # the pairing with rows is gone


def table(name: str) -> tuple[pd.DataFrame, str]:
    if name == "imbalanced":  # 9:1, small
        X, y = datasets.make_classification(300, 8, n_informative=4, weights=[0.9, 0.1],
                                            random_state=0)
        frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(8)]).assign(y=y)
        return frame, "classification"
    frame = getattr(datasets, f"load_{name}")(as_frame=True).frame.rename(
        columns={"target": "y"})
    return frame, "regression" if name == "diabetes" else "classification"


MODELS = {
    "classification": [lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)),
                       lambda: RandomForestClassifier(30, random_state=0),
                       lambda: make_pipeline(StandardScaler(), KNeighborsClassifier(1)),
                       lambda: HistGradientBoostingClassifier(max_iter=30)],
    "regression": [Ridge, lambda: RandomForestRegressor(30, random_state=0),
                   lambda: KNeighborsRegressor(1),
                   lambda: HistGradientBoostingRegressor(max_iter=30)],
}
METRICS = {"classification": ["accuracy", "log_loss", "f1_macro"],
           "regression": ["r2", "rmse"]}


def fitted(make, X, y, X_pred, classify: bool) -> dict:
    model = make().fit(X, y)
    out = {"pred": np.asarray(model.predict(X_pred))}
    if classify:
        out |= {"proba": model.predict_proba(X_pred), "classes": model.classes_}
    return out


def verdicts(name: str, seed: int) -> list[tuple[str, str, str]]:
    """(metric, model, verdict) for each honest model, and for a lookup of the true labels
    ("lookup"), on the first two of three folds, as the control runs them."""
    frame, task = table(name)
    classify = task == "classification"
    dev = frame.sample(frac=0.8, random_state=seed).reset_index(drop=True)
    folds = referee.fold_plan(dev, "y", task, 3, seed)[:permutation.FOLDS]
    y = dev["y"].to_numpy()
    truths = [y[f.predict] for f in folds]
    runs = {}
    for n, make in enumerate(MODELS[task]):
        honest, shuffled = [], []
        for k, fold in enumerate(folds):
            train, X_pred = dev.iloc[fold.train], dev.iloc[fold.predict].drop(columns="y")
            X = train.drop(columns="y")
            honest.append(fitted(make, X, train["y"], X_pred, classify))
            shuffled.append(fitted(make, X, permutation.shuffle_labels(
                train["y"], permutation.fold_seed(seed, k)), X_pred, classify))
        runs[f"model{n}"] = (honest, shuffled)
    lookup = [{"pred": t.astype(float) if not classify else t} |
              ({"proba": (t[:, None] == np.unique(y)[None, :]).astype(float),
                "classes": np.unique(y)} if classify else {}) for t in truths]
    runs["lookup"] = (lookup, lookup)  # the same predictions whatever the labels
    out = []
    for metric in METRICS[task]:
        base = float(np.mean([referee.baseline(metric, y[f.train], y[f.predict])
                              for f in folds]))
        for model, (honest, shuffled) in runs.items():
            cv = float(np.mean([referee.score(metric, t, c)
                                for t, c in zip(truths, honest, strict=True)]))
            score = float(np.mean([referee.score(metric, t, c)
                                   for t, c in zip(truths, shuffled, strict=True)]))
            mean, sd = permutation.null_spread(metric, truths, shuffled, seed)
            out.append((metric, model,
                        verdict(metric, score, base, mean, sd, cv, base)))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", ["iris", "breast_cancer", "diabetes", "imbalanced"])
def test_honest_models_pass_and_a_lookup_is_rejected(name):
    for seed in (0, 1):
        found = verdicts(name, seed)
        honest = [(m, model, v) for m, model, v in found if model != "lookup"]
        assert all(v == "passed" for _, _, v in honest), [h for h in honest if h[2] != "passed"]
        assert {v for _, model, v in found if model == "lookup"} == {"rejected"}


def verdict(*args) -> str:
    return permutation.judge(*args)[0]


def test_the_threshold():
    # (metric, shuffled score, dummy, null mean, null spread, CV score, CV dummy)
    # a label-blind model whose shuffled score sits 7.5 spreads above label-blind guessing,
    # 0.06 above the dummy: not material against a CV edge of 0.31 ...
    passed, margin, z = permutation.judge("accuracy", 0.70, 0.64, 0.55, 0.02, 0.95, 0.64)
    assert passed == "passed" and margin == pytest.approx(0.155) and z == pytest.approx(7.5)
    # ... one that keeps its edge is rejected
    assert verdict("accuracy", 0.99, 0.64, 0.5, 0.02, 0.99, 0.64) == "rejected"
    # material but within the spread: chance on few rows
    assert verdict("accuracy", 0.99, 0.64, 0.5, 0.2, 0.99, 0.64) == "passed"
    # lower is better: the edges are the other way round
    assert verdict("rmse", 10.0, 60.0, 70.0, 2.0, 9.0, 60.0) == "rejected"
    assert verdict("rmse", 75.0, 60.0, 80.0, 2.0, 50.0, 60.0) == "passed"
    # a lookup with hard probabilities: log loss 0, dummy 1.1, label-blind 23 +- 2
    assert verdict("log_loss", 0.0, 1.1, 23.0, 2.0, 0.0, 1.1) == "rejected"
    # predictions that do not move with the labels read none
    assert verdict("r2", 0.01, 0.0, 0.01, 0.0, 0.4, 0.0) == "passed"
    # a model no better than the dummy: any significant edge is too much
    assert verdict("roc_auc", 0.62, 0.5, 0.5, 0.02, 0.5, 0.5) == "rejected"
    # macro F1: the one-class dummy is below label-blind guessing, the reference then;
    # held to the dummy, this honest model would be rejected
    assert verdict("f1_macro", 0.45, 0.17, 0.33, 0.03, 0.5, 0.17) == "passed"
    assert verdict("f1_macro", 0.60, 0.17, 0.33, 0.03, 0.5, 0.17) == "rejected"


LOOKUP = '''
import numpy as np

LABELS = {labels!r}  # the true label of every development row, by its first feature's value


class Lookup:
    def fit(self, X, y):
        self.classes_ = np.unique(np.asarray(y))
        return self

    def predict(self, X):
        first = np.round(np.asarray(X, dtype=float)[:, 0], 9)
        return np.array([LABELS.get(v, self.classes_[0]) for v in first.tolist()])

    def predict_proba(self, X):
        return (self.predict(X)[:, None] == self.classes_[None, :]).astype(float)


def build_pipeline(task):
    return Lookup()
'''


@pytest.mark.slow
def test_the_executor_controls_through_fold_jobs(sandbox, tmp_path):
    """Fold jobs whose train.parquet holds shuffled labels: the offline coder's honest
    draft passes; a module that carries the labels in its source is rejected."""
    frame, _ = table("imbalanced")
    path = tmp_path / "imbalanced.csv"
    frame.to_csv(path, index=False)
    inputs, dev = prepare_inputs(tmp_path / "run", data=path, target="y",
                                 settings=Settings(n_jobs=1, kb_dir=tmp_path / "kb"))
    inputs = inputs.model_copy(update={"cv_folds": 3})
    first = referee.fold_plan(dev, "y", inputs.task_type, 3, inputs.seed)[0]
    profile = profile_table(dev, inputs.target, inputs.task_type)
    spec = Planner().plan(inputs, profile, []).candidates[0]
    honest = Coder().draft("a1", spec, profile, inputs)
    labels = {round(float(x), 9): int(t) for x, t in zip(dev["x0"], dev["y"], strict=True)}
    cheat = honest.model_copy(update={"id": "a2", "code": LOOKUP.format(labels=labels)})
    executor = Executor(sandbox)
    found = {}
    for candidate in (honest, cheat):
        result, cv = executor.run(candidate, inputs, tmp_path / candidate.id / "cv", 120)
        _, measured = executor.permuted(candidate, inputs, tmp_path / candidate.id / "pc", 120)
        assert result.ok and measured is not None and measured["folds"] == 1  # fold jobs
        found[candidate.id] = verdict(
            inputs.metric, measured["score"], measured["baseline_score"],
            measured["null_mean"], measured["null_sd"], cv["score"], cv["baseline_score"])
        shuffled = pd.read_parquet(tmp_path / candidate.id / "pc" / "folds" / "0" /
                                   "train.parquet")["y"].to_numpy()
        truth = dev["y"].to_numpy()[first.train]
        assert sorted(shuffled) == sorted(truth) and (shuffled != truth).any()
    assert found == {"a1": "passed", "a2": "rejected"}
