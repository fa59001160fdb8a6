"""Static checks of what the code does with the data against the data's profile.

- a stratified split (`StratifiedShuffleSplit`, `stratify=`) when a class has one row;
- a probability or score metric (its installed signature names the argument `y_proba`,
  `y_prob`, `probas_pred` or `y_score`) fed the labels of `predict` (blocking above two
  classes, where scikit-learn raises; advisory otherwise);
- train and test parts one-hot encoded separately (`pd.get_dummies` on each), so a level
  missing from one part gives them different columns.

Each stays silent when the code might handle the concern: no false alarm on working code
matters more than catching every case.
"""

from __future__ import annotations

import ast
import inspect

from pipesmith.agents.prevalidator.static_checks import _MISSING, imported_names, resolve, walk
from pipesmith.agents.schemas import DataProfile, Issue

RARE_FILTERS = ("value_counts", "isin", "filter", "nunique")  # the code may drop rare classes
PROBABILITY_PARAMETERS = ("y_proba", "y_prob", "probas_pred", "y_score")
ALIGNS = ("align", "reindex", "reindex_like", "Categorical", "CategoricalDtype", "categories",
          "concat")


def _attribute_names(tree: ast.AST) -> set[str]:
    return {n.attr for n in walk(tree) if isinstance(n, ast.Attribute)} | \
        {n.id for n in walk(tree) if isinstance(n, ast.Name)} | \
        {k.arg for k in walk(tree) if isinstance(k, ast.keyword) and k.arg}


def smallest_class(profile: DataProfile) -> int | None:
    if profile.n_classes is None or profile.minority_share is None:
        return None
    return round(profile.minority_share * profile.n_rows)


def check_small_class(tree: ast.AST, profile: DataProfile | None) -> list[Issue]:
    """Stratified shuffle splits need two rows of every class (scikit-learn raises)."""
    smallest = smallest_class(profile) if profile else None
    if smallest is None or smallest >= 2 or _attribute_names(tree) & set(RARE_FILTERS):
        return []
    names = imported_names(tree)
    for node in walk(tree):
        if not isinstance(node, ast.Call):
            continue
        target = resolve(node.func, names)
        stratified = getattr(target, "__name__", "") == "StratifiedShuffleSplit" or any(
            kw.arg == "stratify" and not (isinstance(kw.value, ast.Constant)
                                          and kw.value.value is None)
            for kw in node.keywords) and getattr(target, "__module__", "").startswith("sklearn")
        if stratified:
            return [Issue(taxonomy_class="data_flow", subclass="small_class", line=node.lineno,
                          message="The least populated class in y has only 1 member, which is "
                                  "too few. The minimum number of groups for any class cannot "
                                  "be less than 2.")]
    return []


def _predicted_labels(tree: ast.AST) -> set[str]:
    """Names bound to the result of a `.predict(...)` call."""
    return {t.id for n in walk(tree) if isinstance(n, ast.Assign) and _is_predict(n.value)
            for t in n.targets if isinstance(t, ast.Name)}


def _is_predict(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr == "predict"


def check_probability_metrics(tree: ast.AST, profile: DataProfile | None) -> list[Issue]:
    names = imported_names(tree)
    labels = _predicted_labels(tree)
    issues = []
    for node in walk(tree):
        if not isinstance(node, ast.Call):
            continue
        metric = resolve(node.func, names)
        if metric is _MISSING or not inspect.isfunction(metric) or \
                not metric.__module__.startswith("sklearn.metrics"):
            continue
        try:
            bound = inspect.signature(metric).bind_partial(*node.args, **{
                k.arg: k.value for k in node.keywords if k.arg})
        except TypeError:
            continue
        for parameter, value in bound.arguments.items():
            if parameter not in PROBABILITY_PARAMETERS:
                continue
            if _is_predict(value) or (isinstance(value, ast.Name) and value.id in labels):
                many = profile is not None and (profile.n_classes or 0) > 2
                issues.append(Issue(
                    taxonomy_class="data_flow", subclass="metric_needs_scores",
                    line=node.lineno, advisory=not many,
                    message=f"{metric.__name__} needs probabilities ({parameter}), but is "
                            "given the labels of predict: use predict_proba"))
    return issues


def check_separate_encoding(tree: ast.AST, profile: DataProfile | None) -> list[Issue]:
    """`pd.get_dummies` on the train part and again on the test part, never aligned."""
    if profile is None or not profile.names("categorical"):
        return []
    if _attribute_names(tree) & set(ALIGNS):
        return []
    names = imported_names(tree)
    calls = [n for n in walk(tree) if isinstance(n, ast.Call)
             and getattr(resolve(n.func, names), "__name__", "") == "get_dummies"
             and n.args]
    encoded = {ast.unparse(c.args[0]) for c in calls}
    if len(encoded) < 2:
        return []
    second = sorted(calls, key=lambda c: c.lineno)[1]
    return [Issue(taxonomy_class="data_flow", subclass="train_validation_mismatch",
                  line=second.lineno,
                  message="The feature names should match those that were passed during fit: "
                          "get_dummies encodes each part separately, so a level missing from "
                          "one part gives it other columns; encode once, or align the parts")]


def check_data_flow(tree: ast.AST, profile: DataProfile | None) -> list[Issue]:
    return check_small_class(tree, profile) + check_probability_metrics(tree, profile) + \
        check_separate_encoding(tree, profile)
