"""Search spaces per model family: what Optuna may vary, and in which range.

The spaces and costs are the families' own (`space`, `cost` in agents/families/); here
they become plans and trial parameters. A range is (kind, low, high, log) with kind "int"
or "float", or ("cat", choices). The cost orders the families cheap first, like FLAML:
the search tries cheap learners before expensive ones earn their cost.
"""

from __future__ import annotations

from typing import Any

from pipesmith.agents.families.registry import SPACES, cost_of


def searchable(families: list[str], spaces: dict | None = None) -> list[str]:
    """The families that have a space, cheapest first."""
    spaces = SPACES if spaces is None else spaces
    return sorted((f for f in families if spaces.get(f)), key=cost_of)


def default_plan(families: list[str]):
    """The offline search plan: the default spaces of the families that have one."""
    from pipesmith.agents.schemas import SearchPlan

    names = searchable(families)
    return SearchPlan(families=names, spaces={f: dict(SPACES[f]) for f in names})


def suggest(trial, family: str, spaces: dict | None = None) -> dict[str, Any]:
    """Hyperparameters for `family` from an Optuna trial (names prefixed by the family, so
    TPE keeps one model per family's parameters)."""
    params: dict[str, Any] = {}
    for name, spec in (SPACES if spaces is None else spaces)[family].items():
        key = f"{family}.{name}"
        if spec[0] == "int":
            params[name] = trial.suggest_int(key, spec[1], spec[2], log=spec[3])
        elif spec[0] == "float":
            params[name] = trial.suggest_float(key, spec[1], spec[2], log=spec[3])
        else:
            params[name] = trial.suggest_categorical(key, list(spec[1]))
    return params


def as_distributions(family: str, params: dict[str, Any],
                     spaces: dict | None = None) -> dict[str, Any]:
    """The trial parameters Optuna needs to enqueue a known configuration."""
    space = (SPACES if spaces is None else spaces).get(family, {})
    return {"family": family, **{f"{family}.{k}": v for k, v in params.items()
                                 if k in space}}
