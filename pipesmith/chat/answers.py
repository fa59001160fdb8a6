"""Questions about a finished run, answered offline from its report, attempts and the
knowledge base, quoting the figures. One table of (pattern, answer function); the first
pattern that matches answers."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

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


PREDICT = re.compile(r"\b(?:predict\w*|apply it|score)\s+(?:it\s+)?(?:on|for|with|to)\s+"
                     r"(?P<path>\S+\.(?:csv|parquet|pq))", re.I)
ANSWERS: list[tuple[re.Pattern, Callable[[Report, re.Match], str]]] = [
    (re.compile(r"\bwhy\b.*\b(?P<id>a\d+)\b", re.I), why_failed),
    (re.compile(r"\b(?P<id>a\d+)\b.*\b(fail|wrong|error)", re.I), why_failed),
    (PREDICT, predict_file),
    (re.compile(r"\bexport|deploy|download|take (it )?away", re.I), export),
    (re.compile(r"\bcompare|candidates|attempts|all (the )?models|leaderboard", re.I), compare),
    (re.compile(r"\bwhich\b.*\b(won|win|best|chosen|final)|\bwinner\b", re.I), winner),
    (re.compile(r"\bscore|accuracy|how (good|well)|metric|result", re.I), best_score),
    (re.compile(r"\bpast runs?|knowledge base|similar|kb\b", re.I), past_runs),
    (re.compile(r"\bhow long|time|seconds|budget", re.I), time_spent),
    (re.compile(r"\bwhere|files?|report\b", re.I), where),
]
HELP = ("Ask me about the run: \"what score did the best model get?\", \"which model won?\", "
        "\"why did a2 fail?\", \"compare the candidates\", \"predict on new.csv\", "
        "\"export it\"; or start a new one: \"predict churn from data/customers.csv\".")


def answer(report: Report, question: str) -> str | None:
    """The answer from the first rule that matches; None when none does."""
    for pattern, reply in ANSWERS:
        match = pattern.search(question)
        if match:
            return reply(report, match)
    return None
