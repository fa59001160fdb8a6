"""The two kinds of record the knowledge base keeps, and the dataset meta-features.

New fields carry defaults so a log written by an older pipesmith still reads.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pipesmith.agents.schemas import DataProfile, TaskType


def _now() -> str:
    return datetime.now(UTC).isoformat()


class RunRecord(BaseModel):
    """One run: what was asked, what the data looked like, what was tried and what it gave.

    Failed runs are recorded too (outcome "failed", `failed` True): the resource predictor
    learns from their executions and the statistics count them.
    """

    model_config = ConfigDict(frozen=True)

    kind: str = "run"
    run_id: str
    created_at: str = Field(default_factory=_now)
    task_text: str
    dataset: str
    task_type: TaskType
    metric: str
    summary: str  # the data profile in one line; what gets embedded
    meta_features: dict[str, Any]  # see meta_features(): rows, columns, kinds, balance, target
    family_scores: dict[str, float]  # per family: best score minus baseline (sign-adjusted)
    family_params: dict[str, dict[str, Any]] = Field(default_factory=dict)  # of that best
    plan: list[dict[str, Any]] = Field(default_factory=list)  # the planned candidate specs
    final_code: str | None
    final_family: str | None = None
    score: float | None
    baseline_score: float | None
    metrics: dict[str, Any] = Field(default_factory=dict)  # final fold scores, warnings, ...
    outcome: str  # "succeeded" or "failed"
    resources: dict[str, float]
    versions: dict[str, str]
    topology: str
    executions: list[dict[str, Any]] = Field(default_factory=list)  # predicted vs measured

    @property
    def failed(self) -> bool:
        return self.outcome != "succeeded"


class RepairRecord(BaseModel):
    """One repair: the error it answered, the action taken, and whether it worked."""

    model_config = ConfigDict(frozen=True)

    kind: str = "repair"
    run_id: str
    attempt: str = ""  # the repaired attempt's id; with run_id, the record's stable id
    created_at: str = Field(default_factory=_now)
    signature: str  # the normalised error signature of the failure repaired
    taxonomy: str  # class.subclass
    action: str
    fixed: bool  # the repaired code no longer failed with the same signature
    succeeded: bool  # the repaired code ran and was scored
    diff: str  # unified diff, code before -> after
    versions: dict[str, str]

    @property
    def record_id(self) -> str:
        """Stable across retries and resumes: the same repair is never recorded twice."""
        if self.attempt:
            return f"{self.run_id}/{self.attempt}"
        return f"{self.run_id}/{self.signature[:12]}/{self.action}"


Record = RunRecord | RepairRecord


def parse_record(raw: dict[str, Any]) -> Record | None:
    """A record from its JSON form; None for a kind this version does not know."""
    kind = raw.get("kind")
    if kind == "run":
        return RunRecord.model_validate(raw)
    if kind == "repair":
        return RepairRecord.model_validate(raw)
    return None


def meta_features(profile: DataProfile) -> dict[str, Any]:
    """The dataset's meta-features, as auto-sklearn's meta-learning uses them to find
    similar datasets: size, column kinds, missing values, class balance, target statistics."""
    kinds = ("numeric", "categorical", "datetime", "text", "id", "constant")
    return {
        "rows": profile.n_rows, "columns": profile.n_columns,
        **{kind: len(profile.names(kind)) for kind in kinds},
        "missing_share": round(profile.missing_share, 6),
        "n_classes": profile.n_classes, "minority_share": profile.minority_share,
        "target_mean": profile.target_mean, "target_std": profile.target_std,
    }


def meta_vector(features: dict[str, Any]) -> list[float]:
    """Meta-features on comparable scales (logs of counts, shares in [0, 1]), for distances."""
    columns = max(1, features.get("columns") or 0)
    n_classes = features.get("n_classes") or 0
    minority = features.get("minority_share")
    return [
        math.log10(1 + (features.get("rows") or 0)),
        math.log10(1 + columns),
        (features.get("numeric") or 0) / columns,
        (features.get("categorical") or 0) / columns,
        2.0 * (features.get("missing_share") or 0.0),
        math.log2(1 + n_classes) / 2.0,
        2.0 * (minority if minority is not None else 0.5),
    ]


def meta_distance(a: dict[str, Any], b: dict[str, Any]) -> float:
    """Euclidean distance between two datasets' meta-feature vectors."""
    return math.dist(meta_vector(a), meta_vector(b))
