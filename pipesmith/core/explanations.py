"""report.md's explanation sections beyond permutation importance: SHAP contributions and
the errors per segment (both from the referee's data: pipesmith/core/contributions.py,
pipesmith/core/segments.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipesmith.core.report import Report

CONTRIBUTION_ROWS = 10  # report.md shows the top ones; report.json holds them all


def _cell(text: str | None) -> str:
    return (text or "").replace("|", "/").replace("\n", " ")


def contribution_lines(report: Report) -> list[str]:
    if report.task_type == "clustering":
        return []
    lines = ["", "## SHAP contributions", "", f"{report.contributions_note}."]
    if report.contributions:
        lines += ["", "| feature | mean abs contribution |", "|---|---|",
                  *[f"| {_cell(c.feature)} | {c.mean_abs:.4f} |"
                    for c in report.contributions[:CONTRIBUTION_ROWS]]]
    return lines


def segment_lines(report: Report) -> list[str]:
    if report.task_type == "clustering":
        return []
    lines = ["", "## Errors by segment", "", f"Test part: {report.segments_note}."]
    worst = report.worst_segments
    if report.segments and not worst:
        lines += ["", "No segment large enough is worse than the whole test part."]
    classes = [s for s in report.segments if s.kind == "class"]
    if classes:  # every class, worst or not: a per-class error table
        lines += ["", "Per true class (error = 1 - recall):", "",
                  f"| class | rows | error | {report.metric} |", "|---|---|---|---|",
                  *[f"| {_cell(s.segment)} | {s.rows} | {s.error:.4f} | "
                    f"{'-' if s.score is None else f'{s.score:.4f}'} |" for s in classes]]
    if worst:
        lines += ["", f"| column | segment | rows | error | {report.metric} |",
                  "|---|---|---|---|---|",
                  *[f"| {_cell(s.column)} | {_cell(s.segment)} | {s.rows} | {s.error:.4f} | "
                    f"{'-' if s.score is None else f'{s.score:.4f}'} |" for s in worst]]
    return lines
