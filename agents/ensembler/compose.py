"""Compose an ensemble module from the exact code of its members.

Each member's module (the code that was run and scored, repairs included) is copied into
one module with its top-level names prefixed (`m1_build_pipeline`, `m1_NUMERIC_COLUMNS`,
...), so members cannot clash; nothing is re-rendered from a spec, so a repaired member
stays repaired. The new `build_pipeline(task)` combines the members' pipelines by the
chosen strategy: a weighted soft vote / average (Caruana weights) or stacking, whose
level-2 model was learnt from the members' out-of-fold predictions (nothing is fitted twice).
"""

from __future__ import annotations

import ast

import numpy as np

VOTERS = {"classification": "VotingClassifier", "regression": "VotingRegressor"}
STACKERS = {"classification": "LinearStackClassifier", "regression": "LinearStackRegressor"}


def top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


class _Prefix(ast.NodeTransformer):
    def __init__(self, names: set[str], prefix: str) -> None:
        self.names, self.prefix = names, prefix

    def _new(self, name: str) -> str:
        return self.prefix + name if name in self.names else name

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self._new(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self._new(node.arg)
        return self.generic_visit(node)

    def visit_FunctionDef(self, node):
        node.name = self._new(node.name)
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        node.name = self._new(node.name)
        return self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> ast.Global:
        node.names = [self._new(n) for n in node.names]
        return node

    visit_Nonlocal = visit_Global


def prefixed(code: str, prefix: str) -> tuple[list[str], str]:
    """The module's `from __future__` lines, and its body with top-level names prefixed."""
    tree = ast.parse(code)
    future = [ast.unparse(n) for n in tree.body
              if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    tree.body = [n for n in tree.body
                 if not (isinstance(n, ast.ImportFrom) and n.module == "__future__")]
    if tree.body and isinstance(tree.body[0], ast.Expr) and \
            isinstance(getattr(tree.body[0], "value", None), ast.Constant):
        tree.body = tree.body[1:]  # the member's docstring
    tree = _Prefix(top_level_names(tree), prefix).visit(tree)
    return future, ast.unparse(ast.fix_missing_locations(tree))


def kept_members(members: list, weights: list[float], strategy: str,
                 heaviest: int) -> list[tuple]:
    """The members the composed module runs (as given: (id, code) pairs, ids, attempts),
    each with its weight."""
    paired = list(zip(members, weights, strict=True))
    if strategy in ("caruana", "stacking"):  # members with no share in it are dropped
        return [(m, w) for m, w in paired if w > 0]
    if strategy == "single":
        return [(members[heaviest], 1.0)]
    return [(m, 1.0) for m in members]  # consensus: every clustering votes alike


def kept_level2(level2: dict, kept: list[int], n_members: int) -> dict:
    """The level-2 model's coefficients on the kept members only (by position; the others'
    are all zero, so it predicts the same): one per member for a regressor, one block of
    the classes' columns per member in each row of a classifier's."""
    coef = np.asarray(level2["coef"], dtype=float)
    if coef.ndim == 1:
        return {**level2, "coef": coef[kept].tolist()}
    blocks = coef.reshape(coef.shape[0], n_members, -1)[:, kept, :]
    return {**level2, "coef": blocks.reshape(coef.shape[0], -1).tolist()}


def compose_module(members: list[tuple[str, str]], strategy: str, weights: list[float],
                   task_type: str, n_clusters: int = 2,
                   class_weights: dict[str, float] | None = None,
                   level2: dict | None = None) -> str:
    """One module from (member id, code) pairs: `single` returns the heaviest member's code
    as it is; `caruana` a weighted vote; `stacking` the level-2 model `level2`
    (select.level2_params) over the members;
    `consensus` (clustering) a consensus clustering of the members' labels into
    `n_clusters`. With `class_weights` the result decides by class-weighted probabilities
    (pipesmith.estimators.ClassWeightedClassifier)."""
    heaviest = max(range(len(members)), key=lambda i: weights[i])
    if strategy == "single" and not class_weights:
        return members[heaviest][1]
    kept = kept_members(members, weights, strategy, heaviest)
    futures: set[str] = set()
    parts, entries = [], []
    for index, ((member_id, code), _) in enumerate(kept, start=1):
        future, body = prefixed(code, f"m{index}_")
        futures |= set(future)
        parts.append(f"# --- member {index}: attempt {member_id}, its code as scored ---\n"
                     + body)
        entries.append(f'("{member_id}", m{index}_build_pipeline(task))')
    members_list = "[" + ", ".join(entries) + "]"
    if strategy == "single":
        imports, body = "", "    return m1_build_pipeline(task)"
    elif strategy == "consensus":
        from importlib import resources

        support = resources.files("pipesmith.agents.coder").joinpath(
            "templates", "consensus_estimator.py.tmpl").read_text()
        imports = ("import numpy as np\n"
                   "from sklearn.cluster import AgglomerativeClustering\n\n\n" + support)
        body = (f"    return ConsensusClustering([m[1] for m in {members_list}], "
                f"n_clusters={n_clusters}, seed=task[\"seed\"])")
    elif strategy == "caruana":
        cls = VOTERS[task_type]
        voting = ', voting="soft"' if task_type == "classification" else ""
        counts = [round(w, 6) for _, w in kept]
        imports = f"from sklearn.ensemble import {cls}"
        body = f"    return {cls}({members_list}{voting}, weights={counts!r})"
    else:
        if level2 is None:
            raise ValueError("stacking needs its level-2 model's parameters")
        cls = STACKERS[task_type]
        level2 = kept_level2(level2, [i for i, w in enumerate(weights) if w > 0], len(members))
        fixed = ", ".join(f"{k}={v!r}" for k, v in level2.items())
        imports = f"from pipesmith.estimators import {cls}"
        body = f"    return {cls}({members_list}, {fixed})"
    if class_weights:
        imports = (imports + "\n" if imports else "") + \
            "from pipesmith.estimators import ClassWeightedClassifier"
        body = (f"    return ClassWeightedClassifier({body.removeprefix('    return ')}, "
                f"class_weights={dict(class_weights)!r})")
    header = '"""pipesmith ensemble ({}) of attempts {}: each member is the exact code that ' \
             'was scored."""'.format(strategy, ", ".join(m for (m, _), _ in kept))
    return "\n\n".join([header, *sorted(futures), imports, *parts,
                        f"def build_pipeline(task):\n{body}\n"])


# decided and cross-validated from the members' stored predictions, no fits
VOTES = ("caruana", "single", "stacking")


def voted(predictions: list[dict], weights: list[float],
          class_weights: dict[str, float] | None = None) -> dict:
    """What the composed vote (`caruana`, or `single` with class weights) predicts from its
    kept members' predictions on the same rows: the weighted mean of their probabilities,
    labelled as VotingClassifier(voting="soft") and ClassWeightedClassifier label it
    (argmax of the mean times each class's weight), or the weighted mean of their values
    as VotingRegressor averages them."""
    if "proba" in predictions[0]:
        proba = np.average([p["proba"] for p in predictions], axis=0, weights=weights)
        return _decided(proba, predictions[0]["classes"], class_weights)
    return {"pred": np.average([np.asarray(p["pred"], dtype=float) for p in predictions],
                               axis=0, weights=weights)}


def stacked(fit: list[dict], predict: list[dict],
            class_weights: dict[str, float] | None = None) -> dict:
    """What the composed stacking predicts on `predict`'s rows (each member's stored
    predictions there) when its level-2 model is learnt from `fit`'s rows (the members'
    predictions and the labels, `y_true`). Cross-fitted over the run's folds, no row is
    predicted by a level-2 model that saw its label."""
    from pipesmith.agents.ensembler.select import fit_level2, level2_predict

    key, task = ("proba", "classification") if "proba" in fit[0] else ("pred", "regression")
    level2 = fit_level2(np.stack([np.asarray(p[key], dtype=float) for p in fit]),
                        fit[0]["y_true"], task)
    combined = level2_predict(level2, np.stack([np.asarray(p[key], dtype=float)
                                                for p in predict]),
                              task, fit[0].get("classes"))
    if task == "regression":
        return {"pred": combined}
    return _decided(combined, fit[0]["classes"], class_weights)


def _decided(proba: np.ndarray, classes: np.ndarray,
             class_weights: dict[str, float] | None) -> dict:
    """Labels from probabilities: the argmax, each class's weighted by `class_weights`."""
    scale = np.array([(class_weights or {}).get(str(c), 1.0) for c in classes.tolist()])
    return {"pred": classes[np.argmax(proba * scale, axis=1)], "proba": proba,
            "classes": classes}
