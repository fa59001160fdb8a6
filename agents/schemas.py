"""The frozen models that cross agent boundaries.

Everything an agent hands to another agent (or to the graph state, which is
checkpointed) is one of these. What can be computed from them (best attempt,
repair depth, success counts) is derived by functions, never stored.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

TaskType = Literal["classification", "regression", "clustering"]
Phase = Literal["draft", "repair", "ensemble"]
ColumnKind = Literal["numeric", "categorical", "datetime", "id", "constant", "text"]
Severity = Literal["critical", "recoverable"]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RunInputs(Frozen):
    """What a run was asked to do, after inference; the narrow input of the graph."""

    run_id: str
    task_text: str
    dataset: str  # a bundled name or the data file's path
    data_path: str  # the development part inside the run directory (what agents profile)
    test_path: str = ""  # the referee's test part: read by project code only, after selection
    target: str | None
    task_type: TaskType
    metric: str
    inferred: list[str] = Field(default_factory=list)  # task_type/metric/target not given
    budget_s: float = 60.0
    seed: int = 0
    out_dir: str
    llm: str = "offline"
    max_candidates: int = 4
    max_repair_rounds: int = 3
    run_timeout_s: float = 120.0
    n_jobs: int = 1
    test_size: float = 0.2
    memory_mb: int = 4096
    disk_mb: int = 1024
    cv_folds: int = 5  # K, chosen by pipesmith.core.referee.choose_folds (1: a holdout fold)
    # cross-validate on a seeded stratified sample of this many development rows (None:
    # all), set by the first candidate when all rows would not fit the budget (graph/rows.py)
    cv_rows: int | None = None
    fault_rate: float = 0.0  # recorded so the report says when faults were injected
    smoke_rows: int = 300  # rows of the smoke run; 0 turns it off
    search_share: float = 0.6  # of the time left after the first valid model; 0: no search
    rows_dropped_missing_target: int = 0
    backend: Literal["sklearn", "torch", "tensorflow", "auto"] = "sklearn"  # model library
    llm_model: str | None = None  # LLM mode: the model, and the budgets routing checks
    max_tokens_total: int | None = None
    max_cost: float | None = None
    families: list[str] = Field(default_factory=list)  # plan only these (a person's edit)
    excluded_families: list[str] = Field(default_factory=list)  # never these ("no rf")
    dropped_columns: list[str] = Field(default_factory=list)  # removed at the person's request
    permutation_control: bool = True  # refit only a final that passes it (core/permutation.py)


class ColumnProfile(Frozen):
    name: str
    kind: ColumnKind
    dtype: str
    missing_share: float
    n_unique: int


class DataProfile(Frozen):
    n_rows: int
    n_columns: int
    columns: list[ColumnProfile]
    target: str | None
    n_classes: int | None = None
    minority_share: float | None = None
    target_mean: float | None = None
    target_std: float | None = None
    leak_suspects: list[str] = Field(default_factory=list)  # features that nearly equal y

    @property
    def table_columns(self) -> list[str]:
        """Every column of the table the harness loads: the features and the target."""
        return [c.name for c in self.columns] + ([self.target] if self.target else [])

    def names(self, kind: ColumnKind) -> list[str]:
        return [c.name for c in self.columns if c.kind == kind]

    @property
    def missing_share(self) -> float:
        if not self.columns:
            return 0.0
        return sum(c.missing_share for c in self.columns) / len(self.columns)

    def summary(self, task_type: str) -> str:
        """A one-line description used for retrieval and in reports."""
        parts = [
            f"{task_type} task",
            f"{self.n_rows} rows",
            f"{len(self.names('numeric'))} numeric",
            f"{len(self.names('categorical'))} categorical",
            f"missing {self.missing_share:.2f}",
        ]
        if self.n_classes is not None:
            parts.append(f"{self.n_classes} classes, minority {self.minority_share:.2f}")
        return "; ".join(parts)


class PastRun(Frozen):
    """A run retrieved from the knowledge base."""

    run_id: str
    summary: str
    task_type: TaskType
    family_scores: dict[str, float]  # improvement over the dummy baseline, per family
    distance: float
    dataset: str = ""
    task_text: str = ""
    meta_features: dict[str, Any] = Field(default_factory=dict)
    family_params: dict[str, dict[str, Any]] = Field(default_factory=dict)  # of each best
    final_family: str | None = None
    final_code: str | None = None
    score: float | None = None


class CodeExample(Frozen):
    """Code that worked on a similar past task, for a coder to learn from."""

    run_id: str
    dataset: str
    task_text: str
    family: str | None
    code: str
    gain: float | None  # the final score's improvement over its dummy baseline
    distance: float  # how far that dataset is from this one (meta-features)


class SearchTrial(Frozen):
    """A search winner's evidence: the trial that fitted it on every fold of the run's
    fold plan, so its cross-validation need not be computed again (agents/search/adopt.py).
    The predictions stay on disk (`folder`, one `fold{k}/` per fold, written by the
    supervisor from the checked replies); the referee scores them as a fold job's."""

    number: int
    score: float  # the search's score of the trial (the referee's fold mean)
    share: float  # of each fold's training rows the trial fitted
    params: dict[str, Any]  # the trial's hyperparameters, as the searchable module took them
    module: str  # the searchable module the trials ran (the coder binds `params` into it)
    fold_plan: str  # agents/search/adopt.fold_plan_key of the folds the trial ran on
    folder: str  # the trial's per-fold predictions and diagnostics
    fold_wall_s: list[float] = Field(default_factory=list)  # measured, per fold
    fold_cpu_s: list[float] = Field(default_factory=list)
    peak_mem_mb: float = 0.0
    worker_start_s: float = 0.0  # a fold worker's start, what a fresh fold job adds


class CandidateSpec(Frozen):
    """One planned candidate: a model family, its parameters and preprocessing."""

    name: str
    family: str
    params: dict[str, Any] = Field(default_factory=dict)
    scale: bool = False
    encoding: Literal["onehot", "ordinal"] = "ordinal"
    rationale: str = ""
    trial: SearchTrial | None = None  # a search winner: the trial that may be adopted


class Plan(Frozen):
    candidates: list[CandidateSpec]
    notes: list[str] = Field(default_factory=list)


class SearchPlan(Frozen):
    """What the search explores: the learners, in order, and per learner the range of each
    hyperparameter (agents/search/space.py's form); from the defaults or, in LLM mode, the
    model's proposal after agents/search/space_check.py dropped what the estimator rejects."""

    families: list[str]
    spaces: dict[str, dict[str, tuple]]
    features: list[str] = Field(default_factory=list)  # feature ideas, recorded
    dropped: list[str] = Field(default_factory=list)  # proposed ranges dropped, and why
    source: str = "defaults"


class Candidate(Frozen):
    """A piece of code to try: a module defining build_pipeline(task), or (`pipesmith
    repair`) a plain script the user brings, run as `python <its name>`."""

    id: str
    name: str
    phase: Phase
    code: str
    parent: str | None = None
    spec: CandidateSpec | None = None
    members: list[str] = Field(default_factory=list)  # attempt ids, for ensembles
    repair_action: str | None = None  # the action that produced this repair
    # What the repair could not carry over faithfully ("dropped keyword X: ..."): a repair
    # with notes makes the code run but may change what it does, so it is only partial.
    repair_notes: list[str] = Field(default_factory=list)
    injected_fault: str | None = None  # fault-injection operator, for measurement only
    # A plain script: the path of the user's file (its folder's files are copied next to each
    # run; it runs as `python <file name>` and succeeds when it exits 0). None: a module.
    script: str | None = None


class Issue(Frozen):
    """A problem the pre-validator found before anything ran."""

    taxonomy_class: str
    subclass: str
    message: str
    line: int | None = None
    advisory: bool = False  # reported, never blocking (e.g. the sandbox enforces it anyway)


class Diagnosis(Frozen):
    taxonomy_class: str
    subclass: str
    severity: Severity
    summary: str
    line: int | None = None
    excerpt: str = ""
    evidence: list[str] = Field(default_factory=list)
    repair_actions: list[str] = Field(default_factory=list)
    signature: str = ""  # normalised error signature, the key for past fixes
    explanation: str = ""  # the model's reading of the failure (LLM mode only)


class RepairRequest(Frozen):
    """Everything a repair is given: the reformulated context of a failure."""

    candidate: Candidate  # the failing code, its spec and lineage links
    diagnosis: Diagnosis  # with the localised window in `excerpt`
    history: list[Diagnosis] = Field(default_factory=list)  # earlier failures in the lineage
    tried: list[str] = Field(default_factory=list)  # "action@signature" already tried
    lineage_codes: list[str] = Field(default_factory=list)  # code already tried
    past_fixes: list[str] = Field(default_factory=list)  # actions that fixed this signature
    past_fix_diffs: list[str] = Field(default_factory=list)  # their diffs, same order
    columns: list[str] = Field(default_factory=list)
    leaky_columns: list[str] = Field(default_factory=list)


class Attempt(Frozen):
    """One candidate's journey: rejected before running, or run in the sandbox."""

    id: str
    parent: str | None
    candidate: str
    phase: Phase
    status: str  # "ok", "rejected" (pre-validation) or an ExecStatus
    issues: list[Issue] = Field(default_factory=list)
    diagnosis: Diagnosis | None = None
    score: float | None = None
    baseline_score: float | None = None
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_mem_mb: float = 0.0
    exit_code: int | None = None
    smoke: bool = False  # the failure was caught by the smoke run, not the full run
    smoke_s: float = 0.0  # what the smoke run cost
    predicted_mem_mb: float | None = None  # resource prediction before the run ...
    mem_bound_mb: float | None = None  # ... its 95% upper bounds ...
    predicted_wall_s: float | None = None
    wall_bound_s: float | None = None
    memory_limit_mb: int | None = None  # ... and the limits the run got from them
    timeout_s: float | None = None
    resource_adjustment: str | None = None  # e.g. shrink_model when the bound did not fit
    fold_scores: list[float] = Field(default_factory=list)  # per CV fold, scored outside
    cv_std: float | None = None  # spread of fold_scores; `score` is their mean
    fold_wall_s: float = 0.0  # the slowest fold job, for the refit's time reserve
    warnings: list[str] = Field(default_factory=list)
    repair_action: str | None = None
    repair_notes: list[str] = Field(default_factory=list)  # the candidate's, see Candidate
    injected_fault: str | None = None
    workdir: str = ""
    error_tail: str = ""  # the end of stderr; the whole log stays in the workdir
    script: bool = False  # a plain script's run: it succeeds on exit 0, a score or not
    # a search winner whose cross-validation is its trial's out-of-fold predictions, scored
    # by the referee (no fold job ran; wall_s and fold_wall_s are the trial's measured fits)
    adopted_trial: int | None = None
    adoption_refused: str | None = None  # why a winner's trial was not adopted (it ran)

    @property
    def succeeded(self) -> bool:
        return self.status == "ok" and (self.score is not None or self.script)


class EnsembleProposal(Frozen):
    """The strategy chosen by nested cross-validation over the members' out-of-fold
    predictions (agents/ensembler/select.py), and its held-out score."""

    strategy: Literal["single", "caruana", "stacking", "consensus"]
    members: list[str]  # attempt ids
    estimated_score: float  # the chosen strategy's nested (held-out) score
    weights: list[float] = Field(default_factory=list)  # per member, same order
    nested_scores: dict[str, float] = Field(default_factory=dict)  # every strategy's
    n_clusters: int | None = None  # consensus clustering only
    skipped: bool = False  # chosen, but its members' cost did not fit in the time left
    left_out: list[str] = Field(default_factory=list)  # members left out so that it fits
    # balanced metrics: label = argmax(proba * weight), per class (agents/ensembler/decision.py)
    class_weights: dict[str, float] | None = None
    # stacking: its level-2 model, learnt from every out-of-fold row (select.level2_params)
    level2: dict | None = None

    @property
    def builds(self) -> bool:
        """Whether the choice is a new module to run, not a member as it is."""
        return self.strategy != "single" or bool(self.class_weights)

    @property
    def weighted_members(self) -> list[str]:
        """The members with a share in it (weight above 0), in order."""
        return [m for m, w in zip(self.members, self.weights, strict=False) if w > 0]


class FeatureImportance(Frozen):
    """One feature's permutation importance on the test part: how much the referee's score
    drops (sign-adjusted: positive = the feature helps) when its values are shuffled."""

    feature: str
    importance: float


class SegmentError(Frozen):
    """The chosen pipeline's errors on one segment of the test part: the rows whose input
    `column` is `segment` (a category, or a quartile range of a number), scored by the
    referee from the refit's checked predictions and the labels it holds."""

    column: str  # an input column, or the target for its classes
    segment: str  # the category ("(missing)" for none), a quartile's range "(a, b]", a class
    kind: Literal["category", "quartile", "class"]  # class: the rows of one true class
    rows: int
    error: float  # the share of wrong labels (classification) or mean absolute error
    score: float | None = None  # the run's metric on these rows; None where it is undefined


class FeatureContribution(Frozen):
    """One input feature's SHAP contribution on a sample of the test part: the mean over
    rows (and classes) of |contribution| to the model's raw margin, one-hot parts summed."""

    feature: str
    mean_abs: float


class PermutationControl(Frozen):
    """The permutation control of one chosen candidate (pipesmith/core/permutation.py):
    its pipeline fit on shuffled training labels, scored against the true labels."""

    attempt: str
    candidate: str
    verdict: Literal["passed", "rejected", "inconclusive"]  # inconclusive: the fits failed
    score: float | None = None  # with shuffled training labels, mean over its folds
    baseline_score: float | None = None  # the dummy baseline on the same rows
    null_mean: float | None = None  # these predictions against shuffled true labels: ...
    null_sd: float | None = None  # ... the score of label-blind predictions and its spread
    z: float | None = None  # (score - null_mean) / null_sd, signed so that up is better
    margin: float | None = None  # the edge allowed over the better of baseline and null mean
    folds: int = 0
    n_val: int = 0
    seconds: float = 0.0
    backend: str = ""  # "warm" (forks of the fold workers) or the sandbox's fold jobs
    detail: str = ""


class RefitOutcome(Frozen):
    """The chosen pipeline refit on every development row and scored on the test part."""

    status: str  # an ExecStatus, or "skipped" when nothing was chosen
    test_score: float | None = None
    test_baseline_score: float | None = None
    n_dev: int | None = None  # the rows the refit fitted
    n_test: int | None = None
    sampled_from: int | None = None  # the development rows, when the time allowed a sample
    wall_s: float = 0.0
    detail: str = ""
    feature_importance: list[FeatureImportance] = Field(default_factory=list)  # largest first
    importance_note: str = ""  # what it covers (columns, rows, seed) or why there is none
    segments: list[SegmentError] = Field(default_factory=list)  # per input column, in order
    segments_note: str = ""  # what they cover or why there are none
    contributions: list[FeatureContribution] = Field(default_factory=list)  # largest first
    contributions_note: str = ""  # how they were computed, or why there are none

    estimator: str | None = None  # the refit job's final step's class, as it reported it

class HeldOutPredictions(Frozen):
    """The refit's test-part predictions as the referee checked them, beside the true labels
    it holds: what the report's plots are drawn from, outside the sandbox. Handed from the
    executor to the report node only; never in the (checkpointed) state."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    task_type: TaskType
    pred: np.ndarray
    y_true: np.ndarray | None = None  # classification and regression
    proba: np.ndarray | None = None  # columns in the order of `classes`
    classes: np.ndarray | None = None  # the sorted training labels
    features: np.ndarray | None = None  # clustering: the referee's view of the test rows


class EnsembleOutcome(Frozen):
    strategy: str  # "caruana", "stacking", "single", "consensus" or "none"
    members: list[str] = Field(default_factory=list)
    estimated_score: float | None = None
    score: float | None = None
    kept: bool = False
    reason: str = ""
    weights: list[float] = Field(default_factory=list)
    nested_scores: dict[str, float] = Field(default_factory=dict)
    class_weights: dict[str, float] | None = None
