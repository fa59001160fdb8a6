"""The chat's offline answers about a finished run, from its report.json: the feature
importance, the leaderboard and the baseline (one real run, tests/pipesmith/conftest.py)."""

from __future__ import annotations

import pytest

from pipesmith.chat.answers import HELP, answer
from pipesmith.chat.thread import on_question


def ask(run_dir, question: str) -> str:
    """As the chat asks: the last run's report.json read from its folder."""
    return on_question(question, {"runs": [str(run_dir)]})


@pytest.mark.slow  # the shared real run (tests/pipesmith/conftest.py)
def test_which_features_matter_uses_shap_when_the_family_has_it(explained_run):
    report, out = explained_run
    assert report.final_candidate == "logistic_regression"  # exact linear SHAP
    top = report.contributions[0]
    for question in ("which features matter?", "What are the most important features?"):
        reply = ask(out, question)
        assert reply != HELP and "By SHAP contributions of the chosen model" in reply
        assert f"{top.feature} ({top.mean_abs:.4f})" in reply
        assert reply.index("signal") < reply.index("noise")
        assert "Permutation importance agrees on the first: signal." in reply


@pytest.mark.slow  # the shared real run (tests/pipesmith/conftest.py)
def test_without_shap_the_answer_says_it_used_permutation_importance(explained_run):
    from pipesmith.core.contributions import NO_SHAP

    report, _ = explained_run
    no_shap = report.model_copy(update={"contributions": [],
                                        "contributions_note": f"{NO_SHAP} (SVC)"})
    top = report.feature_importance[0]
    reply = answer(no_shap, "which features matter?")
    assert "By permutation importance on the untouched test part (no SHAP for this family; " \
        "permutation importance only (SVC))" in reply
    assert f"{top.feature} ({top.importance:+.4f})" in reply
    assert reply.index("signal") < reply.index("noise")


@pytest.mark.slow  # the shared real run (tests/pipesmith/conftest.py)
def test_why_this_model_quotes_its_cv_score_and_the_test_part(explained_run):
    report, out = explained_run
    reply = ask(out, "why did you pick this model?")
    assert reply.startswith(f"I picked {report.final_candidate} ({report.final_attempt})")
    assert f"{report.score:.4f} ± {report.cv_score.std:.4f}" in reply
    assert f"{report.test_score:.4f} on the untouched test part" in reply


@pytest.mark.slow  # the shared real run (tests/pipesmith/conftest.py)
def test_why_not_a_family_gives_its_leaderboard_reason(explained_run):
    report, out = explained_run
    rows = {r.family: r for r in report.leaderboard}
    reply = ask(out, "why didn't you try random forest?")
    assert reply == f"random_forest: {rows['random_forest'].why_not_chosen}."
    failed = next(r for r in report.leaderboard if r.attempts == ["a1"])
    spoken = failed.family.replace("_", " ")  # "hist gradient boosting"
    assert answer(report, f"why not {spoken}?") == (
        f"{failed.name} (a1) was tried and failed pre-validation: syntax.invalid_syntax.")
    # a "why ... not" that names no model is left to the other rules
    assert "test part" in answer(report, "why is the test score not higher?")


@pytest.mark.slow  # the shared real run (tests/pipesmith/conftest.py)
def test_the_baseline_comparison(explained_run):
    report, out = explained_run
    reply = ask(out, "how does it compare with the baseline?")
    assert f"{report.score:.4f} against the dummy baseline's {report.baseline_score:.4f}" \
        in reply
    assert f"{report.test_score:.4f} against {report.test_baseline_score:.4f}" in reply
    assert "most frequent class" in reply


@pytest.mark.slow  # the shared real run (tests/pipesmith/conftest.py)
def test_where_it_makes_mistakes_names_the_worst_segments(explained_run):
    report, out = explained_run
    # every input column cut into quartiles of the test part, and the true classes (the
    # target, "label"), each row counted once
    assert {s.column for s in report.segments} == {"signal", "weak", "noise", "label"}
    assert {s.kind for s in report.segments if s.column == "label"} == {"class"}
    for column in ("signal", "weak", "noise", "label"):
        assert sum(s.rows for s in report.segments if s.column == column) == \
            report.refit.n_test
    worst = next(s for s in report.worst_segments if s.kind != "class")
    for question in ("where does it make mistakes?", "which customers does it get wrong?",
                     "show me the worst segments", "where does the model struggle?"):
        reply = ask(out, question)
        assert reply != HELP and f"{worst.column} = {worst.segment} ({worst.rows} rows" in reply
    md = (out / "report.md").read_text()
    assert "## Errors by segment" in md and f"| {worst.column} | {worst.segment} |" in md
    assert "Per true class (error = 1 - recall)" in md
