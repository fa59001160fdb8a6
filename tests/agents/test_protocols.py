"""Every agent implements its contract (agents/protocols.py), signatures included, and the
nodes call the contract without probing the agents."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from pipesmith.agents import protocols
from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.coder.faults import FaultInjectingCoder
from pipesmith.agents.coder.llm import LLMCoder
from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.agents.diagnostician.llm import LLMDiagnostician
from pipesmith.agents.ensembler.agent import Ensembler
from pipesmith.agents.executor import Executor
from pipesmith.agents.planner.agent import Planner
from pipesmith.agents.planner.llm import LLMPlanner
from pipesmith.agents.prevalidator.agent import Prevalidator
from pipesmith.graph.clock import RunClock
from pipesmith.graph.context import Deps

ROOT = Path(__file__).resolve().parents[2]
NOT_USED = object()  # LLM agents only store their gateway and ledger when built


def implementations() -> list[tuple[type, object]]:
    """(protocol, agent) for every agent the project ships, LLM versions over offline ones."""
    return [
        (protocols.Planner, Planner()),
        (protocols.Planner, LLMPlanner(NOT_USED, NOT_USED, Planner(), True)),
        (protocols.Coder, Coder()),
        (protocols.Coder, LLMCoder(NOT_USED, NOT_USED, Coder(), True)),
        (protocols.Coder, FaultInjectingCoder(Coder(), 0.5)),
        (protocols.Coder, LLMCoder(NOT_USED, NOT_USED, FaultInjectingCoder(Coder(), 0.5), True)),
        (protocols.Prevalidator, Prevalidator()),
        (protocols.Executor, Executor(NOT_USED, cores=2)),
        (protocols.Diagnostician, Diagnostician()),
        (protocols.Diagnostician, LLMDiagnostician(NOT_USED, NOT_USED, Diagnostician(), True)),
        (protocols.Ensembler, Ensembler()),
    ]


def methods(protocol: type) -> list[str]:
    return [name for name, value in vars(protocol).items()
            if callable(value) and not name.startswith("_")]


def drift(protocol: type, cls: type) -> list[str]:
    """How cls's methods differ from the protocol's: parameter names, kinds, defaults (a
    protocol default of `...` asks only for some default) and annotations."""
    found = []
    for name in methods(protocol):
        want = list(inspect.signature(getattr(protocol, name)).parameters.values())[1:]
        got = list(inspect.signature(getattr(cls, name)).parameters.values())[1:]
        if [(p.name, p.kind) for p in want] != [(p.name, p.kind) for p in got]:
            found.append(f"{name}: parameters {[p.name for p in got]}, "
                         f"not {[p.name for p in want]}")
            continue
        for w, g in zip(want, got, strict=True):
            default_ok = (w.default is Ellipsis and g.default is not inspect.Parameter.empty) \
                or w.default == g.default
            if not default_ok:
                found.append(f"{name}({w.name}): default {g.default!r}, not {w.default!r}")
            if g.annotation is not inspect.Parameter.empty and g.annotation != w.annotation:
                found.append(f"{name}({w.name}): annotated {g.annotation}, not {w.annotation}")
    return found


@pytest.mark.parametrize(("protocol", "agent"), implementations(),
                         ids=lambda x: getattr(x, "__name__", type(x).__name__))
def test_every_agent_satisfies_its_protocol(protocol, agent):
    assert isinstance(agent, protocol)
    assert drift(protocol, type(agent)) == []


def test_a_drifted_signature_is_caught():
    class OldCoder(Coder):  # the draft signature before `examples` was everyone's
        def draft(self, candidate_id, spec, profile, inputs):
            return super().draft(candidate_id, spec, profile, inputs)

    assert isinstance(OldCoder(), protocols.Coder)  # isinstance sees only the names ...
    assert drift(protocols.Coder, OldCoder)  # ... the signature check sees the rest


def test_the_fault_injecting_coder_forwards_nothing_implicitly():
    assert "__getattr__" not in vars(FaultInjectingCoder)
    with pytest.raises(AttributeError):
        FaultInjectingCoder(Coder(), 0.5)._module  # noqa: B018  the wrapped coder's own


def test_deps_have_a_stopped_clock_by_default():
    deps = Deps(planner=Planner(), coder=Coder(), prevalidator=Prevalidator(),
                executor=Executor(NOT_USED, cores=1), diagnostician=Diagnostician(),
                ensembler=Ensembler(), kb=None)
    assert deps.clock.since_mark(1e9) is None
    deps.clock.set(5.0)  # stays stopped
    assert deps.clock.since_mark(1e9) is None
    assert RunClock(10.0).since_mark(12.5) == 2.5


PROBES = re.compile(r"\bgetattr\(|\bhasattr\(|\binspect\.|\bsignature\(|\.offline\b")


@pytest.mark.parametrize("path", ["graph/nodes.py", "graph/builder.py"])
def test_the_graph_calls_agents_without_probing_them(path):
    source = (ROOT / path).read_text()
    assert [line.strip() for line in source.splitlines() if PROBES.search(line)] == []
