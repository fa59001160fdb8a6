"""build_graph(topology) -> a compiled LangGraph graph."""

from __future__ import annotations

import time
from collections.abc import Callable

from langgraph.graph import END, START, StateGraph

from pipesmith.graph import nodes, routing
from pipesmith.graph.context import Deps
from pipesmith.graph.state import RunInput, RunState
from pipesmith.graph.topologies import Topology, get_topology

NODES: dict[str, Callable] = {
    "profile": nodes.profile,
    "retrieve": nodes.retrieve,
    "plan": nodes.plan,
    "draft": nodes.draft,
    "prevalidate": nodes.prevalidate,
    "execute": nodes.execute,
    "diagnose": nodes.diagnose,
    "repair": nodes.repair,
    "search": nodes.search,
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


# Each routed node: its routing function and every node it may lead to.
ROUTES: dict[str, tuple[Callable, tuple[str, ...]]] = {
    "prevalidate": (routing.after_prevalidate,
                    ("execute", "diagnose", "repair", "draft", "search", "ensemble", "report")),
    "execute": (routing.after_execute,
                ("draft", "search", "ensemble", "diagnose", "repair", "report")),
    "diagnose": (routing.after_diagnose, ("repair", "draft", "search", "ensemble", "report")),
    "repair": (routing.after_repair,
               ("prevalidate", "execute", "draft", "search", "ensemble", "report")),
    "search": (routing.after_search, ("draft", "search", "ensemble", "report")),
    "ensemble": (routing.after_ensemble, ("prevalidate", "execute", "report")),
}


def bound(route: Callable, topology: Topology) -> Callable:
    """The routing function with this topology fixed: still a pure function of the state."""

    def next_node(state):
        return route(state, topology)

    next_node.__name__ = route.__name__
    return next_node


def build_graph(topology: str = "full", checkpointer=None):
    """The compiled graph. Invoke it with {"inputs": RunInputs} and context=Deps(...).

    The topology (graph/topologies.py) says which nodes exist; the static edges follow
    the flow through the nodes present, the routed ones may lead only to nodes present."""
    spec = get_topology(topology)
    present = spec.nodes
    graph = StateGraph(RunState, context_schema=Deps, input_schema=RunInput)
    for name in present:
        graph.add_node(name, timed(name, NODES[name]))
    chain = [n for n in ("profile", "retrieve", "plan", "draft") if n in present]
    for a, b in zip([START, *chain], [*chain, spec.checked], strict=True):
        graph.add_edge(a, b)
    for name, (route, targets) in ROUTES.items():
        if name in present:
            graph.add_conditional_edges(name, bound(route, spec),
                                        [t for t in targets if t in present])
    if spec.remember:
        graph.add_edge("report", "remember")
        graph.add_edge("remember", END)
    else:
        graph.add_edge("report", END)
    return graph.compile(checkpointer=checkpointer)


def make_graph(config=None):
    """Factory for langgraph.json (LangGraph Studio / server supply their own checkpointer)."""
    return build_graph()
