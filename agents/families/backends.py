"""Model backends (scikit-learn, PyTorch, TensorFlow) and whether this interpreter has them.

Availability is looked up on the import path without importing anything: importing
TensorFlow costs seconds and hundreds of megabytes, and the candidates import it in the
sandbox anyway.
"""

from __future__ import annotations

import importlib.util

from pipesmith.errors import InputError

BACKENDS = ("sklearn", "torch", "tensorflow")
CHOICES = (*BACKENDS, "auto")
MODULES = {"sklearn": ("sklearn",), "torch": ("torch",), "tensorflow": ("tensorflow", "keras")}
EXTRAS = {"torch": "torch", "tensorflow": "tensorflow"}
NEURAL_MIN_ROWS = 500  # `auto` adds a neural candidate only from this many rows on


def available(backend: str) -> bool:
    return all(importlib.util.find_spec(module) is not None for module in MODULES[backend])


def check_backend(backend: str) -> None:
    """Bad input (exit 2) when the backend is unknown or its extra is not installed."""
    if backend not in CHOICES:
        raise InputError(f"--backend must be one of {', '.join(CHOICES)}, not {backend!r}")
    if backend in EXTRAS and not available(backend):
        raise InputError(f"the {backend} backend is not installed: "
                         f'pip install "pipesmith[{EXTRAS[backend]}]"')


def planned_backends(requested: str, n_rows: int) -> tuple[str, ...]:
    """The backends the planner may draw families from, best first.

    `sklearn`, `torch` and `tensorflow` ask for one backend; `auto` keeps scikit-learn and
    adds the first installed neural backend when the data has rows enough for a network.
    """
    if requested != "auto":
        return (requested,)
    neural = [b for b in ("torch", "tensorflow") if available(b)]
    return ("sklearn", *neural[:1]) if neural and n_rows >= NEURAL_MIN_ROWS else ("sklearn",)
