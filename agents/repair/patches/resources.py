"""Repairs of resource failures: endless loops, oversized models, too many processes."""

from __future__ import annotations

import ast

from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    callee_name,
    find_calls,
    replace_nodes,
)
from pipesmith.agents.schemas import Diagnosis

# --- resources -------------------------------------------------------------------------------


def _is_forever(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value) is True


def remove_infinite_loop(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    tree = ast.parse(code)
    loops = [n for n in ast.walk(tree) if isinstance(n, ast.While) and _is_forever(n.test)
             and not any(isinstance(m, (ast.Break, ast.Return, ast.Raise)) for m in ast.walk(n))]
    return replace_nodes(code, [(loop, "pass") for loop in loops]) if loops else None


SHRINK = {  # keyword: (above this, set to this)
    "n_estimators": (200, 100), "max_iter": (2000, 500), "n_iter": (2000, 500),
    "epochs": (200, 50), "n_neighbors": (200, 50), "n_init": (20, 5),
    "batch_size": (1024, 128), "units": (4096, 256),
}
WIDTHS = ("hidden", "hidden_layer_sizes")  # a tuple of layer widths
WIDEST = (4096, 256)  # a layer wider than this becomes this wide


def shrink_model(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Cap model sizes (trees, iterations, layer widths, batches) and huge array shapes."""
    tree = ast.parse(code)
    edits = []
    for call in find_calls(tree):
        for kw in call.keywords:
            value = kw.value
            if kw.arg in SHRINK and isinstance(value, ast.Constant) and \
                    isinstance(value.value, int) and value.value > SHRINK[kw.arg][0]:
                edits.append((value, str(SHRINK[kw.arg][1])))
            if kw.arg in WIDTHS and isinstance(value, (ast.Tuple, ast.List)):
                edits += [(e, str(WIDEST[1])) for e in value.elts if isinstance(e, ast.Constant)
                          and isinstance(e.value, int) and e.value > WIDEST[0]]
        if callee_name(call) in ("ones", "zeros", "empty", "full", "rand", "randn", "random"):
            for const in ast.walk(call):
                if isinstance(const, ast.Constant) and isinstance(const.value, int) and \
                        const.value > 10_000:
                    edits.append((const, "1000"))
    return replace_nodes(code, edits) if edits else None


def single_process(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    tree = ast.parse(code)
    edits = [(kw.value, "1") for call in find_calls(tree) for kw in call.keywords
             if kw.arg == "n_jobs" and ast.unparse(kw.value) != "1"]
    return replace_nodes(code, edits) if edits else None


