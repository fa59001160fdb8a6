"""A private method a library turned into a public function of the object (#25):
scikit-learn 1.6 replaced `BaseEstimator._validate_data(X)` with
`sklearn.utils.validation.validate_data(self, X)`. Read from the library: the function
carrying the method's name without its underscores, among the public names of the package
the object's class comes from (a class of the script's own: the package of its bases), whose
first parameter is positional and takes the object."""

from __future__ import annotations

import ast
import inspect

from pipesmith.agents.prevalidator.static_checks import imported_names
from pipesmith.agents.repair.patches import live
from pipesmith.agents.repair.patches.api_drift import NO_MEMBER, public_names
from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    insert_after_imports,
    message_text,
    replace_nodes,
)
from pipesmith.agents.schemas import Diagnosis


def _packages(tree: ast.Module, owner_name: str) -> list[str]:
    """The top packages the class named in the message comes from: its own module when a
    library defines it, else those its bases in the script are imported from."""
    cls = live.owner(tree, owner_name)
    if isinstance(cls, type):
        return [cls.__module__.split(".")[0]]
    names = imported_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == owner_name:
            for base in node.bases:
                target = names.get(ast.unparse(base).split(".")[0], "")
                if target:
                    found.append(target.split(".")[0].split(":")[0])
    return list(dict.fromkeys(found))


def _takes_the_object(fn) -> bool:
    try:
        first = next(iter(inspect.signature(fn).parameters.values()), None)
    except (TypeError, ValueError):
        return False
    return first is not None and first.kind in (first.POSITIONAL_ONLY,
                                                first.POSITIONAL_OR_KEYWORD)


def method_to_function(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """`obj._name(args)` -> `name(obj, args)`, `name` imported from where the package
    exports it."""
    found = NO_MEMBER.search(message_text(diagnosis))
    if not found:
        return None
    owner_name, attr = found.groups()
    name = attr.lstrip("_")
    tree = ast.parse(code)
    for package in _packages(tree, owner_name):
        home = public_names(package).get(name)
        module = live.library_module(home) if home else None
        fn = getattr(module, name, None) if module is not None else None
        if not callable(fn) or isinstance(fn, type) or not _takes_the_object(fn):
            continue
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr == attr]
        if not calls:
            return None
        defined = getattr(fn, "__module__", "") or ""
        if defined.startswith(package) and not any(p.startswith("_")
                                                   for p in defined.split(".")):
            home = defined  # where it is defined, rather than a module that imports it
        alias = f"_{name}"
        edits = []
        for call in calls:
            args = [ast.get_source_segment(code, call.func.value)] + [
                ast.get_source_segment(code, a) for a in call.args] + [
                ast.get_source_segment(code, k) for k in call.keywords]
            edits.append((call, f"{alias}({', '.join(args)})"))
        code = replace_nodes(code, edits)
        return insert_after_imports(code, f"from {home} import {name} as {alias}")
    return None
