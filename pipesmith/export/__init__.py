"""pipesmith/export."""
