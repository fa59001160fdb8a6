"""Repairs of API drift: imports, keywords, values and attributes the installed libraries
no longer accept, learnt from the libraries themselves and the migration table."""

from __future__ import annotations

import ast
import difflib
import functools
import importlib
import json
import pkgutil
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from pipesmith.agents.prevalidator.static_checks import imported_names
from pipesmith.agents.repair.patches import live
from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    callee_name,
    edit_keyword,
    find_calls,
    import_alias,
    message_text,
    replace_nodes,
    resolve,
)
from pipesmith.agents.schemas import Diagnosis

# --- imports -----------------------------------------------------------------------------------

# Names that moved or left, where no installed module can tell us (checked first).
KNOWN_MOVES = {
    "Imputer": ("sklearn.impute", "SimpleImputer"),
    "cross_validation": ("sklearn", "model_selection"),
    "joblib": ("joblib", None),
    "plot_confusion_matrix": ("sklearn.metrics", "ConfusionMatrixDisplay"),
    "load_boston": ("sklearn.datasets", "fetch_california_housing"),
}
# Popular packages that are not installed here, and the scikit-learn model to use instead.
SUBSTITUTES = {
    "XGBClassifier": ("sklearn.ensemble", "HistGradientBoostingClassifier"),
    "XGBRegressor": ("sklearn.ensemble", "HistGradientBoostingRegressor"),
    "LGBMClassifier": ("sklearn.ensemble", "HistGradientBoostingClassifier"),
    "LGBMRegressor": ("sklearn.ensemble", "HistGradientBoostingRegressor"),
    "CatBoostClassifier": ("sklearn.ensemble", "HistGradientBoostingClassifier"),
    "CatBoostRegressor": ("sklearn.ensemble", "HistGradientBoostingRegressor"),
    "NGBClassifier": ("sklearn.ensemble", "HistGradientBoostingClassifier"),
    "NGBRegressor": ("sklearn.ensemble", "HistGradientBoostingRegressor"),
}


# Listing a package means importing every submodule of it, which runs code we did not
# write: TensorFlow ships `tools.pip_package.setup`, which parses sys.argv and exits. So the
# listing runs in a child interpreter and only its JSON comes back.
LIST_IN_CHILD = ("import json, sys\n"
                 "from pipesmith.agents.repair.patches.api_drift import walk_public_names\n"
                 "with open(sys.argv[2], 'w') as out:\n"
                 "    json.dump(walk_public_names(sys.argv[1]), out)")
SKIPPED_PARTS = ("tests", "testing", "conftest", "experimental", "setup", "__main__")


@functools.lru_cache(maxsize=8)
def public_names(package: str) -> dict[str, str]:
    """Public name -> the shortest module path of `package` that exports it."""
    with tempfile.TemporaryDirectory(prefix="pipesmith-names-") as tmp:
        out = Path(tmp) / "names.json"
        try:
            subprocess.run([sys.executable, "-c", LIST_IN_CHILD, package, str(out)],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=180, check=False)
            return json.loads(out.read_text()) if out.exists() else {}
        except (subprocess.TimeoutExpired, ValueError):
            return {}


def walk_public_names(package: str) -> dict[str, str]:
    """The listing itself; call it through `public_names`, never in the supervisor."""
    try:
        root = importlib.import_module(package)
    except ImportError:
        return {}
    found: dict[str, str] = {}
    modules = [root]
    for info in pkgutil.walk_packages(getattr(root, "__path__", []), prefix=package + "."):
        parts = info.name.split(".")
        if any(p.startswith("_") or p in SKIPPED_PARTS for p in parts[1:]):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                modules.append(importlib.import_module(info.name))
        except (Exception, SystemExit):  # optional submodules that fail export nothing
            continue
    with warnings.catch_warnings():  # deprecated aliases warn as they are listed
        warnings.simplefilter("ignore")
        for module in sorted(modules, key=lambda m: m.__name__.count(".")):
            for name in getattr(module, "__all__", None) or dir(module):
                if isinstance(name, str) and not name.startswith("_"):
                    found.setdefault(name, module.__name__)
    return found


def locate(name: str, package: str) -> tuple[str, str] | None:
    """Where `name` (or the closest public name) lives now in `package`."""
    if name in KNOWN_MOVES and KNOWN_MOVES[name][1]:
        return KNOWN_MOVES[name]
    if name in SUBSTITUTES:
        return SUBSTITUTES[name]
    names = public_names(package)
    if name in names:
        return names[name], name
    close = difflib.get_close_matches(name, list(names), n=1, cutoff=0.75)
    return (names[close[0]], close[0]) if close else None


def _installed_top_levels() -> list[str]:
    from importlib.metadata import packages_distributions

    return sorted(set(packages_distributions()) | set(sys.stdlib_module_names))


def replace_import(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    message = message_text(diagnosis)
    tree = ast.parse(code)
    missing = re.search(r"No module named '([\w.]+)'", message)
    cannot = re.search(r"cannot import name '(\w+)' from '([\w.]+)'", message)
    edits = []
    for node in [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]:
        if isinstance(node, ast.ImportFrom) and node.module:
            broken_module = missing and (node.module == missing.group(1)
                                         or node.module.startswith(missing.group(1) + "."))
            lines = []
            for alias in node.names:
                broken_name = cannot and alias.name == cannot.group(1)
                if not (broken_module or broken_name):
                    lines.append(f"from {node.module} import "
                                 f"{import_alias(alias.name, alias.asname)}")
                    continue
                package = node.module.split(".")[0]
                if broken_module and package == missing.group(1).split(".")[0]:
                    package = "sklearn" if alias.name in SUBSTITUTES else package
                where = locate(alias.name, package) or locate(alias.name, "sklearn")
                if where is None:
                    return None
                module, name = where
                lines.append(f"from {module} import "
                             f"{import_alias(name, alias.asname or alias.name)}")
            if lines != [f"from {node.module} import {import_alias(a.name, a.asname)}"
                         for a in node.names]:
                edits.append((node, "\n".join(lines)))
        elif isinstance(node, ast.Import) and missing:
            for alias in node.names:
                if alias.name == missing.group(1):
                    close = difflib.get_close_matches(alias.name, _installed_top_levels(), n=1,
                                                      cutoff=0.8)
                    if not close:
                        return None
                    new = import_alias(close[0], alias.asname or alias.name)
                    edits.append((node, f"import {new}"))
    return replace_nodes(code, edits) if edits else None


# The library's own words naming a keyword's successor ("'lr' was renamed to 'learning_rate'",
# "use `sep` instead").
SUCCESSOR = (re.compile(r"renamed to [`'\"]?(\w+)"),
             re.compile(r"[Uu]se [`'\"]?(\w+)[`'\"]? instead"))


# A keyword renamed to the nearest parameter only this close (a typo: `n_estimator`,
# `max_dept`); a looser guess renamed `calc_feature_importance` to CatBoost's
# `gpu_cat_features_storage` (0.64) and called it repaired (wild4). Past it, the keyword is
# dropped and the repair says so (partial).
TYPO = 0.85


def fix_keyword(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Rename a keyword to what the library's message names as its successor, else to the
    rename the installed callable's docstring records, else to a parameter of its signature
    within a typo of it (TYPO); with none, drop it (the code then runs, but without what the
    keyword did: `dropped_keywords` reports it and the repair is only partial).

    The callable is the one the traceback names (`DataFrame.sort_values`, `TSNE.__init__`),
    resolved in the libraries the code imports, else the one the failing line calls."""
    message = message_text(diagnosis)
    found = re.search(r"([\w.]+)\(\) got an unexpected keyword argument '(\w+)'", message)
    if not found:
        return None
    qualname, keyword = found.groups()
    callee = qualname.replace(".__init__", "").rsplit(".", 1)[-1]
    tree = ast.parse(code)
    calls = [c for c in find_calls(tree) if any(kw.arg == keyword for kw in c.keywords)]
    at_line = [c for c in calls if diagnosis.line in range(c.lineno, c.end_lineno + 1)]
    named = [c for c in calls if callee_name(c) == callee]
    if not named:
        callee = None  # the message named a base class or a wrapper; fix every such call
    target = live.qualified(tree, qualname) if "." in qualname else None
    for call in (named or at_line or calls)[:1]:
        target = target or live.call_target(tree, call)
    target = target or (resolve(tree, callee) if callee else None)
    params = live.parameters(target) if target is not None else []
    said = [m.group(1) for p in SUCCESSOR for m in p.finditer(message)
            if m.group(1) != keyword and (not params or m.group(1) in params)]
    documented = live.docstring_successor(target, keyword) if target is not None else None
    close = said or ([documented] if documented else []) or \
        difflib.get_close_matches(keyword, params, n=1, cutoff=TYPO)
    return edit_keyword(code, tree, callee, keyword, new_name=close[0] if close else None)


def dropped_keywords(before: str, after: str, diagnosis: Diagnosis | None) -> list[str]:
    """The keywords a patch removed from a call without putting another in their place."""
    def keywords(code: str) -> set[tuple[str, str]]:
        return {(callee_name(c), kw.arg) for c in find_calls(ast.parse(code))
                for kw in c.keywords if kw.arg}

    old, new = keywords(before), keywords(after)
    renamed = {callee for callee, _ in new - old}
    why = diagnosis.summary.splitlines()[0][:160] if diagnosis else "rejected"
    return [f"dropped keyword {kw} from {callee}(): {why}; neither the installed signature "
            f"nor the library's message names what it became, so what it did is lost"
            for callee, kw in sorted(old - new) if callee not in renamed]


def fix_parameter_value(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Use the closest allowed value, the bound the message states, or the default."""
    message = message_text(diagnosis)
    tree = ast.parse(code)
    invalid = re.search(r"The '(\w+)' parameter of (\w+) must be (.*?)\. Got (.*?) instead",
                        message)
    if invalid:
        param, callee, allowed, got = invalid.groups()
        options = re.findall(r"'([^']*)'", allowed.split(" or ")[0]) if "among" in allowed else []
        close = difflib.get_close_matches(got.strip("'\""), options, n=1, cutoff=0.5)
        if close:
            return edit_keyword(code, tree, callee, param, new_value=repr(close[0]))
        return edit_keyword(code, tree, callee, param)
    bound = re.search(r"(\w+)=\S+ must be between \S+ and .*?=(\d+)", message) or \
        re.search(r"(k) should be <= n_features = (\d+)", message)
    if bound:
        return edit_keyword(code, tree, None, bound.group(1), new_value=bound.group(2))
    return None


def numpy_aliases() -> dict[str, str]:
    """Removed numpy names and what replaced them, from the migration table."""
    from pipesmith.agents.repair.patches.migrations import rows

    return {row.old: row.new for row in rows("attribute") if row.scope == "numpy"}


def replace_attribute(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    found = re.search(r"module '([\w.]+)' has no attribute '(\w+)'", message_text(diagnosis))
    if not found:
        return None
    module_name, attr = found.groups()
    tree = ast.parse(code)
    aliases = {local for local, target in imported_names(tree).items() if target == module_name}
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == attr
             and isinstance(n.value, ast.Name) and n.value.id in aliases]
    if not nodes:
        return None
    if module_name == "numpy" and attr in numpy_aliases():
        new = numpy_aliases()[attr]
        return replace_nodes(code, [(n, new.replace("np.", f"{n.value.id}.")) for n in nodes])
    module = importlib.import_module(module_name)
    close = difflib.get_close_matches(attr, [a for a in dir(module) if not a.startswith("_")],
                                      n=1, cutoff=0.75)
    return replace_nodes(code, [(n, f"{n.value.id}.{close[0]}") for n in nodes]) if close \
        else None


NO_MEMBER = re.compile(r"'(\w+)' object has no attribute '(\w+)'")


def replace_member(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """`'X' object has no attribute 'a'`: the closest member the installed class has (its
    public names and the attributes its docstring documents, such as fitted `coef_`), on
    the receivers the code made of that class (else every `.a` in the code)."""
    found = NO_MEMBER.search(message_text(diagnosis))
    if not found:
        return None
    owner_name, attr = found.groups()
    tree = ast.parse(code)
    cls = live.owner(tree, owner_name)
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == attr
             and isinstance(n.ctx, ast.Load)]
    if cls is None:  # a class the code builds through another name: read the receivers'
        receivers = {n.value.id for n in nodes if isinstance(n.value, ast.Name)}
        cls = next((c for r in receivers if (c := live.constructed_class(tree, r)) is not None
                    and c.__name__ == owner_name), None)
    if cls is None or not nodes:
        return None
    close = difflib.get_close_matches(attr, [m for m in live.member_names(cls) if m != attr],
                                      n=1, cutoff=0.6)
    if not close:
        return None
    return replace_nodes(code, [(n, f"{ast.get_source_segment(code, n.value)}.{close[0]}")
                                for n in nodes])


def moved_attribute(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """`module 'm' has no attribute 'a'` where the package has `a` elsewhere (a function that
    moved to a submodule or a sibling): use it from there, spelled from the code's alias when
    it is a submodule, else imported."""
    found = re.search(r"module '([\w.]+)' has no attribute '(\w+)'", message_text(diagnosis))
    if not found:
        return None
    module_name, attr = found.groups()
    tree = ast.parse(code)
    aliases = {local for local, target in imported_names(tree).items() if target == module_name}
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == attr
             and isinstance(n.value, ast.Name) and n.value.id in aliases]
    package = module_name.split(".")[0]
    home = public_names(package).get(attr) if nodes and live.library_module(package) else None
    if home is None or home == module_name:
        return None
    if home.startswith(module_name + "."):
        return replace_nodes(code, [(n, f"{n.value.id}{home[len(module_name):]}.{attr}")
                                    for n in nodes])
    alias = f"_{attr}"
    code = replace_nodes(code, [(n, alias) for n in nodes])
    return f"from {home} import {attr} as {alias}\n" + code
