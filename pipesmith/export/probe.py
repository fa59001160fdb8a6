"""What a saved model needs at predict time, measured in a fresh interpreter.

`python -m pipesmith.export.probe MODEL VENDOR SAMPLE` loads MODEL (joblib) with VENDOR on
the import path, predicts the SAMPLE table's rows, and writes one JSON object to stdout:
`imported` (top-level modules imported by loading and predicting), `globals` (modules the
pickle names), `steps` (the fitted pipeline's steps and their parameters) and `classes`.
Run by `pipesmith export` as a subprocess so that its own imports never count.
"""

from __future__ import annotations

import json
import sys

PRIMITIVES = (str, int, float, bool, type(None))


def _params(estimator) -> dict:
    try:
        params = estimator.get_params(deep=False)
    except Exception:
        return {}
    return {key: value if isinstance(value, PRIMITIVES) else type(value).__name__
            for key, value in sorted(params.items())
            if isinstance(value, PRIMITIVES) or not hasattr(value, "get_params")}


def _class_path(obj) -> str:
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def steps(model) -> list[dict]:
    """One entry per pipeline step (a single one for a bare estimator); a ColumnTransformer
    lists its transformers and their columns."""
    found = []
    for name, step in getattr(model, "steps", None) or [("model", model)]:
        entry = {"name": name, "class": _class_path(step), "params": _params(step)}
        if hasattr(step, "transformers_"):
            entry["transformers"] = [
                {"name": t_name, "class": _class_path(t),
                 "columns": [str(c) for c in columns] if isinstance(columns, list) else [],
                 "steps": [_class_path(s) for _, s in getattr(t, "steps", [])]}
                for t_name, t, columns in step.transformers_ if t_name != "remainder"]
        found.append(entry)
    return found


def probe(model_path: str, vendor: str, sample_path: str) -> dict:
    import joblib
    import joblib.numpy_pickle as numpy_pickle
    import pandas as pd

    sys.path.insert(0, vendor)
    named: set[str] = set()
    original = numpy_pickle.NumpyUnpickler.find_class

    def find_class(self, module, name):
        named.add(module)
        return original(self, module, name)

    numpy_pickle.NumpyUnpickler.find_class = find_class  # this process only probes
    before = set(sys.modules)
    model = joblib.load(model_path)
    sample = pd.read_parquet(sample_path)
    model.predict(sample)
    if hasattr(model, "predict_proba"):
        try:
            model.predict_proba(sample)
        except Exception:  # e.g. a regressor in a classifier's clothes: predict is enough
            pass
    imported = {name.split(".")[0] for name in set(sys.modules) - before}
    classes = [c.item() if hasattr(c, "item") else c for c in getattr(model, "classes_", [])]
    return {"imported": sorted(imported), "globals": sorted(named), "steps": steps(model),
            "classes": classes}


if __name__ == "__main__":
    sys.stdout.write(json.dumps(probe(*sys.argv[1:4]), default=str) + "\n")
