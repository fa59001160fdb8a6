"""agents/repair."""
