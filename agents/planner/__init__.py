"""The planner: the data's profile (profiler.py), then candidate families for the task from
the family table and past runs (agent.py), or from a model (llm.py)."""
