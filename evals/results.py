"""results.jsonl and baselines.jsonl: appended one row at a time, read back on resume.

A row is flushed the moment its job ends, so an interrupted eval loses only the jobs that
were running. Rows whose status starts with "error" (the harness itself failed on the job)
are kept for the record and run again on resume; the latest row of a key wins.
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = "results.jsonl"
BASELINES = "baselines.jsonl"


def append(path: Path, row: dict) -> None:
    """One row on a line of its own, even after a line a crash cut short."""
    torn = path.exists() and path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
    with path.open("a") as handle:
        handle.write(("\n" if torn else "") + json.dumps(row, default=float) + "\n")
        handle.flush()


def read(path: Path) -> list[dict]:
    """Every complete row (a line cut short by a crash is skipped)."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def latest(rows: list[dict], key_fields: tuple[str, ...]) -> dict[tuple, dict]:
    out: dict[tuple, dict] = {}
    for row in rows:
        out[tuple(row[k] for k in key_fields)] = row
    return out


def finished(rows: list[dict], key_fields: tuple[str, ...]) -> set[tuple]:
    return {key for key, row in latest(rows, key_fields).items()
            if not str(row.get("status", "")).startswith("error")}


def pipeline_rows(out: Path) -> list[dict]:
    return list(latest(read(out / RESULTS), ("dataset", "topology", "seed")).values())


def baseline_table(out: Path) -> dict[tuple[str, int], dict[str, float | None]]:
    """(dataset, seed) -> {baseline: score}."""
    table: dict[tuple[str, int], dict[str, float | None]] = {}
    for (dataset, baseline, seed), row in latest(read(out / BASELINES),
                                                 ("dataset", "baseline", "seed")).items():
        table.setdefault((dataset, seed), {})[baseline] = row.get("score")
    return table
