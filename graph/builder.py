"""build_graph(topology) -> a compiled LangGraph graph."""

from __future__ import annotations

import time
from collections.abc import Callable

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Overwrite

from pipesmith.graph import nodes, routing
from pipesmith.graph.approval import approve
from pipesmith.graph.clock import OUTSIDE_NODES
from pipesmith.graph.context import Deps
from pipesmith.graph.state import PlainInput, RunInput, RunOutput, RunState
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


def timed(name: str, node: Callable, default_context: Callable[[], Deps] | None = None
          ) -> Callable:
    """Add the node's own wall time to the state's timings, and the time since the previous
    node ended (graph/clock.py) when the run's clock runs. default_context: the Deps to use
    when the caller gave none (LangGraph server / Studio)."""

    def run(state, runtime):
        if default_context is not None and not isinstance(runtime.context, Deps):
            runtime = runtime.override(context=default_context())
        started = time.perf_counter()
        clock = runtime.context.clock
        update = node(state, runtime)
        ended = time.perf_counter()
        seconds = {name: ended - started}
        outside = clock.since_mark(started)  # start-up, checkpoints and routing since then
        if outside is not None:
            seconds[OUTSIDE_NODES] = outside
        clock.set(ended)
        timing = {"timings": seconds}
        if isinstance(update, dict) and isinstance(update.get("timings"), Overwrite):
            # a node that starts a new run (setup) resets the timings: its own time is the
            # new run's first
            timing = {"timings": Overwrite({**update["timings"].value, **seconds})}
        if isinstance(update, Command):  # a node that routes itself (approve)
            return Command(update={**(update.update or {}), **timing}, goto=update.goto)
        return {**update, **timing}

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


def build_graph(topology: str = "full", checkpointer=None, *, approval: bool = False,
                default_context: Callable[[], Deps] | None = None, plain_input: bool = False):
    """The compiled graph. Invoke it with {"inputs": RunInputs} and context=Deps(...).

    The topology (graph/topologies.py) says which nodes exist; the static edges follow
    the flow through the nodes present, the routed ones may lead only to nodes present.
    approval: an `approve` node after `plan` that, when the input says approve_plan, stops
    for the person's approval or edits (graph/approval.py). plain_input: a `setup` node
    first that turns {"dataset": ...} or {"data_path": ..., "target": ...} into RunInputs
    (graph/setup.py). default_context: Deps for callers that pass none."""
    spec = get_topology(topology)
    present = spec.nodes
    # With default Deps the caller passes none: a server would build the schema from {}.
    graph = StateGraph(RunState, context_schema=None if default_context else Deps,
                       input_schema=PlainInput if plain_input else RunInput,
                       output_schema=RunOutput if plain_input else None)
    for name in present:
        graph.add_node(name, timed(name, NODES[name], default_context))
    chain = [n for n in ("profile", "retrieve", "plan", "draft") if n in present]
    if approval:
        graph.add_node("approve", timed("approve", approve, default_context),
                       destinations=("draft", "plan", "profile", "approve"))
        chain.remove("draft")  # approve routes on to draft (or back to profile / plan)
        graph.add_edge("draft", spec.checked)
    first = START
    if plain_input:
        from pipesmith.graph.setup import setup

        graph.add_node("setup", timed("setup", setup, default_context), input_schema=PlainInput)
        graph.add_edge(START, "setup")
        first = "setup"
    for a, b in zip([first, *chain], [*chain, "approve" if approval else spec.checked],
                    strict=True):
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


REPAIR_LOOP = ("prevalidate", "execute", "diagnose", "repair")


def build_repair_graph(checkpointer=None):
    """The run graph's own diagnose -> repair loop, alone: the same nodes and the same routing
    functions (bound to the `repair` topology), entered at pre-validation with the code to
    repair as the state's `current` candidate (a build_pipeline module or a plain script).
    Where the run graph would go on to draft, ensemble or report, this loop ends in `report`:
    nodes.stop_repair, which says why it stopped. Used by `pipesmith repair`."""
    spec = get_topology("repair")
    graph = StateGraph(RunState, context_schema=Deps)
    for name in REPAIR_LOOP:
        graph.add_node(name, timed(name, NODES[name]))
    graph.add_node("report", timed("report", nodes.stop_repair))
    graph.add_edge(START, spec.checked)
    for name in REPAIR_LOOP:
        route, targets = ROUTES[name]
        graph.add_conditional_edges(name, bound(route, spec),
                                    [t for t in targets if t in (*REPAIR_LOOP, "report")])
    graph.add_edge("report", END)
    return graph.compile(checkpointer=checkpointer)


def make_graph(config=None):
    """Factory for langgraph.json (LangGraph Studio / server supply their own checkpointer):
    the full graph with plain input, plan approval on request, and default Deps built from
    the settings (PIPESMITH_* environment; runs outside the reload watch: graph/served.py)
    on first use."""
    from functools import cache

    @cache
    def defaults() -> Deps:
        from pipesmith.core.driver import default_deps
        from pipesmith.graph.served import served_settings

        return default_deps(served_settings())

    return build_graph("full", approval=True, default_context=defaults, plain_input=True)
