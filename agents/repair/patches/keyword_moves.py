"""Keywords a library moved out of a call rather than removed (#25): LightGBM 4 took
`early_stopping_rounds` and `verbose_eval` out of `fit`/`train` into callbacks, XGBoost 2.1
took `early_stopping_rounds` out of `fit` into the constructor.

Where each goes is read from the installed library, never from a list of cases: the
constructor of the receiver's class when it declares the keyword; else, when the call takes
`callbacks`, the library's callback factory whose name and parameters cover every word of
the keyword (`early_stopping_rounds` -> `early_stopping(stopping_rounds)`). A keyword with
no such home is left for `fix_keyword`, which drops it and says so.
"""

from __future__ import annotations

import ast
import functools
import inspect
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

UNEXPECTED = re.compile(r"([\w.]+)\(\) got an unexpected keyword argument '(\w+)'")
# Words libraries use for the same idea in keywords and callback names (data, not cases).
SYNONYMS = {"verbose": ("log", "monitor"), "eval": ("evaluation",),
            "rounds": ("stopping_rounds", "patience"), "verbosity": ("log",)}


def constructor_parameters(cls) -> set[str]:
    """Every parameter the class's constructor takes, following `**kwargs` up the bases
    (`XGBClassifier(objective, **kwargs)` hands the rest to `XGBModel.__init__`)."""
    found: set[str] = set()
    for base in inspect.getmro(cls):
        init = base.__dict__.get("__init__")
        if init is None:
            continue
        try:
            params = inspect.signature(init).parameters
        except (TypeError, ValueError):
            break
        found |= {n for n, p in params.items() if n != "self"
                  and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            break
    return found


@functools.lru_cache(maxsize=8)
def callback_factories(package: str) -> dict[str, list[str]]:
    """Public callables of `package` defined in its callback module(s) -> their parameters."""
    found: dict[str, list[str]] = {}
    for name in (package, f"{package}.callback", f"{package}.callbacks"):
        module = live.library_module(name)
        for attr in dir(module) if module is not None else ():
            obj = getattr(module, attr, None)
            if attr.startswith("_") or not callable(obj) or \
                    "callback" not in (getattr(obj, "__module__", "") or ""):
                continue
            if isinstance(obj, type) and issubclass(obj, BaseException):
                continue
            found.setdefault(attr, live.parameters(obj))
    return found


def _words(name: str) -> list[str]:
    return [w for w in name.lower().split("_") if w]


def _covers(word: str, names: list[str]) -> bool:
    """`word` (or a synonym) is a word of one of `names`, or the start of one."""
    options = (word, *SYNONYMS.get(word, ()))
    return any(o == n or n.startswith(o) or o in _words(n) or
               any(w.startswith(o) for w in _words(n)) for o in options for n in names)


def best_factory(keyword: str, factories: dict[str, list[str]]) -> str | None:
    """The factory whose name and parameters cover every word of `keyword`, most words in
    its name first (`verbose_eval` -> `log_evaluation`, not `early_stopping(verbose=)`)."""
    scored = []
    for name, params in factories.items():
        words = _words(keyword)
        if not all(_covers(w, [name, *params]) for w in words):
            continue
        scored.append((sum(_covers(w, [name]) for w in words), -len(params), name))
    return max(scored)[2] if scored else None


def _package_alias(tree: ast.Module, package: str) -> str | None:
    return next((local for local, target in imported_names(tree).items()
                 if target == package), None)


def _construction(tree: ast.Module, variable: str) -> ast.Call | None:
    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and any(
                isinstance(t, ast.Name) and t.id == variable for t in node.targets):
            found = node.value
    return found


def move_keyword(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Move every keyword the failing call's live signature rejects to where the library
    moved it: the receiver's constructor, or a callback in `callbacks=[...]`."""
    found = UNEXPECTED.search(message_text(diagnosis))
    if not found:
        return None
    qualname, keyword = found.groups()
    tree = ast.parse(code)
    calls = [c for c in find_calls(tree) if any(k.arg == keyword for k in c.keywords)]
    at_line = [c for c in calls if diagnosis.line in range(c.lineno, c.end_lineno + 1)]
    if not calls:
        return None
    call = (at_line or calls)[0]
    target = live.call_target(tree, call) or live.qualified(tree, qualname)
    if target is None:
        return None
    params = live.parameters(target)
    try:
        open_ended = any(p.kind is p.VAR_KEYWORD
                         for p in inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return None
    rejected = [k for k in call.keywords if k.arg and k.arg not in params] \
        if not open_ended else [k for k in call.keywords if k.arg == keyword]
    construction = None
    cls = None
    if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
        construction = _construction(tree, call.func.value.id)
        cls = live.constructed_class(tree, call.func.value.id)
    to_constructor = [k for k in rejected if cls is not None and construction is not None
                      and k.arg in constructor_parameters(cls)]
    package = (getattr(target, "__module__", "") or "").split(".")[0]
    factories = callback_factories(package) if "callbacks" in params and package else {}
    callbacks: dict[str, list[str]] = {}  # factory -> its arguments, in keyword order
    moved = {k.arg for k in to_constructor}
    for kw in rejected:
        if kw in to_constructor:
            continue
        value = ast.get_source_segment(code, kw.value)
        chosen = next((f for f in callbacks if kw.arg in factories[f]), None)
        if chosen:
            callbacks[chosen].append(f"{kw.arg}={value}")
        elif (factory := best_factory(kw.arg, factories)) is not None:
            callbacks.setdefault(factory, []).insert(0, value)
        else:
            continue
        moved.add(kw.arg)
    if keyword not in moved:
        return None
    alias = _package_alias(tree, package) if callbacks else None
    prefix = alias or f"_{package}"
    new_callbacks = [f"{prefix}.{f}({', '.join(a)})" for f, a in callbacks.items()]
    edits: list[tuple[ast.AST, str]] = []
    if to_constructor:
        construction.keywords += [k for k in to_constructor
                                  if k.arg not in {c.arg for c in construction.keywords}]
        edits.append((construction, ast.unparse(construction)))
    call.keywords = [k for k in call.keywords if k.arg not in moved]
    existing = next((k for k in call.keywords if k.arg == "callbacks"), None)
    if new_callbacks and existing is not None and isinstance(existing.value, ast.List):
        existing.value.elts += [ast.parse(c, mode="eval").body for c in new_callbacks]
    elif new_callbacks and existing is not None:
        existing.value = ast.parse(f"list({ast.unparse(existing.value)}) + "
                                   f"[{', '.join(new_callbacks)}]", mode="eval").body
    elif new_callbacks:
        call.keywords.append(ast.keyword("callbacks", ast.parse(
            f"[{', '.join(new_callbacks)}]", mode="eval").body))
    edits.append((call, ast.unparse(call)))
    code = replace_nodes(code, edits)
    if callbacks and alias is None:
        code = insert_after_imports(code, f"import {package} as {prefix}")
    return code
