"""Fault injection, for research and for measuring the repair loop.

A coder wrapper that, with a given probability, injects one realistic fault into
each draft: the mistakes LLMs and people make (API drift, wrong names, data and
numerical slips, runaway resources, broken contracts). Each operator names the
taxonomy class its failure should be diagnosed as, so diagnosis accuracy can be
measured. Draws are seeded per (seed, dataset, candidate id), so a resumed run injects
the same faults, and runs of different topologies on one dataset and seed meet the same
faults in the same candidates (paired comparisons): the dataset is named by its file's
name, target and task text, not by its folder, which an eval gives each job.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pipesmith.agents.families.registry import FAMILIES
from pipesmith.agents.protocols import Coder
from pipesmith.agents.schemas import (
    Candidate,
    CandidateSpec,
    CodeExample,
    DataProfile,
    RepairRequest,
    RunInputs,
)


@dataclass(frozen=True)
class FaultContext:
    columns: list[str]
    task_type: str
    network_isolated: bool  # only then may a fault reach for the network


@dataclass(frozen=True)
class Operator:
    name: str
    expected: str  # taxonomy class.subclass its failure should be diagnosed as
    mutate: Callable[[str, random.Random, FaultContext], str | None]


def _sub_once(pattern: str, replacement: str, code: str, flags: int = 0) -> str | None:
    new, count = re.subn(pattern, replacement, code, count=1, flags=flags)
    return new if count else None


def _add_import(code: str, line: str) -> str:
    """Put an import after the module docstring and the existing imports."""
    lines = code.splitlines()
    last_import = max((i for i, ln in enumerate(lines) if ln.startswith(("import ", "from "))),
                      default=0)
    return "\n".join(lines[: last_import + 1] + [line] + lines[last_import + 1:]) + "\n"


def _first_line_of_build_pipeline(code: str, statement: str) -> str | None:
    return _sub_once(r"(def build_pipeline\(task\):\n)", r"\1    " + statement + "\n", code)


def _model_line(code: str) -> re.Match | None:
    return re.search(r"^(\s*)model = (\w+)\((.*)\)$", code, flags=re.MULTILINE)


def _replace_model(code: str, module: str, expression: str) -> str | None:
    found = _model_line(code)
    if not found:
        return None
    code = code[: found.start()] + f"{found.group(1)}model = {expression}" + code[found.end():]
    return _add_import(code, f"from {module} import {expression.split('(')[0]}")


# --- operators -----------------------------------------------------------------------------


def syntax_missing_colon(code, rng, ctx):
    return _sub_once(r"def build_pipeline\(task\):", "def build_pipeline(task)", code)


def syntax_unclosed_paren(code, rng, ctx):
    lines = code.splitlines()
    options = [i for i, ln in enumerate(lines) if ln.rstrip().endswith(")")
               and ln.count("(") == ln.count(")") and not ln.lstrip().startswith(("def", "#"))]
    if not options:
        return None
    i = rng.choice(options)
    lines[i] = lines[i].rstrip()[:-1]
    return "\n".join(lines) + "\n"


def misspelled_module(code, rng, ctx):
    imports = re.findall(r"^from (sklearn\.\w+) import", code, flags=re.MULTILINE)
    if not imports:
        return None
    module = rng.choice(imports)
    return code.replace(f"from {module} import", f"from {module}s import", 1)


def _boosters() -> tuple[tuple[str, str, str], ...]:
    """(library, classifier, regressor) of the boost extra's families, by the library's own
    class names (what a user writes), XGBoost first as the one most reached for; then
    NGBoost, which pipesmith does not plan."""
    classes: dict[str, dict[str, str]] = {}
    for family in FAMILIES:
        if family.boosting and family.requires:
            classes.setdefault(family.requires, {})[family.task_type] = family.wraps or family.cls
    found = [(lib, c["classification"], c["regression"]) for lib, c in classes.items()]
    return (*sorted(found, key=lambda b: b[0] != "xgboost"),
            ("ngboost", "NGBClassifier", "NGBRegressor"))


# Gradient-boosting libraries users reach for; the fault names one that is not installed
# here (flaml, for one, brings xgboost and lightgbm with it; the boost extra, catboost).
BOOSTERS = _boosters()


def uninstalled_booster() -> tuple[str, str, str] | None:
    """(module, classifier, regressor) of a boosting library that is not installed."""
    from importlib.util import find_spec

    return next((b for b in BOOSTERS if find_spec(b[0]) is None), None)


def uninstalled_package(code, rng, ctx):
    found, booster = _model_line(code), uninstalled_booster()
    if not found or booster is None or ctx.task_type == "clustering":
        return None
    cls = found.group(2)
    module, classifier, regressor = booster
    new = classifier if ctx.task_type == "classification" else regressor
    code = re.sub(rf"^from [\w.]+ import {cls}$", f"from {module} import {new}", code,
                  count=1, flags=re.MULTILINE)
    return code.replace(f"model = {cls}(", f"model = {new}(", 1)


def removed_class(code, rng, ctx):
    if "from sklearn.impute import SimpleImputer" not in code:
        return None
    code = code.replace("from sklearn.impute import SimpleImputer",
                        "from sklearn.preprocessing import Imputer", 1)
    return code.replace("SimpleImputer(", "Imputer(")


def renamed_keyword(code, rng, ctx):
    return _sub_once(r"sparse_output=False", "sparse=False", code)


REMOVED_KEYWORDS = {  # keywords the installed scikit-learn no longer takes
    "RandomForestClassifier": "min_impurity_split=1e-07",
    "RandomForestRegressor": "min_impurity_split=1e-07",
    "ExtraTreesClassifier": "min_impurity_split=1e-07",
    "ExtraTreesRegressor": "min_impurity_split=1e-07",
    "LogisticRegression": "multi_class='ovr'",
    "Ridge": "normalize=True",
    "KMeans": "precompute_distances=True",
    "AgglomerativeClustering": "affinity='euclidean'",
}
REMOVED_VALUES = {  # values the installed scikit-learn rejects
    "HistGradientBoostingClassifier": "loss='binary_crossentropy'",
    "HistGradientBoostingRegressor": "loss='least_squares'",
    "SVC": "gamma='auto_deprecated'",
    "SVR": "gamma='auto_deprecated'",
    "KNeighborsClassifier": "algorithm='kd-tree'",
    "KNeighborsRegressor": "algorithm='kd-tree'",
    "GaussianMixture": "covariance_type='fulll'",
}


def _add_model_keyword(code: str, table: dict[str, str]) -> str | None:
    found = _model_line(code)
    if not found or found.group(2) not in table:
        return None
    keyword = table[found.group(2)]
    name = keyword.split("=")[0]
    args = re.sub(rf"\b{name}=('[^']*'|\"[^\"]*\"|[^,)]+)", keyword, found.group(3))
    if args == found.group(3):
        args = f"{keyword}, {args}"
    new = f"{found.group(1)}model = {found.group(2)}({args})"
    return code[: found.start()] + new + code[found.end():]


def removed_keyword(code, rng, ctx):
    return _add_model_keyword(code, REMOVED_KEYWORDS)


def outdated_parameter_value(code, rng, ctx):
    return _add_model_keyword(code, REMOVED_VALUES)


def misspelled_strategy(code, rng, ctx):
    return _sub_once(r'strategy="median"', 'strategy="medain"', code)


def numpy_alias(code, rng, ctx):
    code = _first_line_of_build_pipeline(code, "dtype = np.float  # the features' dtype")
    return _add_import(code, "import numpy as np") if code else None


def _column_literals(code: str, ctx: FaultContext) -> list[str]:
    return [c for c in ctx.columns if f"'{c}'" in code or f'"{c}"' in code]


def misspelled_column(code, rng, ctx):
    columns = [c for c in _column_literals(code, ctx) if len(c) > 3]
    if not columns:
        return None
    column = rng.choice(columns)
    i = rng.randrange(1, len(column) - 1)
    typo = column[:i] + column[i + 1] + column[i] + column[i + 2:]  # swap two letters
    if typo == column or typo in ctx.columns:
        typo = column[:i] + column[i + 1:]
    return code.replace(repr(column), repr(typo), 1)


def phantom_column(code, rng, ctx):
    return _sub_once(r"NUMERIC_COLUMNS = \[", "NUMERIC_COLUMNS = ['customer_id', ", code)


def log_of_negative(code, rng, ctx):
    code = _sub_once(r'numeric_steps = \[SimpleImputer\((strategy="median"[^)]*)\)\]',
                     r'numeric_steps = [SimpleImputer(\1), StandardScaler(), '
                     'FunctionTransformer(np.log)]', code)
    if code is None:
        return None
    code = _add_import(code, "import numpy as np")
    return _add_import(code, "from sklearn.preprocessing import FunctionTransformer")


def divergent_learning_rate(code, rng, ctx):
    if ctx.task_type == "clustering":
        return None
    cls = "MLPClassifier" if ctx.task_type == "classification" else "MLPRegressor"
    return _replace_model(code, "sklearn.neural_network",
                          f'{cls}(solver="sgd", learning_rate_init=10.0, max_iter=50, '
                          f'random_state=task["seed"])')


def huge_ensemble(code, rng, ctx):
    return _sub_once(r"n_estimators=\d+", "n_estimators=500000", code)


def infinite_loop(code, rng, ctx):
    return _first_line_of_build_pipeline(
        code, "while True:  # wait for the data to be ready\n        pass")


def memory_blowup(code, rng, ctx):
    code = _first_line_of_build_pipeline(code, "cache = np.ones((60000, 60000))")
    return _add_import(code, "import numpy as np") if code else None


def missing_build_pipeline(code, rng, ctx):
    return _sub_once(r"def build_pipeline\(task\):", "def build_model(task):", code)


def tuple_return(code, rng, ctx):
    return _sub_once(r"(def build_pipeline\(task\):\n    return )(.+)\n",
                     r'\1\2, {"seed": task["seed"]}\n', code)


def placeholder_model(code, rng, ctx):
    if ctx.task_type == "clustering":
        return None
    cls = "DummyClassifier" if ctx.task_type == "classification" else "DummyRegressor"
    return _replace_model(code, "sklearn.dummy", f"{cls}()")


def network_download(code, rng, ctx):
    if not ctx.network_isolated:
        return None
    code = _first_line_of_build_pipeline(
        code, 'urllib.request.urlopen("http://198.51.100.7/extra_features.csv", timeout=5)')
    return _add_import(code, "import urllib.request") if code else None


def too_many_components(code, rng, ctx):
    n = len(ctx.columns) + 20
    code = _sub_once(r'\("model", model\),', f'("reduce", PCA(n_components={n})),\n'
                     '        ("model", model),', code)
    return _add_import(code, "from sklearn.decomposition import PCA") if code else None


# --- neural candidates (PyTorch, Keras): the slips of hand-written training loops ----------

NEURAL_MODEL = r"(model = (Torch|Keras)MLP(Classifier|Regressor)\()"


def _neural_keyword(code: str, keyword: str, value: str) -> str | None:
    """Set `keyword=value` on the neural estimator the builder constructs."""
    if not re.search(NEURAL_MODEL, code):
        return None
    code = re.sub(rf"(model = (?:Torch|Keras)MLP\w+\(.*?){keyword}=(\([^)]*\)|[^,)]+),? ?",
                  r"\1", code, count=1)
    return _sub_once(NEURAL_MODEL, rf"\1{keyword}={value}, ", code)


TORCH_IMPORT = re.compile(r"^from pipesmith\.estimators import TorchMLP\w*$", re.MULTILINE)


def own_torch_loop() -> str:
    """pipesmith's torch estimator as source code, for a module that writes its own loop."""
    import inspect

    from pipesmith.estimators import torch_mlp

    source = inspect.getsource(torch_mlp)
    return source[source.index("import warnings"):].rstrip() + "\n"


def float64_inputs(code, rng, ctx):
    """A hand-written torch training loop that makes float64 tensors: a module importing
    pipesmith's estimator gets the estimator's own source in place of the import, with the
    slip (Keras casts its inputs to the layers' dtype itself)."""
    if "class TorchMLP(" not in code:
        match = TORCH_IMPORT.search(code)
        if match is None:
            return None
        code = code[:match.start()] + own_torch_loop() + code[match.end():]
    return _sub_once(r"torch\.as_tensor\(np\.asarray\(X, dtype=np\.float32\), device=device\)",
                     "torch.as_tensor(np.asarray(X, dtype=np.float64), device=device)", code)


def hardcoded_input_width(code, rng, ctx):
    return _neural_keyword(code, "input_width", str(max(1, len(ctx.columns) // 2)))


def wrong_loss(code, rng, ctx):
    if ctx.task_type != "classification":
        return None
    loss = '"bce"' if "TorchMLP" in code else '"binary_crossentropy"'
    return _neural_keyword(code, "loss", loss)


def exploding_learning_rate(code, rng, ctx):
    return _neural_keyword(code, "learning_rate", "1000000.0")


def huge_network(code, rng, ctx):
    return _neural_keyword(code, "hidden", "(200000, 200000)")


def too_few_epochs(code, rng, ctx):
    code = _neural_keyword(code, "epochs", "2")
    return _neural_keyword(code, "learning_rate", "1e-06") if code else None


# --- real-world API drift, as reported in public (evals/corpus/ has the sources) -----------


def _model_keyword(code: str, families: str, keyword: str) -> str | None:
    """Add `keyword` to the model line when the model is one of `families` (a regex)."""
    found = _model_line(code)
    if not found or not re.fullmatch(families, found.group(2)):
        return None
    args = found.group(3)
    new = f"{found.group(1)}model = {found.group(2)}({keyword}{', ' if args else ''}{args})"
    return code[: found.start()] + new + code[found.end():]


def max_features_auto(code, rng, ctx):
    return _model_keyword(code, r"(RandomForest|ExtraTrees)(Classifier|Regressor)",
                          'max_features="auto"')


def penalty_none_string(code, rng, ctx):
    return _model_keyword(code, r"LogisticRegression", 'penalty="none"')


def multi_class_keyword(code, rng, ctx):
    return _model_keyword(code, r"LogisticRegression", 'multi_class="multinomial"')


def criterion_mse(code, rng, ctx):
    return _model_keyword(code, r"(RandomForest|ExtraTrees|DecisionTree)Regressor",
                          'criterion="mse"')


def boosting_loss_renamed(code, rng, ctx):
    old = '"auto"' if ctx.task_type == "classification" else '"least_squares"'
    return _model_keyword(code, r"HistGradientBoosting(Classifier|Regressor)", f"loss={old}")


def nan_sentinel_alias(code, rng, ctx):
    new = _sub_once(r'SimpleImputer\(strategy="median"',
                    'SimpleImputer(missing_values=np.NaN, strategy="median"', code)
    return _add_import(new, "import numpy as np") if new else None


REAL_WORLD_OPERATORS: tuple[Operator, ...] = (
    Operator("max_features_auto", "api.invalid_parameter", max_features_auto),
    Operator("penalty_none_string", "api.invalid_parameter", penalty_none_string),
    Operator("multi_class_keyword", "api.unexpected_keyword", multi_class_keyword),
    Operator("criterion_mse", "api.invalid_parameter", criterion_mse),
    Operator("boosting_loss_renamed", "api.invalid_parameter", boosting_loss_renamed),
    Operator("nan_sentinel_alias", "api.removed_attribute", nan_sentinel_alias),
)

NEURAL_OPERATORS: tuple[Operator, ...] = (
    Operator("float64_inputs", "neural.dtype_mismatch", float64_inputs),
    Operator("hardcoded_input_width", "neural.input_width", hardcoded_input_width),
    Operator("wrong_loss", "neural.loss_target_mismatch", wrong_loss),
    Operator("exploding_learning_rate", "numerical.divergence", exploding_learning_rate),
    Operator("huge_network", "neural.out_of_memory", huge_network),
    Operator("too_few_epochs", "numerical.non_convergence", too_few_epochs),
)

OPERATORS: tuple[Operator, ...] = (
    Operator("syntax_missing_colon", "syntax.invalid_syntax", syntax_missing_colon),
    Operator("syntax_unclosed_paren", "syntax.invalid_syntax", syntax_unclosed_paren),
    Operator("misspelled_module", "import.missing_module", misspelled_module),
    Operator("uninstalled_package", "import.missing_module", uninstalled_package),
    Operator("removed_class", "import.version_conflict", removed_class),
    Operator("renamed_keyword", "api.unexpected_keyword", renamed_keyword),
    Operator("removed_keyword", "api.unexpected_keyword", removed_keyword),
    Operator("outdated_parameter_value", "api.invalid_parameter", outdated_parameter_value),
    Operator("misspelled_strategy", "api.invalid_parameter", misspelled_strategy),
    Operator("numpy_alias", "api.removed_attribute", numpy_alias),
    Operator("misspelled_column", "data_flow.missing_column", misspelled_column),
    Operator("phantom_column", "data_flow.missing_column", phantom_column),
    Operator("log_of_negative", "data_flow.nan_input", log_of_negative),
    Operator("too_many_components", "data_flow.feature_mismatch", too_many_components),
    Operator("divergent_learning_rate", "numerical.divergence", divergent_learning_rate),
    Operator("huge_ensemble", "resource.timeout", huge_ensemble),
    Operator("infinite_loop", "resource.timeout", infinite_loop),
    Operator("memory_blowup", "resource.out_of_memory", memory_blowup),
    Operator("missing_build_pipeline", "contract.no_build_pipeline", missing_build_pipeline),
    Operator("tuple_return", "contract.wrong_return_type", tuple_return),
    Operator("placeholder_model", "quality.below_baseline", placeholder_model),
    Operator("network_download", "sandbox_policy.network_denied", network_download),
)
CATALOGUE = OPERATORS + NEURAL_OPERATORS + REAL_WORLD_OPERATORS
BY_NAME = {op.name: op for op in CATALOGUE}


class FaultInjectingCoder:
    """Wraps a coder; each draft gets one applicable fault with probability `rate`.

    With `every_generation` (the honest fault model for research) every code the coder
    writes — first drafts, repairs (patches and redrafts alike) and ensembles — carries a
    fault at the same rate, drawn from the whole catalogue (the operators the repair rules
    were written against and real-world drift reported in public), so a repair cannot
    succeed just by starting over from fault-free templates."""

    def __init__(self, coder: Coder, rate: float, seed: int = 0, network_isolated: bool = False,
                 operators: tuple[Operator, ...] | None = None,
                 every_generation: bool = False) -> None:
        if not 0.0 <= rate <= 1.0:
            raise ValueError("the fault rate must be between 0 and 1")
        self.coder, self.rate, self.seed = coder, rate, seed
        self.network_isolated = network_isolated
        self.operators = operators or (CATALOGUE if every_generation
                                       else OPERATORS + NEURAL_OPERATORS)
        self.every_generation = every_generation

    def draft(self, candidate_id: str, spec: CandidateSpec, profile: DataProfile,
              inputs: RunInputs, examples: list[CodeExample] | None = None
              ) -> Candidate | None:
        candidate = self.coder.draft(candidate_id, spec, profile, inputs, examples)
        return self._inject(candidate, profile, inputs)

    def repair(self, candidate_id: str, request: RepairRequest, profile: DataProfile | None,
               inputs: RunInputs | None) -> Candidate | None:
        candidate = self.coder.repair(candidate_id, request, profile, inputs)
        if not self.every_generation or profile is None or inputs is None:
            return candidate
        return self._inject(candidate, profile, inputs)

    def repair_options(self, candidate_id: str, request: RepairRequest,
                       profile: DataProfile | None, inputs: RunInputs | None,
                       limit: int = 1) -> list[Candidate]:
        options = self.coder.repair_options(candidate_id, request, profile, inputs, limit)
        if not self.every_generation or profile is None or inputs is None:
            return options
        return [injected for o in options
                if (injected := self._inject(o, profile, inputs)) is not None]

    def ensemble(self, candidate_id: str, members: list[Candidate], profile: DataProfile,
                 inputs: RunInputs, strategy: str = "caruana",
                 weights: list[float] | None = None, n_clusters: int = 2,
                 class_weights: dict[str, float] | None = None,
                 level2: dict | None = None) -> Candidate | None:
        candidate = self.coder.ensemble(candidate_id, members, profile, inputs,
                                        strategy=strategy, weights=weights,
                                        n_clusters=n_clusters, class_weights=class_weights,
                                        level2=level2)
        return self._inject(candidate, profile, inputs) if self.every_generation \
            else candidate

    def searchable(self, spec: CandidateSpec, profile: DataProfile, inputs: RunInputs) -> str:
        """The search's trial module, never faulted: the search measures learners, and a
        fault would only cost it trials."""
        return self.coder.searchable(spec, profile, inputs)

    def _inject(self, candidate: Candidate | None, profile: DataProfile,
                inputs: RunInputs) -> Candidate | None:
        if candidate is None:  # an LLM coder whose budget is spent writes nothing
            return None
        rng = random.Random(f"{self.seed}:{Path(inputs.dataset).name}:{inputs.target}:"
                            f"{inputs.task_text}:{inputs.seed}:{candidate.id}")
        if rng.random() >= self.rate:
            return candidate
        ctx = FaultContext(columns=[c.name for c in profile.columns],
                           task_type=inputs.task_type, network_isolated=self.network_isolated)
        for operator in rng.sample(self.operators, len(self.operators)):
            code = operator.mutate(candidate.code, rng, ctx)
            if code is not None and code != candidate.code:
                return candidate.model_copy(update={"code": code,
                                                    "injected_fault": operator.name})
        return candidate
