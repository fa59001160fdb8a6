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
