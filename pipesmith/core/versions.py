"""Library versions recorded with every run."""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version

LIBRARIES = ("pipesmith", "scikit-learn", "pandas", "numpy", "langgraph", "chromadb", "pydantic")


def library_versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    return found
