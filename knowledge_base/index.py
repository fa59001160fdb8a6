"""The Chroma index over run records: embedded (PersistentClient) or a server (HttpClient).

The index holds what a query needs to filter and rank (the embedded text and a few
metadata fields); full records come from the log. Losing the index loses nothing.
"""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import structlog

from pipesmith.knowledge_base.records import RunRecord

log = structlog.get_logger(__name__)
RUNS = "runs"
BATCH = 1000  # records per upsert call when (re)building


def document(record: RunRecord) -> str:
    """The text that is embedded for a run."""
    return f"{record.task_text}; {record.summary}"


def minor_version(version: str | None) -> str:
    """'1.9.2' -> '1.9': the granularity at which library behaviour is compared."""
    return ".".join((version or "").split(".")[:2])


def metadata(record: RunRecord) -> dict[str, Any]:
    return {"task_type": record.task_type, "outcome": record.outcome, "metric": record.metric,
            "dataset": record.dataset, "topology": record.topology,
            "sklearn": minor_version(record.versions.get("scikit-learn"))}


def collection_name(embedding) -> str:
    """One collection per embedding: vectors of different embeddings never mix."""
    name = embedding.name()
    return RUNS if name == "pipesmith-hashing" else f"{RUNS}-{name.removeprefix('pipesmith-')}"


def chroma_settings():
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False, allow_reset=False)


class ChromaIndex:
    """One collection, opened lazily (Chroma is slow to import) and probed on open."""

    def __init__(self, folder: Path, embedding, url: str | None = None) -> None:
        self.folder = folder
        self.url = url
        self.embedding = embedding
        self.name = collection_name(embedding)
        self._collection = None
        self._opening = threading.Lock()

    def client(self):
        import chromadb

        if self.url:
            parts = urlparse(self.url if "://" in self.url else f"http://{self.url}")
            return chromadb.HttpClient(host=parts.hostname or "127.0.0.1",
                                       port=parts.port or 8000, ssl=parts.scheme == "https",
                                       settings=chroma_settings())
        return chromadb.PersistentClient(path=str(self.folder), settings=chroma_settings())

    def collection(self):
        with self._opening:
            if self._collection is None:
                self._collection = self.client().get_or_create_collection(
                    self.name, embedding_function=self.embedding,
                    metadata={"hnsw:space": "cosine"})
            return self._collection

    @property
    def is_open(self) -> bool:
        return self._collection is not None

    def count(self) -> int:
        return self.collection().count()

    def ids(self) -> set[str]:
        return set(self.collection().get(include=[])["ids"])

    def upsert(self, records: list[RunRecord]) -> None:
        collection = self.collection()
        for start in range(0, len(records), BATCH):
            batch = records[start:start + BATCH]
            collection.upsert(ids=[r.run_id for r in batch],
                              documents=[document(r) for r in batch],
                              metadatas=[metadata(r) for r in batch])

    def query(self, text: str, where: dict | None, k: int) -> list[tuple[str, float]]:
        """(run id, cosine distance) pairs, nearest first."""
        found = self.collection().query(query_texts=[text], n_results=k, where=where,
                                        include=["distances"])
        return list(zip(found["ids"][0], map(float, found["distances"][0]), strict=True))

    def drop(self) -> None:
        """Delete the collection; the next use creates it empty."""
        with self._opening:
            client = self.client()
            if self.name in [c.name for c in client.list_collections()]:
                client.delete_collection(self.name)
            self._collection = None

    def discard_damaged(self) -> Path | None:
        """Move a damaged embedded index aside (kept for inspection) so a fresh one can be
        built from the log; a server's index is only dropped."""
        from chromadb.api.shared_system_client import SharedSystemClient

        with self._opening:
            self._collection = None
        if self.url:
            self.drop()
            return None
        SharedSystemClient.clear_system_cache()  # forget the cached client of this path
        if not self.folder.exists():
            return None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.folder.with_name(f"{self.folder.name}.damaged-{stamp}")
        shutil.move(self.folder, aside)
        return aside
