"""The knowledge base on real embedded Chroma: log, index, filters, rebuild."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from pipesmith.knowledge_base.embeddings import HashingEmbedding
from pipesmith.knowledge_base.store import KnowledgeBase, RunRecord


def record(run_id: str, task_type: str, summary: str, outcome: str = "succeeded") -> RunRecord:
    return RunRecord(run_id=run_id, task_text=f"task {run_id}", dataset="d", task_type=task_type,
                     metric="r2", summary=summary, meta_features={}, family_scores={"ridge": 0.3},
                     final_code="", score=0.5, baseline_score=0.0, outcome=outcome,
                     resources={}, versions={}, topology="full")


def test_hashing_embedding_is_deterministic_and_normalised():
    emb = HashingEmbedding()
    a, b = emb(["500 rows; 10 numeric", "500 rows; 10 numeric"])
    assert np.allclose(a, b) and abs(np.linalg.norm(a) - 1) < 1e-5
    c = emb(["a completely different text"])[0]
    assert float(np.dot(a, c)) < 0.5


def test_similar_runs_filter_by_task_type_and_outcome(tmp_path):
    kb = KnowledgeBase(tmp_path)
    kb.add_run(record("r1", "regression", "regression task; 400 rows; 10 numeric"))
    kb.add_run(record("r2", "classification", "classification task; 400 rows; 10 numeric"))
    kb.add_run(record("r3", "regression", "regression task; 400 rows; 10 numeric", "failed"))
    kb.add_run(record("r4", "regression", "regression task; 90000 rows; 2 categorical"))
    found = kb.similar_runs("regression task; 400 rows; 10 numeric", "regression")
    assert [run.run_id for run in found] == ["r1", "r4"]
    assert found[0].distance < found[1].distance
    assert found[0].family_scores == {"ridge": 0.3}


def test_log_is_the_source_of_truth_and_the_index_rebuilds(tmp_path):
    kb = KnowledgeBase(tmp_path)
    kb.add_run(record("r1", "regression", "regression task; 400 rows"))
    kb.add_run(record("r2", "regression", "regression task; 800 rows"))
    assert kb.rebuild() == 2
    assert kb.collection.count() == 2  # dropped and re-indexed, not duplicated
    # A lost index comes back from the log, in a new process as `pipesmith kb rebuild` would.
    shutil.rmtree(tmp_path / "chroma")
    code = ("import sys; from pipesmith.knowledge_base.store import KnowledgeBase as K; "
            "kb = K(sys.argv[1]); print(kb.rebuild(), "
            "[r.run_id for r in kb.similar_runs('regression task; 400 rows', 'regression')])")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert done.stdout.strip() == "2 ['r1', 'r2']", done.stderr


def test_empty_knowledge_base_returns_nothing(tmp_path):
    assert KnowledgeBase(tmp_path).similar_runs("x", "regression") == []


def test_a_write_from_another_process_never_breaks_retrieval(tmp_path):
    """Embedded Chroma's in-process index goes stale when another process writes;
    retrieval then answers from the log."""
    kb = KnowledgeBase(tmp_path)
    kb.add_run(record("r1", "regression", "regression task; 400 rows"))
    assert [r.run_id for r in kb.similar_runs("regression task", "regression")] == ["r1"]
    code = ("import sys; from tests.knowledge_base.test_knowledge_base import record; "
            "from pipesmith.knowledge_base.store import KnowledgeBase as K; "
            "K(sys.argv[1]).add_run(record('r2', 'regression', 'regression task; 800 rows'))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                          text=True, timeout=120, cwd=Path(__file__).parents[2])
    assert done.returncode == 0, done.stderr
    found = kb.similar_runs("regression task; 800 rows", "regression")
    assert sorted(r.run_id for r in found) == ["r1", "r2"]
    assert found[0].run_id == "r2"
