"""Test helpers: diagnose a small script the test wrote, as the loop does, and apply one
repair action of the rule table to it.

The script runs in this process (the test's own code, for speed: the per-operator tests
run dozens of them); the repair search's tests (test_search.py) use the real sandbox."""

from __future__ import annotations

import traceback

from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.agents.repair import table
from pipesmith.agents.schemas import Diagnosis
from pipesmith.sandbox.base import ExecResult


def execute_here(code: str) -> str | None:
    """The traceback the script ends with, run in this process; None when it runs."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(code, "train.py", "exec"), {"__name__": "__main__"})  # noqa: S102
    except Exception:
        return traceback.format_exc()
    return None


def diagnose_here(code: str) -> Diagnosis:
    stderr = execute_here(code)
    assert stderr is not None, "the broken script ran"
    return Diagnostician().diagnose_result(ExecResult(status="error", exit_code=1,
                                                      stderr=stderr), code,
                                           source_name="train.py")


def repaired_here(code: str, action: str) -> tuple[str, Diagnosis]:
    """The script diagnosed, patched by `action` (among the diagnosis's actions), and
    checked to run."""
    diagnosis = diagnose_here(code)
    assert action in diagnosis.repair_actions, diagnosis
    new = table.apply(action, code, diagnosis, table.RepairContext())
    assert new is not None, f"{action} did not apply to {diagnosis.summary}"
    failure = execute_here(new)
    assert failure is None, failure
    return new, diagnosis
