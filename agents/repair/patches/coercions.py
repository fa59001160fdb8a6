"""Type and shape coercions at the failing expression: a 1-D feature array made 2-D, a
tensor that carries gradients detached before numpy sees it, a reduction over text
columns told to take the numeric ones (where the installed method takes `numeric_only`)."""

from __future__ import annotations

import ast
import re

from pipesmith.agents.prevalidator.static_checks import imported_names
from pipesmith.agents.repair.patches import live
from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    find_calls,
    insert_after_imports,
    message_text,
    replace_nodes,
)
from pipesmith.agents.schemas import Diagnosis

# estimator methods whose first argument is the feature matrix
FEATURE_METHODS = ("fit", "predict", "predict_proba", "predict_log_proba", "score",
                   "transform", "fit_transform", "fit_predict", "decision_function")


def _at(call: ast.AST, line: int | None) -> bool:
    return line is not None and call.lineno <= line <= call.end_lineno


def _split_partners(tree: ast.Module, name: str) -> set[str]:
    """`X_tr, X_te, y_tr, y_te = train_test_split(X, y)`: X_tr's partner is X_te (the split
    returns train and test of each array in turn)."""
    partners = {name}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                isinstance(node.targets[0], ast.Tuple):
            names = [getattr(e, "id", None) for e in node.targets[0].elts]
            if name in names and len(names) % 2 == 0:
                partners.add(names[names.index(name) ^ 1])
    partners.discard(None)
    return partners


_TWO_D_HELPER = '''
def _pipesmith_2d(values):
    """Added by pipesmith's repair: a single feature as a column (the estimator wants a 2-D
    array, "Reshape your data ... array.reshape(-1, 1)")."""
    import numpy as np

    return np.asarray(values).reshape(-1, 1) if np.ndim(values) == 1 else values
'''


def reshape_2d(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"Expected 2D array, got 1D array": the feature argument of the failing estimator call
    becomes a column, and so does the same array (and its train/test partner) wherever an
    estimator method takes it; the target and the other arguments stay as they are."""
    tree = ast.parse(code)
    failing = [c for c in find_calls(tree) if isinstance(c.func, ast.Attribute)
               and c.func.attr in FEATURE_METHODS and c.args and _at(c, diagnosis.line)]
    if not failing:
        return None
    first = failing[0].args[0]
    texts = {ast.unparse(first)}
    if isinstance(first, ast.Name):
        texts |= _split_partners(tree, first.id)
    edits = [(c.args[0], f"_pipesmith_2d({ast.get_source_segment(code, c.args[0])})")
             for c in find_calls(tree) if isinstance(c.func, ast.Attribute)
             and c.func.attr in FEATURE_METHODS and c.args
             and (ast.unparse(c.args[0]) in texts or _two_d_only(tree, c.func.value))]
    code = replace_nodes(code, edits)
    return code if "def _pipesmith_2d(" in code else insert_after_imports(code, _TWO_D_HELPER)


def _two_d_only(tree: ast.Module, receiver: ast.expr) -> bool:
    """Whether the estimator a method is called on takes 2-D input only, by its own tags
    (a classifier's predict after a separately built test array; not a LabelEncoder, which
    takes 1-D labels). The helper leaves 2-D input as it is, so wrapping is safe there."""
    if isinstance(receiver, ast.Name):
        cls = live.constructed_class(tree, receiver.id)
    elif isinstance(receiver, ast.Call):
        cls = live.dotted(tree, ast.unparse(receiver.func))
    else:
        return False
    tags = live.input_tags(cls) if isinstance(cls, type) else None
    return bool(tags) and tags["two_d"] and not tags["one_d"]


def detach_tensor(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"Can't call numpy() on Tensor that requires grad": the tensor is detached from the
    graph before it leaves torch (`t.numpy()` -> `t.detach().numpy()`, `np.asarray(t)` ->
    `np.asarray(t.detach())`), at the failing line first, else wherever `.numpy()` is called
    on a tensor not yet detached. A device tensor also goes to the CPU when the message
    says so."""
    message = message_text(diagnosis)
    grad = "requires grad" in message
    device = re.search(r"can't convert \w+(:\d+)? device type tensor to numpy", message, re.I)
    if not (grad or device):
        return None
    step = (".detach()" if grad else "") + (".cpu()" if device else "")
    tree = ast.parse(code)
    numpy_calls = [c for c in find_calls(tree, "numpy") if isinstance(c.func, ast.Attribute)
                   and not c.args and step not in ast.unparse(c.func.value)]
    arrays = {local for local, target in imported_names(tree).items() if target == "numpy"}
    wrapped = [c for c in find_calls(tree) if isinstance(c.func, ast.Attribute)
               and c.func.attr in ("array", "asarray") and isinstance(c.func.value, ast.Name)
               and c.func.value.id in arrays and c.args and _at(c, diagnosis.line)]
    chosen = [c for c in numpy_calls if _at(c, diagnosis.line)] or \
        ([] if wrapped else numpy_calls)
    edits = [(c.func.value, ast.get_source_segment(code, c.func.value) + step) for c in chosen]
    edits += [(c.args[0], f"{ast.get_source_segment(code, c.args[0])}{step}") for c in wrapped
              if not any(c.args[0] is e for e, _ in edits)]
    return replace_nodes(code, edits) if edits else None


REDUCTION_FAILED = re.compile(r"Cannot perform reduction '(\w+)'|could not convert string to "
                              r"float|Could not convert .* to numeric|agg function failed")


def numeric_only(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A reduction over a table with text columns (`df.mean()`, `df.corr()`) at the failing
    line: `numeric_only=True`, where the installed library's method of that name takes it
    (read from its signature). The text columns are left out of that statistic only."""
    message = message_text(diagnosis)
    found = REDUCTION_FAILED.search(message)
    if not found:
        return None
    tree = ast.parse(code)
    at_line = [c for c in find_calls(tree) if isinstance(c.func, ast.Attribute)
               and _at(c, diagnosis.line)]
    if any(c.func.attr in FEATURE_METHODS for c in at_line):
        return None  # text reached an estimator: encoding it is the fix, not a reduction
    calls = [c for c in at_line if not any(k.arg == "numeric_only" for k in c.keywords)
             and (found.group(1) in (None, c.func.attr))
             and takes_keyword(tree, c.func.attr, "numeric_only")]
    edits = [(c, ast.get_source_segment(code, c)[:-1]
              + (", " if c.args or c.keywords else "") + "numeric_only=True)") for c in calls]
    return replace_nodes(code, edits) if edits else None


def takes_keyword(tree: ast.Module, method: str, keyword: str) -> bool:
    """Whether a public class of a library the code imports has a method `method` that
    takes `keyword` (pandas' DataFrame.mean takes numeric_only)."""
    roots = dict.fromkeys(t.partition(":")[0].split(".")[0]
                          for t in imported_names(tree).values())
    for root in roots:
        module = live.library_module(root)
        for name in dir(module) if module is not None else []:
            cls = getattr(module, name, None)
            if isinstance(cls, type) and keyword in live.parameters(getattr(cls, method, None)):
                return True
    return False


CUDA = re.compile(r"^cuda(:\d+)?$")


def use_cpu(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A GPU asked for where there is none ("Torch not compiled with CUDA enabled"): the
    device strings "cuda" / "cuda:N" become "cpu" and `.cuda()` becomes `.cpu()`. The model
    and its results are the same; only where it runs changes."""
    tree = ast.parse(code)
    edits: list[tuple[ast.AST, str]] = [
        (node, '"cpu"') for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and CUDA.match(node.value)]
    edits += [(call.func, f"{ast.get_source_segment(code, call.func.value)}.cpu")
              for call in find_calls(tree, "cuda")
              if isinstance(call.func, ast.Attribute) and not call.args]
    return replace_nodes(code, edits) if edits else None


def writable_copy(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"assignment destination is read-only": the array written in place at the failing
    line (`a[mask] = v`, `np.clip(a, lo, hi, out=a)`) is a read-only view of a frame
    (pandas 3 copy-on-write, `to_numpy()`/`.values`); its last assignment before that line
    takes a copy, so the frame itself stays as it was."""
    if "destination is read-only" not in message_text(diagnosis):
        return None
    tree = ast.parse(code)
    written = set()
    for node in ast.walk(tree):
        if not (diagnosis.line and getattr(node, "lineno", None) == diagnosis.line):
            continue
        if isinstance(node, ast.Assign | ast.AugAssign):
            for target in getattr(node, "targets", [getattr(node, "target", None)]):
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    written.add(target.value.id)
        elif isinstance(node, ast.Call):
            written |= {kw.value.id for kw in node.keywords
                        if kw.arg == "out" and isinstance(kw.value, ast.Name)}
    assigns = [n for n in ast.walk(tree) if isinstance(n, ast.Assign)
               and n.lineno < (diagnosis.line or 0) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name) and n.targets[0].id in written]
    if not assigns:
        return None
    last = max(assigns, key=lambda n: n.lineno)
    return replace_nodes(code, [(last.value,
                                 f"({ast.get_source_segment(code, last.value)}).copy()")])
