"""agents/planner."""
