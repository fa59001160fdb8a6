"""Plain-language requests and plan edits, read offline by rules and the data's columns."""

from __future__ import annotations

import pytest

from pipesmith.chat.task_text import is_approval, is_rejection, parse_edit, parse_request

COLUMNS = ["customer_id", "seats", "tenure", "monthly charges", "churn", "price"]
TREES = ["hist_gradient_boosting", "random_forest", "extra_trees", "lightgbm", "xgboost",
         "catboost"]


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
     {"target": "price", "families": TREES}),
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
    ("only tree models", {"families": TREES}),
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


ISSUE_27 = ("figure out which customers are going to churn. Optimize AUC, keep it under a "
            "minute, and don't use the seats column")


@pytest.mark.parametrize("text, target, drops", [
    (ISSUE_27, "churn", ["seats"]),
    ("predict churn, do not use seats or tenure", "churn", ["seats", "tenure"]),
    ("without seats, predict churn", "churn", ["seats"]),
    ("predict churn without using the seats column", "churn", ["seats"]),
    ("exclude seats and monthly charges; who will churn?", "churn",
     ["seats", "monthly charges"]),
    ("ignore the customer id and tenure, forecast churn", "churn", ["customer_id", "tenure"]),
    ("predict churn leaving out the seats column", "churn", ["seats"]),
    ("seats never matter, never use seats: predict churn", "churn", ["seats"]),
])
def test_a_column_after_a_drop_cue_is_dropped_never_the_target(text, target, drops):
    asked = parse_request(text, COLUMNS)
    assert (asked.target, asked.drop_columns) == (target, drops)


def test_the_issue_27_sentence_reads_every_field():
    asked = parse_request(ISSUE_27, COLUMNS)
    assert (asked.metric, asked.budget_s, asked.families) == ("roc_auc", 60.0, [])


@pytest.mark.parametrize("text, seconds", [
    ("in 30 seconds", 30.0), ("keep it under a minute", 60.0), ("in two minutes", 120.0),
    ("half a minute at most", 30.0), ("an hour", 3600.0), ("90s", 90.0),
])
def test_budgets_in_words_and_numbers(text, seconds):
    assert parse_request(f"predict churn {text}", COLUMNS).budget_s == seconds


def test_a_negated_use_is_not_a_family_request():
    assert parse_request("predict churn, don't use linear models", COLUMNS).families == []
    assert parse_request("predict churn, use linear models", COLUMNS).families != []


NEURAL = ["torch_mlp", "torch_mlp_wide", "keras_mlp", "keras_mlp_wide"]


@pytest.mark.parametrize("text, excluded", [
    ("no random forests please", ["random_forest"]),
    ("exclude random_forest", ["random_forest"]),
    ("don't use xgboost or catboost", ["catboost", "xgboost"]),
    ("without neural networks", NEURAL),
    ("skip linear models", ["logistic_regression", "ridge"]),
    ("Do not use rf, xgb or knn", ["random_forest", "xgboost", "knn"]),
    ("no neural nets and no svm", NEURAL + ["svc", "svr"]),
    ("avoid logistic regression", ["logistic_regression"]),
])
def test_excluded_families_are_read_by_common_names(text, excluded):
    edit = parse_edit(text, COLUMNS)
    assert sorted(edit.exclude_families) == sorted(excluded)
    assert edit.families == [] and not is_rejection(text)


@pytest.mark.parametrize("text, families", [
    ("only tree models", TREES),
    ("just boosting", ["hist_gradient_boosting", "lightgbm", "xgboost", "catboost"]),
    ("use xgboost only", ["xgboost"]),
    ("now try it with only tree models and 40 seconds", TREES),
    ("only boosting but not xgboost", ["hist_gradient_boosting", "lightgbm", "catboost"]),
])
def test_restrictions_are_read_less_what_is_excluded(text, families):
    assert parse_edit(text, COLUMNS).families == families


def test_a_family_and_columns_in_one_sentence_are_told_apart():
    edit = parse_edit("no random forests please, and don't use seats or customer_id", COLUMNS)
    assert edit.exclude_families == ["random_forest"]
    assert edit.drop_columns == ["customer_id", "seats"]


def test_strung_approvals_approve_and_a_bare_no_still_rejects():
    assert is_approval("looks good, go") and is_approval("ok, go ahead")
    assert not is_approval("looks good, but drop seats")
    assert is_rejection("no") and is_rejection("nope, cancel it")


def test_a_column_named_like_a_family_is_a_column():
    edit = parse_edit("don't use the tree_age column, and no knn", ["tree_age", "churn"])
    assert edit.drop_columns == ["tree_age"] and edit.exclude_families == ["knn"]
