"""agents/search."""
