"""API drift repaired from the migration table (migrations.csv) and the libraries' own words.

The table is data: one row per removed or renamed import, module, keyword, value, method,
module attribute or function, with the version that removed it and the changelog or
migration guide it comes from. A failure's message says what broke (an unexpected keyword,
a rejected value, a missing attribute, an unimportable name); the rows of that kind whose
scope matches are applied, and nothing else in the code changes. Where no row applies, what
the installed libraries say is used: a removal message that names the replacement
("... deprecated in favor of `torch.linalg.solve`", "Please use the `X` function instead"),
and the public attributes of the class the message names (closest name).
"""

from __future__ import annotations

import ast
import csv
import difflib
import functools
import importlib
import re
from dataclasses import dataclass
from importlib import resources

from pipesmith.agents.prevalidator.static_checks import imported_names
from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    callee_name,
    find_calls,
    import_alias,
    message_text,
    replace_nodes,
)
from pipesmith.agents.schemas import Diagnosis


@dataclass(frozen=True)
class Migration:
    library: str
    kind: str  # import, module, keyword, value, method, attribute, function, rewrite
    scope: str  # a regex on the callee / class / module the row applies to ("" = any)
    old: str
    new: str
    removed_in: str
    source: str

    def in_scope(self, name: str | None) -> bool:
        return not self.scope or name is None or re.fullmatch(self.scope, name) is not None


@functools.lru_cache(maxsize=1)
def table() -> tuple[Migration, ...]:
    text = resources.files("pipesmith.agents.repair.patches").joinpath(
        "migrations.csv").read_text()
    return tuple(Migration(**row) for row in csv.DictReader(text.splitlines()))


def rows(kind: str) -> list[Migration]:
    return [row for row in table() if row.kind == kind]


def migrate_api(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    message = message_text(diagnosis)
    tree = ast.parse(code)
    for fix in (_keyword, _value, _method, _attribute, _imports, _removal_message):
        new = fix(code, tree, message)
        if new is not None and new != code:
            return new
    return None


# --- keywords and values -------------------------------------------------------------------

UNEXPECTED = re.compile(r"(\w+)(?:\.__init__)?\(\) got an unexpected keyword argument '(\w+)'")
NOT_RECOGNIZED = re.compile(r"(?:[Aa]rgument\(?s?\)? not recognized|Unrecognized keyword "
                            r"arguments passed to \w+): \{'(\w+)'")
INVALID_VALUE = re.compile(r"The '(\w+)' parameter of (\w+) must be .*?\. Got (.*?) instead")


def _keyword(code: str, tree: ast.Module, message: str) -> str | None:
    found = UNEXPECTED.search(message)
    keyword = found.group(2) if found else None
    if keyword is None and (other := NOT_RECOGNIZED.search(message)):
        keyword = other.group(1)
    if keyword is None:
        return None
    edits = []
    for call in find_calls(tree):
        name = callee_name(call)
        row = next((r for r in rows("keyword") + rows("rewrite") if r.old.split("=")[0] ==
                    keyword and r.in_scope(name)), None)
        if row is None or not any(kw.arg == keyword for kw in call.keywords):
            continue
        if row.kind == "rewrite":
            text = REWRITES[row.new](code, call, row)
            if text is not None:
                edits.append((call, text))
            continue
        if row.new:  # renamed: only the keyword's name changes
            edits += [(kw, f"{row.new}={ast.get_source_segment(code, kw.value)}")
                      for kw in call.keywords if kw.arg == keyword]
        else:  # removed: the call without it
            call.keywords = [kw for kw in call.keywords if kw.arg != keyword]
            edits.append((call, _unparse_call(code, call)))
    return replace_nodes(code, edits) if edits else None


def _value(code: str, tree: ast.Module, message: str) -> str | None:
    found = INVALID_VALUE.search(message)
    edits = []
    for call in find_calls(tree):
        name = callee_name(call)
        if found and found.group(2) != name:
            continue
        for row in rows("value"):
            old_kw, old_value = row.old.split("=", 1)
            if not row.in_scope(name) or (found and found.group(1) != old_kw):
                continue
            for kw in call.keywords:
                if kw.arg == old_kw and ast.unparse(kw.value) == \
                        ast.unparse(ast.parse(old_value, mode="eval").body):
                    edits.append((kw, row.new))
    if not found and not edits:
        return None
    return replace_nodes(code, edits) if edits else None


def _unparse_call(code: str, call: ast.Call) -> str:
    """The call with its edited keywords, keeping the callee and arguments as written."""
    func = ast.get_source_segment(code, call.func)
    args = [ast.get_source_segment(code, a) or ast.unparse(a) for a in call.args]
    kws = [ast.get_source_segment(code, kw) for kw in call.keywords]
    return f"{func}({', '.join(args + kws)})"


# --- methods, attributes, functions --------------------------------------------------------

NO_ATTRIBUTE = re.compile(r"'(\w+)' object has no attribute '(\w+)'")
NO_MODULE_ATTRIBUTE = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")


def _method(code: str, tree: ast.Module, message: str) -> str | None:
    found = NO_ATTRIBUTE.search(message)
    if not found:
        return None
    owner, attr = found.groups()
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == attr]
    if not nodes:
        return None
    row = next((r for r in rows("method") + rows("rewrite") if r.old == attr
                and r.in_scope(owner)), None)
    if row is not None and row.kind == "rewrite":
        calls = [c for c in find_calls(tree) if isinstance(c.func, ast.Attribute)
                 and c.func.attr == attr]
        edits = [(c, text) for c in calls if (text := REWRITES[row.new](code, c, row))]
        return replace_nodes(code, edits) if edits else None
    new = row.new if row else _closest_attribute(owner, attr)
    if new is None:
        return None
    return replace_nodes(code, [(n, f"{ast.get_source_segment(code, n.value)}.{new}")
                                for n in nodes])


KNOWN_OWNERS = ("pandas", "numpy", "sklearn", "torch", "keras")


def _closest_attribute(owner: str, attr: str) -> str | None:
    """From the installed class the message names: its closest public attribute."""
    from pipesmith.agents.repair.patches.api_drift import public_names

    for package in KNOWN_OWNERS:
        module = public_names(package).get(owner)
        if module is None:
            continue
        cls = getattr(importlib.import_module(module), owner, None)
        names = [a for a in dir(cls) if not a.startswith("_")]
        close = difflib.get_close_matches(attr, names, n=1, cutoff=0.8)
        if close:
            return close[0]
    return None


def _attribute(code: str, tree: ast.Module, message: str) -> str | None:
    found = NO_MODULE_ATTRIBUTE.search(message)
    if not found:
        return None
    module_name, attr = found.groups()
    row = next((r for r in rows("attribute") + rows("function")
                if r.scope == module_name and r.old == attr), None)
    if row is None:
        return None
    aliases = {local for local, target in imported_names(tree).items() if target == module_name}
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == attr
             and isinstance(n.value, ast.Name) and n.value.id in aliases]
    edits = []
    for node in nodes:
        if row.kind == "function":  # the new name is spelled from the module's root
            edits.append((node, node.value.id + row.new[len(module_name):]))
        else:
            edits.append((node, row.new.replace("np.", f"{node.value.id}.")))
    return replace_nodes(code, edits) if edits else None


REMOVAL = (re.compile(r"`([\w.]+)` is deprecated in favou?r of `([\w.]+)`"),
           re.compile(r"[Pp]lease use (?:the )?`?([\w.]+)`? (?:function )?instead"))


def _removal_message(code: str, tree: ast.Module, message: str) -> str | None:
    """The library said what replaced the removed function: use it, spelled as the code
    spells the module (`torch.matrix_rank` -> `torch.linalg.matrix_rank`)."""
    pairs = []
    first = REMOVAL[0].search(message)
    if first:
        pairs.append(first.groups())
    second = REMOVAL[1].search(message)
    if second and "." in second.group(1):
        new = second.group(1)
        pairs.append((new.split(".")[0] + "." + new.rsplit(".", 1)[-1], new))
    for old, new in pairs:
        root, _, name = old.rpartition(".")
        aliases = {local for local, target in imported_names(tree).items() if target == root}
        nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == name
                 and isinstance(n.value, ast.Name) and n.value.id in aliases]
        if nodes:
            return replace_nodes(code, [(n, n.value.id + new[len(root):]) for n in nodes])
    return None


# --- imports -------------------------------------------------------------------------------

CANNOT_IMPORT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
NO_MODULE = re.compile(r"No module named '([\w.]+)'")


def _imports(code: str, tree: ast.Module, message: str) -> str | None:
    cannot, missing = CANNOT_IMPORT.search(message), NO_MODULE.search(message)
    if not (cannot or missing):
        return None
    edits, renames = [], {}
    for node in [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module]:
        moved = next((r for r in rows("module") if node.module == r.old
                      or node.module.startswith(r.old + ".")), None)
        lines, changed = [], False
        for alias in node.names:
            row = next((r for r in rows("import") if r.scope == node.module
                        and r.old == alias.name), None)
            if row is not None and ":" not in row.new:  # the name is a module of its own
                lines.append(f"import {import_alias(row.new, alias.asname or alias.name)}")
                changed = True
            elif row is not None:
                module, _, path = row.new.partition(":")
                name, _, member = path.partition(".")
                lines.append(f"from {module} import {import_alias(name, None)}")
                if member:  # the old function is now a method of the new class
                    renames[alias.asname or alias.name] = f"{name}.{member}"
                elif alias.asname is None:
                    renames[alias.name] = name
                else:
                    lines[-1] = f"from {module} import {import_alias(name, alias.asname)}"
                changed = True
            elif moved is not None:
                module = moved.new + node.module[len(moved.old):]
                lines.append(f"from {module} import {import_alias(alias.name, alias.asname)}")
                changed = True
            else:
                lines.append(f"from {node.module} import "
                             f"{import_alias(alias.name, alias.asname)}")
        if changed:
            edits.append((node, "\n".join(dict.fromkeys(lines))))
    for node in [n for n in tree.body if isinstance(n, ast.Import)]:
        for alias in node.names:
            moved = next((r for r in rows("module") if alias.name == r.old), None)
            if moved is not None:
                local = alias.asname or alias.name.split(".")[-1]
                edits.append((node, f"import {moved.new} as {local}"))
    edits += [(n, renames[n.id]) for n in ast.walk(tree)
              if isinstance(n, ast.Name) and n.id in renames]
    return replace_nodes(code, edits) if edits else None


# --- rewrites a rename cannot express ------------------------------------------------------


def _append_to_concat(code: str, call: ast.Call, row: Migration) -> str | None:
    """`df.append(other, ignore_index=True)` -> `pd.concat([df, other], ignore_index=True)`."""
    if not isinstance(call.func, ast.Attribute) or not call.args:
        return None
    pandas = next((local for local, target in imported_names(ast.parse(code)).items()
                   if target == "pandas"), None)
    prefix = f"{pandas}." if pandas else "__import__('pandas')."
    base = ast.get_source_segment(code, call.func.value)
    other = ast.get_source_segment(code, call.args[0])
    if not isinstance(call.args[0], (ast.Name, ast.Subscript, ast.Call, ast.Attribute)) or \
            isinstance(call.args[0], ast.Dict):
        other = f"{prefix}DataFrame([{other}])"  # a row given as a dict literal
    elif not isinstance(call.args[0], ast.Subscript):  # a row (dict or Series) or a frame
        other = (f"(lambda o: {prefix}DataFrame([o]) if isinstance(o, (dict, {prefix}Series))"
                 f" else o)({other})")
    kws = "".join(f", {ast.get_source_segment(code, kw)}" for kw in call.keywords)
    return f"{prefix}concat([{base}, {other}]{kws})"


def _rmse(code: str, call: ast.Call, row: Migration) -> str | None:
    """`mean_squared_error(y, p, squared=False)` -> `root_mean_squared_error(y, p)`."""
    if not any(kw.arg == "squared" and ast.unparse(kw.value) == "False"
               for kw in call.keywords):
        return None
    func = ast.get_source_segment(code, call.func).replace("mean_squared_error",
                                                          "root_mean_squared_error")
    if isinstance(call.func, ast.Name):
        func = "__import__('sklearn.metrics').metrics.root_mean_squared_error"
    args = [ast.get_source_segment(code, a) for a in call.args] + [
        ast.get_source_segment(code, kw) for kw in call.keywords if kw.arg != "squared"]
    return f"{func}({', '.join(args)})"


def _fillna_method(code: str, call: ast.Call, row: Migration) -> str | None:
    """`X.fillna(method="ffill")` -> `X.ffill()` (and bfill)."""
    method = next((kw for kw in call.keywords if kw.arg == "method"), None)
    if method is None or not isinstance(call.func, ast.Attribute) or \
            not isinstance(method.value, ast.Constant):
        return None
    name = {"ffill": "ffill", "pad": "ffill", "bfill": "bfill", "backfill": "bfill"}.get(
        method.value.value)
    if name is None:
        return None
    rest = [ast.get_source_segment(code, kw) for kw in call.keywords if kw.arg != "method"]
    return f"{ast.get_source_segment(code, call.func.value)}.{name}({', '.join(rest)})"


def _argmax_predict(code: str, call: ast.Call, row: Migration) -> str | None:
    """`model.predict_classes(X)` -> the arg-max of `model.predict(X)`."""
    if not isinstance(call.func, ast.Attribute):
        return None
    args = ", ".join(ast.get_source_segment(code, a) for a in call.args)
    return ("(lambda p: p.argmax(axis=-1) if p.shape[-1] > 1 else (p[:, 0] > 0.5)"
            f".astype(int))({ast.get_source_segment(code, call.func.value)}.predict({args}))")


REWRITES = {"concat": _append_to_concat, "root_mean_squared_error": _rmse,
            "fillna_method": _fillna_method, "argmax_predict": _argmax_predict}
