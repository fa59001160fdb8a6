"""SHAP contributions of the refit pipeline: computed in the real sandbox with each boosting
library's own method (and exactly for linear models), checked by the referee outside
(pipesmith/core/contributions.py), summed back into the input columns."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.executor import Executor
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.schemas import CandidateSpec
from pipesmith.core.contributions import NO_SHAP, shap_contributions
from pipesmith.core.inputs import prepare_inputs
from pipesmith.sandbox.contributions import CONTRIBUTIONS_FILE
from pipesmith.settings import Settings


def churn_table(n: int = 300, seed: int = 0) -> pd.DataFrame:
    """`churn` follows `plan` (a category) and `tenure`; `noise` is noise."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"plan": rng.choice(["basic", "pro", "team"], size=n),
                          "tenure": rng.normal(size=n), "noise": rng.normal(size=n)})
    risk = 1.5 * (frame["plan"] == "basic") - frame["tenure"] + 0.3 * rng.normal(size=n)
    frame["churn"] = np.where(risk > 0.5, "yes", "no")
    frame["spend"] = 3.0 * frame["tenure"] + 2.0 * (frame["plan"] == "team") + \
        0.2 * rng.normal(size=n)
    frame["tier"] = np.where(risk > 1.2, "high", np.where(risk > -0.3, "mid", "low"))
    return frame


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("shap")
    churn_table().to_csv(root / "churn.csv", index=False)
    return root


@pytest.fixture(scope="module")
def lightgbm_refit(sandbox, tables, tmp_path_factory):
    """(inputs, scores, folder): one LightGBM refit shared by two tests (each costs seconds)."""
    folder = tmp_path_factory.mktemp("lightgbm")
    inputs, scores = refit(sandbox, tables, folder, "lightgbm", "churn")
    return inputs, scores, folder


def refit(sandbox, root, tmp_path, family: str, target: str, encoding: str = "ordinal"):
    """The offline coder's module for `family`, refit in the real sandbox."""
    others = [c for c in ("churn", "spend", "tier") if c != target]
    frame = pd.read_csv(root / "churn.csv").drop(columns=others)
    frame.to_csv(tmp_path / f"{target}.csv", index=False)
    inputs, dev = prepare_inputs(tmp_path / "run", data=tmp_path / f"{target}.csv",
                                 target=target, settings=Settings(n_jobs=1,
                                                                  kb_dir=tmp_path / "kb"))
    spec = CandidateSpec(name=family, family=family, encoding=encoding,
                         scale=encoding == "onehot")
    candidate = Coder().draft("a1", spec, profile_table(dev, target, inputs.task_type), inputs)
    result, scores = Executor(sandbox).refit(candidate, inputs, tmp_path / "refit", 120)
    assert result.status == "ok", result.stderr[-2000:]
    return inputs, scores


@pytest.mark.parametrize(("family", "target", "encoding"), [
    ("lightgbm", "churn", "ordinal"),  # binary
    ("xgboost", "spend", "ordinal"),  # regression
    ("catboost", "tier", "ordinal"),  # three classes: one output per class
    ("logistic_regression", "churn", "onehot"),  # exact; the one-hot parts summed
])
def test_contributions_add_up_and_rank_the_columns_the_label_follows(
        sandbox, tables, tmp_path, lightgbm_refit, family, target, encoding):
    if family == "lightgbm":
        _, scores, tmp_path = lightgbm_refit
    else:
        _, scores = refit(sandbox, tables, tmp_path, family, target, encoding)
    ranked = [c.feature for c in scores["contributions"]]
    note = scores["contributions_note"]
    assert "checked outside: they add up to the raw margin and its margin reproduces the " \
        "scored predictions" in note, note
    # summed back into the input columns (the one-hot parts of `plan` are one feature)
    assert sorted(ranked) == ["noise", "plan", "tenure"]
    assert ranked[-1] == "noise"
    with np.load(tmp_path / "refit" / CONTRIBUTIONS_FILE) as written:
        outputs = 3 if target == "tier" else 1
        assert written["contrib"].shape[1] == outputs
        assert set(written.files) == {"rows", "contrib", "margin", "owners", "names"}


def test_a_family_without_a_method_says_so_and_writes_nothing(sandbox, tables, tmp_path):
    _, scores = refit(sandbox, tables, tmp_path, "knn", "churn", "onehot")
    assert scores["contributions"] == []
    assert scores["contributions_note"] == f"{NO_SHAP} (KNeighborsClassifier)"
    assert not (tmp_path / "refit" / CONTRIBUTIONS_FILE).exists()
    assert scores["feature_importance"]  # permutation importance still stands


def test_tampered_contributions_are_dropped_by_the_outside_check(lightgbm_refit, tmp_path):
    inputs, scores, folder = lightgbm_refit
    assert scores["contributions"]
    workdir = tmp_path / "refit"
    shutil.copytree(folder / "refit", workdir)
    test = pd.read_parquet(inputs.test_path)
    held = scores["held_out"]
    checked = {"pred": held.pred, "proba": held.proba, "classes": held.classes}
    note = {"method": "lightgbm", "estimator": "LGBMClassifier", "stopped": ""}
    with np.load(workdir / CONTRIBUTIONS_FILE) as written:
        real = {k: written[k] for k in written.files}
    assert shap_contributions(workdir, test, inputs, checked, note)[0] == \
        scores["contributions"]  # the file as written passes

    def tampered(**arrays) -> str:
        np.savez(workdir / CONTRIBUTIONS_FILE, **(real | arrays))
        ranked, why = shap_contributions(workdir, test, inputs, checked, note)
        assert ranked == []
        return why

    # one feature inflated: the rows no longer add up to the margin
    inflated = real["contrib"].copy()
    inflated[:, 0, 1] *= 10
    assert "do not add up to the model's margin" in tampered(contrib=inflated)
    # inflated and the margin moved to match: the margin no longer gives the scored proba
    assert "does not reproduce the scored test predictions" in tampered(
        contrib=inflated, margin=inflated.sum(axis=2))
    bad = real["contrib"].copy()
    bad[0, 0, 0] = np.nan
    assert "not all finite" in tampered(contrib=bad)
    assert "not rows x 1 output(s)" in tampered(contrib=real["contrib"][:, :, :, None])
    assert "not distinct test rows" in tampered(rows=np.zeros_like(real["rows"]))
