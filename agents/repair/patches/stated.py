"""Repairs whose cure the failure states (#25), read from the message and the script, never
from a case: a bound the data or the library sets ("Expected n_neighbors <= n_samples_fit,
but n_neighbors = 100, n_samples_fit = 60"; "base_score must be in (0,1)"), a replacement
the library advises ("Use .reshape(...) instead"), the dtype a call needs ("Cannot cast
array data from dtype('float64') to dtype('int64')"; "scalar types: Long, Int; but got
torch.FloatTensor"), the integer type pandas suggests for missing values ("e.g. 'Int64'"), a
base class's __init__ never called, and a method the library calls that the script's own
class spells differently ("should implement fit and transform" over `def transfrom`)."""

from __future__ import annotations

import ast
import difflib
import re

from pipesmith.agents.repair.patches import live
from pipesmith.agents.repair.patches.editing import (
    RepairContext,
    calls_at_line,
    find_calls,
    insert_after_imports,
    message_text,
    replace_nodes,
)
from pipesmith.agents.schemas import Diagnosis

NUMBER = r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
UPPER = re.compile(rf"Expected (\w+) <= (\w+), but \1 = {NUMBER}, \2 = (\d+)")
INTERVAL = re.compile(rf"(\w+) must be in ([\[(])\s*({NUMBER})\s*,\s*({NUMBER})\s*([\])])"
                      rf"(?:.*?got:?\s*({NUMBER}))?", re.IGNORECASE | re.DOTALL)
ADVISED = re.compile(r"[Uu]se [`'\"]?\.?([A-Za-z_]\w*)(?:\([^)]*\))?[`'\"]? instead")
NUMPY_CAST = re.compile(r"Cannot cast array data from dtype\('\w+'\) to dtype\('(\w+)'\)")
TORCH_INDEX = re.compile(r"scalar types?:? (?:Long|Int)\b.*but got torch\.\w*FloatTensor")
NULLABLE = re.compile(r"integer type that supports these values \(e\.g\. '(\w+)'\)")
NO_SUPER = re.compile(r"before Module\.__init__\(\) call|call `?super\(\)\.__init__\(\)"
                      r"|super\(\)\.__init__\(\)`? (was|is) not called"
                      r"|has no attribute '_(modules|parameters|buffers)'")
WORD = re.compile(r"\b[A-Za-z_]\w{2,}\b")


def set_parameter(code: str, name: str, value: str, line: int | None) -> str | None:
    """`name=value` where the script sets `name` (at the failing line first), else on the
    call there (or anywhere) whose installed signature takes it."""
    tree = ast.parse(code)
    calls = find_calls(tree)
    near = calls_at_line(tree, line)
    setting = [c for c in near + calls if any(k.arg == name for k in c.keywords)]
    if setting:
        keyword = next(k for k in setting[0].keywords if k.arg == name)
        return replace_nodes(code, [(keyword.value, value)])
    for call in near + calls:
        target = live.call_target(tree, call)
        if target is not None and name in live.parameters(target):
            call.keywords.append(ast.keyword(name, ast.parse(value, mode="eval").body))
            return replace_nodes(code, [(call, ast.unparse(call))])
    return None


def clamp_to_bound(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A parameter past the bound the message states is set to the bound: to the data's
    limit ("n_neighbors = 100, n_samples_fit = 60": 60), or into the stated interval (its
    closed end, or the middle of an open one: base_score in (0,1) -> 0.5)."""
    message = message_text(diagnosis)
    upper = UPPER.search(message)
    if upper:
        return set_parameter(code, upper.group(1), upper.group(3), diagnosis.line)
    interval = INTERVAL.search(message)
    if not interval:
        return None
    name, opening, low_text, high_text, closing, got = interval.groups()
    low, high = float(low_text), float(high_text)
    value = float(got) if got is not None else None
    if value is not None and value < low:
        new = low if opening == "[" else (low + high) / 2
    elif value is not None and value > high:
        new = high if closing == "]" else (low + high) / 2
    else:  # the value is not stated: the middle is inside either way
        new = (low + high) / 2
    integral = new.is_integer() and not re.search(r"[.e]", low_text + high_text)
    return set_parameter(code, name, repr(int(new)) if integral else repr(new), diagnosis.line)


def follow_replacement(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"... Use .reshape(...) instead": at the failing line, the method the message names
    becomes the one it advises (`x.view(-1)` -> `x.reshape(-1)`)."""
    message = message_text(diagnosis)
    advised = ADVISED.search(message)
    if not advised:
        return None
    new = advised.group(1)
    named = set(WORD.findall(message[:advised.start()])) - {new}
    tree = ast.parse(code)
    edits = []
    for call in calls_at_line(tree, diagnosis.line):
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in named:
            head = ast.get_source_segment(code, func.value) or ast.unparse(func.value)
            edits.append((func, f"{head}.{new}"))
    return replace_nodes(code, edits[:1]) if edits else None


def cast_at_call(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """The dtype the message says the call needs, given to the data at the failing line:
    NumPy's "Cannot cast ... to dtype('int64')" casts the call's first argument
    (`np.bincount(y)` -> `np.bincount(np.asarray(y).astype('int64'))`); torch's "scalar
    types: Long, Int; but got torch.FloatTensor" makes it `.long()` (an embedding's codes)."""
    message = message_text(diagnosis)
    numpy_cast, torch_index = NUMPY_CAST.search(message), TORCH_INDEX.search(message)
    if not (numpy_cast or torch_index):
        return None
    tree = ast.parse(code)
    for call in calls_at_line(tree, diagnosis.line):
        if not call.args or not isinstance(call.args[0], (ast.Name, ast.Subscript,
                                                          ast.Attribute)):
            continue
        arg = ast.get_source_segment(code, call.args[0]) or ast.unparse(call.args[0])
        if torch_index:
            return replace_nodes(code, [(call.args[0], f"{arg}.long()")])
        patched = replace_nodes(code, [(call.args[0], f"_pipesmith_np.asarray({arg})"
                                                       f".astype({numpy_cast.group(1)!r})")])
        return insert_after_imports(patched, "import numpy as _pipesmith_np\n")
    return None


def nullable_integer(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """pandas' "cast to an integer type that supports these values (e.g. 'Int64')": the
    cast to int at the failing line becomes a cast to that type, missing values kept."""
    advised = NULLABLE.search(message_text(diagnosis))
    if not advised:
        return None
    tree = ast.parse(code)
    edits = [(call.args[0], repr(advised.group(1))) for call in calls_at_line(tree, diagnosis.line)
             if isinstance(call.func, ast.Attribute) and call.func.attr == "astype"
             and call.args and "int" in ast.unparse(call.args[0]).lower()]
    return replace_nodes(code, edits) if edits else None


def call_super_init(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """"cannot assign module before Module.__init__() call": the script's classes with a
    base class whose __init__ never calls the base's get `super().__init__()` first."""
    if not NO_SUPER.search(message_text(diagnosis)):
        return None
    tree = ast.parse(code)
    lines = code.splitlines(keepends=True)
    inserts = []
    for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.bases]:
        init = next((f for f in cls.body if isinstance(f, ast.FunctionDef)
                     and f.name == "__init__"), None)
        if init is None or any(isinstance(c.func, ast.Attribute) and c.func.attr == "__init__"
                               for c in find_calls(init)):
            continue
        body = init.body[1:] if len(init.body) > 1 and isinstance(init.body[0], ast.Expr) \
            and isinstance(init.body[0].value, ast.Constant) else init.body
        first = body[0]
        indent = lines[first.lineno - 1][:first.col_offset]
        inserts.append((first.lineno - 1, f"{indent}super().__init__()\n"))
    for index, text in sorted(inserts, reverse=True):
        lines.insert(index, text)
    return "".join(lines) if inserts else None


def rename_near_method(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """A method the library calls (named in the message: "should implement fit and
    transform", "missing the required "forward" function") that the script's own class
    spells differently (`transfrom`) is renamed there, and where the script calls it."""
    message = message_text(diagnosis)
    words = set(WORD.findall(message))
    tree = ast.parse(code)
    renames: dict[str, str] = {}
    for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]:
        if cls.name not in words and "__main__" not in message:
            continue
        methods = {f.name for f in cls.body if isinstance(f, ast.FunctionDef)}
        for wanted in sorted(words - methods):
            close = [m for m in difflib.get_close_matches(wanted, sorted(methods), n=1,
                                                          cutoff=0.8)
                     if m not in words and m.strip("_") and not m.startswith("__")]
            if close and not wanted.startswith("__"):
                renames[close[0]] = wanted
    if not renames:
        return None
    for old, new in renames.items():  # its definition and every call of it
        code = re.sub(rf"\bdef {old}\(", f"def {new}(", code)
        code = re.sub(rf"\.{old}\b", f".{new}", code)
    return code
