"""structlog configuration: quiet key-value lines by default, JSON with --log-json."""

from __future__ import annotations

import logging
import sys

import structlog


class CurrentStderr:
    """Writes to sys.stderr as it is at each write, not as it was when logging was
    configured: test runners and embedding applications swap it (and close the old one)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_logging(json_logs: bool = False, level: str = "warning") -> None:
    renderer = (structlog.processors.JSONRenderer() if json_logs
                else structlog.dev.ConsoleRenderer(colors=False))
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=structlog.PrintLoggerFactory(file=CurrentStderr()),
        cache_logger_on_first_use=False,
    )
