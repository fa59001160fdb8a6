"""agents/coder."""
