"""pipesmith/user_code."""
