"""Named graph variants built from the same nodes.

This first version has one: `full`. The evaluation issue adds single-pass,
self-repair, fdicr, automl-pipeline and sage-loop as other wirings.
"""

from __future__ import annotations

TOPOLOGIES: dict[str, str] = {
    "full": "retrieval, planning, pre-validation, sandboxed execution, diagnosis, "
            "multi-round repair, adaptive ensembling and knowledge-base memory",
}


def check_topology(name: str) -> str:
    if name not in TOPOLOGIES:
        raise ValueError(f"unknown topology {name!r}; known: {', '.join(TOPOLOGIES)}")
    return name
