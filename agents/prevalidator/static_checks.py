"""Static checks on candidate code, run before anything executes.

Each check returns taxonomy-classed Issues with a line. What the installed libraries
accept is read from the libraries themselves (module contents, `inspect.signature`,
scikit-learn's own parameter constraints), never from a hand-written list; messages use
the same wording the libraries raise at run time, so diagnosis and repair treat a
statically found problem exactly like the crash it prevents.
"""

from __future__ import annotations

import ast
import difflib
import functools
import importlib
import inspect
import re
from importlib.metadata import PackageNotFoundError, packages_distributions, version

from packaging.requirements import InvalidRequirement, Requirement

from pipesmith.agents.prevalidator import dependencies
from pipesmith.agents.schemas import Issue

# Only these packages are imported to check calls against; user modules never are.
CHECKED_PACKAGES = ("sklearn", "numpy", "pandas", "scipy", "torch", "tensorflow", "keras")
NETWORK_MODULES = ("socket", "urllib", "requests", "http", "ftplib", "httpx", "aiohttp")
PROCESS_CALLS = ("os.system", "os.popen", "subprocess", "eval", "exec", "os.fork")
_MISSING = object()


@functools.lru_cache(maxsize=16)
def walk(tree: ast.AST) -> tuple[ast.AST, ...]:
    """Every node of a parsed module, walked once however many checks read it (the trees are
    never changed after parsing)."""
    return tuple(ast.walk(tree))


def imported_names(tree: ast.AST) -> dict[str, str]:
    """Local name -> "module:attr" (from-imports) or "module" (plain imports)."""
    return dict(_imported_names(tree))


@functools.lru_cache(maxsize=16)
def _imported_names(tree: ast.AST) -> dict[str, str]:
    names = {}
    for node in walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}:{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                names[local] = alias.name if alias.asname else alias.name.split(".")[0]
    return names


def _checked(module: str) -> bool:
    return module.split(".")[0] in CHECKED_PACKAGES


def _import(module: str):
    try:
        return importlib.import_module(module)
    except Exception:  # a broken or missing module is the import check's business
        return _MISSING


def lookup(obj, name: str):
    """obj.name, or _MISSING. Never raises: a module's `__getattr__` may raise ImportError for
    a removed name (scikit-learn's `load_boston`), which `hasattr` does not catch."""
    try:
        return getattr(obj, name)
    except Exception:
        return _MISSING


def removal_message(obj, name: str) -> str | None:
    """What the library says when `name` is asked of it and it raises something other than
    AttributeError (a removal notice), first line only."""
    try:
        getattr(obj, name)
    except AttributeError:
        return None
    except Exception as exc:
        return next((ln.strip() for ln in str(exc).splitlines() if ln.strip()),
                    type(exc).__name__)
    return None


def resolve(node: ast.expr, names: dict[str, str]):
    """The installed object an expression names (only inside CHECKED_PACKAGES), or _MISSING."""
    if isinstance(node, ast.Name):
        target = names.get(node.id)
        if target is None:
            return _MISSING
        module, _, attr = target.partition(":")
        if not _checked(module):
            return _MISSING
        obj = _import(module)
        if attr and obj is not _MISSING:
            obj = lookup(obj, attr)
            if obj is _MISSING:
                obj = _import(f"{module}.{attr}")
        return obj
    if isinstance(node, ast.Attribute):
        base = resolve(node.value, names)
        if base is _MISSING or not (inspect.ismodule(base) or inspect.isclass(base)):
            return _MISSING
        found = lookup(base, node.attr)
        if found is _MISSING and inspect.ismodule(base):
            found = _import(f"{base.__name__}.{node.attr}")
        return found
    return _MISSING


def check_imported_names(tree: ast.AST) -> list[Issue]:
    issues = []
    for node in walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and _checked(node.module):
            module = _import(node.module)
            if module is _MISSING:
                continue
            for alias in node.names:
                removed = removal_message(module, alias.name)
                if removed:  # the library's own removal notice: an API removal
                    issues.append(Issue(
                        taxonomy_class="api", subclass="removed_function", line=node.lineno,
                        message=f"cannot import name '{alias.name}' from '{node.module}': "
                                f"{removed}"))
                elif alias.name != "*" and lookup(module, alias.name) is _MISSING and \
                        _import(f"{node.module}.{alias.name}") is _MISSING:
                    issues.append(Issue(
                        taxonomy_class="import", subclass="version_conflict", line=node.lineno,
                        message=f"cannot import name '{alias.name}' from '{node.module}' "
                                f"(installed {_version_of(node.module)})"))
    return issues


def check_attributes(tree: ast.AST) -> list[Issue]:
    names = imported_names(tree)
    issues = []
    for node in walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            base = resolve(node.value, names)
            if inspect.ismodule(base) and lookup(base, node.attr) is _MISSING and \
                    _import(f"{base.__name__}.{node.attr}") is _MISSING:
                removed = removal_message(base, node.attr)  # the library's removal notice
                issues.append(Issue(
                    taxonomy_class="api", line=node.lineno,
                    subclass="removed_function" if removed else "removed_attribute",
                    message=f"module '{base.__name__}' has no attribute '{node.attr}'"
                            + (f": {removed}" if removed else "")))
    return issues


def check_calls(tree: ast.AST) -> list[Issue]:
    """Keywords against the installed signature; literal values against scikit-learn's
    parameter constraints."""
    names = imported_names(tree)
    issues = []
    for call in [n for n in walk(tree) if isinstance(n, ast.Call)]:
        target = resolve(call.func, names)
        if target is _MISSING or not callable(target):
            continue
        try:
            params = inspect.signature(target).parameters
        except (TypeError, ValueError):
            continue
        takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
        name = getattr(target, "__name__", "callable")
        for kw in call.keywords:
            if kw.arg is None:
                continue
            if not takes_any and kw.arg not in params:
                owner = f"{name}.__init__" if inspect.isclass(target) else name
                issues.append(Issue(
                    taxonomy_class="api", subclass="unexpected_keyword", line=kw.value.lineno,
                    message=f"{owner}() got an unexpected keyword argument '{kw.arg}'"))
                continue
            problem = _constraint_violation(target, kw)
            if problem:
                issues.append(Issue(taxonomy_class="api", subclass="invalid_parameter",
                                    line=kw.value.lineno, message=problem))
    return issues


def _constraint_violation(target, kw: ast.keyword) -> str | None:
    constraints = getattr(target, "_parameter_constraints", None)
    if not inspect.isclass(target) or not constraints or kw.arg not in constraints:
        return None
    try:
        value = ast.literal_eval(kw.value)
    except (ValueError, SyntaxError, TypeError):
        return None  # not a literal: only the run can tell
    from sklearn.utils._param_validation import (
        InvalidParameterError,
        validate_parameter_constraints,
    )

    try:
        validate_parameter_constraints({kw.arg: constraints[kw.arg]}, {kw.arg: value},
                                       caller_name=target.__name__)
    except InvalidParameterError as exc:
        return f"InvalidParameterError: {exc}"
    except Exception:  # constraint kinds this static call cannot evaluate
        return None
    return None


def _string_lists(tree: ast.AST):
    """Lists of two or more strings, tuples of three or more (a pair is rather a named
    aggregation or a mapping: `("age", "mean")`)."""
    for node in walk(tree):
        if isinstance(node, ast.List) or isinstance(node, ast.Tuple) and len(node.elts) > 2:
            strings = [e for e in node.elts if isinstance(e, ast.Constant)
                       and isinstance(e.value, str)]
            if len(strings) >= 2 and len(strings) == len(node.elts):
                yield strings


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def created_columns(tree: ast.AST) -> set[str]:
    """Column names the code itself makes: `df["new"] = ...`, `.assign(new=...)`,
    `.rename(columns={...})`, a frame of its own (`DataFrame({"new": ...})`,
    `DataFrame(rows, columns=[...])`)."""
    made = set()
    for node in walk(tree):
        if isinstance(node, ast.Call) and _callee(node) == "DataFrame":
            for part in [*node.args[:1], *(k.value for k in node.keywords if k.arg == "columns")]:
                names = part.keys if isinstance(part, ast.Dict) else \
                    part.elts if isinstance(part, ast.List | ast.Tuple) else []
                made |= {n.value for n in names
                         if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and \
                isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            made.add(node.slice.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "assign":
            made |= {kw.arg for kw in node.keywords if kw.arg}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "rename":
            made |= {v.value for d in ast.walk(node) if isinstance(d, ast.Dict)
                     for v in d.values if isinstance(v, ast.Constant)
                     and isinstance(v.value, str)}
    return made


# Methods after which a frame has columns that neither the data nor the code's strings name.
RENAMES = ("set_axis", "add_prefix", "add_suffix", "pivot", "pivot_table", "unstack", "stack",
           "melt", "crosstab", "T", "transpose", "join", "merge")


def renames_columns(tree: ast.AST) -> bool:
    """The code gives a frame columns by other means than names it spells: `df.columns =`,
    `rename(columns=<function>)`, `read_csv(names=...)`, reshaping methods."""
    for n in walk(tree):
        if isinstance(n, ast.Attribute) and (n.attr in RENAMES or n.attr == "columns" and
                                             isinstance(n.ctx, ast.Store)):
            return True
        if isinstance(n, ast.keyword) and (n.arg == "names" or n.arg in ("columns", "mapper")
                                           and not isinstance(n.value, ast.Dict | ast.List)
                                           and _in_rename(n, tree)):
            return True
    return False


def _in_rename(keyword: ast.keyword, tree: ast.AST) -> bool:
    return any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and
               c.func.attr == "rename" and keyword in c.keywords for c in walk(tree))


def check_columns(tree: ast.AST, columns: list[str], target: str | None = None) -> list[Issue]:
    """Column names the code uses that the data lacks (and the code does not make): in lists
    where most names are real columns, one of them a feature (the target's name alone is no
    evidence: class labels often share it, target `dead` and labels `['alive', 'dead']`),
    lists selecting columns (`df[[...]]`, `df[features]`) with a name a letter case away
    from a real one, and subscripts that are one typo or a letter case away from a real
    column."""
    if not columns:
        return []
    renamed = renames_columns(tree)  # then case and typo guesses say nothing
    real_columns = set(columns)
    known = real_columns | created_columns(tree)
    lowered = {c.lower() for c in columns}
    issues, flagged = [], set()
    # after a merge, join or reshape a list may name columns the other frame brought
    features = real_columns - {target}
    for strings in [] if renamed else _string_lists(tree):
        real = sum(s.value in real_columns for s in strings)
        if any(s.value in features for s in strings) and real * 2 >= len(strings):
            missing = [s for s in strings if s.value not in known]
            flagged |= {id(s) for s in missing}
            issues += [_missing_column(s) for s in missing]
    lists = {t.id: n.value for n in walk(tree) if isinstance(n, ast.Assign)
             and isinstance(n.value, ast.List) for t in n.targets if isinstance(t, ast.Name)}
    for node in walk(tree):
        if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load):
            continue
        index = lists.get(node.slice.id) if isinstance(node.slice, ast.Name) else node.slice
        # a list selecting columns: a name a letter case away from a real one
        for name in index.elts if isinstance(index, ast.List) else []:
            if not renamed and isinstance(name, ast.Constant) and \
                    isinstance(name.value, str) and name.value not in known and \
                    name.value.lower() in lowered and \
                    id(name) not in flagged:
                flagged.add(id(name))
                issues.append(_missing_column(name))
        if not renamed and isinstance(node.slice, ast.Constant) and \
                isinstance(node.slice.value, str):
            value = node.slice.value
            if value not in known and (value.lower() in lowered or difflib.get_close_matches(
                    value, columns, n=1, cutoff=0.85)):
                issues.append(_missing_column(node.slice))
    return issues


def _missing_column(node: ast.Constant) -> Issue:
    return Issue(taxonomy_class="data_flow", subclass="missing_column", line=node.lineno,
                 message=f"['{node.value}'] not in index: the data has no column "
                         f"'{node.value}'")


def check_security(tree: ast.AST) -> list[Issue]:
    """Advisory only: the sandbox enforces the policy anyway."""
    issues = []
    for node in walk(tree):
        modules = []
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
        for module in modules:
            if module.split(".")[0] in NETWORK_MODULES:
                issues.append(Issue(taxonomy_class="sandbox_policy", subclass="network_denied",
                                    line=node.lineno, advisory=True,
                                    message=f"imports {module}: the sandbox has no network"))
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            if any(name == p or name.startswith(p + ".") for p in PROCESS_CALLS):
                issues.append(Issue(taxonomy_class="sandbox_policy", subclass="denied_call",
                                    line=node.lineno, advisory=True,
                                    message=f"calls {name}: runs code or processes the "
                                            "checks cannot see"))
            if name == "open" and node.args and isinstance(node.args[0], ast.Constant) and \
                    str(node.args[0].value).startswith(("/", "..", "~")):
                issues.append(Issue(
                    taxonomy_class="sandbox_policy", subclass="file_access_denied",
                    line=node.lineno, advisory=True,
                    message=f"opens {node.args[0].value}: outside the working directory"))
    return issues


_REQUIREMENTS_BLOCK = re.compile(r"^#\s*requirements?:\s*(.+)$", re.IGNORECASE | re.MULTILINE)


def declared_requirements(code: str, tree: ast.Module) -> list[tuple[str, int]]:
    """Requirements declared by `# requirements: a>=1, b<2` comments or a module-level
    REQUIREMENTS list, with their lines."""
    found = []
    for match in _REQUIREMENTS_BLOCK.finditer(code):
        line = code[: match.start()].count("\n") + 1
        found += [(r.strip(), line) for r in match.group(1).split(",") if r.strip()]
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "REQUIREMENTS" for t in node.targets):
            try:
                found += [(str(r), node.lineno) for r in ast.literal_eval(node.value)]
            except (ValueError, SyntaxError):
                pass
    return found


def check_requirements(code: str, tree: ast.Module) -> list[Issue]:
    issues = []
    for text, line in declared_requirements(code, tree):
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            issues.append(Issue(taxonomy_class="import", subclass="version_conflict", line=line,
                                message=f"cannot parse the requirement {text!r}"))
            continue
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            issues.append(Issue(taxonomy_class="import", subclass="missing_module", line=line,
                                message=f"No module named '{requirement.name}': "
                                        f"{requirement} is not installed"))
            continue
        conflict = dependencies.requirement_conflict(requirement, installed,
                                                     dependencies.installed_versions())
        if conflict is not None:
            issues.append(Issue(
                taxonomy_class="import", subclass="version_conflict", line=line,
                message=f"{requirement.name} {installed} is installed but the code requires "
                        f"{requirement.name}{requirement.specifier}: install a version in "
                        f"{conflict.satisfying}, or adapt the code to {installed}"))
    return issues


def _version_of(module: str) -> str:
    top = module.split(".")[0]
    for dist in packages_distributions().get(top, []):
        try:
            return f"{dist} {version(dist)}"
        except PackageNotFoundError:
            continue
    return "version unknown"
