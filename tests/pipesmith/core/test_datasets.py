"""Loading, checking and inferring: every bad input is one clear InputError."""

from __future__ import annotations

import pandas as pd
import pytest

from pipesmith.api import run
from pipesmith.core.datasets import infer_metric, infer_task_type, load_bundled
from pipesmith.errors import InputError


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer", "digits", "diabetes"])
def test_bundled_datasets_load_with_a_target(name):
    table = load_bundled(name)
    assert table.target in table.frame.columns
    assert len(table.frame) > 100


def test_task_and_metric_inference():
    assert infer_task_type(load_bundled("iris").frame["target"]) == "classification"
    assert infer_task_type(load_bundled("diabetes").frame["target"]) == "regression"
    assert infer_task_type(pd.Series(["a", "b", "a"])) == "classification"
    assert infer_task_type(None) == "clustering"
    balanced = pd.Series([0, 1] * 50)
    rare = pd.Series([0] * 95 + [1] * 5)
    assert infer_metric("classification", balanced) == "accuracy"
    assert infer_metric("classification", rare) == "balanced_accuracy"
    assert infer_metric("regression", None) == "r2"


def _csv(tmp_path, text: str):
    path = tmp_path / "data.csv"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dataset": "nope"}, "unknown dataset 'nope'; known: breast_cancer"),
        ({"data": "/no/such/file.csv", "target": "y"}, "data file not found"),
        ({"dataset": "iris", "data": "x.csv"}, "exactly one of"),
        ({"dataset": "iris", "target": "nope"}, "target column 'nope' not in the table"),
        ({"dataset": "iris", "task": "ranking"}, "unknown task 'ranking'"),
        ({"dataset": "iris", "metric": "r2", "task": "classification"}, "is for regression"),
        ({"dataset": "iris", "metric": "nope"}, "unknown metric 'nope'"),
        ({"dataset": "iris", "llm": "gpt"}, "not available yet"),
        ({"dataset": "iris", "budget_s": 0}, "--budget must be a positive"),
    ],
)
def test_bad_options_raise_input_error(kwargs, message, settings):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        run(settings=settings, **kwargs)
    assert not settings.runs_dir.exists()  # no half report


@pytest.mark.parametrize(
    ("text", "target", "message"),
    [
        ("", "y", "empty"),
        ("a,y\n", "y", "empty"),
        ("a,y\n1,\n2,\n", "y", "has no values"),
        ("a,y\n1,x\n2,x\n3,x\n", "y", "single class"),
        ("a,b\n1,2\n", "y", "target column 'y' not in the table"),
        ('a,y\n1,"unterminated\n', "y", "cannot read"),
    ],
)
def test_bad_tables_raise_input_error(tmp_path, settings, text, target, message):
    path = _csv(tmp_path, text)
    with pytest.raises(InputError, match=message):
        run(data=path, target=target, settings=settings)
    assert not settings.runs_dir.exists()


def test_unsupported_format(tmp_path, settings):
    path = tmp_path / "data.xlsx"
    path.write_bytes(b"PK")
    with pytest.raises(InputError, match="unsupported data format"):
        run(data=path, target="y", settings=settings)


def test_regression_on_text_target_is_refused(tmp_path, settings):
    path = _csv(tmp_path, "a,y\n1,x\n2,z\n")
    with pytest.raises(InputError, match="not numeric"):
        run(data=path, target="y", task="regression", settings=settings)
