"""build_graph(topology) -> a compiled LangGraph graph."""

from __future__ import annotations

import time
from collections.abc import Callable

from langgraph.graph import END, START, StateGraph

from pipesmith.graph import nodes, routing
from pipesmith.graph.context import Deps
from pipesmith.graph.state import RunInput, RunState
from pipesmith.graph.topologies import check_topology

NODES: dict[str, Callable] = {
    "profile": nodes.profile,
    "retrieve": nodes.retrieve,
    "plan": nodes.plan,
    "draft": nodes.draft,
    "prevalidate": nodes.prevalidate,
    "execute": nodes.execute,
    "diagnose": nodes.diagnose,
    "repair": nodes.repair,
    "ensemble": nodes.ensemble,
    "report": nodes.report,
    "remember": nodes.remember,
}


def timed(name: str, node: Callable) -> Callable:
    """Add the node's own wall time to the state's timings."""

    def run(state, runtime):
        started = time.perf_counter()
        update = node(state, runtime)
        return {**update, "timings": {name: time.perf_counter() - started}}

    run.__name__ = name
    return run


def build_graph(topology: str = "full", checkpointer=None):
    """The compiled graph. Invoke it with {"inputs": RunInputs} and context=Deps(...)."""
    check_topology(topology)
    graph = StateGraph(RunState, context_schema=Deps, input_schema=RunInput)
    for name, node in NODES.items():
        graph.add_node(name, timed(name, node))
    graph.add_edge(START, "profile")
    graph.add_edge("profile", "retrieve")
    graph.add_edge("retrieve", "plan")
    graph.add_edge("plan", "draft")
    graph.add_edge("draft", "prevalidate")
    graph.add_conditional_edges("prevalidate", routing.after_prevalidate)
    graph.add_conditional_edges("execute", routing.after_execute)
    graph.add_conditional_edges("diagnose", routing.after_diagnose)
    graph.add_conditional_edges("repair", routing.after_repair)
    graph.add_conditional_edges("ensemble", routing.after_ensemble)
    graph.add_edge("report", "remember")
    graph.add_edge("remember", END)
    return graph.compile(checkpointer=checkpointer)


def make_graph(config=None):
    """Factory for langgraph.json (LangGraph Studio / server supply their own checkpointer)."""
    return build_graph()
