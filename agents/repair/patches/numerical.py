"""Repairs of numerical and neural failures: scaling, learning rates, iterations, dtypes,
input widths, losses and gradients."""

from __future__ import annotations

import ast
import re

from pipesmith.agents.prevalidator.static_checks import imported_names
from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    callee_name,
    find_calls,
    message_text,
    replace_nodes,
    resolve,
    wrap_returns,
)
from pipesmith.agents.schemas import Diagnosis

# --- numerical ---------------------------------------------------------------------------------

_SCALE_HELPER = '''
def _pipesmith_scale(estimator):
    """Added by pipesmith's repair: standardise the features the model sees."""
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    if isinstance(estimator, Pipeline):
        return Pipeline(estimator.steps[:-1] + [("pipesmith_scale", StandardScaler())]
                        + estimator.steps[-1:])
    return Pipeline([("pipesmith_scale", StandardScaler()), ("model", estimator)])
'''


def scale_features(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    if "_pipesmith_scale(" in code:
        return None
    return wrap_returns(code, "_pipesmith_scale", _SCALE_HELPER)


LEARNING_RATES = ("learning_rate", "learning_rate_init", "eta0", "lr")


def lower_learning_rate(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    tree = ast.parse(code)
    edits = []
    for call in find_calls(tree):
        for kw in call.keywords:
            if kw.arg in LEARNING_RATES and isinstance(kw.value, ast.Constant) and \
                    isinstance(kw.value.value, int | float) and kw.value.value > 0:
                value = kw.value.value
                edits.append((kw.value, repr(value / 10 if value <= 0.1 else 0.01)))
    return replace_nodes(code, edits) if edits else None


LONGER = {"max_iter": (10, 10_000), "epochs": (4, 400)}  # keyword: (factor, cap)
TOO_SLOW_RATE = 1e-4  # a learning rate below this barely moves a network within the budget


def increase_iterations(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """More iterations or epochs (within a cap; at least the installed library's own
    default), and a learning rate that is not crawling."""
    tree = ast.parse(code)
    edits = []
    for call, kw in [(c, kw) for c in find_calls(tree) for kw in c.keywords]:
        if not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, int | float)):
            continue
        value = kw.value.value
        if kw.arg in LONGER and isinstance(value, int) and value < LONGER[kw.arg][1]:
            factor, cap = LONGER[kw.arg]
            default = _default(tree, callee_name(call), kw.arg)
            edits.append((kw.value, str(max(min(value * factor, cap), default or 0))))
        elif kw.arg in LEARNING_RATES and 0 < value < TOO_SLOW_RATE:
            edits.append((kw.value, "0.001"))
    return replace_nodes(code, edits) if edits else None


def _default(tree: ast.Module, callee: str, parameter: str) -> int | None:
    """The installed callable's default for `parameter`, when it is an int."""
    import inspect

    try:
        default = inspect.signature(resolve(tree, callee)).parameters[parameter].default
    except (TypeError, ValueError, KeyError):
        return None
    return default if isinstance(default, int) and not isinstance(default, bool) else None


def replace_placeholder_model(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A Dummy* estimator left in the code becomes gradient boosting."""
    tree = ast.parse(code)
    kind = "Classifier" if ctx.task_type == "classification" else "Regressor"
    calls = find_calls(tree, f"Dummy{kind}")
    if not calls:
        return None
    name = f"HistGradientBoosting{kind}"
    code = replace_nodes(code, [(call, f"{name}()") for call in calls])
    return f"from sklearn.ensemble import {name}\n" + code


# --- neural networks ---------------------------------------------------------------------------

DOUBLES = ("float64", "double")


def cast_float32(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Network layers hold float32 weights: make float64 data float32 where it is made."""
    tree = ast.parse(code)
    modules = {local for local, target in imported_names(tree).items()
               if target.split(".")[0] in ("numpy", "torch", "tensorflow")} | {"np", "torch"}
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in DOUBLES and \
                isinstance(node.value, ast.Name) and node.value.id in modules:
            edits.append((node, f"{node.value.id}.float32"))
        elif isinstance(node, ast.keyword) and node.arg == "dtype" and \
                isinstance(node.value, ast.Constant) and node.value.value in DOUBLES:
            edits.append((node.value, '"float32"'))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "double" and not node.args:
            edits.append((node.func, f"{ast.get_source_segment(code, node.func.value)}.float"))
    if not edits:  # float64 arrays turned into tensors as they are: the features only
        labels = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign)
                  and any(LABELS.search(ast.unparse(t)) for t in n.targets)}
        edits = [(call, f"{ast.get_source_segment(code, call)}.float()")
                 for call in find_calls(tree) if callee_name(call) in TENSOR_MAKERS
                 and call.args and not any(kw.arg == "dtype" for kw in call.keywords)
                 and id(call) not in labels
                 and not LABELS.search(ast.get_source_segment(code, call.args[0]) or "")]
    return replace_nodes(code, edits) if edits else None


TENSOR_MAKERS = ("from_numpy", "tensor", "as_tensor")
LABELS = re.compile(r"(^|\W)(y|Y)(\W|_|$)|label|target|class", re.I)


_WIDTHS_IN_MESSAGE = (  # (given, expected) input widths, from the frameworks' messages
    re.compile(r"shapes cannot be multiplied \(\d+x(\d+) and (\d+)x\d+\)"),
    re.compile(r"expected axis -1 of input shape to have value (\d+), but received input with "
               r"shape \(\S+, (\d+)\)"),
)


def _message_widths(message: str) -> tuple[int, int] | None:
    torch_style = _WIDTHS_IN_MESSAGE[0].search(message)
    if torch_style:
        return int(torch_style.group(1)), int(torch_style.group(2))
    keras_style = _WIDTHS_IN_MESSAGE[1].search(message)
    if keras_style:
        return int(keras_style.group(2)), int(keras_style.group(1))
    return None


def infer_input_width(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A hard-coded input width goes: `input_width=N` becomes None (inferred at fit), and a
    first layer built for the wrong width (`Linear(N, ...)`, `Input(shape=(N,))`) gets the
    width the data has, read from the error."""
    tree = ast.parse(code)
    edits = [(kw.value, "None") for call in find_calls(tree) for kw in call.keywords
             if kw.arg == "input_width" and isinstance(kw.value, ast.Constant)
             and isinstance(kw.value.value, int)]
    widths = _message_widths(message_text(diagnosis))
    if edits or widths is None:
        return replace_nodes(code, edits) if edits else None
    given, expected = widths
    for call in find_calls(tree, "Linear") + find_calls(tree, "Input") + find_calls(tree, "Dense"):
        candidates = call.args[:1] + [kw.value for kw in call.keywords
                                      if kw.arg in ("in_features", "shape", "input_dim")]
        for node in candidates:
            for const in ast.walk(node):
                if isinstance(const, ast.Constant) and const.value == expected:
                    edits.append((const, str(given)))
    return replace_nodes(code, edits[:1]) if edits else None


BINARY_LOSSES = ("BCELoss", "BCEWithLogitsLoss")
KERAS_LOSSES = {"classification": "sparse_categorical_crossentropy", "regression": "mse"}


def fix_loss(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """The loss the task and integer labels want: `loss=` on an estimator goes back to "auto"
    (it picks by task), a Keras loss name becomes sparse categorical cross-entropy (or MSE
    for regression), and a binary cross-entropy module becomes CrossEntropyLoss."""
    tree = ast.parse(code)
    edits = []
    for call in find_calls(tree):
        for kw in call.keywords:
            if kw.arg != "loss" or not isinstance(kw.value, ast.Constant) or \
                    not isinstance(kw.value.value, str):
                continue
            estimator = callee_name(call).endswith(("Classifier", "Regressor"))
            wanted = "auto" if estimator else KERAS_LOSSES.get(ctx.task_type)
            if wanted and kw.value.value != wanted:
                edits.append((kw.value, repr(wanted)))
    if ctx.task_type == "classification":
        edits += [(call.func, ast.get_source_segment(code, call.func).rsplit(".", 1)[0]
                   + ".CrossEntropyLoss" if isinstance(call.func, ast.Attribute)
                   else "CrossEntropyLoss")
                  for name in BINARY_LOSSES for call in find_calls(tree, name)]
    return replace_nodes(code, edits) if edits else None


def swapped_losses(before: str, after: str, diagnosis: Diagnosis | None) -> list[str]:
    """A binary loss fix_loss replaced with CrossEntropyLoss: it runs, but it wants one
    output per class, and a network with one output unit no longer learns anything."""
    def count(code: str) -> int:
        return sum(len(find_calls(ast.parse(code), name)) for name in BINARY_LOSSES)

    def one_output(call: ast.Call) -> bool:  # Linear(n, 1) or Linear(n, out_features=1)
        out = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "out_features"), None)
        return isinstance(out, ast.Constant) and out.value == 1

    if count(after) >= count(before) or \
            not any(one_output(c) for c in find_calls(ast.parse(after), "Linear")):
        return []
    return ["replaced a binary cross-entropy loss with CrossEntropyLoss, but a layer has one "
            "output unit: CrossEntropyLoss wants one output per class, and over one output "
            "it is constant, so nothing is learnt; the output size needs the author's eye"]


def _classes_taking(tree: ast.Module, parameter: str) -> set[str]:
    """Classes of the module, or imported from pipesmith.estimators, whose __init__ takes
    `parameter`, with the module's subclasses of them."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    found = {name for name, node in classes.items() for item in node.body
             if isinstance(item, ast.FunctionDef) and item.name == "__init__"
             and parameter in [a.arg for a in item.args.args]}
    found |= {local for local, target in imported_names(tree).items()
              if target.startswith("pipesmith.estimators:")
              and parameter in _init_parameters(target)}
    grew = True
    while grew:
        more = {name for name, node in classes.items()
                if any(getattr(b, "id", None) in found for b in node.bases)} - found
        found |= more
        grew = bool(more)
    return found


def _init_parameters(target: str) -> tuple[str, ...]:
    """The constructor parameters of an importable class named "module:attr"; () if none."""
    import importlib
    import inspect

    module, _, attr = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module), attr)
        return tuple(inspect.signature(cls).parameters)
    except Exception:  # not importable here: nothing to add
        return ()


CLIP_NORM = 1.0


def clip_gradients(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Clip gradient norms: `clip_norm`/`clipnorm` set to 1.0 where unset, and added to the
    construction of the module's own estimators that take it."""
    tree = ast.parse(code)
    takers = _classes_taking(tree, "clip_norm")
    edits = []
    for call in find_calls(tree):
        current = [kw for kw in call.keywords if kw.arg in ("clip_norm", "clipnorm")]
        if current:
            value = current[0].value
            if isinstance(value, ast.Constant) and value.value is None:
                edits.append((value, repr(CLIP_NORM)))
        elif callee_name(call) in takers:
            call.keywords.append(ast.keyword(arg="clip_norm", value=ast.Constant(CLIP_NORM)))
            edits.append((call, ast.unparse(call)))
    return replace_nodes(code, edits) if edits else None
