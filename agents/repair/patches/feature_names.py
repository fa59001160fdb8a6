"""Feature names a library refuses (#25): XGBoost's "may not contain [, ] or <", LightGBM's
"special JSON characters", scikit-learn's "only supported if all input features have string
names". The names are made safe in front of the estimator, wherever the script builds it,
by a wrapper that renames the frame's columns before every fit and predict: the data and
the model are unchanged, only the labels the library sees."""

from __future__ import annotations

from pipesmith.agents.repair.patches.editing import RepairContext, wrap_returns
from pipesmith.agents.schemas import Diagnosis

_SAFE_NAMES_HELPER = '''
def _pipesmith_safe_names(estimator):
    """Added by pipesmith's repair: the estimator sees its columns under names made of
    letters, digits and "_" (unique), which every library accepts; a wrapper, not a
    Pipeline, so fit keywords such as eval_set still reach it."""
    return _PipesmithSafeNames(estimator)


class _PipesmithSafeNames:
    _X_METHODS = ("predict", "predict_proba", "predict_log_proba", "decision_function",
                  "score", "transform", "staged_predict", "staged_predict_proba")

    def __init__(self, estimator):
        self.estimator = estimator

    def get_params(self, deep=True):
        return {"estimator": self.estimator}

    def set_params(self, **params):
        self.estimator = params.get("estimator", self.estimator)
        return self

    def __sklearn_tags__(self):
        return self.estimator.__sklearn_tags__()

    @staticmethod
    def _safe(X):
        import re

        import pandas as pd

        if not isinstance(X, pd.DataFrame):
            return X
        names, seen = [], set()
        for column in X.columns:
            name = re.sub(r"[^0-9A-Za-z_]+", "_", str(column)).strip("_") or "feature"
            while name in seen:
                name += "_"
            seen.add(name)
            names.append(name)
        return X.set_axis(names, axis=1)

    def fit(self, X, y=None, **kwargs):
        if kwargs.get("eval_set") is not None:
            kwargs["eval_set"] = [(self._safe(a), b) for a, b in kwargs["eval_set"]]
        self.estimator.fit(self._safe(X), y, **kwargs)
        return self

    def __getattr__(self, name):
        if name.startswith("__") or name == "estimator":
            raise AttributeError(name)
        found = getattr(self.estimator, name)
        if name in self._X_METHODS and callable(found):
            import functools

            @functools.wraps(found)  # scorers look the method up by its name
            def method(X, *args, **kwargs):
                return found(self._safe(X), *args, **kwargs)
            return method
        return found
'''


def sanitize_feature_names(code: str, diagnosis: Diagnosis, ctx: RepairContext) -> str | None:
    """Wrap every estimator the script fits (or build_pipeline returns) in
    `_pipesmith_safe_names`."""
    if "_pipesmith_safe_names(" in code:
        return None
    return wrap_returns(code, "_pipesmith_safe_names", _SAFE_NAMES_HELPER)
