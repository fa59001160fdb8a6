"""Knowledge-base writes are idempotent, the index opener and the first search never race,
and a run really queries the index."""

from __future__ import annotations

import threading
import time

from pipesmith.knowledge_base import embeddings
from pipesmith.knowledge_base.records import RepairRecord
from pipesmith.knowledge_base.store import KnowledgeBase
from tests.knowledge_base import kb_records


def repair(run_id: str, attempt: str, action: str = "impute") -> RepairRecord:
    return kb_records.repair(run_id, "sig-1", action, True).model_copy(update={"attempt": attempt})


def test_writes_are_idempotent_by_stable_record_ids(tmp_path):
    kb = KnowledgeBase(tmp_path / "kb")
    record = kb_records.run("r1")
    first = [repair("r1", "a2"), repair("r1", "a4")]  # same error and action, two attempts
    assert kb.add_repairs(first) == 2
    assert kb.add_run(record) is True
    # a resume or a retry writes the same records again: nothing is added
    assert kb.add_repairs([repair("r1", "a2"), repair("r1", "a4")]) == 0
    assert kb.add_run(record.model_copy(update={"created_at": "later"})) is False
    again = KnowledgeBase(tmp_path / "kb")  # another process sees the same
    assert [r.run_id for r in again.records()] == ["r1"]
    assert sorted(r.attempt for r in again.repairs()) == ["a2", "a4"]


def test_background_opener_and_first_search_do_not_race(tmp_path, monkeypatch):
    seed = KnowledgeBase(tmp_path / "kb")
    seed.add_run(kb_records.run("r1", text="classification of churn"))
    real = embeddings.make_embedding

    def slow(kind):  # widens the window in which both threads build the embedding
        time.sleep(0.3)
        return real(kind)

    monkeypatch.setattr(embeddings, "make_embedding", slow)
    kb = KnowledgeBase(tmp_path / "kb")
    kb.open_in_background()
    found = kb.search("classification of churn", k=1)
    assert [r.run_id for r, _ in found] == ["r1"]
    assert kb.index_failures == 0 and kb.index_queries == 1
    for thread in threading.enumerate():  # let the opener finish inside the test
        if "_open_quietly" in thread.name:  # not Chroma's own threads, which live on
            thread.join(timeout=30)


def test_a_run_queries_the_index(tmp_path, settings):
    from pipesmith import api
    from pipesmith.core import driver

    seed = KnowledgeBase(tmp_path / "kb")
    seed.add_run(kb_records.run("past", text="classification of species on iris",
                                families={"random_forest": 0.5}))
    kb = KnowledgeBase(tmp_path / "kb")
    run_settings = settings.model_copy(update={"max_candidates": 1, "cv_folds": 2, "n_jobs": 1})
    deps = driver.default_deps(run_settings, kb=kb)
    report = api.run(dataset="iris", out=tmp_path / "run", settings=run_settings, deps=deps)
    assert report.final_success
    assert kb.index_queries >= 1 and kb.index_failures == 0
    assert "past" in report.retrieved_runs
    assert kb.get(report.run_id) is not None
