"""Topologies: the same nodes wired differently, chosen by data, routed by pure functions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pipesmith.agents.schemas import Attempt, Candidate, CandidateSpec, Plan, RunInputs
from pipesmith.graph import routing
from pipesmith.graph.builder import build_graph
from pipesmith.graph.topologies import TOPOLOGIES, get_topology

ROOT = Path(__file__).resolve().parents[2]
SPEC = CandidateSpec(name="ridge", family="ridge")


def nodes(name: str) -> set[str]:
    return set(build_graph(name).get_graph().nodes) - {"__start__", "__end__"}


def test_each_topology_wires_only_what_it_describes():
    assert nodes("full") == {"profile", "retrieve", "plan", "draft", "prevalidate", "execute",
                             "diagnose", "repair", "search", "ensemble", "report",
                             "remember"}
    assert nodes("single-pass") == {"profile", "plan", "draft", "execute", "report"}
    self_repair = nodes("self-repair")
    assert "repair" in self_repair
    assert not {"prevalidate", "diagnose", "retrieve", "ensemble"} & self_repair
    assert nodes("fdicr") == {"profile", "plan", "draft", "execute", "diagnose", "repair",
                              "report"}
    assert {"retrieve", "prevalidate", "remember"} <= nodes("automl-pipeline")
    assert "ensemble" not in nodes("automl-pipeline")
    assert {"repair", "ensemble"} <= nodes("sage-loop")
    assert "diagnose" not in nodes("sage-loop")
    drawings = {name: build_graph(name).get_graph().draw_mermaid() for name in TOPOLOGIES}
    # full-cold wires full's nodes; it differs only in a switch the search node reads
    assert len(set(drawings.values())) == len(TOPOLOGIES) - 1
    assert drawings["full-cold"] == drawings["full"]
    assert "search" not in nodes("full-no-search")
    assert "ensemble" not in nodes("full-no-ensemble")
    # the repair ablations: each drops one node of full and keeps the rest
    assert nodes("full-no-retrieval") == nodes("full") - {"retrieve"}
    assert nodes("full-no-prevalidation") == nodes("full") - {"prevalidate"}
    assert nodes("full-no-taxonomy") == nodes("full") - {"diagnose"}


def test_routed_edges_lead_only_to_nodes_that_exist():
    for name in TOPOLOGIES:
        graph = build_graph(name).get_graph()
        present = set(graph.nodes)
        assert {e.target for e in graph.edges} <= present
        assert ("draft", get_topology(name).checked) in {(e.source, e.target)
                                                         for e in graph.edges}


def state(*, attempts=(), candidates=(), current=None, next_index=1, n_planned=3):
    inputs = RunInputs(run_id="r", task_text="t", dataset="d", data_path="p", target="y",
                       task_type="regression", metric="r2", out_dir="o", budget_s=60)
    return {"inputs": inputs, "plan": Plan(candidates=[SPEC] * n_planned),
            "next_index": next_index, "current": current,
            "candidates": {c.id: c for c in candidates},
            "attempts": {a.id: a for a in attempts}, "timings": {"execute": 1.0}}


def failed_draft(next_index=1, n_planned=3):
    c = Candidate(id="a1", name="ridge", phase="draft", code="", spec=SPEC)
    a = Attempt(id="a1", parent=None, candidate="ridge", phase="draft", status="error")
    return state(current=c, candidates=[c], attempts=[a], next_index=next_index,
                 n_planned=n_planned)


def test_a_failure_is_routed_by_what_the_topology_feeds_back():
    t = TOPOLOGIES
    assert routing.after_execute(failed_draft(), t["full"]) == "diagnose"
    assert routing.after_execute(failed_draft(), t["fdicr"]) == "diagnose"
    assert routing.after_execute(failed_draft(), t["self-repair"]) == "repair"  # raw traceback
    assert routing.after_execute(failed_draft(), t["single-pass"]) == "draft"
    last = failed_draft(next_index=1, n_planned=1)
    assert routing.after_execute(last, t["single-pass"]) == "report"  # no ensemble node
    assert routing.after_execute(last, t["sage-loop"]) == "repair"
    repaired = state(current=Candidate(id="a2", name="ridge", phase="repair", code="",
                                       parent="a1"))
    assert routing.after_repair(repaired, t["fdicr"]) == "execute"  # no pre-validation
    assert routing.after_repair(repaired, t["full"]) == "prevalidate"
    # ablations of full: the raw error goes straight to repair; no pre-validation
    assert routing.after_execute(failed_draft(), t["full-no-taxonomy"]) == "repair"
    assert routing.after_repair(repaired, t["full-no-taxonomy"]) == "prevalidate"
    assert routing.after_repair(repaired, t["full-no-prevalidation"]) == "execute"
    assert routing.after_execute(failed_draft(), t["full-no-prevalidation"]) == "diagnose"


def test_raw_feedback_carries_the_traceback_without_a_class():
    from pipesmith.agents.diagnostician.agent import raw_feedback

    tail = ('Traceback (most recent call last):\n  File "candidate.py", line 3, in <module>\n'
            "ValueError: Unknown label type: 'continuous'\n")
    attempt = Attempt(id="a1", parent=None, candidate="m", phase="draft", status="error",
                      error_tail=tail)
    feedback = raw_feedback(attempt)
    assert feedback.taxonomy_class == "untyped" and feedback.severity == "recoverable"
    assert feedback.summary == "ValueError: Unknown label type: 'continuous'"
    assert feedback.repair_actions == ["redraft"]
    assert feedback.evidence[-1] == feedback.summary


def test_the_topologies_page_is_generated_from_the_graphs():
    from pipesmith.graph.diagrams import markdown

    page = (ROOT / "docs" / "topologies.md").read_text()
    assert page == markdown(), "regenerate: pipesmith topologies --write docs/topologies.md"
    assert page.count("```mermaid") == len(TOPOLOGIES)


def test_topologies_command_lists_each_with_a_line():
    done = subprocess.run([sys.executable, "-m", "pipesmith.cli", "topologies"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert [line.split()[0] for line in lines] == list(TOPOLOGIES)


@pytest.mark.slow
def test_self_repair_retries_on_the_raw_traceback(tmp_path):
    from pipesmith import run
    from pipesmith.settings import Settings

    settings = Settings(topology="self-repair", fault_rate=1.0, max_candidates=1, use_kb=False,
                        runs_dir=tmp_path, kb_dir=tmp_path / "kb", seed=3)
    report = run(dataset="wine", budget_s=120, out=tmp_path / "run", settings=settings)
    assert report.topology == "self-repair"
    assert not {"prevalidate", "diagnose", "retrieve"} & set(report.timings)
    first = report.attempts[0]
    assert first.injected_fault is not None
    if not first.succeeded:  # the fault broke the draft: its traceback went back raw
        assert first.diagnosis.taxonomy_class == "untyped"
        assert report.attempts[1].repair_action == "redraft"
        assert report.attempts[1].parent == first.id


def test_the_repair_loop_is_the_run_graphs_own_loop():
    """`pipesmith repair`'s graph: the run graph's loop nodes and edges, nothing of its own
    but the end node that says why it stopped."""
    from pipesmith.graph.builder import REPAIR_LOOP, build_repair_graph

    loop = build_repair_graph().get_graph()
    assert set(loop.nodes) == {"__start__", "__end__", *REPAIR_LOOP, "report"}
    full = build_graph("full").get_graph()
    edges = {(e.source, e.target) for e in full.edges}
    inner = {(e.source, e.target) for e in loop.edges if "__" not in e.source + e.target}
    assert inner <= edges and ("diagnose", "repair") in inner and ("repair", "prevalidate") in inner
