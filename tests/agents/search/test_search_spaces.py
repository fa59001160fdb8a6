"""Search spaces: proposed ranges are checked against the installed estimators (invalid
ones dropped, with the reason); in LLM mode the model proposes learners, ranges and feature
ideas (real ChatOpenAI against tests/openai_standin.py) and the search runs inside them."""

from __future__ import annotations

import json
import time

from pipesmith.agents.search.space_check import check_space
from tests.agents.llm.test_llm import session
from tests.agents.search.test_search import _search
from tests.openai_standin import Reply, StandIn

PROPOSAL = {
    "families": [
        {"family": "logistic_regression", "rationale": "linear boundaries",
         "ranges": [{"name": "C", "kind": "float", "low": 0.5, "high": 2.0, "log": True},
                    {"name": "n_jobs", "kind": "int", "low": 1, "high": 4},
                    {"name": "gamma", "kind": "float", "low": 0.1, "high": 1.0}]},
        {"family": "lightgbm", "rationale": "boosting",
         "ranges": [{"name": "num_leaves", "kind": "int", "low": 7, "high": 63, "log": True},
                    {"name": "subsample", "kind": "float", "low": 0.5, "high": 1.5}]},
        {"family": "no_such_learner", "ranges": []},
    ],
    "features": [{"name": "petal_area", "description": "petal length times width",
                  "columns": ["petal_length", "petal_width"]}],
    "notes": ["small data: cheap learners"],
}


def test_ranges_the_installed_estimator_rejects_are_dropped_with_the_reason():
    kept, dropped = check_space("classification", "hist_gradient_boosting", {
        "learning_rate": ("float", 0.01, 0.3, True),
        "max_leaf_nodes": ("int", 1, 63, True),  # scikit-learn's constraint: >= 2
        "loss": ("cat", ["log_loss", "bogus"]),
        "max_iter": ("int", 10, 100000, True),  # iteration counts are bounded
        "foo": ("int", 1, 3, False),  # not a keyword of the estimator
        "min_samples_leaf": ("int", 50, 5, False),  # low above high
    })
    assert kept == {"learning_rate": ("float", 0.01, 0.3, True)}
    reasons = "\n".join(dropped)
    assert "max_leaf_nodes" in reasons and "range [2, inf)" in reasons
    assert "'bogus'" in reasons and "foo: not a parameter" in reasons
    assert "max_iter: an iteration count" in reasons and "low must be below high" in reasons
    # libraries that validate at fit: a probe fit on a tiny table finds the bad end
    kept, dropped = check_space("regression", "xgboost", {
        "max_depth": ("int", 2, 10, False), "colsample_bytree": ("float", 0.3, 1.5, False)})
    assert list(kept) == ["max_depth"] and "colsample_bytree" in dropped[0]
    kept, dropped = check_space("regression", "catboost", {"depth": ("int", 3, 20, False)})
    assert kept == {} and "depth" in dropped[0]


def test_the_llm_proposes_the_search_space_and_invalid_ranges_are_dropped(iris):
    from pipesmith.agents.planner.agent import Planner
    from pipesmith.agents.planner.llm import LLMPlanner

    inputs, profile = iris
    with StandIn([Reply(json.dumps(PROPOSAL), expect="hyperparameter search")]) as server:
        s = session(server.base_url)
        plan = LLMPlanner(s.gateway, s.ledger, Planner(), False).search_plan(
            inputs, profile, ["logistic_regression", "hist_gradient_boosting"])
        request = server.requests[0]
    assert server.mismatches == []
    assert request["response_format"]["json_schema"]["name"] == "SearchProposal"
    prompt = request["messages"][-1]["content"]
    assert "lightgbm: LGBMClassifier" in prompt and "petal length (cm)" in prompt
    assert plan.source == "llm" and plan.families == ["logistic_regression", "lightgbm"]
    assert plan.spaces["logistic_regression"] == {"C": ("float", 0.5, 2.0, True)}
    assert plan.spaces["lightgbm"] == {"num_leaves": ("int", 7, 63, True)}
    dropped = "\n".join(plan.dropped)
    for reason in ("logistic_regression.n_jobs", "logistic_regression.gamma",
                   "lightgbm.subsample", "no_such_learner"):
        assert reason in dropped
    assert plan.features == ["petal_area: petal length times width "
                             "(petal_length, petal_width)"]


def test_a_malformed_proposal_twice_falls_back_to_the_default_spaces(iris):
    from pipesmith.agents.planner.agent import Planner
    from pipesmith.agents.planner.llm import LLMPlanner
    from pipesmith.agents.search.space import SPACES

    inputs, profile = iris
    useless = json.dumps({"families": [{"family": "no_such_learner", "ranges": []}]})
    with StandIn([Reply(useless), Reply("not json at all")]) as server:
        s = session(server.base_url)
        plan = LLMPlanner(s.gateway, s.ledger, Planner(), False).search_plan(
            inputs, profile, ["logistic_regression"])
    assert plan.source.startswith("defaults") and plan.families == ["logistic_regression"]
    assert plan.spaces["logistic_regression"] == SPACES["logistic_regression"]
    assert [e["kind"] for e in s.ledger.events] == ["format_error", "format_error"]


def test_the_search_samples_inside_the_proposed_ranges(iris, sandbox, tmp_path):
    spaces = {"logistic_regression": {"C": ("float", 0.5, 2.0, True)}}
    search, _ = _search(iris, sandbox, tmp_path, ["logistic_regression"], batch=3,
                        spaces=spaces)
    try:
        finished = search.bracket(time.monotonic() + 120)
    finally:
        search.runner.close()
    assert len(finished) == 3 and all(r.status == "ok" for r in finished)
    assert all(0.5 <= r.params["C"] <= 2.0 for r in finished)
