"""pipesmith/runtime."""
