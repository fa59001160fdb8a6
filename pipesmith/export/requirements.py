"""The bundle's requirements.txt: every distribution the pipeline imports at train and
predict time, pinned `==` to the installed (the run's) versions, CPU builds of torch and
TensorFlow, and checked for conflicts with `pipesmith.agents.prevalidator.dependencies`."""

from __future__ import annotations

import ast
import sys
from importlib.metadata import PackageNotFoundError, packages_distributions, version

from packaging.utils import canonicalize_name

from pipesmith.agents.prevalidator.dependencies import Conflict, conflicts
from pipesmith.errors import InputError

SCRIPT_MODULES = ("numpy", "pandas", "pyarrow", "joblib")  # predict.py's own imports
NOT_SHIPPED = ("candidate", "pipesmith", "__main__")  # vendored into the bundle instead
CPU_BUILDS = {"tensorflow": "tensorflow-cpu", "tensorflow-gpu": "tensorflow-cpu"}
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def code_imports(code: str, module_level: bool = False) -> set[str]:
    """Top-level modules a module imports (absolute imports only; with module_level, only
    those its import runs, not those inside functions)."""
    tree = ast.parse(code)
    found = set()
    for node in (tree.body if module_level else ast.walk(tree)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def distributions_of(modules: set[str]) -> dict[str, str]:
    """Distribution -> installed version for each third-party top-level module."""
    owners = packages_distributions()
    pins: dict[str, str] = {}
    for module in sorted(modules):
        if module in sys.stdlib_module_names or module in NOT_SHIPPED or module.startswith("_"):
            continue
        for dist in owners.get(module, []):
            try:
                pins[canonicalize_name(dist)] = version(dist)
            except PackageNotFoundError:
                continue
    return pins


def cpu_builds(pins: dict[str, str]) -> dict[str, str]:
    """tensorflow -> tensorflow-cpu; torch keeps its name (its `+cpu` local version and the
    CPU index in requirements.txt select the CPU wheel)."""
    return {CPU_BUILDS.get(name, name): pinned for name, pinned in pins.items()}


def pinned(modules: set[str]) -> dict[str, str]:
    return cpu_builds(distributions_of(modules | set(SCRIPT_MODULES)))


def check(pins: dict[str, str]) -> list[Conflict]:
    """Conflicts among the pins, resolved against the installed distributions' metadata."""
    return conflicts(pins)


def requirements_text(pins: dict[str, str]) -> str:
    lines = ["# Written by `pipesmith export`: the versions the run used.",
             "# Install with: pip install -r requirements.txt"]
    if "torch" in pins:
        lines.append(f"--extra-index-url {TORCH_CPU_INDEX}")
    lines += [f"{name}=={pinned_version}" for name, pinned_version in sorted(pins.items())]
    return "\n".join(lines) + "\n"


def conflict_error(found: list[Conflict]) -> InputError:
    return InputError("the bundle's requirements conflict: "
                      + "; ".join(conflict.message for conflict in found))
