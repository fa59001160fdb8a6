"""Questions about a finished run, answered offline from its report, attempts and the
knowledge base, quoting the figures. One table of (pattern, answer function); the first
pattern that matches answers."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from pipesmith.core.leaderboard import PERSON_EXCLUDED
from pipesmith.core.report import Report
from pipesmith.errors import InputError


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def best_score(report: Report, match: re.Match) -> str:
    if report.score is None:
        return f"No candidate succeeded, so there is no score (status {report.status})."
    return (f"The best model, {report.final_candidate} ({report.final_attempt}), scored "
            f"{report.metric} {_fmt(report.score)} in cross-validation on the development part "
            f"against the dummy baseline's {_fmt(report.baseline_score)}" + test_part(report))


def test_part(report: Report) -> str:
    """The refit pipeline's score on the untouched test part, when there is one."""
    if report.test_score is None:
        return "."
    return (f"; refit on all development rows, it scored {_fmt(report.test_score)} on the "
            f"untouched test part (dummy baseline {_fmt(report.test_baseline_score)}).")


def winner(report: Report, match: re.Match) -> str:
    if report.final_candidate is None:
        return "No model won: no candidate succeeded."
    others = [a for a in report.attempts if a.id != report.final_attempt and a.score is not None]
    runner = max(others, key=lambda a: a.score, default=None) if report.metric not in (
        "rmse", "mae", "log_loss", "davies_bouldin") else min(
        others, key=lambda a: a.score, default=None)
    second = (f"; next best {runner.candidate} ({runner.id}) with {_fmt(runner.score)}"
              if runner else "")
    return (f"{report.final_candidate} ({report.final_attempt}) won with {report.metric} "
            f"{_fmt(report.score)}{second}.")


def why_failed(report: Report, match: re.Match) -> str:
    wanted = match.group("id").lower()
    attempt = next((a for a in report.attempts if a.id == wanted), None)
    if attempt is None:
        return (f"There is no attempt {wanted}; the attempts are "
                + ", ".join(a.id for a in report.attempts) + ".")
    if attempt.status == "ok" and attempt.diagnosis is None:
        return (f"{attempt.id} ({attempt.candidate}) did not fail: it scored "
                f"{_fmt(attempt.score)} in {attempt.wall_s:.1f}s.")
    d = attempt.diagnosis
    why = f"{d.taxonomy_class}.{d.subclass}: {d.summary}" if d else attempt.status
    where = f" (line {d.line})" if d and d.line else ""
    fixed = [a.id for a in report.attempts if a.parent == attempt.id]
    after = f" It was repaired as {', '.join(fixed)}." if fixed else ""
    tail = attempt.error_tail.strip().splitlines()[-1:] if attempt.error_tail else []
    last = f" Last error line: {tail[0][:160]}" if tail else ""
    return f"{attempt.id} ({attempt.candidate}) ended {attempt.status}: {why}{where}.{after}{last}"


def compare(report: Report, match: re.Match) -> str:
    lines = [f"{len(report.attempts)} attempts on {report.metric} "
             f"(dummy baseline {_fmt(report.baseline_score)}):"]
    for a in report.attempts:
        mark = " <- final" if a.id == report.final_attempt else ""
        lines.append(f"  {a.id} {a.candidate}: {a.status}, {report.metric} {_fmt(a.score)}, "
                     f"{a.wall_s:.1f}s, {a.peak_mem_mb:.0f} MB{mark}")
    e = report.ensemble
    if e.strategy != "none":
        lines.append(f"  ensemble {e.strategy} of {', '.join(e.members)}: {_fmt(e.score)}"
                     f" ({'kept' if e.kept else 'not kept'})")
    return "\n".join(lines)


def predict_file(report: Report, match: re.Match) -> str:
    from pipesmith.chat.run_predict import predict_to_csv

    try:
        out, n = predict_to_csv(Path(report.out_dir), Path(match.group("path")))
    except InputError as exc:
        return f"I could not predict: {exc}."
    return f"Predicted {n} rows with {report.final_candidate}; written to {out}."


def export(report: Report, match: re.Match) -> str:
    import shlex

    from pipesmith.core.pipeline_imports import needs_sentence

    root = Path(report.out_dir)
    if report.final_attempt is None:
        return "There is nothing to export: no candidate succeeded in this run."
    files = {k: root / v for k, v in report.files.items()}
    pipeline = files.get("pipeline")
    needs = f" {needs_sentence(pipeline.read_text())}" if pipeline and pipeline.is_file() else ""
    command = shlex.join(["pipesmith", "export", str(root), "--out", f"{root}-bundle"])
    return ("The run's pipeline is ready to take away: "
            f"{pipeline or '-'} retrains it and {files.get('model', '-')} is the fitted "
            f"model.{needs} For a deployment bundle that predicts without pipesmith, run "
            f"`{command}`.")


def past_runs(report: Report, match: re.Match) -> str:
    if not report.retrieved_runs:
        return "No similar past runs were in the knowledge base when this run was planned."
    return ("The plan drew on these similar past runs from the knowledge base: "
            + ", ".join(report.retrieved_runs) + ".")


def time_spent(report: Report, match: re.Match) -> str:
    return (f"The run took {report.elapsed_s:.1f}s of its {report.budget_s:.0f}s budget, "
            f"{report.sandbox_s:.1f}s of it inside the sandbox.")


def where(report: Report, match: re.Match) -> str:
    return f"Everything is in {report.out_dir}: " + ", ".join(report.files.values()) + "."


def features(report: Report, match: re.Match) -> str:
    """SHAP contributions when the chosen family has them, else the permutation importances
    on the test part, largest first; the answer says which it used."""
    if report.contributions:
        top = ", ".join(f"{c.feature} ({c.mean_abs:.4f})" for c in report.contributions[:5])
        permutation = (" Permutation importance agrees on the first: "
                       f"{report.feature_importance[0].feature}." if report.feature_importance
                       and report.feature_importance[0].feature ==
                       report.contributions[0].feature else "")
        return (f"By SHAP contributions of the chosen model on the untouched test part, the "
                f"features that matter most are {top} (the mean absolute contribution to the "
                f"model's raw output; {report.contributions_note}).{permutation}")
    ranked = report.feature_importance
    if not ranked:
        note = report.feature_importance_note or "this run's report has no importances"
        return f"I have no feature importances for this run ({note})."
    top = ", ".join(f"{f.feature} ({f.importance:+.4f})" for f in ranked[:5])
    noise = [f.feature for f in ranked if f.importance <= 0]
    tail = (f" Shuffling {', '.join(noise[:5])} did not hurt the score: the model barely uses "
            f"{'it' if len(noise) == 1 else 'them'}." if noise else "")
    note = report.contributions_note
    why = "" if not note else f" ({note})" if note.startswith("no SHAP") else f" (no SHAP: {note})"
    return (f"By permutation importance on the untouched test part{why}, the features that "
            f"matter most are {top} (the drop in {report.metric} when a feature's values are "
            f"shuffled; {report.feature_importance_note}).{tail}")


def mistakes(report: Report, match: re.Match) -> str:
    """Where the chosen model makes its mistakes: the worst segments of the test part."""
    if not report.segments:
        note = report.segments_note or "this run's report has no segments"
        return f"I have no errors per segment for this run ({note})."
    worst = report.worst_segments
    measure = "wrong" if report.task_type == "classification" else "mean absolute error"
    if not worst:
        return ("No segment of the test part large enough to judge is worse than the whole "
                f"({report.segments_note}).")

    def one(s) -> str:
        error = f"{100 * s.error:.0f}% wrong" if measure == "wrong" else f"{measure} {s.error:.4g}"
        where = f"true class {s.segment}" if s.kind == "class" else f"{s.column} = {s.segment}"
        return f"{where} ({s.rows} rows, {error})"

    return (f"On the untouched test part, {report.final_candidate} does worst on "
            + "; ".join(one(s) for s in worst)
            + f". Overall: {report.segments_note}.")


def _cv_text(row) -> str:
    spread = f" ± {row.cv_std:.4f}" if row.cv_std is not None else ""
    return f"{_fmt(row.cv_mean)}{spread}"


def why_chosen(report: Report, match: re.Match) -> str:
    chosen = next((r for r in report.leaderboard if r.chosen), None)
    if chosen is None:
        return "No model was chosen: no candidate succeeded."
    others = [r for r in report.leaderboard if not r.chosen and r.cv_mean is not None
              and r.source != "search"]
    runner = others[0] if others else None  # rows are sorted best CV first
    second = (f" The next best, {runner.name}, scored {_cv_text(runner)}: "
              f"{runner.why_not_chosen}." if runner else " It was the only candidate scored.")
    e = report.ensemble
    ensemble = f" Ensemble ({e.strategy}): {e.reason}." if e.strategy != "none" else ""
    return (f"I picked {chosen.name} ({', '.join(chosen.attempts)}) for its cross-validated "
            f"{report.metric} on the development part, {_cv_text(chosen)} over "
            f"{report.cv_score.folds if report.cv_score else '-'} folds (dummy baseline "
            f"{_fmt(report.baseline_score)}).{second}{ensemble} Refit on all development rows "
            f"it scored {_fmt(report.test_score)} on the untouched test part.")


def named_families(text: str, families: list[str]) -> list[str]:
    """The families a question names: by their own name ("random forest", "svc"), else by
    the words and aliases the task reader knows ("boosting", "rf", "neural nets";
    agents/families/names.py)."""
    from pipesmith.chat.task_text import families_named

    low = re.sub(r"[\s-]+", "_", text.lower())
    named = [f for f in sorted(families, key=len, reverse=True)
             if re.search(rf"(?<![a-z]){re.escape(f)}(?![a-z])", low)]
    named = [f for f in named if not any(f != g and f in g for g in named)]
    if named:
        return named
    return [f for f in families_named(text) if f in families]


EXCLUDED = f"not planned: {PERSON_EXCLUDED}"


def why_not(report: Report, match: re.Match) -> str | None:
    rows = report.leaderboard
    families = list(dict.fromkeys(r.family for r in rows))
    wanted = named_families(match.group("what"), families)
    if not wanted:  # "why is the test score not ...": not about a model; the next rule
        return None
    lines = []
    for family in wanted:
        for row in [r for r in rows if r.family == family][:3]:
            if row.why_not_chosen == EXCLUDED:
                lines.append(f"You excluded {row.name}, so I neither planned nor searched it.")
            elif row.chosen:
                lines.append(f"{row.name} is the chosen model (CV {report.metric} "
                             f"{_cv_text(row)}).")
            elif row.cv_mean is not None:  # a scored candidate or a kept search trial
                ids = f" ({', '.join(row.attempts)})" if row.attempts else ""
                lines.append(f"{row.name}{ids} was tried: CV {report.metric} "
                             f"{_cv_text(row)}; {row.why_not_chosen}.")
            elif row.attempts:  # ran, or was rejected before running, and failed
                lines.append(f"{row.name} ({', '.join(row.attempts)}) was tried and "
                             f"{row.why_not_chosen}.")
            else:  # never ran: not run, not planned, only searched
                lines.append(f"{row.name}: {row.why_not_chosen}.")
    return " ".join(lines)


def baseline(report: Report, match: re.Match) -> str:
    if report.score is None or report.baseline_score is None:
        return "No candidate succeeded, so there is nothing to compare with the baseline."
    from pipesmith.core.metrics import get_metric

    sign = 1.0 if get_metric(report.metric).greater_is_better else -1.0
    word = "better" if sign * (report.score - report.baseline_score) > 0 else "not better"
    text = (f"In cross-validation on the development part {report.final_candidate} scored "
            f"{report.metric} {_fmt(report.score)} against the dummy baseline's "
            f"{_fmt(report.baseline_score)} ({word}, by "
            f"{abs(report.score - report.baseline_score):.4f})")
    if report.test_score is not None and report.test_baseline_score is not None:
        text += (f"; on the untouched test part {_fmt(report.test_score)} against "
                 f"{_fmt(report.test_baseline_score)} (by "
                 f"{abs(report.test_score - report.test_baseline_score):.4f})")
    kind = "the most frequent class" if report.task_type == "classification" else \
        "the training mean"
    return text + f". The dummy baseline always predicts {kind}."


PREDICT = re.compile(r"\b(?:predict\w*|apply it|score)\s+(?:it\s+)?(?:on|for|with|to)\s+"
                     r"(?P<path>\S+\.(?:csv|parquet|pq))", re.I)
ANSWERS: list[tuple[re.Pattern, Callable[[Report, re.Match], str | None]]] = [
    (re.compile(r"\bwhy\b.*\b(?P<id>a\d+)\b", re.I), why_failed),
    (re.compile(r"\b(?P<id>a\d+)\b.*\b(fail|wrong|error)", re.I), why_failed),
    (PREDICT, predict_file),
    (re.compile(r"\bmistake|\bwrong\b|\b(make|makes|making) errors?\b|\bworst\b|\bsegments?\b|"
                r"\bstruggl|\bwhere\b.*\b(bad|poor|worse|fail)", re.I), mistakes),
    (re.compile(r"\bfeature|\b(columns?|variables?|predictors?|inputs?)\b.*\b(matter|"
                r"importan|influen|drive|useful)|\bimportan(t|ce)\b", re.I), features),
    (re.compile(r"\bwhy\b.*?(?:\bnot|n't|\bno|\bnever)\b(?P<what>.+)", re.I), why_not),
    (re.compile(r"\bwhy\b.*\b(pick|chose|choose|chosen|select|win|won|prefer|this model|"
                r"final)", re.I), why_chosen),
    (re.compile(r"\bbaseline|\bdummy\b|\bbetter than (chance|guessing|random)", re.I),
     baseline),
    (re.compile(r"\bexport|deploy|download|take (it )?away", re.I), export),
    (re.compile(r"\bcompare|candidates|attempts|all (the )?models|leaderboard", re.I), compare),
    (re.compile(r"\bwhich\b.*\b(won|win|best|chosen|final)|\bwinner\b", re.I), winner),
    (re.compile(r"\bscore|accuracy|how (good|well)|metric|result", re.I), best_score),
    (re.compile(r"\bpast runs?|knowledge base|similar|kb\b", re.I), past_runs),
    (re.compile(r"\bhow long|time|seconds|budget", re.I), time_spent),
    (re.compile(r"\bwhere|files?|report\b", re.I), where),
]
HELP = ("Ask me about the run: \"what score did the best model get?\", \"which model won?\", "
        "\"why did you pick it?\", \"which features matter?\", "
        "\"where does it make mistakes?\", \"why not random forest?\", "
        "\"how does it compare with the baseline?\", \"why did a2 fail?\", "
        "\"compare the candidates\", \"predict on new.csv\", \"export it\"; "
        "or start a new one: \"predict churn from data/customers.csv\".")


def answer(report: Report, question: str) -> str | None:
    """The answer from the first rule that matches; None when none does."""
    for pattern, reply in ANSWERS:
        match = pattern.search(question)
        text = reply(report, match) if match else None
        if text is not None:  # a rule may pass (why_not naming no model family)
            return text
    return None
