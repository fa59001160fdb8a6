"""Static checks of hand-written torch and Keras networks against the data's profile.

- input width: the first layer's literal width (`nn.Linear(12, ...)`, `keras.Input(shape=(12,))`,
  `input_dim=12`) against the number of features, when the code feeds every feature but the
  target unchanged (all numeric, nothing encodes, selects or transforms them);
- dtype: features made a tensor from a float64 frame (`.to_numpy()` / `.values` without a
  dtype) and fed to float32 layers, with no cast anywhere;
- loss/target: a binary loss (torch's BCE, Keras' binary cross-entropy) for a target with
  more than two classes, nothing one-hot.

Each stays silent whenever the code might handle the concern.
"""

from __future__ import annotations

import ast

from pipesmith.agents.prevalidator.static_checks import _MISSING, imported_names, resolve, walk
from pipesmith.agents.schemas import DataProfile, Issue

RESHAPES = ("get_dummies", "concat", "hstack", "column_stack", "select_dtypes", "iloc", "loc",
            "filter", "reshape", "view", "cat", "unsqueeze", "Embedding", "Conv1d", "Conv2d",
            "LSTM", "GRU", "RNN", "Flatten", "Reshape", "Concatenate", "Conv1D", "Conv2D",
            "Normalization", "one_hot", "to_categorical", "Discretization")
CASTS = ("float", "double", "to", "type", "astype", "set_default_dtype", "half")
KERAS_BINARY = ("binary_crossentropy", "binary_focal_crossentropy")
BINARY_LOSSES = ("BCEWithLogitsLoss", "BCELoss", "binary_cross_entropy",
                 "binary_cross_entropy_with_logits")


def _calls(tree: ast.AST, names: dict[str, str]):
    for node in walk(tree):
        if isinstance(node, ast.Call):
            target = resolve(node.func, names)
            if target is not _MISSING:
                yield node, target


def _module_of(target) -> str:
    return getattr(target, "__module__", "") or ""


def _drops_only_target(tree: ast.AST, target: str) -> bool:
    drops = [n for n in walk(tree) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Attribute) and n.func.attr == "drop"]
    if not drops:
        return False
    for call in drops:
        values = [kw.value for kw in call.keywords if kw.arg == "columns"] + call.args[:1]
        try:
            dropped = [ast.literal_eval(v) for v in values]
        except (ValueError, SyntaxError, TypeError):
            return False
        flat = {d for v in dropped for d in ([v] if isinstance(v, str) else v)}
        if flat != {target}:
            return False
    return True


def _feature_width(tree: ast.AST, profile: DataProfile, names: dict[str, str]) -> int | None:
    """The number of features the network sees, when that is certain."""
    if profile.target is None or any(c.kind != "numeric" for c in profile.columns):
        return None
    if not _drops_only_target(tree, profile.target):
        return None
    used = {n.attr for n in walk(tree) if isinstance(n, ast.Attribute)} | \
        {n.id for n in walk(tree) if isinstance(n, ast.Name)}
    if used & set(RESHAPES):
        return None
    if any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.List)
           for n in walk(tree)):
        return None  # a column selection
    for _, target in _calls(tree, names):
        if isinstance(target, type) and _module_of(target).startswith("sklearn") and \
                hasattr(target, "transform"):
            return None
    return len(profile.columns)


def _first_layer_width(tree: ast.AST, names: dict[str, str]) -> tuple[int, ast.AST] | None:
    """The literal input width of the first layer that declares one, in source order: any
    `nn.Linear`, a Keras `Input`/`InputLayer` shape or a layer's `input_shape`/`input_dim`.
    None when that first declaration is not a literal (`nn.Linear(width, 32)`)."""
    found = []
    for call, target in _calls(tree, names):
        name, module = getattr(target, "__name__", ""), _module_of(target)
        if name == "Linear" and module.startswith("torch"):
            value = call.args[0] if call.args else next(
                (kw.value for kw in call.keywords if kw.arg == "in_features"), None)
            found.append((call, value, False))
        elif module.startswith("keras"):
            for kw in call.keywords:
                if kw.arg == "shape" and name in ("Input", "InputLayer") or \
                        kw.arg in ("input_shape", "batch_input_shape"):
                    found.append((call, kw.value, True))
                elif kw.arg == "input_dim":
                    found.append((call, kw.value, False))
    if not found:
        return None
    call, value, is_shape = min(found, key=lambda f: (f[0].lineno, f[0].col_offset))
    try:
        width = ast.literal_eval(value) if value is not None else None
    except (ValueError, SyntaxError, TypeError):
        return None
    if is_shape:
        width = width[-1] if isinstance(width, tuple) and len(width) == 1 else None
    return (width, call) if isinstance(width, int) else None


def check_input_width(tree: ast.AST, profile: DataProfile, names) -> list[Issue]:
    first = _first_layer_width(tree, names)
    width = _feature_width(tree, profile, names) if first else None
    if first is None or width is None or first[0] == width:
        return []
    expected, call = first
    if _module_of(resolve(call.func, names)).startswith("torch"):  # worded as each raises
        out = call.args[1].value if len(call.args) > 1 and \
            isinstance(call.args[1], ast.Constant) else 1
        message = (f"mat1 and mat2 shapes cannot be multiplied ({profile.n_rows}x{width} and "
                   f"{expected}x{out}): the first layer takes {expected} inputs and the data "
                   f"has {width} features")
    else:
        message = (f"expected axis -1 of input shape to have value {expected}, but received "
                   f"input with shape (None, {width}): the data has {width} features")
    return [Issue(taxonomy_class="neural", subclass="input_width", line=call.lineno,
                  message=message)]


def _from_frame_without_dtype(node: ast.expr, assigned: dict[str, list[ast.expr]]) -> bool:
    if isinstance(node, ast.Name) and node.id in assigned:
        values = assigned[node.id]  # the first binding, when the rest only do arithmetic on it
        rest_is_arithmetic = all(
            isinstance(v, ast.BinOp) and node.id in {n.id for n in ast.walk(v)
                                                     if isinstance(n, ast.Name)}
            and not any(isinstance(n, ast.Attribute) and n.attr in CASTS for n in ast.walk(v))
            for v in values[1:])
        if not rest_is_arithmetic:
            return False
        node = values[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "to_numpy":
        return not node.args and not any(kw.arg == "dtype" for kw in node.keywords) and \
            "drop" in ast.unparse(node.func.value)
    return isinstance(node, ast.Attribute) and node.attr == "values" and \
        "drop" in ast.unparse(node.value)


def _cast(tree: ast.AST, call: ast.Call, assigned_to: str | None) -> bool:
    """The tensor made by `call` (or the variable it is bound to) is cast somewhere, or the
    network or the default dtype is."""
    for node in walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr not in CASTS:
            continue
        if node.attr in ("double", "half", "set_default_dtype") or node.value is call:
            return True
        base = node.value
        while isinstance(base, ast.Subscript):
            base = base.value
        if isinstance(base, ast.Name) and base.id == assigned_to:
            return True
    return False


def check_float64(tree: ast.AST, profile: DataProfile, names) -> list[Issue]:
    layers = [c for c, t in _calls(tree, names) if getattr(t, "__name__", "") == "Linear"
              and _module_of(t).startswith("torch")]
    if not layers or not all(c.kind == "numeric" for c in profile.columns):
        return []
    assigned: dict[str, list[ast.expr]] = {}
    for node in sorted((n for n in walk(tree) if isinstance(n, ast.Assign)),
                       key=lambda n: (n.lineno, n.col_offset)):
        for target in node.targets:
            if isinstance(target, ast.Name):
                assigned.setdefault(target.id, []).append(node.value)
    bound_to = {id(values[-1]): name for name, values in assigned.items()}
    for call, target in _calls(tree, names):
        if getattr(target, "__name__", "") in ("from_numpy", "tensor", "as_tensor") and \
                _module_of(target).startswith("torch") and call.args and \
                not any(kw.arg == "dtype" for kw in call.keywords) and \
                _from_frame_without_dtype(call.args[0], assigned) and \
                not _cast(tree, call, bound_to.get(id(call))):
            return [Issue(taxonomy_class="neural", subclass="dtype_mismatch", line=call.lineno,
                          message="mat1 and mat2 must have the same dtype, but got Double and "
                                  "Float: the features are float64 and the layers float32")]
    return []


def _relabels_target(tree: ast.AST, target: str | None) -> bool:
    """The code compares its target column with something (`df[target] == "a"`,
    `.isin([...])`): it derives a label of its own, so the table's classes say nothing of
    what the loss is given."""
    def names_target(node: ast.AST) -> bool:
        return any(isinstance(n, ast.Constant) and n.value == target for n in ast.walk(node))

    return target is not None and any(
        isinstance(n, ast.Compare) and names_target(n) or
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
        n.func.attr in ("isin", "eq", "ne", "map", "replace", "apply") and names_target(n.func)
        for n in walk(tree))


def check_binary_loss(tree: ast.AST, profile: DataProfile, names) -> list[Issue]:
    if (profile.n_classes or 0) <= 2 or _relabels_target(tree, profile.target):
        return []
    if any(isinstance(n, ast.Attribute) and n.attr == "one_hot" or
           isinstance(n, ast.Name) and n.id in ("one_hot", "to_categorical")
           for n in walk(tree)):
        return []
    for node in walk(tree):  # Keras: compile(loss="binary_crossentropy")
        if isinstance(node, ast.keyword) and node.arg == "loss" and \
                isinstance(node.value, ast.Constant) and node.value.value in KERAS_BINARY:
            return [Issue(taxonomy_class="neural", subclass="loss_target_mismatch",
                          line=node.value.lineno,
                          message=f"{node.value.value} is a binary loss and the target has "
                                  f"{profile.n_classes} classes: use "
                                  "sparse_categorical_crossentropy")]
    for call, target in _calls(tree, names):
        if getattr(target, "__name__", "") in BINARY_LOSSES + ("BinaryCrossentropy",) and \
                _module_of(target).startswith(("torch", "keras")):
            return [Issue(taxonomy_class="neural", subclass="loss_target_mismatch",
                          line=call.lineno,
                          message=f"Target size must be the same as input size: "
                                  f"{target.__name__} is a binary loss and the target has "
                                  f"{profile.n_classes} classes")]
    return []


def check_networks(tree: ast.AST, profile: DataProfile | None) -> list[Issue]:
    if profile is None:
        return []
    names = imported_names(tree)
    if not any(m.split(".")[0].split(":")[0] in ("torch", "keras", "tensorflow")
               for m in names.values()):
        return []
    return check_input_width(tree, profile, names) + check_float64(tree, profile, names) + \
        check_binary_loss(tree, profile, names)
