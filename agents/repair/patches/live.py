"""What the installed libraries say about the code's calls: the callable a call means, its
parameters, renames its docstring records, an estimator's input tags and its declared
parameter constraints.

Only library modules are imported here (names the script imports from installed
distributions or the standard library), never the user's script or its sibling files: the
host process runs no user code.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import re
import sys
import warnings

from pipesmith.agents.prevalidator.static_checks import imported_names


@functools.lru_cache(maxsize=1)
def installed_top_levels() -> frozenset[str]:
    from importlib.metadata import packages_distributions

    return frozenset(set(packages_distributions()) | set(sys.stdlib_module_names))


def library_module(name: str):
    """The installed module `name`, or None (a module of the user's own is never imported)."""
    if name.split(".")[0] not in installed_top_levels():
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(name)
    except Exception:  # an optional dependency missing: nothing to read
        return None


def _target(target: str):
    module, _, attr = target.partition(":")
    obj = library_module(module)
    return getattr(obj, attr, None) if attr and obj is not None else obj


def dotted(tree: ast.Module, text: str):
    """The library object `text` ("pd.read_csv", "LogisticRegression") names in the code."""
    head, *rest = text.split(".")
    target = imported_names(tree).get(head)
    obj = _target(target) if target else None
    for part in rest:
        obj = getattr(obj, part, None) if obj is not None else None
    return obj


def owner(tree: ast.Module, name: str):
    """A class or function called `name` in a library the code imports (a traceback names
    `DataFrame.sort_values`, `LGBMClassifier.fit`, `TSNE.__init__`)."""
    names = imported_names(tree)
    for local, target in names.items():
        if local == name or target.endswith(":" + name):
            found = _target(target)
            if found is not None:
                return found
    packages = dict.fromkeys(t.partition(":")[0] for t in names.values())
    for module in list(packages) + list(dict.fromkeys(p.split(".")[0] for p in packages)):
        found = getattr(library_module(module), name, None)
        if found is not None:
            return found
    return None


def qualified(tree: ast.Module, qualname: str):
    """`Owner.method` or `function` (a traceback's qualified name) resolved in the code's
    libraries; `X.__init__` means the class X."""
    parts = [p for p in qualname.split(".") if p != "__init__"]
    obj = owner(tree, parts[0]) if parts else None
    for part in parts[1:]:
        obj = getattr(obj, part, None) if obj is not None else None
    return obj


def constructed_class(tree: ast.Module, variable: str):
    """The library class last assigned to `variable` by a constructor call (`model =
    LGBMClassifier(...)`), or None."""
    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and any(
                isinstance(t, ast.Name) and t.id == variable for t in node.targets):
            cls = dotted(tree, ast.unparse(node.value.func))
            found = cls if isinstance(cls, type) else found
    return found


def call_target(tree: ast.Module, call: ast.Call):
    """The installed callable a call means: an imported name or module path, or a method of
    the class its receiver was constructed from."""
    obj = dotted(tree, ast.unparse(call.func)) if isinstance(call.func, (ast.Name,
                                                                        ast.Attribute)) else None
    if obj is None and isinstance(call.func, ast.Attribute) and \
            isinstance(call.func.value, ast.Name):
        cls = constructed_class(tree, call.func.value.id)
        obj = getattr(cls, call.func.attr, None) if cls is not None else None
    return obj


def parameters(obj) -> list[str]:
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return []
    return [n for n, p in params.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            and n != "self"]


def _renames(keyword: str) -> tuple[re.Pattern, ...]:
    k = re.escape(keyword)
    q = r"[`'\"*]*"
    return (re.compile(rf"{q}{k}{q} (?:was|has been|is) renamed to {q}(\w+)"),
            re.compile(rf"from {q}{k}{q} to {q}(\w+)"),
            re.compile(rf"{q}{k}{q} is deprecated[^.]*?[Uu]se {q}(\w+){q} instead"),
            re.compile(rf"[Uu]se {q}(\w+){q} instead of {q}{k}\b"))


def docstring_successor(obj, keyword: str) -> str | None:
    """The parameter that replaced `keyword`, as the callable's docstring (or its class's)
    records it ("Parameter name changed from `n_iter` to `max_iter`", "`sparse` was
    renamed to `sparse_output`"); only a name the installed signature has."""
    owner_cls = getattr(obj, "__self__", None) or _defining_class(obj)
    params = parameters(obj)
    for doc in (inspect.getdoc(obj), inspect.getdoc(owner_cls) if owner_cls else None):
        for pattern in _renames(keyword):
            for found in pattern.finditer(doc or ""):
                if found.group(1) != keyword and (not params or found.group(1) in params):
                    return found.group(1)
    return None


def _defining_class(obj):
    qualname = getattr(obj, "__qualname__", "")
    module = sys.modules.get(getattr(obj, "__module__", "") or "")
    if "." not in qualname or module is None:
        return None
    return getattr(module, qualname.split(".")[0], None)


def documented_attributes(cls) -> list[str]:
    """The attributes a class's numpydoc "Attributes" section lists (fitted ones such as
    `coef_` exist only after fit, so dir() of the class lacks them)."""
    doc = inspect.getdoc(cls) or ""
    section = re.search(r"^Attributes\n-+\n(.*?)(?:^\w[\w ]*\n-+\n|\Z)", doc, re.M | re.S)
    return re.findall(r"^(\w+) :", section.group(1), re.M) if section else []


def member_names(cls) -> list[str]:
    return sorted({a for a in dir(cls) if not a.startswith("_")} | set(
        documented_attributes(cls)))


def input_tags(estimator_cls) -> dict[str, bool] | None:
    """What a scikit-learn-style estimator accepts, from its own tags: allow_nan, whether it
    takes text (string or categorical) input, 1-D and 2-D arrays. None for what is not an
    estimator."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = estimator_cls() if isinstance(estimator_cls, type) else estimator_cls
        if hasattr(est, "__sklearn_tags__"):
            tags = est.__sklearn_tags__().input_tags
            return {"allow_nan": tags.allow_nan, "text": tags.string or tags.categorical,
                    "one_d": tags.one_d_array, "two_d": tags.two_d_array}
        if hasattr(est, "_get_tags"):
            tags = est._get_tags()
            kinds = tags.get("X_types", [])
            return {"allow_nan": tags.get("allow_nan", False),
                    "text": "string" in kinds or "categorical" in kinds,
                    "one_d": "1darray" in kinds, "two_d": "2darray" in kinds}
    except Exception:  # a class that needs arguments, or no estimator at all
        return None
    return None


def option_values(estimator_cls, parameter: str) -> list:
    """The values a parameter's declared constraints (`_parameter_constraints`) enumerate:
    the options of StrOptions, booleans, None; the default first."""
    constraints = getattr(estimator_cls, "_parameter_constraints", {}).get(parameter, [])
    values: list = []
    for constraint in constraints:
        if hasattr(constraint, "options"):
            values += sorted(o for o in constraint.options if isinstance(o, str)
                             and not getattr(constraint, "deprecated", set()) & {o})
        elif constraint in ("boolean", bool):
            values += [True, False]
        elif constraint is None:
            values.append(None)
    try:
        default = inspect.signature(estimator_cls).parameters[parameter].default
    except (KeyError, TypeError, ValueError):
        default = inspect.Parameter.empty
    if default in values:
        values.remove(default)
        values.insert(0, default)
    return values
