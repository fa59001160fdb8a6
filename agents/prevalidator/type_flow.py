"""API drift on objects, not only on modules: the installed class of each variable, followed
statically, and its methods, attributes and keywords checked against that class.

`df = pd.read_csv(...)` makes `df` a pandas DataFrame (read from the installed function's own
return annotation), `model = keras.Sequential(...)` a Keras Sequential, `df.dropna()` again a
DataFrame (the method's annotation), `df["age"]` a Series; then `df.as_matrix()`,
`df["age"].fillna(method=...)` or `model.fit(nb_epoch=...)` are checked against what the
installed pandas and Keras define, the way the module-level checks in static_checks.py are.

Only what is certain is followed: a name assigned more than once to different kinds, or bound
by a loop, a `with`, an argument or an augmented assignment, is unknown, and so is anything
the installed libraries do not annotate. Classes that answer unknown attributes at run time
(`__getattr__`: torch modules, pandas columns) are checked only where that cannot apply.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
import textwrap

from pipesmith.agents.prevalidator.static_checks import (
    _MISSING,
    _checked,
    created_columns,
    imported_names,
    renames_columns,
    resolve,
    walk,
)
from pipesmith.agents.schemas import Issue

_UNKNOWN = object()
_BROKEN = object()  # a call of a method the class lacks: it raises before any rebinding
_FRAME_KINDS = ("DataFrame", "Series")


def _pandas(name: str):
    import pandas

    return getattr(pandas, name)


def _is_frame(cls) -> bool:
    return isinstance(cls, type) and cls.__module__.startswith("pandas") and \
        cls.__name__ in _FRAME_KINDS


@functools.lru_cache(maxsize=1024)
def _returns(function, owner) -> object:
    """The installed class a function or method returns, from its own annotation: `Self`,
    or exactly one of DataFrame / Series (optionally `| None`, for inplace methods)."""
    try:
        annotation = inspect.signature(function).return_annotation
    except (TypeError, ValueError):
        return _UNKNOWN
    if annotation is inspect.Signature.empty:
        return _UNKNOWN
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__",
                                                                   str(annotation))
    if owner is not None and text.strip() == "Self":
        return owner
    kinds = [k for k in _FRAME_KINDS if re.search(rf"\b{k}\b", text)]
    rest = re.sub(r"\b(DataFrame|Series|None)\b|\|", "", text).strip()
    if len(kinds) == 1 and not rest:
        return _pandas(kinds[0])
    if kinds == ["DataFrame"] and rest == "TextFileReader":  # read_csv without chunksize
        return _pandas("DataFrame")
    return _UNKNOWN


def _fit_returns_self(cls) -> bool:
    return cls.__module__.startswith("sklearn") and hasattr(cls, "get_params")


class _Types(ast.NodeVisitor):
    """Local name -> installed class, in source order, for names bound unambiguously."""

    def __init__(self, names: dict[str, str]):
        self.names = names
        self.types: dict[str, object] = {}

    def bind(self, target: ast.expr, value: object) -> None:
        if value is _BROKEN:
            return
        if isinstance(target, ast.Name):
            known = self.types.get(target.id)
            self.types[target.id] = value if known is None or known is value else _UNKNOWN
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind(element, _UNKNOWN)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, _UNKNOWN)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        for target in node.targets:
            if isinstance(target, (ast.Tuple, ast.List)) and \
                    isinstance(node.value, (ast.Tuple, ast.List)) and \
                    len(target.elts) == len(node.value.elts):
                for element, value in zip(target.elts, node.value.elts, strict=True):
                    self.bind(element, self.type_of(value))
            else:
                self.bind(target, self.type_of(node.value))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        self.bind(node.target, self.type_of(node.value) if node.value else _UNKNOWN)

    def _unknown(self, node, *targets) -> None:
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    self.bind(name, _UNKNOWN)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self._unknown(node, node.target)

    def visit_For(self, node):
        self._unknown(node, node.target)

    visit_AsyncFor = visit_For

    def visit_comprehension(self, node):
        self._unknown(node, node.target)

    def visit_With(self, node):
        self._unknown(node, *[i.optional_vars for i in node.items if i.optional_vars])

    def visit_NamedExpr(self, node):
        self._unknown(node, node.target)

    def visit_FunctionDef(self, node):
        arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs + \
            [a for a in (node.args.vararg, node.args.kwarg) if a]
        for argument in arguments:
            self.bind(ast.Name(id=argument.arg), _UNKNOWN)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Global(self, node):
        for name in node.names:
            self.bind(ast.Name(id=name), _UNKNOWN)

    visit_Nonlocal = visit_Global

    def type_of(self, node: ast.expr | None) -> object:
        """The installed class of the value an expression makes, or _UNKNOWN."""
        if isinstance(node, ast.Name):
            found = self.types.get(node.id)
            return _UNKNOWN if found is None else found
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Attribute) and node.value.attr in ("iloc", "loc"):
                frame = self.type_of(node.value.value)  # rows (and columns) of a frame
                return frame if _is_frame(frame) and _keeps_kind(node.slice) else _UNKNOWN
            owner = self.type_of(node.value)
            if _is_frame(owner) and owner.__name__ == "DataFrame":
                if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                    return _pandas("Series")
                if isinstance(node.slice, (ast.List, ast.Compare, ast.Slice)):
                    return owner
            return _UNKNOWN
        if not isinstance(node, ast.Call):
            return _UNKNOWN
        if isinstance(node.func, ast.Attribute):
            owner = self.type_of(node.func.value)
            if isinstance(owner, type):
                method = getattr(owner, node.func.attr, _MISSING)
                if method is _MISSING:
                    return _BROKEN
                if node.func.attr in ("fit", "set_params") and _fit_returns_self(owner):
                    return owner
                return _returns(method, owner) if callable(method) else _UNKNOWN
        target = resolve(node.func, self.names)
        if target is _MISSING or not callable(target) or \
                any(kw.arg in ("chunksize", "iterator") for kw in node.keywords):
            return _UNKNOWN
        if isinstance(target, type):
            module = target.__module__.split(".")[0]
            return target if _checked(module) or module == "keras" else _UNKNOWN
        return _returns(target, None)


def _keeps_kind(index: ast.expr) -> bool:
    """`.iloc`/`.loc` indices that return the same kind: slices and lists, in every place."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return all(isinstance(p, (ast.Slice, ast.List)) for p in parts)


def variable_types(tree: ast.AST, names: dict[str, str] | None = None) -> _Types:
    types = _Types(imported_names(tree) if names is None else names)
    types.visit(tree)
    return types


@functools.lru_cache(maxsize=1024)
def removal_stub(function) -> str | None:
    """A function the installed library keeps only to say it is gone: its whole body (after
    the docstring) is a `raise`. Returns the message it raises with."""
    if not inspect.isfunction(function):
        return None
    try:
        source = textwrap.dedent(inspect.getsource(function))
        body = ast.parse(source).body[0].body
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise):
        return None
    error = body[0].exc
    text = ""
    if isinstance(error, ast.Call) and error.args:
        try:
            text = str(ast.literal_eval(error.args[0]))
        except (ValueError, SyntaxError, TypeError):
            text = ast.unparse(error.args[0])
    if not re.search(r"remov|deprecat|no longer", text, re.IGNORECASE):
        return None
    return " ".join(text.split()) if text else "removed"  # whole: it names the replacement


def check_objects(tree: ast.AST) -> list[Issue]:
    """Methods of followed objects and their keywords, and calls of functions the installed
    library keeps only to raise that they were removed."""
    return _check(tree, None)


def check_frame_columns(tree: ast.AST, columns: list[str]) -> list[Issue]:
    """`df.ix`, `df.foo`: an attribute a pandas frame lacks that is not one of the data's
    columns (nor one the code makes) either. Needs the data's columns."""
    return _check(tree, columns) if columns else []


@functools.lru_cache(maxsize=16)
def _analysis(tree: ast.AST) -> tuple[dict[str, str], _Types, dict[ast.AST, ast.AST]]:
    names = imported_names(tree)
    parents = {child: node for node in walk(tree) for child in ast.iter_child_nodes(node)}
    return names, variable_types(tree, names), parents


def _check(tree: ast.AST, columns: list[str] | None) -> list[Issue]:
    names, types, parents = _analysis(tree)
    known_columns = set(columns or []) | created_columns(tree) | {
        n.value for n in walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    renames = renames_columns(tree)
    issues = []
    for node in walk(tree):
        if columns is None and isinstance(node, ast.Call):
            target = resolve(node.func, names)
            message = removal_stub(target) if callable(target) else None
            if message:
                issues.append(Issue(taxonomy_class="api", subclass="removed_function",
                                    line=node.lineno,
                                    message=f"{ast.unparse(node.func)}: {message}"))
        if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
            continue
        owner = types.type_of(node.value)
        if not isinstance(owner, type) or node.attr.startswith("_") or node.attr.endswith("_"):
            continue
        called = isinstance(parents.get(node), ast.Call) and parents[node].func is node
        found = getattr(owner, node.attr, _MISSING)
        if columns is not None:  # only frame attributes that are no column
            if found is _MISSING and not called and _is_frame(owner) and \
                    not renames and node.attr not in known_columns and \
                    not any(node.attr.startswith(f"{c}_") for c in columns):
                issues.append(_no_attribute(owner, node))
            continue
        if found is _MISSING:
            if called and (_is_frame(owner) or not _answers_any_attribute(owner)):
                issues.append(_no_attribute(owner, node))
            continue  # not called: an instance attribute, or a column (check_frame_columns)
        if called:
            issues += _keywords(parents[node], found, f"{owner.__name__}.{node.attr}")
            message = removal_stub(found)
            if message:
                issues.append(Issue(taxonomy_class="api", subclass="removed_function",
                                    line=node.lineno,
                                    message=f"{owner.__name__}.{node.attr}: {message}"))
    return issues


def _no_attribute(owner: type, node: ast.Attribute) -> Issue:
    return Issue(taxonomy_class="api", subclass="removed_attribute", line=node.lineno,
                 message=f"'{owner.__name__}' object has no attribute '{node.attr}'")


def _answers_any_attribute(cls) -> bool:
    return any("__getattr__" in vars(base) for base in cls.__mro__ if base is not object)


def _keywords(call: ast.Call, method, owner: str) -> list[Issue]:
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return []
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return []
    return [Issue(taxonomy_class="api", subclass="unexpected_keyword", line=kw.value.lineno,
                  message=f"{owner}() got an unexpected keyword argument '{kw.arg}'")
            for kw in call.keywords if kw.arg is not None and kw.arg not in params]
