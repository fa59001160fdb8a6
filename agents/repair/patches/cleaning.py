"""Input cleaning chosen from the estimator's own tags: NaN imputed in front of an estimator
whose tags say it does not allow NaN, text columns encoded in front of one that takes no
strings, wherever the script builds the estimator it fits (docs/repairs.md)."""

from __future__ import annotations

import ast
import re

from pipesmith.agents.repair.patches import live
from pipesmith.agents.repair.patches.editing import (
    PIPELINE_MAKERS,
    RepairContext,
    build_pipeline_returns,
    callee_name,
    estimator_sites,
    fitted_constructions,
    insert_after_imports,
    message_text,
    replace_nodes,
    wrap_returns,
)
from pipesmith.agents.schemas import Diagnosis

# Run inside the sandbox, where the estimator exists: its tags decide, step by step.
_CLEAN_HELPER = '''
def _pipesmith_clean(estimator):
    """Added by pipesmith's repair: clean what the estimator's own tags say it cannot take,
    in front of it: NaN imputed (median; most frequent for text) where a step does not allow
    NaN, text columns encoded where the first step takes no strings (one-hot before a linear
    model, ordinal codes otherwise)."""
    import pandas as pd
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline, make_pipeline
    from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, OrdinalEncoder

    def tags(step):
        try:
            found = step.__sklearn_tags__().input_tags
            return found.allow_nan, found.string or found.categorical
        except Exception:  # not a scikit-learn estimator: assume it takes neither
            return False, False

    steps = [s for _, s in estimator.steps] if isinstance(estimator, Pipeline) else [estimator]
    steps = [s for s in steps if s not in (None, "passthrough", "drop")]
    allow_nan = all(tags(s)[0] for s in steps)
    takes_text = bool(steps) and tags(steps[0])[1]
    if allow_nan and takes_text:
        return estimator
    final = getattr(steps[-1], "estimator", steps[-1]) if steps else None
    linear = "coef_" in (type(final).__doc__ or "")
    if takes_text:
        text = [SimpleImputer(strategy="most_frequent")] if not allow_nan else []
    elif linear:
        text = [SimpleImputer(strategy="most_frequent"),
                OneHotEncoder(handle_unknown="ignore", sparse_output=False, max_categories=20)]
    else:
        text = [OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1,
                               encoded_missing_value=-1)]
    parts = [("text", make_pipeline(*text) if text else "passthrough",
              make_column_selector(dtype_exclude="number"))]
    if not allow_nan:
        parts.append(("numeric", SimpleImputer(strategy="median", keep_empty_features=True),
                      make_column_selector(dtype_include="number")))

    def as_frame(X):
        if isinstance(X, pd.DataFrame):
            return X
        frame = pd.DataFrame(X).infer_objects()
        frame.columns = [f"x{i}" for i in range(frame.shape[1])]
        return frame

    clean = ColumnTransformer(parts, remainder="passthrough", verbose_feature_names_out=False)
    return Pipeline([("pipesmith_frame", FunctionTransformer(as_frame)),
                     ("pipesmith_clean", clean.set_output(transform="pandas")),
                     ("estimator", estimator)])
'''

NAN = re.compile(r"NaN|infinity|nan values", re.I)


def _final_call(site: ast.Call) -> ast.Call:
    """The estimator a construction ends in (a pipeline's last step)."""
    if callee_name(site) in PIPELINE_MAKERS:
        steps = site.args[0].elts if site.args and isinstance(site.args[0], ast.List) \
            else site.args
        last = steps[-1] if steps else None
        last = last.elts[-1] if isinstance(last, ast.Tuple) and last.elts else last
        return _final_call(last) if isinstance(last, ast.Call) else site
    return site


def refuses(tree: ast.Module, site: ast.Call, message: str) -> bool:
    """Whether the estimator built at `site` refuses what the message says reached it, by
    its own tags (a class the installed libraries do not know is given the benefit)."""
    cls = live.dotted(tree, ast.unparse(_final_call(site).func))
    tags = live.input_tags(cls) if isinstance(cls, type) else None
    if tags is None:
        return True
    return not tags["allow_nan"] if NAN.search(message) else not tags["text"]


def clean_inputs(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Wrap the estimators the script fits whose tags refuse NaN or text (every
    construction: assigned and fitted, fitted on the spot, inside make_pipeline/Pipeline,
    handed to cross-validation) in `_pipesmith_clean`, which reads the tags again at run
    time and puts an imputer and an encoder in front only where they are needed."""
    if "_pipesmith_clean(" in code:
        return None
    tree = ast.parse(code)
    if build_pipeline_returns(tree):
        return wrap_returns(code, "_pipesmith_clean", _CLEAN_HELPER)
    message = message_text(diagnosis) if diagnosis else ""
    sites = [s for s in dict.fromkeys(fitted_constructions(tree) + estimator_sites(tree))
             if refuses(tree, s, message)]
    if not sites:
        return None
    code = replace_nodes(code, [(s, f"_pipesmith_clean({ast.get_source_segment(code, s)})")
                                for s in sites])
    return insert_after_imports(code, _CLEAN_HELPER)
