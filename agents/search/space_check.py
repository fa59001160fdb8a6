"""Check a proposed search space against the installed estimator before any trial runs.

A range is (kind, low, high, log) with kind "int" or "float", or ("cat", choices), as in
agents/search/space.py. Each proposed range must be well formed, name a keyword the
family's estimator takes (`get_params()` of the installed class) that the candidate's code
does not set itself (threads, seeds, verbosity), and both its ends (or every choice) must
pass the estimator's own parameter constraints: scikit-learn's `_parameter_constraints`
where the class has them, else a probe fit on a tiny table (LightGBM, XGBoost, CatBoost
validate at fit), with the iteration count kept small and bounded statically instead.
What fails is dropped with its reason; the caller logs it.
"""

from __future__ import annotations

import importlib
import math
import warnings
from typing import Any

import numpy as np
import pandas as pd

from pipesmith.agents.families.registry import Family, get_family

Range = tuple
SET_BY_HARNESS = {"n_jobs", "random_state", "random_seed", "seed", "thread_count",
                  "verbose", "verbosity", "silent", "callbacks", "allow_writing_files",
                  "train_dir", "device", "nthread", "num_threads"}
ITERATIONS = {"n_estimators", "iterations", "max_iter", "num_boost_round"}
MAX_ITERATIONS = 5000
MAX_ABS = 1e6  # no hyperparameter worth searching goes beyond this


def estimator_class(family: Family):
    return getattr(importlib.import_module(family.module), family.cls)


def _shape(spec: Range) -> str:
    """The problem with a range's form, or ''."""
    if not isinstance(spec, tuple | list) or not spec:
        return "not a range"
    kind = spec[0]
    if kind == "cat":
        choices = spec[1] if len(spec) > 1 else None
        if not isinstance(choices, list | tuple) or not choices:
            return "a categorical range needs choices"
        if any(c is not None and not isinstance(c, str | int | float | bool) for c in choices):
            return "choices must be strings, numbers, booleans or null"
        return ""
    if kind not in ("int", "float") or len(spec) != 4:
        return f"unknown kind {kind!r}"
    _, low, high, log = spec
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (low, high)):
        return "low and high must be numbers"
    if not (math.isfinite(low) and math.isfinite(high)) or max(abs(low), abs(high)) > MAX_ABS:
        return "low and high must be finite and moderate"
    if kind == "int" and (low != int(low) or high != int(high)):
        return "an int range needs integer ends"
    if not low < high:
        return "low must be below high"
    if log and low <= 0:
        return "a log range needs low > 0"
    return ""


def _values(spec: Range) -> list[Any]:
    if spec[0] == "cat":
        return list(spec[1])
    cast = int if spec[0] == "int" else float
    return [cast(spec[1]), cast(spec[2])]


def _normal(spec: Range) -> Range:
    if spec[0] == "cat":
        return ("cat", tuple(spec[1]))
    cast = int if spec[0] == "int" else float
    return (spec[0], cast(spec[1]), cast(spec[2]), bool(spec[3]))


def check_space(task_type: str, family_name: str,
                ranges: dict[str, Range]) -> tuple[dict[str, Range], list[str]]:
    """(the ranges that hold, normalised; one line per dropped range)."""
    family = get_family(task_type, family_name)
    cls = estimator_class(family)
    known = _keywords(cls)
    constraints = getattr(cls, "_parameter_constraints", None) or {}
    kept: dict[str, Range] = {}
    dropped: list[str] = []
    for name, spec in ranges.items():
        problem = _shape(spec)
        if not problem and name not in known:
            problem = f"not a parameter of {family.cls}"
        if not problem and (name in SET_BY_HARNESS or name == family.threads):
            problem = "set by the candidate's code, not searched"
        if not problem and name in ITERATIONS and (
                spec[0] != "int" or spec[1] < 1 or spec[2] > MAX_ITERATIONS):
            problem = f"an iteration count must be an int range within 1..{MAX_ITERATIONS}"
        if not problem and name in constraints:
            problem = _sklearn_problem(cls, name, constraints[name], _values(spec))
        if problem:
            dropped.append(f"{family_name}.{name}: {problem}")
        else:
            kept[name] = _normal(spec)
    # the rest is validated at fit: probe both ends together, then one by one
    probed = {n: s for n, s in kept.items() if n not in constraints}
    for end in (0, 1):
        if not probed or not _probe(family, cls, task_type,
                                    {n: _end(s, end) for n, s in probed.items()}):
            continue
        for name in list(probed):
            problem = _probe(family, cls, task_type, {name: _end(probed[name], end)})
            if problem:
                dropped.append(f"{family_name}.{name}: {problem}")
                kept.pop(name)
                probed.pop(name)
    return kept, dropped


def _keywords(cls) -> set[str]:
    """The keywords the estimator takes: its get_params() (scikit-learn convention) and
    its constructor's named parameters (CatBoost's get_params lists only those set)."""
    import inspect

    names = set(cls().get_params())
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is not None:
            names |= {p.name for p in inspect.signature(init).parameters.values()
                      if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)} - {"self"}
    return names


def _end(spec: Range, end: int):
    return spec[1][-end] if spec[0] == "cat" else spec[1 + end]


def _sklearn_problem(cls, name: str, constraint, values: list) -> str:
    from sklearn.utils._param_validation import validate_parameter_constraints

    for value in values:
        try:
            validate_parameter_constraints({name: constraint}, {name: value}, cls.__name__)
        except Exception as exc:  # InvalidParameterError and friends
            return str(exc).splitlines()[0][:200]
    return ""


def _probe(family: Family, cls, task_type: str, params: dict) -> str:
    """'' when the estimator fits a tiny table with `params`, else why not."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "b", "c"])
    y = (X["a"] > 0).astype(int) if task_type == "classification" else X["a"] * 2.0
    settings = {**family.params, **params}
    for name in ITERATIONS & set(settings):
        settings[name] = 2  # the iteration count is bounded statically above
    if family.parallel:
        settings[family.threads] = 1
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cls(**settings).fit(X, y)
    except Exception as exc:  # the library's own validation
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        return f"{type(exc).__name__}: {first}"
    return ""
