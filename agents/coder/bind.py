"""A search winner's module: the searchable module its trials ran, verbatim, with the
winning trial's hyperparameters bound, so the candidate is provably the pipeline the trial
fitted (agents/search/adopt.py compares the code to this, character for character)."""

from __future__ import annotations

import ast

BINDING = '''

# Search trial {number}'s hyperparameters, bound: the module above is the one the search's
# trials ran; this candidate is what it built for that trial.
SEARCH_TRIAL_PARAMS = {params!r}
_build_searchable = build_pipeline


def build_pipeline(task):
    return _build_searchable({{**task, "params": SEARCH_TRIAL_PARAMS}})
'''


def bindable(params: dict) -> bool:
    """Whether the parameters survive as a literal (what Optuna suggests: numbers, strings,
    booleans, None)."""
    try:
        return ast.literal_eval(repr(params)) == params
    except (ValueError, SyntaxError):
        return False


def bound_module(module: str, params: dict, number: int) -> str:
    return module.rstrip("\n") + "\n" + BINDING.format(number=number, params=params)
