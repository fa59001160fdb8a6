"""The knowledge-base store.

The record log (JSON lines, fsynced) is the source of truth; the Chroma
collection is an index over it that can be rebuilt from the log. Writers take
a lock file so two runs never interleave a record.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import structlog
from pydantic import BaseModel, ConfigDict, Field

from pipesmith.agents.schemas import PastRun, TaskType

log = structlog.get_logger(__name__)
RUNS = "runs"


class RunRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: str = "run"
    run_id: str
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    task_text: str
    dataset: str
    task_type: TaskType
    metric: str
    summary: str  # the data profile in one line; what gets embedded
    meta_features: dict[str, Any]
    family_scores: dict[str, float]  # per family: best score minus baseline (sign-adjusted)
    final_code: str | None
    score: float | None
    baseline_score: float | None
    outcome: str  # "succeeded" or "failed"
    resources: dict[str, float]
    versions: dict[str, str]
    topology: str
    executions: list[dict[str, Any]] = Field(default_factory=list)  # predicted vs measured


class RepairRecord(BaseModel):
    """One repair: the error it answered, the action taken, and whether it worked."""

    model_config = ConfigDict(frozen=True)

    kind: str = "repair"
    run_id: str
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    signature: str  # the normalised error signature of the failure repaired
    taxonomy: str  # class.subclass
    action: str
    fixed: bool  # the repaired code no longer failed with the same signature
    succeeded: bool  # the repaired code ran and was scored
    diff: str  # unified diff, code before -> after
    versions: dict[str, str]


def default_kb_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "pipesmith" / "kb"


class KnowledgeBase:
    def __init__(self, path: Path, embedding=None) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.log_path = self.path / "records.jsonl"
        self._embedding = embedding
        self._collection = None
        self._opening = threading.Lock()

    @property
    def embedding(self):
        if self._embedding is None:  # built on first use: it imports Chroma's types
            from pipesmith.knowledge_base.embeddings import HashingEmbedding

            self._embedding = HashingEmbedding()
        return self._embedding

    def _client(self):
        import chromadb
        from chromadb.config import Settings

        return chromadb.PersistentClient(
            path=str(self.path / "chroma"),
            settings=Settings(anonymized_telemetry=False, allow_reset=False),
        )

    @property
    def collection(self):
        with self._opening:
            if self._collection is None:
                self._collection = self._client().get_or_create_collection(
                    RUNS, embedding_function=self.embedding, metadata={"hnsw:space": "cosine"})
            return self._collection

    def open_in_background(self) -> None:
        """Open the index on a thread, so Chroma's slow import and start-up overlap the
        sandbox runs (the main thread only waits on them) instead of adding to the run."""
        if self._collection is None:
            threading.Thread(target=lambda: self.collection, daemon=True).start()

    @contextmanager
    def _lock(self):
        with (self.path / "kb.lock").open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _append(self, records: list[BaseModel]) -> None:
        with self.log_path.open("a") as handle:
            handle.write("".join(record.model_dump_json() + "\n" for record in records))
            handle.flush()
            os.fsync(handle.fileno())

    def add_repairs(self, records: list[RepairRecord]) -> None:
        if records:
            with self._lock():
                self._append(records)

    def add_run(self, record: RunRecord) -> None:
        with self._lock():
            self._append([record])
            try:
                self._index(record)
            except Exception as exc:  # chromadb raises several internal types
                # The log has the record; `pipesmith kb rebuild` restores the index.
                log.warning("kb.index_write_failed", run_id=record.run_id, error=str(exc))
        log.info("kb.run_recorded", run_id=record.run_id, outcome=record.outcome)

    def _index(self, record: RunRecord) -> None:
        self.collection.upsert(
            ids=[record.run_id],
            documents=[_document(record)],
            metadatas=[{"task_type": record.task_type, "outcome": record.outcome,
                        "metric": record.metric,
                        "family_scores": json.dumps(record.family_scores)}],
        )

    def _raw(self) -> list[dict]:
        if not self.log_path.exists():
            return []
        return [json.loads(line) for line in self.log_path.read_text().splitlines()
                if line.strip()]

    def records(self) -> list[RunRecord]:
        return [RunRecord.model_validate(r) for r in self._raw() if r.get("kind") == "run"]

    def repairs(self) -> list[RepairRecord]:
        return [RepairRecord.model_validate(r) for r in self._raw() if r.get("kind") == "repair"]

    def executions(self) -> list[dict[str, Any]]:
        """Every full run's predicted and measured resources, for the predictor's margins."""
        return [e for record in self.records() for e in record.executions]

    def fixes_for(self, signature: str) -> list[str]:
        """Actions that fixed this error signature before, best fix rate first."""
        tally: dict[str, list[int]] = {}
        for record in self.repairs():
            if record.signature == signature:
                fixed, total = tally.setdefault(record.action, [0, 0])
                tally[record.action] = [fixed + record.fixed, total + 1]
        rates = {a: (fixed / total, total) for a, (fixed, total) in tally.items() if fixed}
        return sorted(rates, key=lambda a: rates[a], reverse=True)

    def rebuild(self) -> int:
        """Drop the index and re-index every record of the log; returns how many."""
        records = self.records()
        with self._lock():
            client = self._client()
            if RUNS in [c.name for c in client.list_collections()]:
                client.delete_collection(RUNS)
            self._collection = None
            for record in records:
                self._index(record)
        return len(records)

    def similar_runs(self, text: str, task_type: str, k: int = 5) -> list[PastRun]:
        """Past successful runs of the same task type, nearest first.

        Embedded Chroma keeps an in-memory copy of its index per process; when another
        process has written since, a query can fail. The log is the source of truth, so
        then the answer comes from an exact scan of the log instead.
        """
        if not self.log_path.exists():
            return []  # nothing recorded yet: don't pay for opening the index
        try:
            return self._query_index(text, task_type, k)
        except Exception as exc:  # chromadb raises several internal types
            log.warning("kb.index_query_failed", error=str(exc), fallback="log scan")
            return self._scan_log(text, task_type, k)

    def _scan_log(self, text: str, task_type: str, k: int) -> list[PastRun]:
        records = [r for r in self.records()
                   if r.task_type == task_type and r.outcome == "succeeded"]
        if not records:
            return []
        query, *docs = self.embedding([text] + [_document(r) for r in records])
        distances = [1.0 - float(np.dot(query, doc)) for doc in docs]
        ranked = sorted(zip(distances, records, strict=True), key=lambda pair: pair[0])[:k]
        return [PastRun(run_id=r.run_id, summary=_document(r), task_type=task_type,
                        family_scores=r.family_scores, distance=d) for d, r in ranked]

    def _query_index(self, text: str, task_type: str, k: int) -> list[PastRun]:
        collection = self.collection
        if collection.count() == 0:
            return []
        found = collection.query(
            query_texts=[text], n_results=min(k, collection.count()),
            where={"$and": [{"task_type": task_type}, {"outcome": "succeeded"}]},
        )
        return [
            PastRun(run_id=run_id, summary=doc, task_type=task_type,
                    family_scores=json.loads(meta["family_scores"]), distance=float(dist))
            for run_id, doc, meta, dist in zip(found["ids"][0], found["documents"][0],
                                               found["metadatas"][0], found["distances"][0],
                                               strict=True)
        ]


def _document(record: RunRecord) -> str:
    """The text that is embedded for a run."""
    return f"{record.task_text}; {record.summary}"
