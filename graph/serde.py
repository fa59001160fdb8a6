"""The checkpoint serializer, with pipesmith's state models explicitly allowed."""

from __future__ import annotations

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from pipesmith.agents import schemas

STATE_MODELS = ("RunInputs", "ColumnProfile", "DataProfile", "PastRun", "CodeExample",
                "SearchTrial", "CandidateSpec", "Plan",
                "Candidate", "Issue", "Diagnosis", "Attempt", "EnsembleProposal",
                "EnsembleOutcome", "RefitOutcome", "FeatureImportance",
                "PermutationControl")


def serializer() -> JsonPlusSerializer:
    return JsonPlusSerializer(
        allowed_msgpack_modules=[(schemas.__name__, name) for name in STATE_MODELS])
