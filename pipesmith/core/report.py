"""The run report: report.json (schema in docs/report-schema.md), report.md,
the standalone pipeline.py and the chosen model.joblib."""

from __future__ import annotations

import difflib
import textwrap
from pathlib import Path

from pydantic import BaseModel, ConfigDict, computed_field

from pipesmith.agents.coder.agent import load_template, render
from pipesmith.agents.ensembler.agent import best_attempt
from pipesmith.agents.schemas import (
    Attempt,
    DataProfile,
    EnsembleOutcome,
    FeatureContribution,
    FeatureImportance,
    HeldOutPredictions,
    PermutationControl,
    Plan,
    RefitOutcome,
    RunInputs,
    SegmentError,
)
from pipesmith.core.explanations import contribution_lines, segment_lines
from pipesmith.core.leaderboard import LeaderboardRow, build_leaderboard, not_run_reason
from pipesmith.core.llm_report import LLMSummary, llm_summary, markdown_lines
from pipesmith.core.metrics import get_metric
from pipesmith.core.plots import Plot, draw_plots
from pipesmith.core.referee import score_gap_warning
from pipesmith.core.reliability import Reliability, reliability
from pipesmith.core.versions import library_versions
from pipesmith.graph.state import RunState, elapsed_s, repair_depth
from pipesmith.knowledge_base.records import RepairRecord, RunRecord, meta_features
from pipesmith.sandbox.safe_files import copy_regular

SCHEMA_VERSION = 6


class CVScore(BaseModel):
    model_config = ConfigDict(frozen=True)

    mean: float
    std: float | None
    folds: int


class RowsUsed(BaseModel):
    """The development rows a large table's run used to fit its budget (graph/rows.py)."""

    model_config = ConfigDict(frozen=True)

    development: int  # rows in the development part
    cross_validation: int  # the seeded stratified sample every candidate was scored on
    refit: int | None  # the rows the final pipeline was fit on (None: no refit)
    notes: list[str]  # what the person reads


class Report(BaseModel):
    model_config = ConfigDict(frozen=True)

    schema_version: int = SCHEMA_VERSION
    run_id: str
    status: str  # "succeeded" or "failed"
    task_text: str
    dataset: str
    target: str | None
    task_type: str
    metric: str
    inferred: list[str]
    score: float | None  # the final attempt's CV mean on the development part (= cv_score.mean)
    baseline_score: float | None  # the dummy baseline on the same folds
    cv_score: CVScore | None  # selection: K-fold CV on the development part
    test_score: float | None  # the refit pipeline on the untouched test part
    test_baseline_score: float | None  # the dummy baseline fit on development, on the test part
    refit: RefitOutcome | None
    final_attempt: str | None
    final_candidate: str | None  # the plan's name for it (family, _tuned for a search winner)
    final_success: bool
    first_pass_success: bool
    rounds_used: int
    reliability: Reliability
    fault_rate: float
    attempts: list[Attempt]
    ensemble: EnsembleOutcome
    plan: Plan
    retrieved_runs: list[str]  # knowledge-base runs that informed the plan
    profile: DataProfile
    rows_dropped_missing_target: int
    timings: dict[str, float]
    elapsed_s: float
    sandbox_s: float  # full runs
    smoke_s: float  # smoke runs (pre-validation on a sample)
    budget_s: float
    seed: int
    topology: str
    versions: dict[str, str]
    out_dir: str
    files: dict[str, str]  # relative to out_dir
    llm: LLMSummary | None = None  # LLM mode only (docs/report-schema.md)
    search: dict | None = None  # topologies that search: trials, curve, winners, warm start
    warnings: list[str] = []  # what a person should know before trusting the scores
    leaderboard: list[LeaderboardRow] = []  # every candidate, kept trial and unrun plan entry
    feature_importance: list[FeatureImportance] = []  # permutation importance, test part
    feature_importance_note: str = ""  # what it covers, or why there is none
    plots: list[Plot] = []  # PNG files in the run folder, drawn outside the sandbox
    # the final's control on shuffled labels (the last one run when every final was rejected)
    permutation_control: PermutationControl | None = None
    # what the refit job says its final step is (sanitised): the code, not the plan's name
    final_estimator: str | None = None
    segments: list[SegmentError] = []  # errors per segment of each input column, test part
    segments_note: str = ""  # what they cover, or why there are none
    contributions: list[FeatureContribution] = []  # SHAP mean |contribution|, largest first
    contributions_note: str = ""  # the family's method and sample, or why there are none
    rows_used: RowsUsed | None = None  # a sample of the development rows fit the budget

    @computed_field  # derived from `segments`, written to report.json for its readers
    @property
    def worst_segments(self) -> list[SegmentError]:
        from pipesmith.core.segments import worst_segments

        return worst_segments(self.segments)


def choose_final(attempts: list[Attempt], ensemble: EnsembleOutcome, metric: str) -> Attempt | None:
    if ensemble.kept:
        return next(a for a in attempts if a.phase == "ensemble")
    return best_attempt([a for a in attempts if a.phase != "ensemble"], metric)


def build_report(state: RunState, topology: str, llm: dict | None = None) -> Report:
    inputs: RunInputs = state["inputs"]
    attempts = list((state.get("attempts") or {}).values())
    final = choose_final(attempts, state["ensemble"], inputs.metric)
    drafts = [a for a in attempts if a.phase == "draft"]
    baselines = [a.baseline_score for a in attempts if a.baseline_score is not None]
    refit = state.get("refit")
    controls = state.get("permutation_controls") or []
    files = {"report_json": "report.json", "report_md": "report.md", "attempts": "attempts/"}
    if final is not None:
        files |= {"pipeline": "pipeline.py", "data": "data.parquet"}
    if refit is not None and refit.status == "ok":
        files |= {"model": "model.joblib"}
    return Report(
        run_id=inputs.run_id,
        status="succeeded" if final is not None else "failed",
        task_text=inputs.task_text,
        dataset=inputs.dataset,
        target=inputs.target,
        task_type=inputs.task_type,
        metric=inputs.metric,
        inferred=inputs.inferred,
        score=final.score if final else None,
        baseline_score=final.baseline_score if final else (baselines[0] if baselines else None),
        cv_score=CVScore(mean=final.score, std=final.cv_std,
                         folds=max(1, len(final.fold_scores))) if final else None,
        test_score=refit.test_score if refit else None,
        test_baseline_score=refit.test_baseline_score if refit else None,
        warnings=[w for w in [score_gap_warning(
            inputs.metric, final.score, final.cv_std, final.baseline_score,
            refit.test_score) if final and refit else None] if w] + control_warnings(
            controls, final),
        permutation_control=controls[-1] if controls else None,
        final_estimator=refit.estimator if refit else None,
        refit=refit,
        final_attempt=final.id if final else None,
        final_candidate=final.candidate if final else None,
        final_success=final is not None,
        first_pass_success=bool(drafts) and drafts[0].succeeded,
        rounds_used=max((repair_depth(state, a.id) for a in attempts), default=0),
        reliability=reliability(attempts, final, inputs.max_repair_rounds),
        fault_rate=inputs.fault_rate,
        attempts=attempts,
        ensemble=state["ensemble"],
        plan=state["plan"],
        retrieved_runs=[run.run_id for run in state.get("past_runs") or []],
        profile=state["profile"],
        rows_dropped_missing_target=inputs.rows_dropped_missing_target,
        timings=state.get("timings") or {},
        # the budget used includes the refit, which runs in this last node
        elapsed_s=round(elapsed_s(state) + (state["refit"].wall_s if state.get("refit") else 0)
                        + sum(c.seconds for c in controls), 3),
        # an adopted winner's fits ran in the search (its seconds), not again
        sandbox_s=round(sum(a.wall_s for a in attempts
                            if not a.smoke and a.adopted_trial is None), 3),
        smoke_s=round(sum(a.smoke_s for a in attempts), 3),
        budget_s=inputs.budget_s,
        seed=inputs.seed,
        topology=topology,
        versions=library_versions(),
        out_dir=inputs.out_dir,
        files=files,
        llm=llm_summary(state, llm),
        search=state.get("search"),
        leaderboard=build_leaderboard(state, final, state["ensemble"], refit,
                                      not_run_reason(state)),
        feature_importance=refit.feature_importance if refit else [],
        feature_importance_note=(refit.importance_note or _no_importance(refit))
        if refit else "not computed: no refit",
        segments=refit.segments if refit else [],
        segments_note=(refit.segments_note or _no_importance(refit)) if refit
        else "not computed: no refit",
        contributions=refit.contributions if refit else [],
        contributions_note=(refit.contributions_note or _no_importance(refit)) if refit
        else "not computed: no refit",
        rows_used=rows_used(inputs, state.get("profile"), refit),
    )


def rows_used(inputs: RunInputs, profile, refit: RefitOutcome | None) -> RowsUsed | None:
    """What a sampled run did, in figures and in words; None when every row was used."""
    from pipesmith.graph.rows import note

    if not inputs.cv_rows or profile is None or inputs.cv_rows >= profile.n_rows:
        return None
    fitted = refit.n_dev if refit is not None and refit.status == "ok" else None
    notes = [note("cross-validated", inputs.cv_rows, profile.n_rows)]
    if refit is not None and refit.sampled_from and fitted:
        notes.append(note("refit", fitted, refit.sampled_from))
    return RowsUsed(development=profile.n_rows, cross_validation=inputs.cv_rows, refit=fitted,
                    notes=notes)


def _no_importance(refit: RefitOutcome) -> str:
    return "not computed: the refit " + ("was skipped" if refit.status == "skipped"
                                         else f"ended {refit.status}")


def control_warnings(controls: list[PermutationControl], final: Attempt | None) -> list[str]:
    """What the permutation controls found: each candidate rejected, a control that could
    not run, and a run left without a candidate by them."""
    out = [f"{c.attempt} ({c.candidate}) was rejected: {c.detail}" for c in controls
           if c.verdict == "rejected"]
    out += [f"the permutation control of {c.attempt} ({c.candidate}) could not run "
            f"({c.detail[:200]}); its score was not checked against label lookups"
            for c in controls if c.verdict == "inconclusive"]
    if final is None and out:
        out.append("no candidate passed the permutation control: the run has no model")
    return out


def control_line(control: PermutationControl | None) -> list[str]:
    if control is None:
        return []
    if control.verdict == "inconclusive":
        return [f"- permutation control of {control.attempt}: inconclusive "
                f"({control.seconds:.1f}s)"]
    return [f"- permutation control of {control.attempt}: **{control.verdict}** — with "
            f"shuffled training labels {_fmt(control.score)} against a dummy baseline "
            f"{_fmt(control.baseline_score)} ({control.z or 0:.1f} spreads beyond label-blind "
            f"guessing; {control.folds} folds, {control.seconds:.1f}s)"]


def standalone_script(code: str, inputs: RunInputs) -> str:
    """The candidate's code with a retraining entry point, under a header saying what it
    needs (it may import pipesmith, not only scikit-learn)."""
    from pipesmith.core.pipeline_imports import needs_sentence

    script = code.rstrip() + "\n" + render(
        load_template("standalone.py.tmpl"),
        target=repr(inputs.target), seed=inputs.seed, n_jobs=inputs.n_jobs,
        task_type=repr(inputs.task_type), test_size=inputs.test_size,
        scorer=repr(get_metric(inputs.metric).scorer),
    )
    header = textwrap.fill(f"pipeline.py of run {inputs.run_id}, written by pipesmith. "
                           + needs_sentence(script) + " It is generated code: run it in a "
                           "container or a sandbox, not on a machine with secrets.", 98,
                           initial_indent="# ", subsequent_indent="# ")
    return header + "\n" + script


def write_report(state: RunState, topology: str, llm: dict | None = None,
                 held_out: HeldOutPredictions | None = None) -> Path:
    """report.json, report.md, pipeline.py, model.joblib and the plots; `held_out`: the
    refit's checked test predictions and labels (no test-part plots without them)."""
    report = build_report(state, topology, llm)
    out = Path(state["inputs"].out_dir)
    plots, failed = draw_plots(out, report, held_out)
    report = report.model_copy(update={"plots": plots, "warnings": report.warnings + failed})
    if report.final_attempt is not None:
        final = state["candidates"][report.final_attempt]
        (out / "pipeline.py").write_text(standalone_script(final.code, state["inputs"]))
        refitted = out / "refit" / "model.joblib"
        if "model" in report.files and refitted.exists() and not refitted.is_symlink():
            # a regular file within the job's disk cap, never a link the job left there
            copy_regular(refitted, out / "model.joblib", state["inputs"].disk_mb << 20)
    (out / "report.md").write_text(markdown(report))
    path = out / "report.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(report.model_dump_json(indent=2))
    tmp.replace(path)  # atomic: a reader never sees half a report
    return path


def load_report(path: Path) -> Report:
    return Report.model_validate_json(Path(path).read_text())


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def score_curve(report: Report) -> list[tuple[float, float]]:
    """The best score so far after each candidate run, against the seconds spent in
    sandboxed runs (smoke runs, candidate runs, and the search before its first winner)
    up to its end: the run's anytime curve."""
    from pipesmith.agents.ensembler.agent import SEARCHED
    from pipesmith.core.metrics import is_better

    spent, best, points = 0.0, None, []
    search_s = (report.search or {}).get("seconds", 0.0)
    for attempt in report.attempts:
        if search_s and attempt.candidate.endswith(SEARCHED):
            spent, search_s = spent + search_s, 0.0
        spent += attempt.smoke_s + (attempt.wall_s if attempt.adopted_trial is None else 0.0)
        if attempt.succeeded and is_better(report.metric, attempt.score, best):
            best = attempt.score
            points.append((round(spent, 1), round(best, 6)))
    return points


def _curve_text(points: list[tuple[float, float]]) -> str:
    return " → ".join(f"{score:.4f} @ {t:.0f}s" for t, score in points) or "-"


def search_lines(search: dict | None) -> list[str]:
    """The search in a few lines: trials, warm start, and the best score over time."""
    if not search:
        return []
    if "skipped" in search:
        return [f"- search: skipped ({search['skipped']})"]
    if "clusterings" in search:
        return [f"- search: {search['clusterings']} more clusterings (the learners at more "
                "numbers of clusters), drafted while the time lasted"]
    curve = " → ".join(f"{s:.4f} @ {t:.0f}s" for t, s in search.get("curve", []))
    return [f"- search: {search.get('trials', 0)} trials ({search.get('evaluations', 0)} "
            f"evaluations, rows shares {search.get('shares')}), warm start from the "
            f"{search.get('warm_start', '-')} ({search.get('warm_configs', 0)} configurations), "
            f"{search.get('seconds', 0):.1f}s"
            + (f"; winners whose trials' cross-validation may be adopted: trials "
               f"{', '.join(map(str, search['adoptable']))}" if search.get("adoptable") else ""),
            f"- best cross-validated score over the search's time: {curve or '-'}"]


def _cv(cv: CVScore | None) -> str:
    if cv is None:
        return "-"
    spread = f" ± {cv.std:.4f}" if cv.std is not None else ""
    return f"{cv.mean:.4f}{spread} ({cv.folds} fold{'s' if cv.folds != 1 else ''})"


def _cell(text: str | None) -> str:
    return (text or "").replace("|", "/").replace("\n", " ")


def leaderboard_lines(report: Report) -> list[str]:
    """The leaderboard as a table; the families never planned in one line below it."""
    rows = [r for r in report.leaderboard if r.status != "not_planned"]
    if not rows:
        return []
    lines = ["", "## Leaderboard", "",
             f"CV {report.metric} on the development part; a draft and its repairs are one "
             "row (the lineage's outcome); the test score is the chosen pipeline's only.", "",
             "| rank | candidate | family | status | CV mean ± std | time s | test | "
             "why not chosen |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        cv = "-" if r.cv_mean is None else _fmt(r.cv_mean) + (
            f" ± {r.cv_std:.4f}" if r.cv_std is not None else "")
        name = f"**{r.name}** (chosen)" if r.chosen else r.name
        ids = f" ({', '.join(r.attempts)})" if r.attempts else ""
        lines.append(f"| {r.rank or ''} | {_cell(name)}{ids} | {r.family} | {r.status} | {cv} "
                     f"| {'-' if r.time_s is None else f'{r.time_s:.1f}'} | "
                     f"{_fmt(r.test_score) if r.chosen else ''} | {_cell(r.why_not_chosen)} |")
    skipped = [r for r in report.leaderboard if r.status == "not_planned"]
    if skipped:
        lines += ["", "Not planned: " + "; ".join(
            f"{r.name} ({r.why_not_chosen.removeprefix('not planned: ')})" for r in skipped)]
    return lines


IMPORTANCE_ROWS = 10  # report.md shows the top ones; report.json holds them all


def importance_lines(report: Report) -> list[str]:
    if report.task_type == "clustering" and not report.feature_importance:
        return ["", "## Feature importance", "", "Skipped for clustering: there are no "
                "labels to score a shuffled column against."]
    lines = ["", "## Feature importance", "",
             f"Permutation importance on the test part: {report.feature_importance_note}."]
    if report.feature_importance:
        lines += ["", f"| feature | {report.metric} drop |", "|---|---|",
                  *[f"| {_cell(f.feature)} | {f.importance:.4f} |"
                    for f in report.feature_importance[:IMPORTANCE_ROWS]]]
    return lines


def plot_lines(report: Report) -> list[str]:
    """Each plot embedded by its file name: report.md sits beside them in the run folder."""
    if not report.plots:
        return []
    lines = ["", "## Plots", ""]
    for plot in report.plots:
        title = plot.file.removesuffix(".png").replace("_", " ")
        lines += [f"![{title}]({plot.file})", "", f"*{plot.shows}.*", ""]
    return lines[:-1]


def markdown(report: Report) -> str:
    inferred = f" (inferred: {', '.join(report.inferred)})" if report.inferred else ""
    lines = [
        f"# pipesmith run {report.run_id}",
        "",
        f"**{report.status}** — {report.task_text}",
        "",
        *[f"> **warning:** {warning}" for warning in report.warnings],
        *([""] if report.warnings else []),
        f"- dataset: `{report.dataset}`, target `{report.target}`, {report.task_type}{inferred}",
        f"- data: {report.profile.summary(report.task_type)}",
        f"- {report.metric}, CV on the development part: **{_cv(report.cv_score)}** "
        f"(dummy baseline {_fmt(report.baseline_score)}), final: {report.final_candidate}"
        + (f" (refit estimator: `{report.final_estimator}`)" if report.final_estimator else ""),
        f"- {report.metric}, test part (refit on all development rows): "
        f"**{_fmt(report.test_score)}** (dummy baseline {_fmt(report.test_baseline_score)})"
        + ("" if report.refit is None or report.refit.status in ("ok", "skipped")
           else f" — refit {report.refit.status}: {report.refit.detail[:120]}"),
        *[f"- **plan: the offline planner's** — {note.removeprefix('offline plan: ')}"
          for note in report.plan.notes if note.startswith("offline plan:")],
        f"- repair rounds used: {report.rounds_used}; first draft succeeded: "
        f"{report.first_pass_success}; reliability score {report.reliability.score:.3f}",
        f"- time: {report.elapsed_s:.1f}s of {report.budget_s:.0f}s budget "
        f"({100 * report.elapsed_s / max(report.budget_s, 1e-9):.0f}% used), "
        f"{report.sandbox_s:.1f}s inside the sandbox",
        *[f"- {n}" for n in (report.rows_used.notes if report.rows_used else [])],
        *search_lines(report.search),
        *control_line(report.permutation_control),
        f"- best score over the run's sandbox time: {_curve_text(score_curve(report))}",
        *leaderboard_lines(report),
        *importance_lines(report),
        *contribution_lines(report),
        *segment_lines(report),
        *plot_lines(report),
        "",
        "## Attempts",
        "",
        "| id | parent | candidate | phase | repair | status | CV score | wall s | peak MB "
        "| diagnosis |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for a in report.attempts:
        diagnosis = (f"{a.diagnosis.taxonomy_class}.{a.diagnosis.subclass}: "
                     f"{a.diagnosis.summary[:80]}" if a.diagnosis else "")
        fault = f" (injected: {a.injected_fault})" if a.injected_fault else ""
        if a.adopted_trial is not None:
            fault += f" (CV adopted from search trial {a.adopted_trial})"
        elif a.adoption_refused:
            fault += f" (trial not adopted: {a.adoption_refused[:80]})"
        lines.append(f"| {a.id} | {a.parent or ''} | {a.candidate}{fault} | {a.phase} | "
                     f"{a.repair_action or ''} | {a.status} | {_fmt(a.score)} | {a.wall_s:.1f} | "
                     f"{a.peak_mem_mb:.0f} | {diagnosis.replace('|', '/')} |")
    e = report.ensemble
    lines += ["", "## Ensemble", "",
              f"{e.strategy}: members {', '.join(e.members) or '-'}, estimated "
              f"{_fmt(e.estimated_score)} (out-of-fold), CV score {_fmt(e.score)}, "
              f"{'kept' if e.kept else 'not kept'} — {e.reason}",
              *(["nested cross-validated score per strategy: "
                 + ", ".join(f"{k} {v:.4f}" for k, v in e.nested_scores.items())]
                if e.nested_scores else []),
              "", "## Time per node (s)", "",
              " · ".join(f"{k} {v:.2f}" for k, v in report.timings.items()),
              *markdown_lines(report.llm),
              "", "## Files", "",
              "`pipeline.py` retrains the final pipeline on all rows and saves it to "
              "`retrained.joblib` (`python pipeline.py --help`); `model.joblib` is the final "
              "pipeline refit on every development row (`pipesmith predict RUN_DIR --data "
              "NEW.csv` applies it, `joblib.load` reads it); `refit/` holds that job; "
              "`schema.json` lists the columns it takes; `attempts/` holds every attempt's "
              "code and logs" + ("; the `*.png` files are the plots above." if report.plots
                                 else "."), ""]
    return "\n".join(lines)


def family_scores(report: Report, state: RunState) -> dict[str, float]:
    """Best sign-adjusted gain over the baseline per model family, for the planner's memory."""
    sign = 1.0 if get_metric(report.metric).greater_is_better else -1.0
    gains: dict[str, float] = {}
    for attempt in report.attempts:
        candidate = state["candidates"][attempt.id]
        if not attempt.succeeded or candidate.spec is None or attempt.baseline_score is None:
            continue
        gain = sign * (attempt.score - attempt.baseline_score)
        gains[candidate.spec.family] = max(gain, gains.get(candidate.spec.family, gain))
    return gains


def family_params(report: Report, state: RunState) -> dict[str, dict]:
    """The parameters of each family's best successful candidate, for warm starts."""
    sign = 1.0 if get_metric(report.metric).greater_is_better else -1.0
    best: dict[str, tuple[float, dict]] = {}
    for attempt in report.attempts:
        spec = state["candidates"][attempt.id].spec
        if not attempt.succeeded or spec is None or attempt.score is None:
            continue
        if spec.family not in best or sign * attempt.score > best[spec.family][0]:
            best[spec.family] = (sign * attempt.score, dict(spec.params))
    return {family: params for family, (_, params) in best.items()}


def run_record(report: Report, state: RunState) -> RunRecord:
    profile = report.profile
    final = state["candidates"][report.final_attempt] if report.final_attempt else None
    final_attempt = next((a for a in report.attempts if a.id == report.final_attempt), None)
    return RunRecord(
        run_id=report.run_id, task_text=report.task_text, dataset=report.dataset,
        task_type=report.task_type, metric=report.metric,
        summary=profile.summary(report.task_type),
        meta_features=meta_features(profile),
        family_scores=family_scores(report, state),
        family_params=family_params(report, state),
        plan=[spec.model_dump() for spec in report.plan.candidates],
        final_code=final.code if final else None,
        final_family=final.spec.family if final and final.spec else None,
        score=report.score, baseline_score=report.baseline_score,
        metrics={"test_score": report.test_score,
                 "test_baseline_score": report.test_baseline_score,
                 "first_pass_success": report.first_pass_success,
                 "rounds_used": report.rounds_used, "reliability": report.reliability.score,
                 "fold_scores": final_attempt.fold_scores if final_attempt else [],
                 "warnings": final_attempt.warnings if final_attempt else []},
        outcome=report.status,
        resources={"elapsed_s": report.elapsed_s, "sandbox_s": report.sandbox_s,
                   "peak_mem_mb": max((a.peak_mem_mb for a in report.attempts), default=0.0)},
        versions=report.versions, topology=report.topology,
        executions=[
            {"family": state["candidates"][a.id].spec.family
             if state["candidates"][a.id].spec else a.candidate,
             "rows": profile.n_rows, "columns": profile.n_columns,
             "predicted_mem_mb": a.predicted_mem_mb, "measured_mem_mb": a.peak_mem_mb,
             "predicted_wall_s": a.predicted_wall_s, "measured_wall_s": a.wall_s}
            for a in report.attempts
            if a.predicted_mem_mb and a.status in ("ok", "poor") and a.phase != "ensemble"],
    )


def repair_records(report: Report, state: RunState) -> list[RepairRecord]:
    """One record per repair attempt: the failure it answered and whether it went away."""
    attempts = {a.id: a for a in report.attempts}
    records = []
    for child in report.attempts:
        parent = attempts.get(child.parent) if child.parent else None
        if child.phase != "repair" or parent is None or parent.diagnosis is None:
            continue
        before = state["candidates"][parent.id].code.splitlines(keepends=True)
        after = state["candidates"][child.id].code.splitlines(keepends=True)
        same_error = child.diagnosis is not None and \
            child.diagnosis.signature == parent.diagnosis.signature
        records.append(RepairRecord(
            run_id=report.run_id, attempt=child.id, signature=parent.diagnosis.signature,
            taxonomy=f"{parent.diagnosis.taxonomy_class}.{parent.diagnosis.subclass}",
            action=child.repair_action or "", fixed=child.succeeded or not same_error,
            succeeded=child.succeeded,
            diff="".join(difflib.unified_diff(before, after, f"{parent.id}/candidate.py",
                                              f"{child.id}/candidate.py")),
            versions=report.versions))
    return records
