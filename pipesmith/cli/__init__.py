"""The command line: one module per command, each with `register(app)` (app.py)."""

from pipesmith.cli.app import app

__all__ = ["app"]
