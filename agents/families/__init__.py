"""agents/families."""
