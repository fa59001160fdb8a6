"""Thin node functions: read the state, call one agent, return an update.

A candidate is a build_pipeline module (the run's drafts, repairs and ensembles) or, in
`pipesmith repair`'s loop (builder.build_repair_graph), a plain script the user brought: the
same nodes check, run, diagnose and repair both.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import structlog
from langgraph.runtime import Runtime

from pipesmith.agents.diagnostician.agent import raw_feedback
from pipesmith.agents.executor import PARALLEL_FOLDS, fold_workers
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.prevalidator.agent import blocking
from pipesmith.agents.prevalidator.resources import (
    fold_job_wall_s,
    machine_pace,
    sized_from_code,
    wants_smoke,
)
from pipesmith.agents.prevalidator.resources import predict as predict_resources
from pipesmith.agents.repair import search as repair_search
from pipesmith.agents.repair import table as repairs
from pipesmith.agents.repair.reformulate import repair_request
from pipesmith.agents.repair.table import RepairContext
from pipesmith.agents.schemas import (
    Attempt,
    Candidate,
    Diagnosis,
    HeldOutPredictions,
    RefitOutcome,
)
from pipesmith.core import referee
from pipesmith.graph import budget, rows
from pipesmith.graph.context import Deps
from pipesmith.graph.state import RunState, elapsed_s, lineage, next_candidate_id
from pipesmith.graph.topologies import get_topology
from pipesmith.sandbox.base import ExecResult

log = structlog.get_logger(__name__)
MEMORY_LIMIT_FLOOR_MB = 512  # never limit a run below this, whatever the prediction
RESOURCE_GUARD = Diagnosis(taxonomy_class="resource", subclass="out_of_memory",
                           severity="recoverable", summary="predicted to exceed its limits")
ERROR_TAIL_CHARS = 20_000


def attempt_dir(state: RunState, candidate: Candidate) -> Path:
    return Path(state["inputs"].out_dir) / "attempts" / f"{candidate.id}_{candidate.name}"


def source_name(candidate: Candidate) -> str:
    """The file the candidate runs as: candidate.py, or a script's own name."""
    return Path(candidate.script).name if candidate.script else "candidate.py"


def save_code(state: RunState, candidate: Candidate) -> None:
    folder = attempt_dir(state, candidate)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / source_name(candidate)).write_text(candidate.code)


def _new(state: RunState, candidate: Candidate | None, **extra) -> dict:
    if candidate is None:
        return {"current": None, **extra}
    save_code(state, candidate)
    return {"current": candidate, "candidates": {candidate.id: candidate}, **extra}


def llm_spent(runtime: Runtime[Deps]) -> dict:
    """In LLM mode, the tokens, cost and events of this node's model calls, for the state."""
    session = runtime.context.llm
    return session.ledger.drain() if session is not None else {}


def profile(state: RunState, runtime: Runtime[Deps]) -> dict:
    inputs = state["inputs"]
    frame = pd.read_parquet(inputs.data_path)
    cores = runtime.context.executor.cores if runtime.context is not None else 1
    workers = fold_workers(inputs.n_jobs, inputs.cv_folds, cores)
    return {"profile": profile_table(frame, inputs.target, inputs.task_type),
            "pace": machine_pace(cores, workers), "fold_workers": workers}


def retrieve(state: RunState, runtime: Runtime[Deps]) -> dict:
    """Past successful runs on the nearest datasets (same task type, same scikit-learn
    minor version when there are any) and their final code as examples for the coder."""
    from pipesmith.core.versions import library_versions
    from pipesmith.knowledge_base.records import meta_features
    from pipesmith.knowledge_base.store import code_examples

    kb, inputs, profile = runtime.context.kb, state["inputs"], state["profile"]
    if kb is None:
        return {"past_runs": [], "examples": []}
    kb.open_in_background()  # needed again by `remember`; overlap its start-up with the runs
    query = f"{inputs.task_text}; {profile.summary(inputs.task_type)}"
    past = kb.warm_start(query, inputs.task_type, meta_features(profile),
                         versions=library_versions())
    return {"past_runs": past, "examples": code_examples(past)}


def plan(state: RunState, runtime: Runtime[Deps]) -> dict:
    made = runtime.context.planner.plan(state["inputs"], state["profile"],
                                      state.get("past_runs") or [])
    return {"plan": made, "next_index": 0, **llm_spent(runtime)}


def draft(state: RunState, runtime: Runtime[Deps]) -> dict:
    """Draft the next planned candidate; a draft whose code repeats an earlier draft's is
    dropped (said in the events) and the next planned one is drafted instead."""
    index = state.get("next_index", 0)
    planned = state["plan"].candidates
    coder, examples = runtime.context.coder, state.get("examples") or []
    seen = {_normal(c.code): c.id for c in (state.get("candidates") or {}).values()
            if c.phase == "draft"}
    dropped: list[dict] = []
    candidate = None
    while index < len(planned):
        candidate = coder.draft(next_candidate_id(state), planned[index], state["profile"],
                                state["inputs"], examples)
        index += 1
        if candidate is None or _normal(candidate.code) not in seen:
            break
        dropped.append({"node": "draft", "kind": "duplicate", "detail":
                        f"{candidate.name}: the same code as {seen[_normal(candidate.code)]}; "
                        "dropped"})
        log.info("draft.duplicate_dropped", candidate=candidate.name)
        candidate = None  # every remaining plan entry may repeat earlier code
    spent = llm_spent(runtime)
    if dropped:
        spent = {**spent, "llm_events": [*(spent.get("llm_events") or []), *dropped]}
    return _new(state, candidate, next_index=index, **spent)


def _normal(code: str) -> str:
    return "\n".join(line.rstrip() for line in code.strip().splitlines() if line.strip())


def attempt_of(state: RunState, candidate: Candidate, **outcome) -> Attempt:
    """The attempt of `candidate`: who it is (its lineage, the repair that made it, its
    folder) and `outcome`, what came of it (rejected, failed its smoke run, not run, ran)."""
    return Attempt(id=candidate.id, parent=candidate.parent, candidate=candidate.name,
                   phase=candidate.phase, repair_action=candidate.repair_action,
                   repair_notes=candidate.repair_notes, injected_fault=candidate.injected_fault,
                   workdir=str(attempt_dir(state, candidate)), **outcome)


def prevalidate(state: RunState, runtime: Runtime[Deps]) -> dict:
    """Static checks, then a smoke run on a sample when the data is large enough for the
    sample to be cheaper than the full run."""
    candidate, inputs, profile = state["current"], state["inputs"], state.get("profile")
    if candidate is None:  # nothing drafted (LLM budget spent); routing goes to the ensemble
        return {}
    checks = runtime.context.prevalidator
    issues = checks.check_script(candidate.code, profile.table_columns if profile else None,
                                 profile) if candidate.script is not None else \
        checks.check(candidate.code, profile.table_columns, profile)
    for advisory in [i for i in issues if i.advisory]:
        log.info("prevalidate.advisory", candidate=candidate.id, line=advisory.line,
                 message=advisory.message)
    failing = blocking(issues)
    if failing:
        return {"attempts": {candidate.id: attempt_of(state, candidate, status="rejected",
                                                      issues=failing)}}
    # a search winner's trial already ran this model on every fold: a sample teaches nothing
    searched = candidate.spec is not None and candidate.spec.trial is not None
    # nor, once the run's warm workers hold its folds, does a fresh job on a sample: a fold
    # fit is a fork that fails as fast, and the smoke's interpreter costs more than the fits
    # it guards (lending_club at 60 s, load 2.5: a 5.5 s smoke run for a logistic
    # regression whose folds then took 0.9 s)
    warm = runtime.context.executor.warm_workers(inputs) is not None
    if candidate.phase == "ensemble" or candidate.script is not None or searched or warm or \
            not wants_smoke(profile, inputs.smoke_rows):
        return {}
    result, _ = runtime.context.executor.smoke(
        candidate, inputs, attempt_dir(state, candidate) / "smoke")
    measured = {"wall_s": result.wall_s, "peak_mem_mb": result.peak_mem_mb}
    if result.ok:
        return {"smoke": {candidate.id: measured}}
    failed = attempt_of(state, candidate, status=result.status, smoke=True,
                        smoke_s=result.wall_s, wall_s=result.wall_s, cpu_s=result.cpu_s,
                        peak_mem_mb=result.peak_mem_mb, exit_code=result.exit_code,
                        error_tail=result.stderr[-ERROR_TAIL_CHARS:])
    return {"attempts": {candidate.id: failed}, "smoke": {candidate.id: measured}}


def execute(state: RunState, runtime: Runtime[Deps]) -> dict:
    """Predict the run's resources, size its limits from the bound (shrinking the model
    first when the bound would not fit), run it, and judge what came back. A plain script
    runs as it is: success is its exit 0."""
    if state["current"].script is not None:
        return {"attempts": {state["current"].id: run_script(state, runtime)}}
    candidate, inputs, profile = state["current"], state["inputs"], state["profile"]
    remaining = budget.run_time_left(state)
    kb = runtime.context.kb
    smoke = (state.get("smoke") or {}).get(candidate.id)
    measured = smoke or trial_measure(candidate, profile)  # what the prediction scales from
    update: dict = {}
    if not any(a.succeeded for a in (state.get("attempts") or {}).values()):
        folds = first_folds(candidate, inputs, profile, measured, remaining,
                            runtime.context.executor.cores)
        if folds < inputs.cv_folds:  # no out-of-fold predictions exist yet to disagree
            log.info("execute.fewer_folds", folds=folds, planned=inputs.cv_folds,
                     time_left_s=round(remaining, 1))
            inputs = inputs.model_copy(update={"cv_folds": folds})
            update["inputs"] = inputs
        sampled = first_rows(candidate, inputs, profile, measured,
                             remaining - budget.reserve_s(state), runtime.context.executor.cores)
        if sampled is not None:  # every candidate and trial of the run uses this sample
            log.info("execute.sampled_rows", cv_rows=sampled, of=profile.n_rows,
                     time_left_s=round(remaining, 1),
                     note=rows.note("cross-validated", sampled, profile.n_rows))
            inputs = inputs.model_copy(update={"cv_rows": sampled})
            update["inputs"] = inputs
    refused, adopted = None, None
    if candidate.phase == "draft" and candidate.spec is not None and \
            candidate.spec.trial is not None:  # a search winner's draft (a repair is new code)
        adopted = runtime.context.executor.adopt(candidate, inputs,
                                                 attempt_dir(state, candidate))
    elif candidate.phase == "ensemble" and candidate.repair_action is None:
        adopted = vote(state, runtime, candidate, inputs)
    if adopted is not None and not isinstance(adopted, str):
        return {**update, "attempts": {candidate.id: adopted_attempt(
            state, runtime, candidate, inputs, *adopted)}}
    if adopted is not None:
        refused = adopted
        log.info("execute.adoption_refused", candidate=candidate.id, reason=refused)
        if candidate.phase == "ensemble" and state["proposal"].strategy == "stacking":
            # its level-2 model was learnt from every row's stored predictions, so its fold
            # jobs would score rows that model saw: cross-fitted, or not scored at all
            return {**update, "attempts": {candidate.id: attempt_of(
                state, candidate, status="error", error_tail=f"not run: {refused}")}}
    prediction = predict_resources(profile, sized_from_code(candidate.spec, candidate.code),
                                   inputs.cv_folds, measured,
                                   inputs.smoke_rows, kb.executions() if kb else [])
    adjustment = None
    if prediction.mem_bound_mb > inputs.memory_mb or prediction.wall_bound_s > min(
            remaining, inputs.run_timeout_s):
        shrunk = repairs.apply("shrink_model", candidate.code, RESOURCE_GUARD, RepairContext())
        if shrunk is not None:
            candidate, adjustment = candidate.model_copy(update={"code": shrunk}), "shrink_model"
            save_code(state, candidate)
    memory_mb = int(min(inputs.memory_mb, max(MEMORY_LIMIT_FLOOR_MB, prediction.mem_bound_mb)))
    timeout = budget.run_timeout(state, prediction.wall_bound_s)
    workdir = attempt_dir(state, candidate)
    result, metrics = runtime.context.executor.run(candidate, inputs, workdir, timeout,
                                                   memory_mb=memory_mb)
    metrics = metrics or {}
    judged = None
    if result.ok:  # it ran; is the result worth trusting?
        judged = runtime.context.diagnostician.judge_quality(
            metrics, state["profile"], inputs.metric)
    attempt = attempt_of(
        state, candidate, status="poor" if judged else result.status,
        diagnosis=judged, score=metrics.get("score"), cv_std=metrics.get("cv_std"),
        fold_scores=metrics.get("fold_scores", []), warnings=metrics.get("warnings", []),
        fold_wall_s=metrics.get("fold_wall_s", 0.0),
        smoke_s=(smoke or {}).get("wall_s", 0.0),
        predicted_mem_mb=prediction.peak_mem_mb, mem_bound_mb=prediction.mem_bound_mb,
        predicted_wall_s=prediction.wall_s, wall_bound_s=prediction.wall_bound_s,
        memory_limit_mb=memory_mb, timeout_s=round(timeout, 1),
        resource_adjustment=adjustment, adoption_refused=refused,
        baseline_score=metrics.get("baseline_score"), wall_s=result.wall_s, cpu_s=result.cpu_s,
        peak_mem_mb=result.peak_mem_mb, exit_code=result.exit_code,
        error_tail=(result.stderr + ("\n" + result.detail if result.detail else ""))[
            -ERROR_TAIL_CHARS:],
    )
    update["attempts"] = {candidate.id: attempt}
    if adjustment:  # the code that ran is the code the run keeps
        update |= {"current": candidate, "candidates": {candidate.id: candidate}}
    return update


def vote(state: RunState, runtime: Runtime[Deps], candidate: Candidate,
         inputs) -> tuple[ExecResult, dict] | str | None:
    """An ensemble's cross-validation from its members' out-of-fold predictions (no fit;
    Executor.combine), or why not; None for an ensemble that must run (the consensus of
    clusterings fits something new)."""
    from pipesmith.agents.ensembler.compose import VOTES, kept_members

    proposal = state.get("proposal")
    if proposal is None or proposal.strategy not in VOTES or inputs.task_type == "clustering":
        return None
    heaviest = max(range(len(proposal.weights)), key=lambda i: proposal.weights[i])
    kept = kept_members(proposal.members, proposal.weights, proposal.strategy, heaviest)
    attempts = state.get("attempts") or {}
    return runtime.context.executor.combine(
        candidate, [attempts[m] for m, _ in kept], [w for _, w in kept], inputs,
        attempt_dir(state, candidate), class_weights=proposal.class_weights,
        strategy=proposal.strategy)


def adopted_attempt(state: RunState, runtime: Runtime[Deps], candidate: Candidate, inputs,
                    result: ExecResult, metrics: dict) -> Attempt:
    """A search winner whose cross-validation is its trial's, or a vote whose is its
    members' (no fold job ran): judged on quality like any run; its times are the measured
    fits it stands for."""
    judged = runtime.context.diagnostician.judge_quality(metrics, state["profile"],
                                                         inputs.metric)
    smoke = (state.get("smoke") or {}).get(candidate.id) or {}
    return attempt_of(
        state, candidate, status="poor" if judged else "ok", diagnosis=judged,
        score=metrics["score"], cv_std=metrics["cv_std"], fold_scores=metrics["fold_scores"],
        warnings=metrics.get("warnings", []), fold_wall_s=metrics["fold_wall_s"],
        baseline_score=metrics["baseline_score"], smoke_s=smoke.get("wall_s", 0.0),
        wall_s=result.wall_s, cpu_s=result.cpu_s, peak_mem_mb=result.peak_mem_mb,
        exit_code=0, adopted_trial=candidate.spec.trial.number
        if candidate.spec is not None and candidate.spec.trial is not None else None)


def trial_measure(candidate: Candidate, profile) -> dict | None:
    """A search winner's trial as the measurement a smoke run would give: one fold job's
    seconds (its slowest fold and a fresh job's start) and peak memory on the rows it fitted."""
    trial = candidate.spec.trial if candidate.spec is not None else None
    if trial is None or not trial.fold_wall_s:
        return None
    folds = len(trial.fold_wall_s)
    kept = (folds - 1) / folds if folds > 1 else 1 - referee.HOLDOUT_SHARE
    rows = profile.n_rows * kept
    return {"wall_s": max(trial.fold_wall_s) + trial.worker_start_s,
            "peak_mem_mb": trial.peak_mem_mb, "rows": max(1, int(rows * trial.share))}


def first_folds(candidate: Candidate, inputs, profile, smoke: dict | None, time_left_s: float,
                cores: int) -> int:
    """K for the run, fixed by its first successful candidate: the planned K, or fewer when
    that candidate's predicted folds and refit would not fit in the time left (a slow task's
    5 folds ran 55 s of a 60 s budget and its refit 12 s more)."""
    spec = sized_from_code(candidate.spec, candidate.code)

    def fold_wall(folds: int) -> float:
        rows = profile.n_rows * (folds - 1) // folds
        return fold_job_wall_s(profile, spec, rows, smoke, inputs.smoke_rows)

    refit_s = fold_job_wall_s(profile, spec, profile.n_rows, smoke, inputs.smoke_rows)
    workers = fold_workers(inputs.n_jobs, inputs.cv_folds, cores)
    return referee.folds_within(inputs.cv_folds, time_left_s, fold_wall,
                                refit_s + budget.REPORT_S, workers)


def first_rows(candidate: Candidate, inputs, profile, smoke: dict | None, time_s: float,
               cores: int) -> int | None:
    """The run's cross-validation sample, fixed by its first candidate: None (every
    development row) unless that candidate's predicted folds and refit on all rows would
    not fit in `time_s` (graph/rows.py). Clustering fits every row in one job."""
    if inputs.task_type == "clustering":
        return None
    spec = sized_from_code(candidate.spec, candidate.code)

    def job_s(train: int) -> float:
        return fold_job_wall_s(profile, spec, train, smoke, inputs.smoke_rows)

    workers = fold_workers(inputs.n_jobs, inputs.cv_folds, cores)
    return rows.cv_rows(profile.n_rows, time_s, job_s, job_s, inputs.cv_folds, workers)


def run_script(state: RunState, runtime: Runtime[Deps]) -> Attempt:
    candidate, inputs = state["current"], state["inputs"]
    timeout = budget.run_timeout(state)
    workdir = attempt_dir(state, candidate)
    result = runtime.context.executor.run_script(candidate, workdir, timeout, inputs.memory_mb,
                                                 inputs.disk_mb)
    return attempt_of(
        state, candidate, status=result.status, script=True,
        memory_limit_mb=inputs.memory_mb, timeout_s=round(timeout, 1), wall_s=result.wall_s,
        cpu_s=result.cpu_s, peak_mem_mb=result.peak_mem_mb, exit_code=result.exit_code,
        error_tail=(result.stderr + ("\n" + result.detail if result.detail else ""))[
            -ERROR_TAIL_CHARS:])


def diagnose(state: RunState, runtime: Runtime[Deps]) -> dict:
    candidate = state["current"]
    attempt = state["attempts"][candidate.id]
    doctor = runtime.context.diagnostician
    if attempt.diagnosis is not None:  # judged on quality right after the run
        return {}
    if attempt.status == "rejected":
        diagnosis = doctor.diagnose_issues(attempt.issues, candidate.code)
    else:
        result = ExecResult(status=attempt.status, exit_code=attempt.exit_code,
                            wall_s=attempt.wall_s, stderr=attempt.error_tail)
        diagnosis = doctor.diagnose_result(result, candidate.code,
                                           source_name=source_name(candidate))
    updated = attempt.model_copy(update={"diagnosis": diagnosis})
    return {"attempts": {candidate.id: updated}, **llm_spent(runtime)}


def repair(state: RunState, runtime: Runtime[Deps]) -> dict:
    """Reformulate the failure with its context (or, with raw feedback, hand over the
    traceback as it is), then ask the coder for a repair. A module sees the data's features,
    a plain script the whole table (target included); a script brought without data, none."""
    failed, attempts, profile = state["current"], state["attempts"], state.get("profile")
    topology = get_topology(runtime.context.topology)
    update: dict = {}
    diagnosis = attempts[failed.id].diagnosis
    if topology.feedback == "raw":
        diagnosis = raw_feedback(attempts[failed.id])
        if attempts[failed.id].diagnosis is None:  # keep a quality judgement from the run
            update["attempts"] = {failed.id: attempts[failed.id].model_copy(
                update={"diagnosis": diagnosis})}
            attempts = {**attempts, **update["attempts"]}
    chain = lineage(state, failed.id)
    columns = [] if profile is None else profile.table_columns if failed.script is not None \
        else [c.name for c in profile.columns]
    request = repair_request(
        chain, {c.id: attempts[c.id].diagnosis for c in chain}, diagnosis,
        columns=columns, leaky_columns=profile.leak_suspects if profile else [],
        kb=runtime.context.kb, with_context=topology.reformulate)
    inputs = state["inputs"] if profile is not None else None
    coder = runtime.context.coder
    if failed.script is not None:
        # a script is cheap to run: several edits are tried side by side (agents/repair/search)
        options = [o.model_copy(update={"script": failed.script}) for o in
                   coder.repair_options(next_candidate_id(state), request, profile, inputs,
                                        limit=repair_search.WIDTH)]
        repaired = repair_search.choose(options, lambda o: _trial(state, runtime, o).ok,
                                        workers=runtime.context.executor.cores)
    else:
        repaired = coder.repair(next_candidate_id(state), request, profile, inputs)
        if repaired is not None and failed.script is not None:  # a script's repair stays one
            repaired = repaired.model_copy(update={"script": failed.script})
    return _new(state, repaired, **update, **llm_spent(runtime))


def _trial(state: RunState, runtime: Runtime[Deps], option: Candidate):
    """One edit of the repair search: an ordinary sandbox run of the edited script, in a
    workdir of its own beside the attempts (attempts/ holds what the loop ran)."""
    workdir = Path(state["inputs"].out_dir) / "repair_search" / \
        f"{option.id}_{option.repair_action}"
    return runtime.context.executor.run_script(option, workdir, budget.run_timeout(state),
                                               state["inputs"].memory_mb,
                                               state["inputs"].disk_mb)


def stop_repair(state: RunState, runtime: Runtime[Deps]) -> dict:
    """The end of `pipesmith repair`'s loop: why it stopped, in words."""
    from pipesmith.graph.routing import why_stopped

    return {"stop_reason": why_stopped(state)}


def search(state: RunState, runtime: Runtime[Deps]) -> dict:
    """Optuna search after the portfolio: its winners join the plan as candidates, to be
    drafted, checked, scored, repaired and ensembled like any other; a winner whose trial
    fitted every fold of the run's plan is not fitted again (`execute` adopts its trial's
    predictions, agents/search/adopt.py)."""
    import time

    from pipesmith.agents.ensembler.agent import SEARCHED
    from pipesmith.agents.families.registry import get_family
    from pipesmith.agents.schemas import CandidateSpec, Plan
    from pipesmith.agents.search.runner import WINNERS, run_search, search_families

    inputs, profile, plan_ = state["inputs"], state["profile"], state["plan"]
    if inputs.task_type == "clustering":  # no learner to tune: the same ones at more k
        from pipesmith.agents.planner.agent import more_clusterings

        extra = more_clusterings(plan_, inputs, profile)
        return {"search": {"trials": 0, "clusterings": len(extra)}, "plan": Plan(
            candidates=[*plan_.candidates, *extra],
            notes=[*plan_.notes, f"search: {len(extra)} more clusterings, drafted while "
                                 "the time lasts"])}
    done = state.get("next_index", 0)
    warm = runtime.context.executor.warm_workers(inputs)  # the trials run on them
    ensembles = get_topology(runtime.context.topology).ensemble
    allowance = budget.search_allowance(state, WINNERS, workers_running=warm is not None,
                                        ensemble=ensembles)
    if allowance.skipped:  # the planned candidates use the time instead; after them, routing
        # may send the run here once more (routing.search_again) when the time allows
        again = {"attempts": len(state.get("attempts") or {})} if inputs.search_share > 0 \
            else {}
        return {"search": {"skipped": allowance.skipped, **again}}
    seconds, n_winners = allowance.seconds, allowance.n_winners
    # the learners and their spaces: the defaults offline; in LLM mode, the model's
    # proposal, checked against the installed estimators
    deadline = time.monotonic() + seconds  # the model's proposal is part of the search
    # the time after it is the ensemble's (budget.kept_for_ensemble_s)
    took_the_rest = warm is not None and budget.WARM_SEARCH_TAKES_THE_REST and ensembles
    workers = fold_workers(inputs.n_jobs, PARALLEL_FOLDS, runtime.context.executor.cores)

    def end_for(best) -> float:  # the time after the search grows with its winners' cost
        joined = [a for a in (budget.winner_attempt(r, workers) for r in best) if a]
        return deadline - budget.winners_growth_s(state, joined)

    plan_families = [c.family for c in plan_.candidates]
    defaults = search_families(plan_families, inputs.task_type, profile.n_rows)
    search_plan = runtime.context.planner.search_plan(inputs, profile, defaults)
    winners, summary = run_search(
        sandbox=runtime.context.executor.sandbox, inputs=inputs, profile=profile,
        plan_families=plan_families, plan=search_plan,
        past_runs=state.get("past_runs") or [], coder=runtime.context.coder,
        prevalidator=runtime.context.prevalidator,
        deadline=deadline,
        folder=Path(inputs.out_dir) / "search", n_winners=n_winners,
        warm=get_topology(runtime.context.topology).warm_start,
        portfolio=[(c.family, c.params) for c in plan_.candidates[done:]],
        workers=workers, pool=warm.pool if warm else None,
        folds=warm.files if warm else None, end_for=end_for if took_the_rest else None)
    specs = []
    for result in winners:
        family = get_family(inputs.task_type, result.family)
        specs.append(CandidateSpec(
            name=f"{result.family}{SEARCHED}", family=result.family,
            params={**family.params, **result.params}, scale=family.scale,
            encoding=family.encoding, trial=result.evidence,  # adopted when it is honest
            rationale=f"search trial {result.number}: cross-validated {result.score:.4f}"))
    # The winners first; then the planned candidates not drafted yet whose learner did not
    # win (they were the search's first trials too), drafted while time is left.
    rest = [c for c in plan_.candidates[done:] if c.family not in {s.family for s in specs}]
    notes = [*plan_.notes, f"search: {summary['trials']} trials, {len(specs)} winners"]
    return {"search": {**summary, "took_the_rest": took_the_rest}, **llm_spent(runtime),
            "plan": Plan(candidates=[*plan_.candidates[:done], *specs, *rest], notes=notes)}


def ensemble(state: RunState, runtime: Runtime[Deps]) -> dict:
    attempts = list((state.get("attempts") or {}).values())
    proposal = runtime.context.ensembler.propose(attempts, state["inputs"])
    if proposal is None or not proposal.builds:  # a member as it is: nothing to score
        return {"proposal": proposal, "current": None}
    # Anytime: run the ensemble only when what its members cost fits in the time left
    if not budget.ensemble_fits(state, proposal):  # a smaller ensemble, or none
        smaller = runtime.context.ensembler.fitting_vote(
            attempts, state["inputs"], proposal,
            lambda p: budget.ensemble_fits(state, p)) or \
            runtime.context.ensembler.weighted_single(attempts, state["inputs"], proposal)
        if smaller is None:
            return {"proposal": proposal.model_copy(update={"skipped": True}),
                    "current": None}
        proposal = smaller
    # the members' code as it ran (a resource shrink updates `candidates`)
    members = [state["candidates"][m] for m in proposal.members]
    candidate = runtime.context.coder.ensemble(
        next_candidate_id(state), members, state["profile"], state["inputs"],
        strategy=proposal.strategy, weights=proposal.weights,
        n_clusters=proposal.n_clusters or 2, class_weights=proposal.class_weights,
        level2=proposal.level2)
    return _new(state, candidate, proposal=proposal)


def report(state: RunState, runtime: Runtime[Deps]) -> dict:
    """Decide the ensemble on out-of-fold predictions, hold the chosen pipeline to the
    permutation control (a final that fails it is rejected and the next best chosen), refit
    it on the whole development part and score it on the test part (the first time any
    test row is used), then write the report."""
    from pipesmith.core.plots import preload
    from pipesmith.core.report import choose_final, write_report

    started = time.perf_counter()
    preload()  # matplotlib's import overlaps the refit job instead of following it
    attempts = list((state.get("attempts") or {}).values())
    proposal = state.get("proposal")
    ensemble_attempt = next((a for a in attempts if a.phase == "ensemble"), None)
    outcome = runtime.context.ensembler.decide(
        proposal, ensemble_attempt, attempts, state["inputs"].metric)
    final = choose_final(attempts, outcome, state["inputs"].metric)
    final, rejected, outcome, controls = controlled(state, runtime, final, attempts, outcome)
    refitted, held_out = refit(state, runtime, final, time.perf_counter() - started)
    if refitted.status != "ok" and final is not None and final.phase == "ensemble":
        # a vote is scored from its members' predictions, so its composed module first
        # runs here: should it fail, the best single candidate is refitted instead
        log.warning("refit.ensemble_failed", status=refitted.status,
                    detail=refitted.detail[:200])
        outcome = outcome.model_copy(update={
            "kept": False, "reason": f"its refit failed ({refitted.status}: "
                                     f"{refitted.detail[:120]}); the best single candidate "
                                     "was refitted instead"})
        final = choose_final([rejected.get(a.id, a) for a in attempts], outcome,
                             state["inputs"].metric)
        refitted, held_out = refit(state, runtime, final, time.perf_counter() - started)
    session = runtime.context.llm
    path = write_report({**state, "attempts": {**(state.get("attempts") or {}), **rejected},
                         "ensemble": outcome, "refit": refitted,
                         "permutation_controls": controls},
                        runtime.context.topology,
                        llm=session.describe() if session is not None else None,
                        held_out=held_out)
    return {"attempts": rejected, "ensemble": outcome, "refit": refitted,
            "permutation_controls": controls, "report_path": str(path),
            "outcome": outcome_of(path)}


def controlled(state: RunState, runtime: Runtime[Deps], final: Attempt | None,
               attempts: list[Attempt], outcome):
    """The final candidate once the permutation control has had its say: a final whose
    predictions still beat the dummy with shuffled training labels is rejected (a contract
    violation, pipesmith/core/permutation.py) and the next best is chosen and controlled,
    until one passes or none is left. Returns (final, rejected attempts by id, the
    ensemble outcome, the controls run in order)."""
    from pipesmith.core.report import choose_final

    inputs = state["inputs"]
    rejected: dict[str, Attempt] = {}
    controls = []
    if not inputs.permutation_control or inputs.task_type == "clustering":
        return final, rejected, outcome, controls
    while final is not None and not final.script:
        control = permutation_control(state, runtime, final)
        controls.append(control)
        if control.verdict != "rejected":
            break
        log.warning("permutation_control.rejected", attempt=final.id, score=control.score,
                    baseline=control.baseline_score, z=control.z)
        rejected[final.id] = reject(final, control)
        if final.phase == "ensemble":
            outcome = outcome.model_copy(update={
                "kept": False, "reason": "rejected by the permutation control"})
        attempts = [rejected.get(a.id, a) for a in attempts]
        final = choose_final(attempts, outcome, inputs.metric)
    return final, rejected, outcome, controls


def permutation_control(state: RunState, runtime: Runtime[Deps], final: Attempt):
    """One candidate's control: its fits on shuffled labels and the referee's verdict."""
    import shutil
    import time

    from pipesmith.agents.schemas import PermutationControl
    from pipesmith.core import permutation

    inputs = state["inputs"]
    candidate = state["candidates"][final.id]
    workdir = attempt_dir(state, candidate) / "control"
    shutil.rmtree(workdir, ignore_errors=True)  # a resumed run controls afresh
    timeout = budget.control_timeout_s(state, final)
    started = time.perf_counter()
    result, measured = runtime.context.executor.permuted(
        candidate, inputs, workdir, timeout, memory_mb=final.memory_limit_mb)
    named = dict(attempt=final.id, candidate=final.candidate, backend=result.backend,
                 seconds=round(time.perf_counter() - started, 3))
    if measured is None:  # kept, with a warning: a crash says nothing about labels
        return PermutationControl(verdict="inconclusive", **named, detail=(
            f"{result.status}: " + (result.detail or result.stderr[-300:]).strip())[:500])
    verdict, margin, z = permutation.judge(inputs.metric, measured["score"],
                                        measured["baseline_score"], measured["null_mean"],
                                        measured["null_sd"], final.score, final.baseline_score)
    detail = permutation.reason(inputs.metric, measured["score"], measured["baseline_score"],
                                z) if verdict == "rejected" else ""
    return PermutationControl(verdict=verdict, margin=margin, z=round(z, 3), detail=detail,
                              **named,
                              **{k: measured[k] for k in ("score", "baseline_score",
                                                          "null_mean", "null_sd", "folds",
                                                          "n_val")})


def reject(final: Attempt, control) -> Attempt:
    """The attempt as a failed candidate: a contract violation of its predictions."""
    from pipesmith.agents.executor import CONTRACT_EXIT

    diagnosis = Diagnosis(
        taxonomy_class="contract", subclass="invalid_predictions", severity="recoverable",
        summary="its predictions track the true labels of rows it was not given "
                "(the permutation control)", excerpt=control.detail[:500])
    return final.model_copy(update={
        "status": "error", "exit_code": CONTRACT_EXIT, "diagnosis": diagnosis,
        "error_tail": (final.error_tail + "\npipesmith.harness.ContractError: "
                       + control.detail)[-ERROR_TAIL_CHARS:]})


def outcome_of(report_path: Path) -> dict:
    """The run's outcome for the final state (what LangGraph server callers read): the CV
    score on the development part and the refit pipeline's score on the test part."""
    from pipesmith.core.report import load_report

    r = load_report(report_path)
    return {"status": r.status, "metric": r.metric, "score": r.score,
            "baseline_score": r.baseline_score, "test_score": r.test_score,
            "test_baseline_score": r.test_baseline_score,
            "final_candidate": r.final_candidate, "final_estimator": r.final_estimator,
            "report_path": str(report_path),
            "out_dir": r.out_dir}


def refit(state: RunState, runtime: Runtime[Deps], final: Attempt | None, spent_s: float = 0.0
          ) -> tuple[RefitOutcome, HeldOutPredictions | None]:
    """The chosen pipeline fit on every development row in the sandbox (or on as many as
    the budget still allows: `spent_s`, the report node's seconds so far); its test-part
    predictions scored outside, and returned checked (for the plots; never put in the
    state). The model lands in <run>/refit/model.joblib."""
    import shutil

    inputs = state["inputs"]
    if final is None:
        return RefitOutcome(status="skipped", detail="no candidate succeeded"), None
    if not inputs.test_path:
        return RefitOutcome(status="skipped", detail="the run has no test part"), None
    workdir = Path(inputs.out_dir) / "refit"
    shutil.rmtree(workdir, ignore_errors=True)  # a resumed run refits from scratch
    # The run's one model: it gets the full per-run limit, not a bound from the folds (a
    # fold job that took 9 s on a loaded machine had its refit time out at 30 s).
    timeout = inputs.run_timeout_s
    sampled = refit_sample(state, final, spent_s)
    if sampled is not None:
        log.info("refit.sampled_rows", refit_rows=sampled, of=state["profile"].n_rows,
                 note=rows.note("refit", sampled, state["profile"].n_rows))
    result, scores = runtime.context.executor.refit(
        state["candidates"][final.id], inputs, workdir, timeout, rows=sampled,
        explain_s=budget.explain_s(state, final, spent_s))
    if scores is None:
        log.warning("refit.failed", status=result.status, detail=result.detail)
        return RefitOutcome(status=result.status if not result.ok else "error",
                            wall_s=result.wall_s,
                            detail=(result.detail or result.stderr[-500:]).strip()), None
    held_out = scores.pop("held_out", None)
    return RefitOutcome(status="ok", wall_s=result.wall_s, **scores), held_out


def refit_sample(state: RunState, final: Attempt, spent_s: float) -> int | None:
    """Rows of the refit when a sample was cross-validated and all rows would not fit
    in the time left (the report after it kept back), sized from the final's own fold
    jobs (graph/rows.py); None: every development row."""
    inputs, profile = state["inputs"], state.get("profile")
    if not inputs.cv_rows or profile is None or not final.fold_wall_s:
        return None
    test_rows = profile.n_rows * inputs.test_size / max(1 - inputs.test_size, 1e-9)
    left = inputs.budget_s - elapsed_s(state) - spent_s - (
        budget.REPORT_S + rows.report_s(test_rows)) * (state.get("pace") or 1.0)
    return rows.refit_rows(profile.n_rows, left, final.fold_wall_s,
                           rows.train_rows(inputs.cv_rows, inputs.cv_folds),
                           rows.fixed_s(final), floor_rows=inputs.cv_rows)


def remember(state: RunState, runtime: Runtime[Deps]) -> dict:
    kb = runtime.context.kb
    recorded = False
    if kb is not None:
        try:
            record_run(kb, state)
            recorded = True
        except OSError as exc:  # the run stands; the supervisor says it was not recorded
            log.info("kb.write_failed", error=str(exc)[:200])
    return {"outcome": {**(state.get("outcome") or {}), "remembered": recorded}}


def record_run(kb, state: RunState) -> None:
    """The run's repairs, then the run itself; idempotent (records have stable ids), so a
    resumed or retried write never duplicates."""
    from pipesmith.core.report import load_report, repair_records, run_record

    report = load_report(Path(state["report_path"]))
    kb.add_repairs(repair_records(report, state))
    kb.add_run(run_record(report, state))
