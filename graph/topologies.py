"""Named graph variants built from the same nodes: a data description per topology.

Each topology says which capabilities are on; build_graph derives the nodes and edges
from it, and the pure routing functions read it to pick the next node. Adding a variant
is adding a row here, never a new builder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Feedback = Literal["none", "raw", "taxonomy"]


@dataclass(frozen=True)
class Topology:
    name: str
    summary: str
    retrieve: bool = False  # past runs from the knowledge base inform the plan
    prevalidate: bool = False  # static checks and smoke runs before each full run
    # What a failure feeds back: nothing (no repair), the raw traceback, or a diagnosis
    # classified by the error taxonomy (the diagnose node).
    feedback: Feedback = "none"
    reformulate: bool = False  # repairs see the lineage's history, tried fixes, past fixes
    ensemble: bool = False  # adaptive ensembling of the successful candidates
    search: bool = False  # Optuna search over learners x hyperparameters after the portfolio
    warm_start: bool = True  # the search starts from past winners / the bundled portfolio
    remember: bool = False  # the run and its repairs are written to the knowledge base
    max_candidates: int | None = None  # a cap on planned candidates; None: the settings'

    @property
    def repairs(self) -> bool:
        return self.feedback != "none"

    @property
    def uses_kb(self) -> bool:
        return self.retrieve or self.remember

    @property
    def nodes(self) -> list[str]:
        """The graph's nodes, in flow order."""
        wanted = {
            "profile": True, "retrieve": self.retrieve, "plan": True, "draft": True,
            "prevalidate": self.prevalidate, "execute": True,
            "diagnose": self.feedback == "taxonomy", "repair": self.repairs,
            "search": self.search, "ensemble": self.ensemble, "report": True,
            "remember": self.remember,
        }
        return [name for name, on in wanted.items() if on]

    @property
    def checked(self) -> str:
        """Where a new candidate goes before it runs."""
        return "prevalidate" if self.prevalidate else "execute"


TOPOLOGIES: dict[str, Topology] = {t.name: t for t in (
    Topology("single-pass", "plan, draft and execute one candidate once: no repair, "
             "no pre-validation, no ensemble", max_candidates=1),
    Topology("self-repair", "each failure's raw traceback is fed back for a retry; "
             "no taxonomy, no pre-validation, no ensemble", feedback="raw"),
    Topology("fdicr", "FDICR: sandboxed execution, failures classified by the error "
             "taxonomy, repairs from reformulated context", feedback="taxonomy",
             reformulate=True),
    Topology("automl-pipeline", "AutoML-Pipeline: retrieval of past runs and pre-validation "
             "(static checks, smoke runs, resource prediction) before execution",
             retrieve=True, prevalidate=True, feedback="taxonomy", remember=True),
    Topology("sage-loop", "SAGE-Loop: closed-loop trial and correction on raw errors, "
             "with adaptive ensemble selection", feedback="raw", ensemble=True),
    Topology("full", "retrieval, planning, pre-validation, sandboxed execution, diagnosis, "
             "multi-round reformulated repair, hyperparameter search, adaptive ensembling "
             "and knowledge-base memory",
             retrieve=True, prevalidate=True, feedback="taxonomy", reformulate=True,
             search=True, ensemble=True, remember=True),
    # ablations of full, for the quality benchmark (docs/evals.md)
    Topology("full-no-search", "full without the hyperparameter search: the planned "
             "portfolio only", retrieve=True, prevalidate=True, feedback="taxonomy",
             reformulate=True, ensemble=True, remember=True),
    Topology("full-no-ensemble", "full without adaptive ensembling: the best single "
             "candidate", retrieve=True, prevalidate=True, feedback="taxonomy",
             reformulate=True, search=True, remember=True),
    Topology("full-cold", "full with a cold search: no warm start from past winners or "
             "the bundled portfolio", retrieve=True, prevalidate=True, feedback="taxonomy",
             reformulate=True, search=True, warm_start=False, ensemble=True, remember=True),
    # ablations of full, for the repair tables (docs/results/README.md)
    Topology("full-no-retrieval", "full without retrieval: the plan and the search start "
             "from no past runs (the run is still remembered)", prevalidate=True,
             feedback="taxonomy", reformulate=True, search=True, ensemble=True,
             remember=True),
    Topology("full-no-prevalidation", "full without pre-validation: candidates go straight "
             "to the sandbox, with no static checks or smoke runs", retrieve=True,
             feedback="taxonomy", reformulate=True, search=True, ensemble=True,
             remember=True),
    Topology("full-no-taxonomy", "full without taxonomy feedback: repairs get the raw "
             "error, as in self-repair, instead of a classified diagnosis", retrieve=True,
             prevalidate=True, feedback="raw", reformulate=True, search=True, ensemble=True,
             remember=True),
)}


# The run graph's own diagnose -> repair loop, alone, for code the user brings (`pipesmith
# repair`, graph/builder.py: build_repair_graph). Not a variant to run or compare.
REPAIR = Topology("repair", "the diagnose-repair loop on the user's code: pre-validation, "
                  "sandboxed execution, diagnosis, reformulated repair", prevalidate=True,
                  feedback="taxonomy", reformulate=True)


def check_topology(name: str) -> str:
    if name not in TOPOLOGIES:
        raise ValueError(f"unknown topology {name!r}; known: {', '.join(TOPOLOGIES)}")
    return name


def get_topology(name: str) -> Topology:
    if name == REPAIR.name:
        return REPAIR
    return TOPOLOGIES[check_topology(name)]
