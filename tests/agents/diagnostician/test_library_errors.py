"""Real errors raised by the real libraries (run here, in-process) land in the taxonomy rows
that name them (#25): the boosting libraries' own exceptions, unpicklable files, plain
TypeErrors told apart by their message, and near-misses that used to fall through to the
catch-alls."""

from __future__ import annotations

import math
import pickle
import traceback
import warnings

import numpy as np
import pandas as pd
import pytest

from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.sandbox.base import ExecResult

RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 3))
Y = (X[:, 0] > 0).astype(int)


def _lightgbm_objective():
    from lightgbm import LGBMClassifier

    LGBMClassifier(objective="nonsense", verbose=-1).fit(X, Y)


def _xgboost_tree_method():
    from xgboost import XGBClassifier

    XGBClassifier(n_estimators=2, tree_method="nonsense").fit(X, Y)


def _xgboost_classes():
    from xgboost import XGBClassifier

    XGBClassifier(n_estimators=2).fit(X, Y + 1)  # labels 1..2, not 0..1


def _catboost_loss():
    from catboost import CatBoostClassifier

    CatBoostClassifier(iterations=2, verbose=0, allow_writing_files=False,
                       loss_function="nonsense").fit(X, Y)


def _catboost_nan_category():
    from catboost import CatBoostClassifier

    frame = pd.DataFrame({"colour": ["red", None, "blue"] * 20, "size": X[:, 0]})
    CatBoostClassifier(iterations=2, verbose=0, allow_writing_files=False,
                       cat_features=["colour"]).fit(frame, Y)


def _catboost_nan_forbidden():
    from catboost import CatBoostClassifier

    holes = X.copy()
    holes[0, 1] = np.nan
    CatBoostClassifier(iterations=2, verbose=0, allow_writing_files=False,
                       nan_mode="Forbidden").fit(holes, Y)


def _catboost_text_feature():
    from catboost import CatBoostClassifier

    CatBoostClassifier(iterations=2, verbose=0, allow_writing_files=False).fit(
        pd.DataFrame({"colour": ["red", "blue"] * 30}), Y)


def _lightgbm_text_column():
    from lightgbm import LGBMClassifier

    LGBMClassifier(verbose=-1).fit(pd.DataFrame({"colour": ["red", "blue"] * 30}), Y)


def _torch_object_array():
    import torch

    torch.tensor(np.array([["red", 1.0]], dtype=object))


def _positional():
    from sklearn.linear_model import LogisticRegression

    LogisticRegression("l2", False)


def _mixed_labels():
    np.unique(np.array(["yes", 1.0, 0.0], dtype=object))


def _mixed_encoder():
    from sklearn.preprocessing import OrdinalEncoder

    OrdinalEncoder().fit(pd.DataFrame({"colour": ["red", 1.0] * 30}))


def _not_fitted():
    from sklearn.preprocessing import StandardScaler

    StandardScaler().transform(X)


def _str_on_numbers():
    pd.Series([1.5, 2.0]).str.replace("1", "2")


def _merge_int_and_str():
    pd.DataFrame({"k": [1, 2]}).merge(pd.DataFrame({"k": ["1", "2"]}), on="k")


def _unhashable():
    pd.DataFrame({"k": [[1], [2]]}).groupby("k").size()


def _uint8_sentinel():
    np.array([1, 2], dtype=np.uint8)[0] = -1


# (library to import or None, what raises, the class.subclass it must be diagnosed as)
CASES = {
    "lightgbm_error": ("lightgbm", _lightgbm_objective, "library.lightgbm"),
    "xgboost_error": ("xgboost", _xgboost_tree_method, "library.xgboost"),
    "catboost_error": ("catboost", _catboost_loss, "library.catboost"),
    "unpickling_error": (None, lambda: pickle.loads(b"not a pickle"), "io.unpickling"),
    "xgboost_invalid_classes": ("xgboost", _xgboost_classes, "data_flow.label_encoding"),
    "catboost_nan_category": ("catboost", _catboost_nan_category, "data_flow.nan_input"),
    "catboost_nan_forbidden": ("catboost", _catboost_nan_forbidden, "data_flow.nan_input"),
    "catboost_text_feature": ("catboost", _catboost_text_feature, "data_flow.dtype"),
    "lightgbm_text_column": ("lightgbm", _lightgbm_text_column, "data_flow.dtype"),
    "torch_object_array": ("torch", _torch_object_array, "data_flow.dtype"),
    "type_error_positional": (None, _positional, "api.positional_arguments"),
    "type_error_missing_argument": (None, lambda: pd.DataFrame.merge(),
                                    "api.positional_arguments"),
    "type_error_keyword": (None, lambda: pd.read_csv("x.csv", delim_whitespace=True),
                           "api.unexpected_keyword"),
    "type_error_mixed_comparison": (None, _mixed_labels, "data_flow.dtype"),
    "type_error_real_number": (None, lambda: math.log("3"), "data_flow.dtype"),
    "type_error_mixed_encoder": (None, _mixed_encoder, "data_flow.dtype"),
    "string_to_float": (None, lambda: np.array(["red"]).astype(float), "data_flow.dtype"),
    # rows added so the catch-alls fall under 20% on wild + wild2 (development material)
    "not_fitted": (None, _not_fitted, "data_flow.not_fitted"),
    "str_accessor_on_numbers": (None, _str_on_numbers, "data_flow.dtype"),
    "merge_int_and_str": (None, _merge_int_and_str, "data_flow.dtype"),
    "unhashable_cells": (None, _unhashable, "data_flow.dtype"),
    "uint8_sentinel": (None, _uint8_sentinel, "numerical.overflow"),
    "ragged_rows": (None, lambda: np.array([[1, 2], [3]], dtype=float), "data_flow.array_shape"),
    "hstack_ranks": (None, lambda: np.hstack([np.ones((2, 2)), np.ones(2)]),
                     "data_flow.array_shape"),
}


def _stderr(raise_it) -> str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raise_it()
    except Exception:
        return traceback.format_exc()
    raise AssertionError("no error raised")


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_real_library_error_is_diagnosed_by_its_row(name):
    library, raise_it, key = CASES[name]
    if library:
        pytest.importorskip(library)
    stderr = _stderr(raise_it)
    diagnosis = Diagnostician().diagnose_result(
        ExecResult(status="error", exit_code=1, stderr=stderr), "")
    assert f"{diagnosis.taxonomy_class}.{diagnosis.subclass}" == key, stderr[-600:]
    assert diagnosis.signature.startswith(key)


def test_a_plain_type_error_with_no_known_message_stays_unclassified():
    stderr = _stderr(lambda: (_ for _ in ()).throw(TypeError("something odd")))
    diagnosis = Diagnostician().diagnose_result(
        ExecResult(status="error", exit_code=1, stderr=stderr), "")
    assert diagnosis.subclass == "unclassified"
