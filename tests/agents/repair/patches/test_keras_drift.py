"""Keras 3 drift repaired from the message and the installed signature (#25)."""

from __future__ import annotations

import os

import pytest

from pipesmith.agents.repair import table
from tests.agents.repair.sandboxed import repaired_here

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
pytest.importorskip("keras")

MODEL = """\
import keras
import numpy as np
from sklearn.datasets import load_iris

X, y = load_iris(return_X_y=True)
X = ((X - X.mean(0)) / X.std(0)).astype("float32")
inputs = keras.Input(shape={shape})
outputs = keras.layers.Dense(3, activation="softmax")(keras.layers.Dense(8)(inputs))
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(X, y, epochs=2, verbose=0{extra})
assert model.predict(X, verbose=0).shape == (150, 3)
"""


def test_removed_fit_keywords_are_dropped_together_and_the_repair_is_partial():
    code = MODEL.format(shape="(X.shape[1],)", extra=", workers=2, use_multiprocessing=True")
    new, diagnosis = repaired_here(code, "drop_rejected_keywords")
    assert "workers" not in new and "use_multiprocessing" not in new
    notes = table.caveats("drop_rejected_keywords", "api.unexpected_keyword", code, new,
                          diagnosis)
    assert {n.split()[2] for n in notes} == {"workers", "use_multiprocessing"}


def test_an_integer_shape_becomes_a_one_element_tuple():
    new, diagnosis = repaired_here(MODEL.format(shape="X.shape[1]", extra=""), "tuple_shape")
    assert diagnosis.subclass == "invalid_parameter"
    assert "keras.Input(shape=(X.shape[1],))" in new
