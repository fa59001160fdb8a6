"""Parameter compatibility from the estimator's declared constraints (#25)."""

from __future__ import annotations

from pipesmith.agents.repair import table
from tests.agents.repair.sandboxed import repaired_here

DATA = ("from sklearn.datasets import make_classification\n"
        "X, y = make_classification(n_samples=80, random_state=0)\n")
KEY = "api.incompatible_parameters"


def test_a_solver_that_supports_the_chosen_penalty_is_picked_and_nothing_is_lost():
    code = (DATA + "from sklearn.linear_model import LogisticRegression\n"
            "model = LogisticRegression(penalty='l1', C=0.5)\nmodel.fit(X, y)\n")
    new, diagnosis = repaired_here(code, "compatible_parameters")
    assert diagnosis.subclass == "incompatible_parameters"
    assert "penalty='l1'" in new and "solver=" in new  # the author's penalty stays
    assert table.caveats("compatible_parameters", KEY, code, new, diagnosis) == []


def test_changing_a_value_the_author_set_is_reported_as_partial():
    code = (DATA + "from sklearn.svm import LinearSVC\n"
            "print(LinearSVC(penalty='l1', loss='hinge').fit(X, y).score(X, y))\n")
    new, diagnosis = repaired_here(code, "compatible_parameters")
    notes = table.caveats("compatible_parameters", KEY, code, new, diagnosis)
    assert len(notes) == 1 and notes[0].startswith("changed ")
