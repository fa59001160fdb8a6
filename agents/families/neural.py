"""The neural families (PyTorch, Keras on TensorFlow): a small and a wide MLP per task,
kept to seconds on a CPU.

Their estimators come from `pipesmith.estimators`, so a fitted model pickles them by
reference and loads wherever pipesmith is installed. The search does not tune them, and
the resource model times them by optimiser steps (agents/prevalidator/resources.py
FRAMEWORK), not by a fit-seconds-per-cell figure.
"""

from __future__ import annotations

from pipesmith.agents.families.family import NOT_SEARCHED, UNMEASURED, Family


def rows(backend: str, prefix: str) -> tuple[Family, ...]:
    light = {"hidden": (32,), "batch_size": 64, "epochs": 30}
    small = {"hidden": (64, 32), "learning_rate": 0.001, "batch_size": 64, "epochs": 60}
    wide = {"hidden": (256, 128), "learning_rate": 0.0005, "batch_size": 64, "epochs": 60,
            "dropout": 0.2}
    name = "torch" if backend == "torch" else "keras"
    if backend == "tensorflow":  # Keras' fit() costs more per epoch on small data
        small, wide = {**small, "epochs": 40}, {**wide, "epochs": 40}
    return tuple(
        Family(f"{name}_mlp{suffix}", task, "pipesmith.estimators", f"{prefix}MLP{kind}", params,
               light, scale=True, encoding="onehot", parallel=True, backend=backend,
               space=NOT_SEARCHED, cost=UNMEASURED)
        for task, kind in (("classification", "Classifier"), ("regression", "Regressor"))
        for suffix, params in (("", small), ("_wide", wide))
    )


FAMILIES: tuple[Family, ...] = rows("torch", "Torch") + rows("tensorflow", "Keras")
