"""Metric arguments from the task: an average for a multiclass target (#25)."""

from __future__ import annotations

import pytest

from tests.agents.repair.sandboxed import repaired_here

DATA = ("from sklearn.datasets import make_classification\n"
        "from sklearn.linear_model import LogisticRegression\n"
        "X, y = make_classification(n_samples=90, n_classes=3, n_informative=3, random_state=0)\n")


@pytest.mark.parametrize(("code", "fixed"), [
    (DATA + "from sklearn.metrics import f1_score\n"
     "pred = LogisticRegression().fit(X, y).predict(X)\nprint(f1_score(y, pred))\n",
     'f1_score(y, pred, average="weighted")'),
    (DATA + "from sklearn import metrics\n"
     "pred = LogisticRegression().fit(X, y).predict(X)\n"
     "print(metrics.precision_score(y, pred, average='binary'))\n",
     'average="weighted"'),
    (DATA + "from sklearn.model_selection import cross_val_score\n"
     "print(cross_val_score(LogisticRegression(), X, y, scoring='recall', error_score='raise'))\n",
     'scoring="recall_weighted"'),
])
def test_a_multiclass_target_gets_the_average_the_message_offers(code, fixed):
    new, diagnosis = repaired_here(code, "metric_average")
    assert diagnosis.subclass == "metric_arguments" and fixed in new


def test_an_average_written_inside_an_f_string_takes_the_other_quote():
    code = (DATA + "from sklearn.metrics import f1_score\n"
            "pred = LogisticRegression().fit(X, y).predict(X)\n"
            'print(f"score={f1_score(y, pred):.4f}")\n')
    new, _ = repaired_here(code, "metric_average")
    assert "f1_score(y, pred, average='weighted')" in new


def test_roc_auc_on_a_probability_matrix_gets_one_vs_rest():
    code = (DATA + "from sklearn.metrics import roc_auc_score\n"
            "proba = LogisticRegression().fit(X, y).predict_proba(X)\n"
            'print(f"score={roc_auc_score(y, proba):.4f}")\n')
    new, diagnosis = repaired_here(code, "use_probabilities")
    assert diagnosis.subclass == "metric_needs_scores"
    assert "roc_auc_score(y, proba, multi_class='ovr')" in new
