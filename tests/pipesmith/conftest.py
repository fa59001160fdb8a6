"""One small real run shared by the tests of its report's explanations (the leaderboard,
the feature importance, the chat's answers): real sandbox, real scikit-learn."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipesmith.agents.coder.agent import Coder


class FailsFirst(Coder):
    """a1 does not parse: pre-validation rejects it, and with no repair rounds allowed it
    stays a failed row of the leaderboard; the next planned candidate is drafted as is."""

    def draft(self, candidate_id, spec, profile, inputs, examples=None):
        candidate = super().draft(candidate_id, spec, profile, inputs)
        if candidate_id != "a1":
            return candidate
        code = candidate.code.replace("def build_pipeline(task):", "def build_pipeline(task)", 1)
        return candidate.model_copy(update={"code": code})


def signal_table(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """`label` follows `signal` (and a little `weak`); `noise` is pure noise."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"signal": rng.normal(size=n), "weak": rng.normal(size=n),
                          "noise": rng.normal(size=n)})
    score = frame["signal"] + 0.3 * frame["weak"] + 0.3 * rng.normal(size=n)
    frame["label"] = np.where(score > 0, "yes", "no")
    return frame


@pytest.fixture(scope="session")
def explained_run(tmp_path_factory):
    """(report, run folder): a1 rejected, a2 chosen; two candidates planned."""
    from pipesmith.api import run
    from pipesmith.core.driver import default_deps
    from pipesmith.settings import Settings

    root = tmp_path_factory.mktemp("explained")
    signal_table().to_csv(root / "signal.csv", index=False)
    settings = Settings(kb_dir=root / "kb", runs_dir=root / "runs", max_candidates=2,
                        max_repair_rounds=0, budget_s=60, cv_folds=2, n_jobs=2)
    deps = default_deps(settings)
    deps.coder = FailsFirst()
    report = run(data=root / "signal.csv", target="label", out=root / "run",
                 settings=settings, deps=deps)
    return report, root / "run"
