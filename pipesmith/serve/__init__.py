"""pipesmith/serve."""
