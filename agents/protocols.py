"""Each agent's contract, as the graph's nodes call it.

The offline agents, the LLM agents over them and the fault-injecting coder all implement
these; `graph.context.Deps` is typed with them, so a node calls a method and never probes
for one. A new implementation is a new class, not a new flag. tests/agents/test_protocols.py
checks every implementation against its protocol, signatures included.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from pipesmith.agents.schemas import (
        Attempt,
        Candidate,
        CandidateSpec,
        CodeExample,
        DataProfile,
        Diagnosis,
        EnsembleOutcome,
        EnsembleProposal,
        Issue,
        PastRun,
        Plan,
        RepairRequest,
        RunInputs,
        SearchPlan,
    )
    from pipesmith.agents.warm_folds import WarmFolds
    from pipesmith.sandbox.base import ExecResult, Sandbox


@runtime_checkable
class Planner(Protocol):
    """Chooses the candidates to draft, and what the search explores."""

    def plan(self, inputs: RunInputs, profile: DataProfile, past_runs: list[PastRun]) -> Plan:
        ...

    def search_plan(self, inputs: RunInputs, profile: DataProfile,
                    families: list[str]) -> SearchPlan:
        """The learners and spaces to search; a planner with no proposal of its own returns
        `default_plan(families)` (agents/search/space.py)."""
        ...


@runtime_checkable
class Coder(Protocol):
    """Writes candidate modules. A coder returns None when it writes nothing (an LLM coder
    whose token or cost budget is spent): the run stops drafting or repairing."""

    def draft(self, candidate_id: str, spec: CandidateSpec, profile: DataProfile,
              inputs: RunInputs, examples: list[CodeExample] | None = None
              ) -> Candidate | None:
        """`examples`: code that worked on similar past tasks; a coder may ignore them."""
        ...

    def repair(self, candidate_id: str, request: RepairRequest, profile: DataProfile | None,
               inputs: RunInputs | None) -> Candidate | None:
        """`profile` and `inputs` are None for a plain script brought without data."""
        ...

    def repair_options(self, candidate_id: str, request: RepairRequest,
                       profile: DataProfile | None, inputs: RunInputs | None,
                       limit: int = 1) -> list[Candidate]:
        """Up to `limit` repairs from different actions, best first (the repair search
        tries them side by side); a coder that writes one repair returns it alone."""
        ...

    def ensemble(self, candidate_id: str, members: list[Candidate], profile: DataProfile,
                 inputs: RunInputs, strategy: str = "caruana",
                 weights: list[float] | None = None, n_clusters: int = 2,
                 class_weights: dict[str, float] | None = None,
                 level2: dict | None = None) -> Candidate | None:
        """`level2`: stacking's level-2 model (agents/ensembler/select.py level2_params)."""
        ...

    def searchable(self, spec: CandidateSpec, profile: DataProfile, inputs: RunInputs) -> str:
        """The module the search's trials run (hyperparameters from task["params"]); always
        the offline template, whoever drafts: trials need no judgment."""
        ...


@runtime_checkable
class Prevalidator(Protocol):
    """Static checks before anything runs; only blocking issues stop a candidate."""

    def check(self, code: str, columns: list[str] | None = None,
              profile: DataProfile | None = None) -> list[Issue]:
        """A build_pipeline module."""
        ...

    def check_script(self, code: str, columns: list[str] | None = None,
                     profile: DataProfile | None = None) -> list[Issue]:
        """A plain script (`pipesmith repair`)."""
        ...


@runtime_checkable
class Executor(Protocol):
    """Runs candidates in the sandbox; the referee outside it scores what comes back."""

    sandbox: Sandbox  # the search's trial workers run in it too
    cores: int  # how many fold jobs may run at once

    def smoke(self, candidate: Candidate, inputs: RunInputs, workdir: Path,
              timeout_s: float = ...) -> tuple[ExecResult, dict | None]:
        ...

    def run(self, candidate: Candidate, inputs: RunInputs, workdir: Path,
            timeout_s: float, sample_rows: int | None = None, cv_folds: int | None = None,
            memory_mb: int | None = None) -> tuple[ExecResult, dict | None]:
        ...

    def adopt(self, candidate: Candidate, inputs: RunInputs,
              workdir: Path) -> tuple[ExecResult, dict] | str:
        """A search winner's cross-validation from its trial's fold predictions, scored by
        the referee; or why it cannot be adopted (then it is run)."""
        ...

    def combine(self, candidate: Candidate, members: list[Attempt], weights: list[float],
                inputs: RunInputs, workdir: Path,
                class_weights: dict[str, float] | None = None,
                strategy: str = "caruana") -> tuple[ExecResult, dict] | str:
        """An ensemble's cross-validation from its members' out-of-fold predictions (a vote,
        or a stacking whose level-2 model is cross-fitted on them), scored by the referee
        with no fit; or why not (then it is run)."""
        ...

    def run_script(self, candidate: Candidate, workdir: Path, timeout_s: float,
                   memory_mb: int, disk_mb: int) -> ExecResult:
        ...

    def refit(self, candidate: Candidate, inputs: RunInputs, workdir: Path, timeout_s: float,
              memory_mb: int | None = None, rows: int | None = None,
              explain_s: float | None = None) -> tuple[ExecResult, dict | None]:
        """Fit on every development row (or a seeded sample of `rows`), score the test
        part outside; the explanations within `explain_s`."""

    def permuted(self, candidate: Candidate, inputs: RunInputs, workdir: Path,
                 timeout_s: float, memory_mb: int | None = None
                 ) -> tuple[ExecResult, dict | None]:
        """The permutation control's fits on shuffled training labels, scored outside."""
        ...

    def warm_workers(self, inputs: RunInputs) -> WarmFolds | None:
        """The run's warm fold workers when running (the search's trials use them)."""
        ...

    def close(self) -> None:
        """Stop the warm workers: the drive of the graph ended."""
        ...


@runtime_checkable
class Diagnostician(Protocol):
    """Turns a rejection or a failed run into a Diagnosis; judges a run that worked."""

    def diagnose_issues(self, issues: list[Issue], code: str) -> Diagnosis:
        ...

    def diagnose_result(self, result: ExecResult, code: str,
                        source_name: str = "candidate.py") -> Diagnosis:
        ...

    def judge_quality(self, metrics: dict, profile: DataProfile, metric: str
                      ) -> Diagnosis | None:
        """None when the scores are worth trusting."""
        ...


@runtime_checkable
class Ensembler(Protocol):
    """Proposes a combination on out-of-fold predictions, then decides on its result."""

    def propose(self, attempts: list[Attempt], inputs: RunInputs,
                strategies: tuple[str, ...] = ...,
                nested: dict[str, float] | None = None) -> EnsembleProposal | None:
        ...

    def fitting_vote(self, attempts: list[Attempt], inputs: RunInputs,
                     proposal: EnsembleProposal,
                     fits: Callable[[EnsembleProposal], bool]) -> EnsembleProposal | None:
        ...

    def weighted_single(self, attempts: list[Attempt], inputs: RunInputs,
                        proposal: EnsembleProposal) -> EnsembleProposal | None:
        ...

    def decide(self, proposal: EnsembleProposal | None, result: Attempt | None,
               attempts: list[Attempt], metric: str) -> EnsembleOutcome:
        ...
