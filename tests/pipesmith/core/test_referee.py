"""The referee's protocol: the split, K, the fold files, the prediction contract, scoring."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.core import referee
from pipesmith.errors import InputError
from pipesmith.sandbox.base import ExecResult


def _table(n=100, classes=(0, 1), seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": rng.normal(size=n), "c": rng.choice(["a", "b"], size=n),
                         "y": np.resize(np.asarray(classes), n)})


def test_the_split_is_stratified_seeded_and_disjoint():
    frame = _table(200, classes=(0, 0, 0, 1))
    dev, test = referee.split_development(frame, "y", "classification", seed=3, test_size=0.2)
    again, _ = referee.split_development(frame, "y", "classification", seed=3, test_size=0.2)
    assert (len(dev), len(test)) == (160, 40)
    assert dev.equals(again)
    assert test["y"].mean() == pytest.approx(0.25) == dev["y"].mean()
    rows = pd.concat([dev, test]).sort_values(["x"]).reset_index(drop=True)
    assert rows.equals(frame.sort_values(["x"]).reset_index(drop=True))


@pytest.mark.parametrize(("frame", "size", "message"), [
    (pd.DataFrame({"x": range(10), "y": [0] * 9 + [1]}), 0.2, "class 1 of 'y' has 1 row"),
    (pd.DataFrame({"x": range(10), "y": [0, 1, 2, 3, 4] * 2}), 0.2, "cannot hold all 5"),
    (_table(), 1.0, "--test-size must be between 0 and 1"),
    (_table(), 0.0, "--test-size must be between 0 and 1"),
])
def test_a_table_that_cannot_be_split_is_bad_input(frame, size, message):
    with pytest.raises(InputError, match=message):
        referee.split_development(frame, "y", "classification", 0, size)


def test_k_is_a_pure_function_of_rows_and_budget():
    assert referee.choose_folds(1000, 120) == 5
    assert referee.choose_folds(1000, 30) == 3  # small budget
    assert referee.choose_folds(120, 600) == 3  # small data
    assert referee.choose_folds(1000, 10) == 2  # tiny budget
    assert referee.choose_folds(200_000, 600) == 1  # very large: one holdout fold
    assert referee.choose_folds(1000, 600, min_class=2) == 2  # no class spread too thin
    assert referee.choose_folds(1000, 600, requested=1) == 1


def test_a_slow_first_candidate_gets_fewer_folds_so_its_refit_fits_the_budget():
    def wall(folds):  # a fold job trains on (K-1)/K of 1000 rows at 10 ms a row
        return 1000 * (folds - 1) / folds * 0.01

    assert referee.folds_within(5, 60.0, wall, refit_s=10.0, workers=1) == 5  # 40 + 10
    assert referee.folds_within(5, 40.0, wall, refit_s=10.0, workers=1) == 4  # 30 + 10
    assert referee.folds_within(5, 35.0, wall, refit_s=10.0, workers=1) == 3  # 20 + 10
    assert referee.folds_within(5, 30.0, wall, refit_s=10.0, workers=2) == 4  # 2 x 7.5 + 10
    assert referee.folds_within(5, 5.0, wall, refit_s=10.0, workers=1) == 2  # the floor
    assert referee.folds_within(2, 1.0, wall, refit_s=10.0, workers=1) == 2
    assert referee.folds_within(1, 1.0, wall, refit_s=10.0, workers=1) == 1  # a holdout


@pytest.mark.parametrize("k", [1, 2, 5])
def test_folds_predict_each_row_at_most_once_and_never_train_on_it(k):
    dev = _table(100)
    folds = referee.fold_plan(dev, "y", "classification", k, seed=0)
    assert len(folds) == k
    predicted = np.concatenate([f.predict for f in folds])
    assert len(set(predicted.tolist())) == len(predicted)
    assert len(predicted) == (20 if k == 1 else 100)
    for fold in folds:
        assert not set(fold.train.tolist()) & set(fold.predict.tolist())


def test_the_predict_file_has_no_target_column(tmp_path):
    dev = _table(50)
    fold = referee.fold_plan(dev, "y", "classification", 2, seed=0)[0]
    referee.write_fold(tmp_path, dev, "y", fold, "classification")
    train, to_predict = (pd.read_parquet(tmp_path / n) for n in ("train.parquet",
                                                                  "predict.parquet"))
    assert list(train.columns) == ["x", "c", "y"] and list(to_predict.columns) == ["x", "c"]
    assert to_predict["x"].tolist() == dev["x"].iloc[fold.predict].tolist()


def _diagnosis(message: str):
    stderr = f"pipesmith.harness.ContractError: {message}\n"
    return Diagnostician().diagnose_result(
        ExecResult(status="error", exit_code=3, stderr=stderr), "def build_pipeline(t): ...")


@pytest.mark.parametrize(("returned", "task", "metric", "message", "subclass"), [
    ({"pred": np.zeros(3)}, "regression", "r2", "predict returned 3 rows for 4 inputs",
     "predict_shape"),
    ({"pred": np.array([1.0, np.nan, 0, 0])}, "regression", "r2",
     "predictions contain NaN or infinity", "non_finite_output"),
    ({"pred": np.zeros(4), "proba": np.full((4, 2), 0.4), "classes": np.array([0, 1])},
     "classification", "accuracy", "rows do not sum to 1", "invalid_predictions"),
    ({"pred": np.zeros(4), "proba": np.full((4, 3), 0.5), "classes": np.array([0, 1])},
     "classification", "accuracy", "predict_proba returned shape", "invalid_predictions"),
    ({"pred": np.zeros(4)}, "classification", "roc_auc", "needs predict_proba",
     "invalid_predictions"),
    ({}, "regression", "r2", "holds no `pred`", "invalid_predictions"),
])
def test_predictions_that_break_the_contract_get_a_clear_diagnosis(returned, task, metric,
                                                                   message, subclass):
    with pytest.raises(referee.ContractViolation, match=message) as caught:
        referee.check_predictions(returned, 4, task, metric)
    diagnosis = _diagnosis(str(caught.value))
    assert diagnosis.subclass == subclass, diagnosis
    assert diagnosis.severity == "recoverable"


def test_the_dummy_baseline_is_the_prior_and_the_mean():
    assert referee.baseline("accuracy", [0, 0, 0, 1], [0, 1, 0, 1]) == 0.5
    assert referee.baseline("r2", [1.0, 3.0], [2.0, 4.0]) == pytest.approx(-1.0)
    checked = referee.check_predictions({"pred": np.array([2.0, 4.0])}, 2, "regression", "r2")
    assert referee.score("r2", [2.0, 4.0], checked) == 1.0


def test_a_test_score_far_below_the_cv_interval_is_a_warning():
    from pipesmith.core.referee import score_gap_warning

    # the memoriser: CV 1.0 on 10 classes, test 0.10
    warning = score_gap_warning("accuracy", 1.0, 0.0, 0.1, 0.10)
    assert warning is not None and "far below the CV score 1.0000" in warning
    # an honest small test part: a few points under the CV mean is noise, not a warning
    assert score_gap_warning("accuracy", 0.96, 0.03, 0.33, 0.9333) is None
    # lower is better: a test error far above the folds' error is the same warning
    assert score_gap_warning("rmse", 10.0, 0.5, 40.0, 30.0) is not None
    assert score_gap_warning("rmse", 10.0, 0.5, 40.0, 11.0) is None
    assert score_gap_warning("accuracy", 0.9, 0.01, 0.5, None) is None  # no test part


@pytest.mark.parametrize("k", [2, 3])
def test_text_labels_score_exactly_as_scikit_learn_scores_them(k):
    # the referee scores text labels as codes (no sort of every label per metric): the
    # same figures as the metrics on the labels themselves, a stray predicted label included
    from pipesmith.core.metrics import get_metric

    rng = np.random.default_rng(k)
    labels = np.array(["no", "yes", "maybe"][:k], dtype=object)
    y = rng.choice(labels, 5000)
    # predictions come back from the sandbox as numpy text, not Python objects
    pred = np.where(rng.random(len(y)) < 0.8, y, rng.choice([*labels, "other"], len(y)))
    pred = pred.astype(str)
    classes = referee.true_classes(y)
    assert np.array_equal(classes, np.unique(y)) and classes.dtype == object
    proba = rng.dirichlet(np.ones(k), len(y))
    checked = {"pred": pred, "proba": proba, "classes": classes}
    for metric in ("accuracy", "balanced_accuracy", "f1_macro", "roc_auc", "log_loss"):
        expected = get_metric(metric).score(y, pred, proba=proba, classes=classes)
        assert referee.score(metric, y, checked) == pytest.approx(expected, abs=1e-12)
    # the dummy baseline's priors count the classes as numpy does
    _, counts = np.unique(y, return_counts=True)
    prior = counts / counts.sum()
    assert referee.baseline("log_loss", y, y[:100]) == pytest.approx(
        get_metric("log_loss").score(y[:100], None, proba=np.tile(prior, (100, 1)),
                                     classes=classes))


def test_text_labels_split_exactly_as_scikit_learn_splits_them():
    # the referee stratifies on codes in the labels' sorted order (no sort of every text
    # label): the rows of each part are the ones the labels themselves give
    from sklearn.model_selection import train_test_split

    rng = np.random.default_rng(1)
    y = rng.choice(np.array(["no", "yes", "maybe"], dtype=object), 5000, p=[0.6, 0.3, 0.1])
    frame = pd.DataFrame({"x": rng.random(len(y)), "y": y})
    dev, test = referee.split_positions(frame, "y", "classification", 7, 0.2)
    expected = train_test_split(np.arange(len(y)), test_size=1000, random_state=7, stratify=y)
    assert np.array_equal(dev, expected[0]) and np.array_equal(test, expected[1])
