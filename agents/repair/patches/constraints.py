"""Parameter compatibility from the estimator's declared constraints: when the installed
estimator refuses a combination of values ("Solver lbfgs supports only 'l2' or None
penalties, got l1 penalty"), try the values its `_parameter_constraints` enumerate for the
parameters the message names, on a small synthetic table in this process (library code
only), and keep the first combination it fits with."""

from __future__ import annotations

import ast
import re
import warnings

from pipesmith.agents.repair.patches import live
from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    callee_name,
    find_calls,
    replace_nodes,
)
from pipesmith.agents.schemas import Diagnosis

MAX_PROBES = 24  # fits of the synthetic table per repair, at most


def _constructions(tree: ast.Module, line: int | None) -> list[tuple[ast.Call, type]]:
    """Estimator constructions (with declared constraints) the failing line builds, or
    whose object it uses (`model.fit(...)` -> `model = X(...)`); else all of them."""
    built = []
    for call in find_calls(tree):
        cls = live.dotted(tree, ast.unparse(call.func)) if isinstance(
            call.func, (ast.Name, ast.Attribute)) else None
        if isinstance(cls, type) and getattr(cls, "_parameter_constraints", None):
            built.append((call, cls))
    if line is None:
        return built
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and getattr(n, "lineno", None) == line}
    assigned = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id in used for t in node.targets)}
    near = [(c, k) for c, k in built if c.lineno <= line <= c.end_lineno or id(c) in assigned]
    return near or built


def _literals(call: ast.Call) -> dict | None:
    values = {}
    for kw in call.keywords:
        if kw.arg is None:
            return None
        try:
            values[kw.arg] = ast.literal_eval(kw.value)
        except ValueError:  # a variable: the probe leaves it at its default
            continue
    return values


def _fits(cls: type, params: dict) -> bool:
    import numpy as np
    from sklearn.base import is_classifier, is_regressor
    from sklearn.datasets import make_classification, make_regression

    if is_regressor(cls()):
        X, y = make_regression(n_samples=60, n_features=4, random_state=0)
    else:
        X, y = make_classification(n_samples=60, n_features=4, n_informative=2,
                                   random_state=0)
    X = np.abs(X)  # some estimators take non-negative input only
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = cls(**params)
            est.fit(X, y) if is_classifier(est) or is_regressor(est) else est.fit(X)
    except Exception:  # this combination is refused too
        return False
    return True


def compatible_parameters(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Change one parameter the message names to the first value its declared constraints
    allow (its default first) with which the estimator fits: parameters the code left at
    their default before the ones it set (changing a value the author chose is noted, and
    the repair is partial)."""
    message = diagnosis.summary  # the refusal itself, not the library lines around it
    tree = ast.parse(code)
    probes = 0
    for call, cls in _constructions(tree, diagnosis.line):
        given = _literals(call)
        if given is None:
            continue
        named = [p for p in live.parameters(cls) if live.option_values(cls, p)
                 and re.search(rf"\b{re.escape(p)}", message, re.I)]
        if len(named) < 2 and not re.search(r"combination|supports? only|not supported",
                                            message, re.I):
            continue
        order = [p for p in named if p not in given] + [p for p in named if p in given]
        for param in order:
            values = live.option_values(cls, param)
            current = given[param] if param in given else values[0]  # unset: the default
            for value in values:
                if value == current or probes >= MAX_PROBES:
                    continue
                probes += 1
                if _fits(cls, {**given, param: value}):
                    return _set_keyword(code, call, param, value)
    return None


def _set_keyword(code: str, call: ast.Call, param: str, value) -> str:
    current = next((k for k in call.keywords if k.arg == param), None)
    if current is not None:
        return replace_nodes(code, [(current.value, repr(value))])
    text = ast.get_source_segment(code, call)
    return replace_nodes(code, [(call, text[:-1] + (", " if call.args or call.keywords else "")
                                 + f"{param}={value!r})")])


def changed_values(before: str, after: str, diagnosis: Diagnosis | None) -> list[str]:
    """The keyword values the author set that a patch changed (the estimator then runs, but
    not as configured)."""
    def values(code: str) -> dict[tuple[str, str, int], str]:
        return {(callee_name(c), k.arg, c.lineno): ast.unparse(k.value)
                for c in find_calls(ast.parse(code)) for k in c.keywords if k.arg}

    old, new = values(before), values(after)
    why = diagnosis.summary.splitlines()[0][:160] if diagnosis else "refused"
    return [f"changed {kw}={old[key]} to {kw}={new[key]} in {callee}(): {why}; the value "
            f"the code chose is not what runs" for key in sorted(old)
            if key in new and new[key] != old[key] for callee, kw, _ in [key]]
