"""The knowledge-base store.

The record log (JSON lines, fsynced, knowledge_base/log.py) is the source of truth;
the Chroma collection (knowledge_base/index.py) is an index over it that can be
rebuilt from the log at any time. Writers take a lock file so two runs never
interleave a record. An in-memory view of the log (knowledge_base/view.py) answers
per-call questions (fix rates, executions, records by id) without re-reading it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
import structlog

from pipesmith.agents.schemas import CodeExample, PastRun
from pipesmith.knowledge_base.index import ChromaIndex, document, minor_version
from pipesmith.knowledge_base.log import RecordLog, parse_lines
from pipesmith.knowledge_base.records import (
    RepairRecord,
    RunRecord,
    meta_distance,
)
from pipesmith.knowledge_base.view import FixRate, LogView

log = structlog.get_logger(__name__)
__all__ = ["KnowledgeBase", "RepairRecord", "RunRecord", "default_kb_dir"]
WARM_START_POOL = 4  # retrieve this many times k by text, then re-rank by meta-features
OVERFETCH = 5  # unfiltered neighbours asked of the index per result wanted


def default_kb_dir() -> Path:
    """The user's data directory: platformdirs when installed, else the XDG default."""
    try:
        from platformdirs import user_data_dir
    except ImportError:
        base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
        return Path(base) / "pipesmith" / "kb"
    return Path(user_data_dir("pipesmith", appauthor=False)) / "kb"


class KnowledgeBase:
    def __init__(self, path: Path, embedding=None, url: str | None = None) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.log = RecordLog(self.path)
        self.view = LogView(self.log)
        self.url = url
        self._embedding = embedding
        self._index: ChromaIndex | None = None
        self._in_index: set[str] = set()  # run ids this process knows the index holds
        self._vectors: dict[str, np.ndarray] = {}  # embedded documents, for exact scans
        self._unseen_cache: tuple[tuple[int, int], list[RunRecord]] = ((-1, -1), [])
        self._probing = threading.Lock()
        self._building = threading.Lock()
        self.index_queries = 0  # searches the index answered (the log scan is the fallback)
        self.index_failures = 0
        self.probe_result: str | None = None

    @classmethod
    def from_settings(cls, settings) -> KnowledgeBase:
        """The store that `pipesmith.settings.Settings` describe (kb_dir, kb_embedding,
        kb_url)."""
        return cls(settings.kb_dir, embedding=settings.kb_embedding, url=settings.kb_url)

    @property
    def log_path(self) -> Path:
        return self.log.path

    @property
    def embedding(self):
        """The embedding function; given as an object, or by kind ("hashing", "semantic"),
        built on first use because it imports Chroma's types."""
        with self._building:  # the background opener and the first search may race here
            kind = self._embedding
            if kind is None or isinstance(kind, str):
                from pipesmith.knowledge_base.embeddings import make_embedding

                self._embedding = make_embedding(kind or "hashing")
            return self._embedding

    @property
    def index(self) -> ChromaIndex:
        """The index, probed against the log the first time this process opens it."""
        if self._index is None:
            self._index = ChromaIndex(self.path / "chroma", self.embedding, self.url)
        with self._probing:
            if self.probe_result is None:
                self.probe_result = self._probe()
        return self._index

    @property
    def collection(self):
        return self.index.collection()

    def open_in_background(self) -> None:
        """Open (and probe) the index on a thread, so Chroma's slow import and start-up
        overlap the sandbox runs instead of adding to the run."""
        if self.probe_result is None and self.writable:
            threading.Thread(target=self._open_quietly, daemon=True).start()

    def _open_quietly(self) -> None:
        try:
            _ = self.index
        except Exception as exc:  # the first search meets the same failure and falls back
            log.info("kb.index_open_failed", error=str(exc)[:300])

    @property
    def writable(self) -> bool:
        """False on a read-only store (a read-only mount, or no permission): it is read
        from the log alone (embedded Chroma cannot open read-only), and nothing is recorded."""
        return self.url is not None or os.access(self.path, os.W_OK)

    # -- the startup probe -------------------------------------------------------------

    def _probe(self) -> str:
        """Check the index against the log: a damaged index is moved aside and rebuilt;
        records the log has and the index lacks (a writer killed between the two) are
        indexed. Returns what was done."""
        runs = self.view.refresh().runs
        try:
            held = self._index.ids()
        except Exception as exc:  # a damaged index raises many internal types
            log.warning("kb.index_damaged", error=str(exc)[:300], action="rebuild from log")
            aside = self._index.discard_damaged()
            self._reindex(list(runs.values()))
            return f"rebuilt {len(runs)} records (damaged index moved to {aside})" if aside \
                else f"rebuilt {len(runs)} records"
        missing = [record for run_id, record in runs.items() if run_id not in held]
        if missing:
            self._index.upsert(missing)
            log.info("kb.index_completed", records=len(missing))
        self._in_index = held | {r.run_id for r in missing}
        return f"indexed {len(missing)} missing records" if missing else "ok"

    def _reindex(self, records: list[RunRecord]) -> None:
        self._index.drop()
        self._index.upsert(records)
        self._in_index = {r.run_id for r in records}

    def rebuild(self) -> int:
        """Drop the index and re-index every run of the log; returns how many."""
        with self.log.lock():
            records = list(self.view.refresh().runs.values())
            if self._index is None:
                self._index = ChromaIndex(self.path / "chroma", self.embedding, self.url)
            try:
                self._reindex(records)
            except Exception as exc:  # damaged beyond dropping: start a fresh index
                log.warning("kb.index_damaged", error=str(exc)[:300], action="move aside")
                self._index.discard_damaged()
                self._reindex(records)
            self.probe_result = "rebuilt"
        return len(records)

    # -- writing -----------------------------------------------------------------------

    def add_repairs(self, records: list[RepairRecord]) -> int:
        """Append the repairs the log lacks (by `record_id`); returns how many were new."""
        if not records:
            return 0
        with self.log.lock():
            known = {r.record_id for r in self.view.refresh().repairs}
            new = [r for r in records if r.record_id not in known]
            new = list({r.record_id: r for r in new}.values())
            if new:
                self.log.append(new)
        return len(new)

    def add_run(self, record: RunRecord) -> bool:
        """Append to the log (the record is safe from here on), then index it; a run the
        log already holds is not appended again. Returns whether it was new."""
        with self.log.lock():
            if record.run_id in self.view.refresh().runs:
                log.info("kb.run_already_recorded", run_id=record.run_id)
                return False
            self.log.append([record])
            self._index_new([record])
        log.info("kb.run_recorded", run_id=record.run_id, outcome=record.outcome)
        return True

    def _index_new(self, records: list[RunRecord]) -> None:
        try:
            self.index.upsert(records)
            self._in_index |= {r.run_id for r in records}
        except Exception as exc:  # chromadb raises several internal types
            # The log has the records; the next probe or `kb rebuild` indexes them.
            log.warning("kb.index_write_failed", error=str(exc)[:300])

    def import_records(self, path: Path) -> tuple[int, int]:
        """Append the records of another log (an export) that this one lacks; returns
        (runs, repairs) added. Unreadable lines are skipped, as in the log itself."""
        known_runs = set(self.view.refresh().runs)
        known_repairs = {(r.run_id, r.signature, r.action, r.diff) for r in self.view.repairs}
        other = parse_lines(Path(path).read_bytes())
        runs = [r for r in other if isinstance(r, RunRecord) and r.run_id not in known_runs]
        repairs = [r for r in other if isinstance(r, RepairRecord)
                   and (r.run_id, r.signature, r.action, r.diff) not in known_repairs]
        with self.log.lock():
            self.log.append(repairs + runs)
            if runs:
                self._index_new(runs)
        return len(runs), len(repairs)

    def export_records(self, path: Path) -> int:
        """Write every readable record to a JSON-lines file; returns how many."""
        view = self.view.refresh()
        records = [*view.repairs, *view.runs.values()]
        path = Path(path)
        partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
        try:  # all or nothing: a full disk leaves no half-written export behind
            partial.write_text("".join(r.model_dump_json() + "\n" for r in records))
            os.replace(partial, path)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        return len(records)

    # -- reading -----------------------------------------------------------------------

    def records(self) -> list[RunRecord]:
        return list(self.view.refresh().runs.values())

    def repairs(self) -> list[RepairRecord]:
        return list(self.view.refresh().repairs)

    def get(self, run_id: str) -> RunRecord | None:
        return self.view.refresh().runs.get(run_id)

    def repairs_of(self, run_id: str) -> list[RepairRecord]:
        return [r for r in self.view.refresh().repairs if r.run_id == run_id]

    def executions(self) -> list[dict[str, Any]]:
        """Every full run's predicted and measured resources, for the predictor's margins."""
        return self.view.executions()

    def fix_rates(self, signature: str) -> list[FixRate]:
        """Per action: how often it fixed this error signature; best first."""
        return self.view.ranked_fixes(signature)

    def fixes_for(self, signature: str) -> list[str]:
        """Actions that fixed this error signature before, best fix rate first."""
        return [rate.action for rate in self.fix_rates(signature)]

    def stats(self) -> dict[str, Any]:
        view = self.view.refresh()
        runs, repairs = list(view.runs.values()), view.repairs
        by_kind: dict[str, dict[str, int]] = {}
        for record in runs:
            by_kind.setdefault(record.task_type, {}).setdefault(record.outcome, 0)
            by_kind[record.task_type][record.outcome] += 1
        fixed = sum(r.fixed for r in repairs)
        return {
            "path": str(self.path), "index": self.url or str(self.path / "chroma"),
            "runs": len(runs), "failed_runs": sum(r.failed for r in runs),
            "repairs": len(repairs), "repairs_fixed": fixed,
            "signatures": len(view.fix_rates), "runs_by_task": by_kind,
            "log_bytes": view.offset,
        }

    # -- retrieval ---------------------------------------------------------------------

    def search(self, text: str, k: int = 5, task_type: str | None = None,
               outcome: str | None = None,
               versions: dict[str, str] | None = None) -> list[tuple[RunRecord, float]]:
        """Runs nearest to `text`, with optional metadata filters; (record, distance) pairs.

        The index answers; runs another process added since this one opened its index
        (embedded Chroma keeps a per-process copy) are scored exactly from the log and
        merged in. If the index cannot answer at all, the whole log is scanned.
        """
        view = self.view.refresh()
        if not view.runs:
            return []  # nothing recorded yet: don't pay for opening the index
        filters = {key: value for key, value in (
            ("task_type", task_type), ("outcome", outcome),
            ("sklearn", minor_version(versions.get("scikit-learn")) if versions else None))
            if value}
        try:
            if not self.writable:
                raise PermissionError(f"{self.path} is read-only")
            found = self._query_index(view, text, filters, k)
            unseen = self._unseen(view)
            self.index_queries += 1
        except PermissionError as exc:
            log.info("kb.read_only", error=str(exc)[:300], fallback="log scan")
            found, unseen = {}, list(view.runs.values())
        except Exception as exc:  # chromadb raises several internal types
            self.index_failures += 1
            log.warning("kb.index_query_failed", error=str(exc)[:300], fallback="log scan")
            found, unseen = {}, list(view.runs.values())
        matching = [r for r in unseen if _matches(r, filters)]
        found |= dict(self._scan(text, matching))
        ranked = sorted(found.items(), key=lambda pair: pair[1])[:k]
        return [(view.runs[run_id], distance) for run_id, distance in ranked]

    def _query_index(self, view: LogView, text: str, filters: dict[str, str],
                     k: int) -> dict[str, float]:
        """Nearest runs that pass the filters. Chroma's own metadata filter costs ~100 ms at
        10k records while its unfiltered nearest-neighbour search costs ~3 ms, so the index
        is asked for OVERFETCH times k unfiltered and the filters are applied to the log's
        records; only when too few pass does Chroma filter."""
        fetch = k * OVERFETCH
        hits = self.index.query(text, None, fetch)
        found = {run_id: d for run_id, d in hits
                 if run_id in view.runs and _matches(view.runs[run_id], filters)}
        if len(found) < k and len(hits) == fetch and filters:
            hits = self.index.query(text, _where(filters), k)  # fewer come back if fewer match
            found = {run_id: d for run_id, d in hits if run_id in view.runs}
        return dict(sorted(found.items(), key=lambda pair: pair[1])[:k])

    def _unseen(self, view: LogView) -> list[RunRecord]:
        """Runs of the log this process's index may not hold (another process wrote them
        after this one opened its index); recomputed only when the log or index grew."""
        key = (view.offset, len(self._in_index))
        if self._unseen_cache[0] != key:
            self._unseen_cache = (key, [r for r in view.runs.values()
                                        if r.run_id not in self._in_index])
        return self._unseen_cache[1]

    def _scan(self, text: str, records: list[RunRecord]) -> list[tuple[str, float]]:
        """Exact cosine distances from `text` to each record's document."""
        if not records:
            return []
        for record in records:
            if record.run_id not in self._vectors:
                self._vectors[record.run_id] = np.asarray(self.embedding([document(record)])[0])
        query = np.asarray(self.embedding([text])[0])
        matrix = np.stack([self._vectors[r.run_id] for r in records])
        return list(zip([r.run_id for r in records], (1.0 - matrix @ query).tolist(),
                        strict=True))

    def similar_runs(self, text: str, task_type: str, k: int = 5,
                     versions: dict[str, str] | None = None) -> list[PastRun]:
        """Past successful runs of the same task type, nearest to `text` first. With
        `versions`, runs on the same scikit-learn minor version first; others only when
        none match."""
        found = self._filtered(text, task_type, k, versions)
        return [past_run(record, distance) for record, distance in found]

    def _filtered(self, text, task_type, k, versions):
        found = []
        if versions:
            found = self.search(text, k, task_type=task_type, outcome="succeeded",
                                versions=versions)
        return found or self.search(text, k, task_type=task_type, outcome="succeeded")

    def warm_start(self, text: str, task_type: str, features: dict[str, Any], k: int = 5,
                   versions: dict[str, str] | None = None) -> list[PastRun]:
        """The past successful runs on the datasets nearest to this one by meta-features
        (auto-sklearn's meta-learning), among the text-nearest of the same task type.
        `distance` is the meta-feature distance."""
        pool = self._filtered(text, task_type, k * WARM_START_POOL, versions)
        ranked = sorted(((record, meta_distance(features, record.meta_features))
                         for record, _ in pool), key=lambda pair: pair[1])[:k]
        return [past_run(record, distance) for record, distance in ranked]


def past_run(record: RunRecord, distance: float) -> PastRun:
    return PastRun(run_id=record.run_id, summary=document(record), task_type=record.task_type,
                   family_scores=record.family_scores, distance=distance,
                   dataset=record.dataset, task_text=record.task_text,
                   meta_features=record.meta_features, family_params=record.family_params,
                   final_family=record.final_family, final_code=record.final_code,
                   score=record.score)


def code_examples(past_runs: list[PastRun], limit: int = 3) -> list[CodeExample]:
    """The final code of the nearest successful past runs, for a coder to learn from."""
    examples = []
    for run in past_runs:
        if not run.final_code:
            continue
        gain = run.family_scores.get(run.final_family) if run.final_family else None
        examples.append(CodeExample(run_id=run.run_id, dataset=run.dataset,
                                    task_text=run.task_text, family=run.final_family,
                                    code=run.final_code, gain=gain, distance=run.distance))
    return examples[:limit]


def _where(filters: dict[str, str]) -> dict:
    """The filters as a Chroma `where` clause."""
    clauses = [{key: value} for key, value in filters.items()]
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _matches(record: RunRecord, filters: dict[str, str]) -> bool:
    """The same filters applied to a record of the log (it holds the index's metadata)."""
    for key, value in filters.items():
        field = minor_version(record.versions.get("scikit-learn")) if key == "sklearn" \
            else getattr(record, key)
        if field != value:
            return False
    return True
