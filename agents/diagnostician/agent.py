"""The diagnostician: turn a rejected or failed attempt into a Diagnosis.

Deterministic rules only, read from the taxonomy table: the sandbox status
first, then the exception type and message of the last traceback, then the
traceback frames that point into the candidate for the location.
"""

from __future__ import annotations

import re

from pipesmith.agents.diagnostician.taxonomy import TAXONOMY, UNCLASSIFIED, TaxonomyEntry, entry
from pipesmith.agents.schemas import Attempt, DataProfile, Diagnosis, Issue
from pipesmith.core.metrics import is_better
from pipesmith.sandbox.base import ExecResult

DIVERGED = 10.0  # a final training loss this many times the first one is divergence
NEAR_PERFECT = 0.99  # on metrics bounded by 1, with a leak suspect, this is suspicious
BOUNDED_BY_ONE = ("accuracy", "balanced_accuracy", "f1_macro", "roc_auc", "r2")

_EXCEPTION_LINE = re.compile(
    r"^([A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt)):?\s?(.*)$")
def _frame(source_name: str) -> re.Pattern:
    return re.compile(rf'File "([^"]*/)?{re.escape(source_name)}", line (\d+)')


def last_exception(stderr: str) -> tuple[str, str]:
    """The (type name, message) of the last exception in a traceback, or ("", "")."""
    for line in reversed(stderr.strip().splitlines()):
        match = _EXCEPTION_LINE.match(line.strip())
        if match:
            return match.group(1).rsplit(".", 1)[-1], match.group(2)
    return "", ""


def exception_detail(stderr: str, limit: int = 1500) -> str:
    """The lines after the last exception line: the rest of a multi-line message (Keras puts
    the actual cause there, under "Exception encountered when calling ...")."""
    lines = stderr.strip().splitlines()
    for index in range(len(lines) - 1, -1, -1):
        if _EXCEPTION_LINE.match(lines[index].strip()):
            return "\n".join(ln for ln in lines[index + 1:] if ln.strip())[:limit]
    return ""


def candidate_line(stderr: str, source_name: str = "candidate.py") -> int | None:
    """The innermost traceback frame inside the candidate's own file."""
    frames = _frame(source_name).findall(stderr)
    return int(frames[-1][1]) if frames else None


def line_of_quoted_name(code: str, message: str) -> int | None:
    """When no frame points into the candidate (the error surfaced inside a library),
    the first line of code that mentions a name quoted in the message."""
    for name in re.findall(r"['\"]([^'\"\s]{2,})['\"]", message):
        for number, line in enumerate(code.splitlines(), start=1):
            if f"'{name}'" in line or f'"{name}"' in line:
                return number
    return None


def signature(row: TaxonomyEntry, exc_type: str, message: str) -> str:
    """The error with its specifics (names, numbers, addresses) blanked out: two failures
    with the same signature want the same fix."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'_'", message)
    text = re.sub(r"0x[0-9a-fA-F]+", "_", text)
    text = re.sub(r"\d+(\.\d+)?", "N", text)
    return f"{row.key}|{exc_type}|{text[:160]}"


def excerpt(code: str, line: int | None, context: int = 2) -> str:
    if line is None:
        return ""
    lines = code.splitlines()
    start, stop = max(0, line - 1 - context), min(len(lines), line + context)
    return "\n".join(f"{n + 1:4d}{'>' if n + 1 == line else ' '} {lines[n]}"
                     for n in range(start, stop))


def match(status: str, exc_type: str, message: str, detail: str = "") -> TaxonomyEntry:
    for row in TAXONOMY:
        if status in row.statuses:
            return row
    text = f"{exc_type}: {message}" + (f"\n{detail}" if detail else "")
    for row in TAXONOMY:
        if not row.exceptions and not row.patterns:
            continue
        type_ok = not row.exceptions or exc_type in row.exceptions
        pattern_ok = not row.patterns or any(re.search(p, text) for p in row.patterns)
        if row.exceptions and row.patterns:
            if type_ok and pattern_ok:
                return row
        elif (row.exceptions and type_ok) or (row.patterns and pattern_ok):
            return row
    return UNCLASSIFIED


class Diagnostician:
    def diagnose_issues(self, issues: list[Issue], code: str) -> Diagnosis:
        first = issues[0]
        row = entry(first.taxonomy_class, first.subclass)
        return Diagnosis(
            signature=signature(row, "", first.message),
            taxonomy_class=first.taxonomy_class,
            subclass=first.subclass,
            severity=row.severity,
            summary=first.message,
            line=first.line,
            excerpt=excerpt(code, first.line),
            evidence=[issue.message for issue in issues],
            repair_actions=list(row.repair_actions),
        )

    def diagnose_result(self, result: ExecResult, code: str,
                        source_name: str = "candidate.py") -> Diagnosis:
        exc_type, message = last_exception(result.stderr)
        detail = exception_detail(result.stderr)
        row = match(result.status, exc_type, message, detail)
        line = candidate_line(result.stderr, source_name) or line_of_quoted_name(code, message)
        if result.status in ("timeout", "cpu_timeout"):
            summary = f"the run exceeded its time limit after {result.wall_s:.1f}s"
        elif exc_type:
            summary = f"{exc_type}: {message}"[:300]
        else:
            summary = f"the run ended with status {result.status} (exit {result.exit_code})"
        evidence = [ln for ln in dict.fromkeys(detail.splitlines()[:1]
                                               + result.stderr.strip().splitlines()[-6:])
                    if ln.strip()] or [
            f"status {result.status}, exit code {result.exit_code}, signal {result.signal}, "
            f"{result.wall_s:.1f}s"]
        return Diagnosis(
            signature=signature(row, exc_type, message),
            taxonomy_class=row.cls,
            subclass=row.subclass,
            severity=row.severity,
            summary=summary,
            line=line,
            excerpt=excerpt(code, line),
            evidence=evidence,
            repair_actions=list(row.repair_actions),
        )

    def judge_quality(self, metrics: dict, profile: DataProfile, metric: str) -> Diagnosis | None:
        """A run that worked can still be untrustworthy: no better than the dummy baseline
        (non-convergence when the optimiser warned), or suspiciously perfect with a feature
        that nearly equals the target."""
        score, baseline = metrics.get("score"), metrics.get("baseline_score")
        loss = metrics.get("loss")
        if loss and (not loss["finite"] or loss["last"] > DIVERGED * max(loss["first"], 1e-12)):
            summary = (f"training loss diverged: {loss['first']:.3g} at the start, "
                       f"{loss['last']:.3g} at the end")
            return self._judged(entry("numerical", "divergence"), summary, [summary])
        if not is_better(metric, score, baseline):
            warned = [w for w in metrics.get("warnings", []) if "ConvergenceWarning" in w]
            row = entry("numerical", "non_convergence") if warned else \
                entry("quality", "below_baseline")
            summary = f"{metric} {score:.4f} is no better than the dummy baseline {baseline:.4f}"
            return self._judged(row, summary, warned or [summary])
        if profile.leak_suspects and metric in BOUNDED_BY_ONE and score >= NEAR_PERFECT:
            summary = (f"{metric} {score:.4f} with features that nearly equal the target: "
                       + ", ".join(profile.leak_suspects))
            return self._judged(entry("quality", "suspected_leakage"), summary, [summary])
        return None

    @staticmethod
    def _judged(row: TaxonomyEntry, summary: str, evidence: list[str]) -> Diagnosis:
        return Diagnosis(taxonomy_class=row.cls, subclass=row.subclass, severity=row.severity,
                         summary=summary, evidence=evidence,
                         repair_actions=list(row.repair_actions),
                         signature=signature(row, "", summary))


RAW_EVIDENCE_LINES = 20


def raw_feedback(attempt: Attempt) -> Diagnosis:
    """What a loop without a taxonomy feeds back: the failure's own text, unclassified.

    No class, no severity judgement (always worth a retry), no targeted repair actions:
    the coder gets the traceback and can only write the candidate afresh."""
    text = attempt.error_tail.strip() or "\n".join(i.message for i in attempt.issues) or (
        attempt.diagnosis.summary if attempt.diagnosis else f"status {attempt.status}")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    summary = (lines[-1] if lines else text)[:300]
    return Diagnosis(taxonomy_class="untyped", subclass="raw_traceback", severity="recoverable",
                     summary=summary, evidence=lines[-RAW_EVIDENCE_LINES:],
                     repair_actions=["redraft"], signature=f"untyped|{summary[:160]}")
