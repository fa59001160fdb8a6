"""The append-only record log: JSON lines, fsynced, one writer at a time.

A writer killed in the middle of a line leaves a torn last line. Readers only
consume lines that end in a newline, and skip a line that does not parse; the
next writer first ends the torn line, so it stays one unreadable line instead
of gluing itself to the next record. Nothing complete is ever lost.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import structlog
from pydantic import BaseModel

from pipesmith.knowledge_base.records import Record, parse_record

log = structlog.get_logger(__name__)


class RecordLog:
    def __init__(self, folder: Path) -> None:
        self.path = folder / "records.jsonl"
        self.lock_path = folder / "kb.lock"

    @contextmanager
    def lock(self) -> Iterator[None]:
        """The writers' lock: an exclusive flock on kb.lock, released if the holder dies."""
        with self.lock_path.open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def append(self, records: list[BaseModel]) -> None:
        """Append whole lines and fsync; the caller holds the lock."""
        data = "".join(record.model_dump_json() + "\n" for record in records).encode()
        with self.path.open("ab+") as handle:
            if handle.tell() > 0:
                handle.seek(-1, os.SEEK_END)
                if handle.read(1) != b"\n":  # a writer died mid-line: end its torn line
                    data = b"\n" + data
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())

    def size(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def read_from(self, offset: int) -> tuple[list[Record], int]:
        """Records in complete lines from byte `offset` on, and the offset after them."""
        if self.size() <= offset:
            return [], offset
        with self.path.open("rb") as handle:
            handle.seek(offset)
            data = handle.read()
        end = data.rfind(b"\n") + 1  # a torn or still-being-written last line waits
        return parse_lines(data[:end]), offset + end


def parse_lines(data: bytes) -> list[Record]:
    """The records in JSON lines; a line that does not parse (torn by a killed writer, or
    hand-edited) is skipped with a warning."""
    records = []
    for number, line in enumerate(data.splitlines()):
        if not line.strip():
            continue
        try:
            record = parse_record(json.loads(line))
        except ValueError as exc:
            log.warning("kb.unreadable_line", line=number, error=str(exc)[:200])
            continue
        if record is not None:
            records.append(record)
    return records
