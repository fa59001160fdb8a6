"""pipesmith/core."""
