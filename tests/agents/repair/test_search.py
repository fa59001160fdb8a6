"""The repair search (#25): several candidate edits tried side by side in the sandbox, the
first that runs kept; a working edit that lost something is partial, and reported so."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipesmith.agents.executor import Executor
from pipesmith.agents.repair import search
from pipesmith.agents.schemas import Candidate
from pipesmith.user_code.repair import repair_file

pytestmark = pytest.mark.slow

DATA = ("import numpy as np\nimport pandas as pd\n"
        "rng = np.random.default_rng(0)\n"
        "X = pd.DataFrame({'a': rng.normal(size=80), 'b': rng.normal(size=80),\n"
        "                  'city': rng.choice(['x', 'y', 'z'], size=80)})\n"
        "y = (X['a'] > 0).astype(int)\n")


def _option(script: Path, action: str, code: str, notes: list[str] | None = None) -> Candidate:
    return Candidate(id="a2", name="train", phase="repair", code=code, parent="a1",
                     repair_action=action, repair_notes=notes or [], script=str(script))


def test_the_first_working_faithful_edit_wins_over_a_better_ranked_failing_or_partial_one(
        tmp_path, sandbox):
    script = tmp_path / "train.py"
    script.write_text("raise SystemExit(1)\n")
    options = [_option(script, "broken", "raise ValueError('still broken')\n"),
               _option(script, "lossy", "print('ran')\n", ["dropped keyword k from f()"]),
               _option(script, "faithful", "print('ran too')\n")]
    executor = Executor(sandbox)

    def runs(option: Candidate) -> bool:
        folder = tmp_path / option.repair_action
        return executor.run_script(option, folder, timeout_s=60, memory_mb=1024,
                                   disk_mb=256).ok

    assert search.choose(options, runs).repair_action == "faithful"
    assert search.choose(options[:2], runs).repair_action == "lossy"  # partial beats broken
    assert search.choose(options[:1], runs).repair_action == "broken"  # one: untried


def test_one_round_is_enough_when_a_lower_ranked_operator_is_the_one_that_works(
        tmp_path, sandbox):
    # text and missing values together: encoding the text alone (ranked first) still fails
    # on NaN; cleaning from the estimator's tags handles both in the same round
    script = tmp_path / "train.py"
    script.write_text(DATA + "X.loc[::5, 'b'] = np.nan\n"
                      "from sklearn.linear_model import LogisticRegression\n"
                      "model = LogisticRegression()\nmodel.fit(X, y)\n"
                      "print(model.score(X, y))\n")
    report = repair_file(script, tmp_path / "out", rounds=1, sandbox=sandbox, inputs=None)
    assert report.status == "repaired", report.stop_reason
    assert report.rounds_used == 1 and report.attempts[-1].repair_action == "clean_inputs"
    assert "_pipesmith_clean(LogisticRegression())" in (tmp_path / "out" / "train.py").read_text()


def test_an_edit_that_changes_what_the_author_chose_is_partial(tmp_path, sandbox):
    script = tmp_path / "svm.py"
    script.write_text("from sklearn.datasets import make_classification\n"
                      "from sklearn.svm import LinearSVC\n"
                      "X, y = make_classification(n_samples=80, random_state=0)\n"
                      "print(LinearSVC(penalty='l1', loss='hinge').fit(X, y).score(X, y))\n")
    report = repair_file(script, tmp_path / "out", rounds=2, sandbox=sandbox, inputs=None)
    assert report.final_success and report.status == "partial"
    assert report.notes and report.notes[0].startswith("changed ")
