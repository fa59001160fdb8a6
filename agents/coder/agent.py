"""The offline coder: render candidate modules from code templates, and repair them.

Drafts are rendered from the family table and the data profile. A repair patches
the failing code itself (agents/repair/table.py) with the diagnosis' repair actions,
or redrafts from the candidate's spec; it never returns code a lineage has
already tried.
"""

from __future__ import annotations

import keyword
import re
from importlib import resources
from string import Template

from pipesmith.agents.coder.bind import bindable, bound_module
from pipesmith.agents.ensembler.compose import compose_module
from pipesmith.agents.families.registry import Family, balancing, get_family
from pipesmith.agents.repair import table as repairs
from pipesmith.agents.repair.table import RepairContext
from pipesmith.agents.schemas import (
    Candidate,
    CandidateSpec,
    CodeExample,
    DataProfile,
    Diagnosis,
    RepairRequest,
    RunInputs,
)

BASE_IMPORTS = (
    "from sklearn.compose import ColumnTransformer",
    "from sklearn.impute import SimpleImputer",
    "from sklearn.pipeline import Pipeline, make_pipeline",
    "from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler",
)
# the date columns' branch of make_preprocessor, when the data has some
DATE_STEP = ('\n            ("dates", make_pipeline(DateFeatures(), '
             'SimpleImputer(strategy="median")), DATETIME_COLUMNS),')
# HistGradientBoosting's categorical splits, when a module has such a family: the
# ordinal-encoded columns follow the numeric ones; a column with more levels than the
# estimator's bins stays numeric (its codes are still ordered numbers)
NATIVE_HELPER = '''

# split as categories, not as numbers, by estimators that can (at most 255 levels)
FEW_LEVEL_COLUMNS = $few


def native_categoricals():
    """Positions, after the numeric columns, of the ordinal-encoded columns with few
    enough levels to split as categories (unknown and missing codes, -1, are missing)."""
    start = len(NUMERIC_COLUMNS)
    return [start + i for i, name in enumerate(CATEGORICAL_COLUMNS)
            if name in FEW_LEVEL_COLUMNS] or None
'''
MAX_CATEGORY_LEVELS = 250  # HistGradientBoosting's 255 bins, with room for a fold's own
REDRAFT_AFTER = 2  # failed repairs in a lineage before a fresh redraft is tried first


def load_template(name: str) -> Template:
    text = resources.files("pipesmith.agents.coder").joinpath("templates", name).read_text()
    return Template(text)


def render(template: Template, **values) -> str:
    """Strict rendering: a missing variable raises KeyError."""
    return template.substitute(**values)


def identifier(name: str) -> str:
    ident = re.sub(r"\W", "_", name).strip("_") or "candidate"
    if ident[0].isdigit() or keyword.iskeyword(ident):
        ident = f"c_{ident}"
    return ident


def model_expression(family: Family, params: dict, searchable: bool = False,
                     encoding: str | None = None) -> str:
    """The estimator call; `searchable` lets task["params"] (a search trial's
    hyperparameters) override the rendered ones, so one module serves many trials."""
    args = [f"{key}={value!r}" for key, value in params.items()]
    if searchable:
        args = [f'**{{**{params!r}, **task.get("params", {{}})}}']
    if family.native_categorical and encoding == "ordinal":
        args.append("categorical_features=native_categoricals()")
    if family.parallel:
        args.append(f'{family.threads}=task["n_jobs"]')
    if family.seeded:
        args.append('random_state=task["seed"]')
    return f"{family.cls}({', '.join(args)})"


def rank_actions(actions: list[str], past_fixes: list[str]) -> list[str]:
    """Actions that fixed this signature before first (in their order), then the rest."""
    return [a for a in past_fixes if a in actions] + [a for a in actions if a not in past_fixes]


REPLAY = "replay_fix"  # re-apply a diff that fixed the same error signature before
NEAR = 3  # lines either side of the diagnosed location that count as "there"


def demote_failed(actions: list[str], tried: list[str], diagnosis) -> list[str]:
    """Actions the lineage already tried on this taxonomy class, which came back with the
    same class, go last: the history says they did not help here."""
    key = f"{diagnosis.taxonomy_class}.{diagnosis.subclass}"
    failed = {t.split("@", 1)[0] for t in tried if t.split("@", 1)[-1].startswith(key + "|")}
    return [a for a in actions if a not in failed] + [a for a in actions if a in failed]


def replay_fixes(code: str, diffs: list[str]) -> str | None:
    """The first past fix (a unified diff) whose every hunk's old text occurs once in the
    code, applied to it."""
    for diff in diffs:
        hunks = _hunks(diff)
        new = code
        for old, replacement in hunks:
            if not old.strip() or new.count(old) != 1:
                break
            new = new.replace(old, replacement, 1)
        else:
            if hunks and new != code:
                return new
    return None


def _hunks(diff: str) -> list[tuple[str, str]]:
    hunks, old, new = [], [], []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("@@"):
            if old or new:
                hunks.append(("".join(old), "".join(new)))
            old, new = [], []
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        elif line.startswith(" "):
            old.append(line[1:])
            new.append(line[1:])
    if old or new:
        hunks.append(("".join(old), "".join(new)))
    return hunks


def touches(before: str, after: str, line: int) -> bool:
    """Whether the edit from `before` to `after` changes a line near `line`."""
    import difflib

    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(),
                                      autojunk=False)
    return any(tag != "equal" and i1 - NEAR < line <= i2 + NEAR
               for tag, i1, i2, _, _ in matcher.get_opcodes())


def apply_actions(spec: CandidateSpec, family: Family, actions: list[str]) -> CandidateSpec:
    """The spec change each repair action asks for; actions the template covers are no-ops."""
    changes: dict = {}
    for action in actions:
        if action in ("shrink_model", "subsample"):
            changes["params"] = {**spec.params, **family.light}
        elif action in ("scale_features", "regularise"):
            changes["scale"] = True
        elif action == "encode_categoricals":
            changes["encoding"] = "ordinal"
    return spec.model_copy(update=changes)


class Coder:
    def __init__(self) -> None:
        self._module = load_template("module.py.tmpl")
        self._builder = load_template("builder.py.tmpl")

    def draft(self, candidate_id: str, spec: CandidateSpec, profile: DataProfile,
              inputs: RunInputs, examples: list[CodeExample] | None = None) -> Candidate:
        """`examples` are not used: the templates already encode what works. A search
        winner is its trials' module with the trial's hyperparameters bound."""
        if spec.trial is not None and bindable(spec.trial.params):
            code = bound_module(spec.trial.module, spec.trial.params, spec.trial.number)
            return Candidate(id=candidate_id, name=spec.name, phase="draft", code=code,
                             spec=spec)
        code = self._render_module(inputs, profile, [spec], title=spec.name)
        return Candidate(id=candidate_id, name=spec.name, phase="draft", code=code, spec=spec)

    def searchable(self, spec: CandidateSpec, profile: DataProfile, inputs: RunInputs) -> str:
        """A module whose build_pipeline(task) takes hyperparameters from task["params"]:
        the code the search's trials run (checked once, imported once per batch)."""
        return self._render_module(inputs, profile, [spec], title=f"{spec.name} (search)",
                                   searchable=True)

    def repair(self, candidate_id: str, request: RepairRequest, profile: DataProfile | None,
               inputs: RunInputs | None) -> Candidate | None:
        """Patch the failing code with the diagnosis' repair actions, best first, or redraft
        (the first of `repair_options`)."""
        options = self.repair_options(candidate_id, request, profile, inputs, limit=1)
        return options[0] if options else None

    def repair_options(self, candidate_id: str, request: RepairRequest,
                       profile: DataProfile | None, inputs: RunInputs | None,
                       limit: int = 1) -> list[Candidate]:
        """Up to `limit` repairs, best first, each from another action.

        Actions that fixed this error signature before (from the knowledge base) go first;
        an action already tried on this signature in the lineage, or code the lineage has
        already run, is skipped. After REDRAFT_AFTER failed repairs a fresh redraft goes
        first: debugging effectiveness decays after two or three rounds. A redraft is only
        offered when no patch applies; among patches, those that edit where the failure was
        located come first.
        """
        failed, diagnosis = request.candidate, request.diagnosis
        actions = demote_failed(rank_actions(diagnosis.repair_actions, request.past_fixes),
                                request.tried, diagnosis)
        if request.past_fix_diffs:  # the knowledge base's own fixes of this signature
            actions = [REPLAY] + actions
        if len(request.history) >= REDRAFT_AFTER:
            actions = ["redraft"] + [a for a in actions if a != "redraft"]
        context = RepairContext(columns=request.columns, leaky_columns=request.leaky_columns,
                                task_type=inputs.task_type if inputs else "classification")
        found: list[tuple[str, str, CandidateSpec | None]] = []  # (action, code, spec)
        for action in actions:
            if f"{action}@{diagnosis.signature}" in request.tried:
                continue
            spec = failed.spec
            if action == "redraft":
                if found:
                    break  # a patch applies: prefer it to starting over
                if spec is None:
                    continue
                family = get_family(inputs.task_type, spec.family)
                spec = apply_actions(spec, family, diagnosis.repair_actions)
                code = self._render_module(inputs, profile, [spec], title=spec.name)
            elif action == REPLAY:
                code = replay_fixes(failed.code, request.past_fix_diffs)
            else:
                code = repairs.apply(action, failed.code, diagnosis, context)
            if code is None or code in request.lineage_codes or \
                    any(code == c for _, c, _ in found):
                continue
            found.append((action, code, spec))
            if limit == 1 and (action in ("redraft", REPLAY) or diagnosis.line is None):
                break  # the first is the one: no need to patch further
        if found and found[0][0] not in ("redraft", REPLAY) and diagnosis.line is not None:
            # the ones that edit where the failure was located go first
            near = [f for f in found if touches(failed.code, f[1], diagnosis.line)]
            found = near + [f for f in found if f not in near]
        return [Candidate(id=candidate_id, name=failed.name, phase="repair", code=code,
                          parent=failed.id, spec=spec, repair_action=action,
                          repair_notes=self._notes(action, failed.code, code, diagnosis))
                for action, code, spec in found[:limit]]

    @staticmethod
    def _notes(action: str, before: str, after: str, diagnosis: Diagnosis) -> list[str]:
        """What a lossy patch lost (a dropped keyword), so the repair is reported partial."""
        if action in ("redraft", REPLAY):
            return []
        return repairs.caveats(action, f"{diagnosis.taxonomy_class}.{diagnosis.subclass}",
                               before, after, diagnosis)

    def ensemble(self, candidate_id: str, members: list[Candidate], profile: DataProfile,
                 inputs: RunInputs, strategy: str = "caruana",
                 weights: list[float] | None = None, n_clusters: int = 2,
                 class_weights: dict[str, float] | None = None,
                 level2: dict | None = None) -> Candidate:
        """One module from the exact code each member ran with (never re-rendered from its
        spec, so a repaired member stays repaired), combined by the chosen strategy."""
        code = compose_module([(m.id, m.code) for m in members], strategy,
                              weights or [1.0] * len(members), inputs.task_type, n_clusters,
                              class_weights, level2)
        return Candidate(id=candidate_id, name="ensemble", phase="ensemble", code=code,
                         members=[m.id for m in members])

    def _render_module(self, inputs: RunInputs, profile: DataProfile,
                       specs: list[CandidateSpec], title: str,
                       searchable: bool = False) -> str:
        families = [get_family(inputs.task_type, spec.family) for spec in specs]
        functions = _unique_identifiers([spec.name for spec in specs])
        imports = set(BASE_IMPORTS) | {f"from {f.module} import {f.cls}" for f in families}
        dates = profile.names("datetime")
        if dates:  # dates become numbers (year, month, ...), not dropped columns
            imports.add("from pipesmith.estimators import DateFeatures")
        builders = "\n".join(
            render(self._builder, function=fn, family=f.cls, rationale=spec.rationale or f.name,
                   model=model_expression(f, {**balancing(f, inputs.metric), **spec.params},
                                          searchable, spec.encoding), scale=spec.scale,
                   encoding=spec.encoding)
            for fn, f, spec in zip(functions, families, specs, strict=True)
        )
        body = f"    return build_{functions[0]}(task)"
        dropped = [c.name for c in profile.columns
                   if c.kind not in ("numeric", "categorical", "datetime")]
        reasons = sorted({c.kind for c in profile.columns if c.name in dropped})
        return render(
            self._module,
            title=title,
            task_type=inputs.task_type,
            dataset=inputs.dataset,
            imports="\n".join(sorted(imports)),
            numeric=_list_literal(profile.names("numeric")),
            categorical=_list_literal(profile.names("categorical")),
            dropped=_list_literal(dropped),
            datetime_columns=f"\nDATETIME_COLUMNS = {_list_literal(dates)}" if dates else "",
            date_step=DATE_STEP if dates else "",
            native_helper=render(Template(NATIVE_HELPER), few=_list_literal(
                [c.name for c in profile.columns if c.kind == "categorical"
                 and c.n_unique <= MAX_CATEGORY_LEVELS]))
            if any(f.native_categorical for f in families) else "",
            dropped_reason=", ".join(reasons) + " columns" if reasons else "none",
            builders=builders,
            build_body=body,
        )


def _unique_identifiers(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        ident = identifier(name)
        seen[ident] = seen.get(ident, 0) + 1
        out.append(ident if seen[ident] == 1 else f"{ident}_{seen[ident]}")
    return out


def _list_literal(items: list[str]) -> str:
    if len(items) <= 4:
        return repr(items)
    return "[\n" + "".join(f"    {item!r},\n" for item in items) + "]"
