"""Process plumbing of a command: live progress, SIGTERM handled like SIGINT, one command
at a time per run directory."""
