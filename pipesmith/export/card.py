"""MODEL_CARD.md: what the exported model is for, its data, metric and scores, and its
known limits, rendered from the run's report (template: templates/MODEL_CARD.md.tmpl)."""

from __future__ import annotations

from importlib.resources import files
from string import Template

from pipesmith.export.run_source import RunSource


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.4f}"


WARNING_CHARS = 160  # the runs store warnings cut at a fixed length, often mid-word


def clip(text: str, limit: int = WARNING_CHARS) -> str:
    """text, or its first words within `limit` characters and an ellipsis: never a cut word."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit + 1].rsplit(" ", 1)[0].rstrip(" ,;:.") + " …"


def _limits(source: RunSource, spec: dict) -> str:
    report, final = source.report, source.final
    lines = []
    suspects = report.profile.leak_suspects
    lines.append(f"- Leak suspects (features that nearly equal the target): "
                 f"{', '.join(suspects) if suspects else 'none found'}.")
    lines.append(f"- Rows dropped for a missing target: {report.rows_dropped_missing_target}.")
    dropped = spec["data"]["dropped_columns"]
    lines.append(f"- Columns not used as features (ID-like, constant, datetime or free text): "
                 f"{', '.join(dropped) if dropped else 'none'}.")
    if final.warnings:
        lines.append(f"- Warnings while fitting: {'; '.join(clip(w) for w in final.warnings)}.")
    if spec["scores"]["test"] is None:
        lines.append("- No untouched test score: this run predates the held-out test part, "
                     "so the only score is the one the pipeline was chosen on (optimistic).")
    lines.append("- model/artifacts/model.joblib and pipeline.py are code pipesmith generated: "
                 "loading the pickle or running the script runs that code. Run them in the "
                 "bundle's container (Dockerfile), not on a machine with secrets; pipesmith "
                 "itself only applies the model inside its sandbox.")
    lines.append(f"- Trained on {report.profile.n_rows} rows of {report.dataset}; rows unlike "
                 "these (new categories, other ranges) are predicted with less confidence.")
    return "\n".join(lines)


def _plots(names: list[str]) -> str:
    if not names:
        return "The run saved no plots."
    return "\n".join(f"![{name}](plots/{name})" for name in names)


def model_card(source: RunSource, spec: dict, plots: list[str]) -> str:
    report, scores = source.report, spec["scores"]
    template = Template(files("pipesmith.export").joinpath("templates/MODEL_CARD.md.tmpl")
                        .read_text())
    return template.substitute(
        run_id=report.run_id, task=report.task_text, task_type=report.task_type,
        target=report.target, candidate=report.final_candidate, dataset=report.dataset,
        rows=report.profile.n_rows, n_features=len(report.profile.columns),
        columns=", ".join(f"`{c.name}` ({c.kind})" for c in report.profile.columns),
        metric=report.metric, cv=_fmt(scores["cv"]["mean"]), test=_fmt(scores["test"]),
        test_baseline=_fmt(scores["test_baseline"]), baseline=_fmt(scores["baseline"]),
        seed=report.seed, limits=_limits(source, spec), plots=_plots(plots),
        python=report.versions.get("python", "?"),
    )
