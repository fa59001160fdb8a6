"""The permutation control in a run (#26): a candidate that looks up the true labels of the
rows it predicts wins the run without the control and is rejected with it; an honest run
passes it. Real graph, real sandbox; the cheat is a real module run in it."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from pipesmith import run
from pipesmith.agents.coder.agent import Coder
from pipesmith.core.driver import default_deps
from pipesmith.settings import Settings

pytestmark = pytest.mark.slow

# The whole table's labels, keyed by each row's features, in the module's own source: the
# channel the sandbox cannot close (a model that remembers a public data set, or a file it
# should not have reached). Its fit ignores the training labels' pairing with the rows.
LOOKUP = '''
import hashlib

import numpy as np

TABLE = {table!r}


def key(row):
    return hashlib.sha1(np.round(np.asarray(row, dtype=float), 6).tobytes()).hexdigest()[:16]


class Lookup:
    def fit(self, X, y):
        values, counts = np.unique(np.asarray(y), return_counts=True)
        self.classes_, self.default_ = values, values[counts.argmax()]
        return self

    def predict(self, X):
        return np.array([TABLE.get(key(row), self.default_) for row in np.asarray(X, float)],
                        dtype=self.classes_.dtype)

    def predict_proba(self, X):
        return (self.predict(X)[:, None] == self.classes_[None, :]).astype(float)


def build_pipeline(task):
    return Lookup()
'''


def key(row) -> str:
    return hashlib.sha1(np.round(np.asarray(row, dtype=float), 6).tobytes()).hexdigest()[:16]


def lookup_code() -> str:
    frame = load_breast_cancer(as_frame=True).frame
    features = frame.drop(columns=["target"]).to_numpy(dtype=float)
    return LOOKUP.format(table={key(r): int(t) for r, t in zip(features, frame["target"],
                                                               strict=True)})


class DraftsACheat(Coder):
    """The first draft is the lookup, under the plan's name for it (what the report used
    to call it); the rest are the offline coder's honest drafts."""

    def draft(self, candidate_id, spec, profile, inputs, examples=None):
        candidate = super().draft(candidate_id, spec, profile, inputs)
        if candidate_id == "a1":
            return candidate.model_copy(update={"code": lookup_code()})
        return candidate


def settings_for(tmp_path, **extra) -> Settings:
    return Settings(kb_dir=tmp_path / "kb", max_candidates=2, budget_s=120, cv_folds=3,
                    use_kb=False, **extra)


def test_a_label_lookup_wins_without_the_control_and_is_rejected_with_it(tmp_path):
    off = settings_for(tmp_path, permutation_control=False)
    deps = default_deps(off)
    deps.coder = DraftsACheat()
    fooled = run(dataset="breast_cancer", out=tmp_path / "off", settings=off, deps=deps)
    assert fooled.final_attempt == "a1" and fooled.score >= 0.999  # a fake CV score wins
    assert fooled.permutation_control is None

    on = settings_for(tmp_path, warm_workers=True)  # the control's fits as warm forks
    deps = default_deps(on)
    deps.coder = DraftsACheat()
    report = run(dataset="breast_cancer", out=tmp_path / "on", settings=on, deps=deps)
    cheat = next(a for a in report.attempts if a.id == "a1")
    assert cheat.status == "error" and cheat.exit_code == 3
    assert "permutation control" in cheat.error_tail
    assert cheat.diagnosis.subclass == "invalid_predictions"
    assert report.final_attempt not in (None, "a1") and report.status == "succeeded"
    control = report.permutation_control  # the final's, which passed
    assert control.attempt == report.final_attempt and control.verdict == "passed"
    assert control.backend == "warm" and control.folds == 2
    assert any("a1" in w and "rejected" in w for w in report.warnings)
    saved = json.loads((tmp_path / "on" / "report.json").read_text())
    assert saved["permutation_control"]["verdict"] == "passed"
    assert "rejected" in (tmp_path / "on" / "report.md").read_text()
    rejected = (tmp_path / "on" / "attempts" / f"a1_{cheat.candidate}" / "control")
    assert sorted(p.name for p in (rejected / "folds").iterdir()) == ["0", "1"]


class OnlyCheats(DraftsACheat):
    def draft(self, candidate_id, spec, profile, inputs, examples=None):
        candidate = Coder.draft(self, candidate_id, spec, profile, inputs)
        return candidate.model_copy(update={"code": lookup_code() + f"\n# {candidate_id}\n"})


def test_a_run_whose_every_candidate_cheats_says_so(tmp_path):
    settings = settings_for(tmp_path)
    deps = default_deps(settings)
    deps.coder = OnlyCheats()
    report = run(dataset="breast_cancer", out=tmp_path / "run", settings=settings, deps=deps)
    assert report.status == "failed" and report.final_attempt is None
    assert report.refit.status == "skipped"
    assert report.permutation_control.verdict == "rejected"
    assert report.permutation_control.score >= 0.99
    assert "no candidate passed the permutation control" in report.warnings[-1]
    assert not (tmp_path / "run" / "model.joblib").exists()
