"""Repairs that change the value a failure points at (#25, written from `wild4`'s failures,
frozen before `wild5` ran), read from the message, the traceback's frames and the installed
signatures, never from a case:

- a flag the message blames ("Cannot take a larger sample than population when
  'replace=False'") is flipped on the failing call;
- a keyword the message advises ("You can drop duplicate edges by setting the 'duplicates'
  kwarg") gets the other of the two options its docstring documents;
- a float where only an integer goes (a slice bound, an index, `range()`, an integer
  parameter) is made an int at the failing expression;
- a metric that meets fewer classes than the model learnt gets the model's classes as
  `labels=`;
- a parameter past a bound the message states without a number ("n_components cannot be
  larger than min(n_features, n_classes - 1)") goes back to its default (said: partial);
- an unshuffled split that left one class in the training rows is shuffled (said:
  partial);
- a loop over a count that starts below the minimum the message states ("Valid values are 2
  to n_samples - 1") starts at that minimum.
"""

from __future__ import annotations

import ast
import inspect
import re

from pipesmith.agents.repair.patches import live
from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    callee_name,
    calls_at_line,
    find_calls,
    message_text,
    replace_nodes,
    with_keyword,
)
from pipesmith.agents.schemas import Diagnosis

FLAG = re.compile(r"\b(?:when|if|with|while)\s+[`'\"]?(\w+)\s*=\s*(True|False)\b")
ADVISED_KEYWORD = re.compile(r"(?:by setting|[Tt]ry (?:specifying|setting|passing)|set) the "
                             r"[`'\"]?(\w+)[`'\"]? (?:kwarg|keyword|parameter|argument)")
INT_PARAMETER = (
    re.compile(r"The '(\w+)' parameter of \w+ must be an int"),
    re.compile(r"(?:for|parameter) [`'\"]?(\w+)[`'\"]?:? expect int"),
    re.compile(r"invalid value for [`'\"]?(\w+)[`'\"]?, expected a positive integer"),
)
NO_NUMBER_BOUND = re.compile(r"\b(\w+) (?:cannot|can not|should not|must not) be "
                             r"(?:larger|greater|bigger|more) than")
VALID_FROM = re.compile(r"Valid values are (-?\d+) to")
FRAME = re.compile(r'File "[^"]*", line \d+, in ([\w.]+)')
FLOAT_CALLS = {"round", "floor", "ceil", "sqrt", "log", "log2", "exp", "mean", "median"}


def _frames(diagnosis: Diagnosis) -> set[str]:
    """The functions the traceback's last frames name (library frames included)."""
    return {name.rsplit(".", 1)[-1] for name in FRAME.findall(message_text(diagnosis))}


def _takes(tree: ast.Module, call: ast.Call, name: str, frames: set[str]) -> bool:
    """Whether the call passes `name`, or its installed callable takes it; a method on an
    object of unknown class counts when the traceback ran through a function of its name
    and the message names the parameter."""
    if any(k.arg == name for k in call.keywords):
        return True
    target = live.call_target(tree, call)
    if target is not None:
        return name in live.parameters(target)
    return isinstance(call.func, ast.Attribute) and call.func.attr in frames


def drop_keyword(code: str, name: str, line: int | None) -> str | None:
    """`name=` dropped from the call passing it at the failing line, else the first call
    passing it."""
    tree = ast.parse(code)
    calls = [c for c in find_calls(tree) if any(k.arg == name for k in c.keywords)]
    calls = [c for c in calls if c in calls_at_line(tree, line)] or calls
    if not calls:
        return None
    calls[0].keywords = [k for k in calls[0].keywords if k.arg != name]
    return replace_nodes(code, [(calls[0], ast.unparse(calls[0]))])


def flip_stated_flag(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"... when 'replace=False'": the failing call (or one the traceback ran through)
    gets the flag the message blames set the other way (`.sample(n=k)` ->
    `.sample(n=k, replace=True)`)."""
    message = message_text(diagnosis)
    found = FLAG.search(message)
    if not found:
        return None
    name, value = found.group(1), "True" if found.group(2) == "False" else "False"
    tree = ast.parse(code)
    frames = _frames(diagnosis)
    for call in calls_at_line(tree, diagnosis.line):
        if _takes(tree, call, name, frames):
            return replace_nodes(code, [(call, with_keyword(call, name, value))])
    return None


def documented_options(target, name: str) -> list[str]:
    """The string options a parameter's numpydoc line lists (`duplicates : {default
    'raise', 'drop'}`), from the callable's docstring."""
    doc = inspect.getdoc(target) or ""
    line = re.search(rf"^\s*{re.escape(name)}\s*:\s*\{{([^}}]*)\}}", doc, re.M)
    return re.findall(r"'([^']*)'", line.group(1)) if line else []


def other_option(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"You can drop duplicate edges by setting the 'duplicates' kwarg": the failing call's
    keyword takes the other of the two options its docstring documents (`pd.qcut(x, 4)` ->
    `pd.qcut(x, 4, duplicates='drop')`)."""
    found = ADVISED_KEYWORD.search(message_text(diagnosis))
    if not found:
        return None
    name = found.group(1)
    tree = ast.parse(code)
    for call in calls_at_line(tree, diagnosis.line):
        target = live.call_target(tree, call)
        options = documented_options(target, name) if target is not None else []
        if len(options) != 2:
            continue
        passed = next((k.value for k in call.keywords if k.arg == name), None)
        try:
            current = ast.literal_eval(passed) if passed is not None else \
                inspect.signature(target).parameters[name].default
        except (ValueError, KeyError, TypeError):
            continue
        if current in options:
            other = options[1 - options.index(current)]
            return replace_nodes(code, [(call, with_keyword(call, name, repr(other)))])
    return None


def _floaty(node: ast.AST, tree: ast.Module, depth: int = 0) -> bool:
    """Whether an expression may give a float: a float literal, a true division, a rounding
    or statistics call, or a name last assigned one of those."""
    if depth > 3:
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, float)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, (ast.Div, ast.Pow)) or _floaty(node.left, tree, depth + 1) \
            or _floaty(node.right, tree, depth + 1)
    if isinstance(node, ast.UnaryOp):
        return _floaty(node.operand, tree, depth + 1)
    if isinstance(node, ast.Call):
        return callee_name(node) in FLOAT_CALLS or callee_name(node) == "float"
    if isinstance(node, ast.Name):
        values = [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)]
        return bool(values) and _floaty(values[-1], tree, depth + 1)
    return False


def _as_int(code: str, node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        return repr(int(node.value))
    return f"int({ast.get_source_segment(code, node) or ast.unparse(node)})"


def int_where_float(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A float where only an integer goes becomes an int: the parameter the message names
    (`max_depth=np.round(...)` in a call or a parameter dict), else at the failing line a
    slice bound, an index or a count argument that may be a float (`X[:.9 * n]` ->
    `X[:int(.9 * n)]`)."""
    message = message_text(diagnosis)
    tree = ast.parse(code)
    named = next((m.group(1) for p in INT_PARAMETER if (m := p.search(message))), None)
    edits: list[tuple[ast.AST, str]] = []
    if named:
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == named and \
                    _floaty(node.value, tree):
                edits.append((node.value, _as_int(code, node.value)))
            elif isinstance(node, ast.Dict):
                edits += [(v, _as_int(code, v)) for k, v in zip(node.keys, node.values,
                                                                   strict=True)
                          if isinstance(k, ast.Constant) and k.value == named
                          and _floaty(v, tree)]
        return replace_nodes(code, edits) if edits else None
    line = diagnosis.line
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) is None or not node.lineno <= (line or 0) <= \
                node.end_lineno:
            continue
        if isinstance(node, ast.Slice):
            edits += [(b, _as_int(code, b)) for b in (node.lower, node.upper, node.step)
                      if b is not None and _floaty(b, tree)]
        elif isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice) \
                and _floaty(node.slice, tree):
            edits.append((node.slice, _as_int(code, node.slice)))
        elif isinstance(node, ast.Call):
            edits += [(a, _as_int(code, a)) for a in node.args if _floaty(a, tree)]
            edits += [(k.value, _as_int(code, k.value)) for k in node.keywords
                      if k.arg in ("n", "k", "size", "n_samples") and _floaty(k.value, tree)]
    nested = {id(inner) for node, _ in edits for inner in ast.walk(node) if inner is not node}
    edits = [(node, text) for node, text in edits if id(node) not in nested]
    return replace_nodes(code, edits) if edits else None


def _fit_before(tree: ast.Module, line: int | None) -> ast.Call | None:
    """The last `model.fit(X, y)` before the failing line (the model whose classes a metric
    should know)."""
    fits = [c for c in find_calls(tree, "fit") if isinstance(c.func, ast.Attribute)
            and len(c.args) >= 2 and (line is None or c.lineno <= line)]
    return fits[-1] if fits else None


def metric_labels(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A metric that meets fewer classes than were learnt ("y_true contains only one
    label", "does not match size of target_names") gets `labels=` the fitted model's
    classes (`<model>.classes_`, the order its probabilities follow), else the sorted
    training labels."""
    tree = ast.parse(code)
    fit = _fit_before(tree, diagnosis.line)
    if fit is None:
        return None
    receiver = fit.func.value
    if isinstance(receiver, ast.Call):  # `model = Estimator().fit(X, y)`: the name it gets
        receiver = next((n.targets[0] for n in ast.walk(tree) if isinstance(n, ast.Assign)
                         and n.value is fit and isinstance(n.targets[0], ast.Name)), None)
    labels = f"{ast.unparse(receiver)}.classes_" if receiver is not None else \
        f"sorted(set({ast.unparse(fit.args[1])}))"
    for call in calls_at_line(tree, diagnosis.line) or find_calls(tree):
        target = live.call_target(tree, call)
        if target is None or "labels" not in live.parameters(target) or \
                any(k.arg == "labels" for k in call.keywords):
            continue
        return replace_nodes(code, [(call, with_keyword(call, "labels", labels))])
    return None


def default_past_bound(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"n_components cannot be larger than min(n_features, n_classes - 1)": a bound the
    message states without its number; the parameter goes back to the default, which the
    library sizes to the data (a partial repair: the value the author set is lost)."""
    found = NO_NUMBER_BOUND.search(message_text(diagnosis))
    if not found:
        return None
    return drop_keyword(code, found.group(1), diagnosis.line)


def shuffle_split(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """One class in the rows a model or metric met, and the script splits without
    shuffling (`train_test_split(..., shuffle=False)`, typical of a file sorted by its
    target): the split shuffles (a partial repair: rows are no longer split in file order)."""
    tree = ast.parse(code)
    edits = []
    for call in find_calls(tree):
        flag = next((k for k in call.keywords if k.arg == "shuffle"
                     and isinstance(k.value, ast.Constant) and k.value.value is False), None)
        target = live.call_target(tree, call)
        if flag is None or target is None or "stratify" not in live.parameters(target):
            continue
        call.keywords = [k for k in call.keywords if k is not flag]
        edits.append((call, ast.unparse(call)))
    return replace_nodes(code, edits) if edits else None


def unshuffled(before: str, after: str, diagnosis: Diagnosis | None) -> list[str]:
    """What shuffle_split changed, in words."""
    return ["the split now shuffles the rows (shuffle=False dropped): the training and test "
            "rows are no longer the file's first and last rows"] if before != after else []


def loop_from_valid(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"Number of labels is 1. Valid values are 2 to n_samples - 1": the `for k in
    range(a, b)` around the failing line, starting below the stated minimum, starts at it."""
    found = VALID_FROM.search(message_text(diagnosis))
    if not found or diagnosis.line is None:
        return None
    low = int(found.group(1))
    tree = ast.parse(code)
    loops = [n for n in ast.walk(tree) if isinstance(n, ast.For)
             and n.lineno <= diagnosis.line <= n.end_lineno and isinstance(n.iter, ast.Call)
             and callee_name(n.iter) == "range" and len(n.iter.args) >= 2
             and isinstance(n.iter.args[0], ast.Constant)
             and isinstance(n.iter.args[0].value, int) and n.iter.args[0].value < low]
    if not loops:
        return None
    return replace_nodes(code, [(loops[-1].iter.args[0], str(low))])


CONDITIONAL = re.compile(r"[`'\"]?(\w+)[`'\"]? (?:option |argument |parameter )?(?:could|can) "
                         r"only be (?:specified|used|set)|[`'\"]?(\w+)[`'\"]? is only supported "
                         r"(?:for|when|with|if)")


def drop_conditional_keyword(code: str, diagnosis: Diagnosis,
                             ctx: RepairContext) -> str | None:
    """"prefetch_factor option could only be specified in multiprocessing": the keyword
    the message says is allowed only under a condition the call does not meet is dropped
    from the call passing it (a partial repair: what it asked for is lost)."""
    found = CONDITIONAL.search(message_text(diagnosis))
    if not found:
        return None
    return drop_keyword(code, found.group(1) or found.group(2), diagnosis.line)
