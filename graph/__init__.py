"""The LangGraph state machine: state, nodes, pure routing, topologies, builder."""
