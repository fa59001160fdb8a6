"""Plain-language requests and plan edits, read offline by rules and the data's columns."""

from __future__ import annotations

import pytest

from pipesmith.chat.task_text import is_approval, is_rejection, parse_edit, parse_request

COLUMNS = ["customer_id", "seats", "tenure", "monthly charges", "churn", "price"]


@pytest.mark.parametrize("text, expected", [
    ("I want to predict churn from data/customers.csv",
     {"data_path": "data/customers.csv", "target": "churn", "task_type": None}),
    ("train a model on X.parquet for price", {"data_path": "X.parquet", "target": "price"}),
    ("cluster the rows of X.csv", {"data_path": "X.csv", "target": None,
                                   "task_type": "clustering"}),
    ("predict churn from c.csv in 2 minutes using roc auc, drop column seats",
     {"target": "churn", "metric": "roc_auc", "budget_s": 120.0, "drop_columns": ["seats"]}),
    ("classify the wine dataset", {"dataset": "wine", "task_type": "classification"}),
    ("predict price from shop.csv with only tree models",
     {"target": "price", "families": ["hist_gradient_boosting", "random_forest",
                                      "extra_trees"]}),
])
def test_requests_are_read_into_fields(text, expected):
    asked = parse_request(text, COLUMNS).model_dump()
    assert {key: asked[key] for key in expected} == expected


def test_a_target_that_is_not_a_column_is_not_guessed():
    assert parse_request("predict the weather from c.csv", COLUMNS).target is None


@pytest.mark.parametrize("text, expected", [
    ("make the budget 30 seconds", {"budget_s": 30.0}),
    ("use roc_auc", {"metric": "roc_auc"}),
    ("drop column seats", {"drop_columns": ["seats"]}),
    ("drop monthly charges and tenure", {"drop_columns": ["tenure", "monthly charges"]}),
    ("only tree models", {"families": ["hist_gradient_boosting", "random_forest",
                                       "extra_trees"]}),
    ("it is a regression", {"task_type": "regression"}),
    ("predict price instead", {"target": "price"}),
])
def test_edits_are_read_into_fields(text, expected):
    assert parse_edit(text, COLUMNS).model_dump(exclude_defaults=True) == expected


def test_approval_and_rejection_words():
    assert all(is_approval(w) for w in ("yes", "Go!", "approve", "looks good"))
    assert not is_approval("yes but use roc_auc")
    assert is_rejection("cancel") and not is_rejection("yes")
    assert parse_edit("what a lovely day", COLUMNS).empty
