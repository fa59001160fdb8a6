"""An in-memory view of the record log, brought up to date by reading only what was
appended since the last look (by byte offset), so per-call questions — fix rates,
executions, records by id — cost a stat() instead of a full re-read of the log."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from pipesmith.knowledge_base.log import RecordLog
from pipesmith.knowledge_base.records import RepairRecord, RunRecord


@dataclass
class FixRate:
    action: str
    fixed: int = 0
    total: int = 0
    last_fix_diff: str = ""  # the diff of the latest repair with this action that worked

    @property
    def rate(self) -> float:
        return self.fixed / self.total if self.total else 0.0


@dataclass
class LogView:
    log: RecordLog
    offset: int = 0
    runs: dict[str, RunRecord] = field(default_factory=dict)  # by run id; the latest wins
    repairs: list[RepairRecord] = field(default_factory=list)
    fix_rates: dict[str, dict[str, FixRate]] = field(default_factory=dict)  # signature, action
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def refresh(self) -> LogView:
        with self._lock:
            if self.log.size() < self.offset:  # the log was replaced (import, tests): start over
                self.offset, self.runs, self.repairs, self.fix_rates = 0, {}, [], {}
            records, self.offset = self.log.read_from(self.offset)
            for record in records:
                if isinstance(record, RunRecord):
                    self.runs.pop(record.run_id, None)  # re-recorded: move to the end
                    self.runs[record.run_id] = record
                else:
                    self._count(record)
        return self

    def _count(self, record: RepairRecord) -> None:
        self.repairs.append(record)
        by_action = self.fix_rates.setdefault(record.signature, {})
        stats = by_action.setdefault(record.action, FixRate(record.action))
        stats.total += 1
        if record.fixed:
            stats.fixed += 1
            stats.last_fix_diff = record.diff

    def ranked_fixes(self, signature: str) -> list[FixRate]:
        """Actions that fixed this signature at least once, best fix rate first (ties: the
        one tried more often)."""
        rates = [r for r in self.refresh().fix_rates.get(signature, {}).values() if r.fixed]
        return sorted(rates, key=lambda r: (r.rate, r.total), reverse=True)

    def executions(self) -> list[dict[str, Any]]:
        return [e for record in self.refresh().runs.values() for e in record.executions]
