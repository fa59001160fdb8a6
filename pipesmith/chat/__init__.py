"""pipesmith/chat."""
