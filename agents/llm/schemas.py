"""What the model is asked to return, as pydantic schemas for structured output."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class ProposedCandidate(BaseModel):
    name: str
    family: str
    params: dict[str, Any] = Field(default_factory=dict)
    scale: bool = False
    encoding: Literal["onehot", "ordinal"] = "ordinal"
    rationale: str = ""


class PlanProposal(BaseModel):
    """The planner's answer."""

    candidates: list[ProposedCandidate]
    notes: list[str] = Field(default_factory=list)


class DiagnosisExplanation(BaseModel):
    """The diagnostician's answer about one failure."""

    explanation: str
    suggested_fix: str


class RequestReading(BaseModel):
    """The chat's reading of a request (pipesmith/chat/task_text_llm.py)."""

    data_path: str | None = None
    dataset: str | None = None
    target: str | None = None
    task_type: Literal["classification", "regression", "clustering"] | None = None
    metric: str | None = None
    budget_s: float | None = None
    drop_columns: list[str] = Field(default_factory=list)
    families: list[str] = Field(default_factory=list)
    exclude_families: list[str] = Field(default_factory=list)


class ProposedRange(BaseModel):
    """One hyperparameter's range: int/float between low and high (log scale or not), or
    categorical choices."""

    name: str
    kind: Literal["int", "float", "cat"]
    low: float | None = None
    high: float | None = None
    log: bool = False
    choices: list[str | int | float | bool | None] = Field(default_factory=list)


class ProposedSpace(BaseModel):
    family: str
    ranges: list[ProposedRange]
    rationale: str = ""


class FeatureIdea(BaseModel):
    name: str
    description: str
    columns: list[str] = Field(default_factory=list)


class SearchProposal(BaseModel):
    """The planner's answer about the search: learners with their ranges, feature ideas."""

    families: list[ProposedSpace]
    features: list[FeatureIdea] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
