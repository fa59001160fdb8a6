"""The task-text reader scored on phrasings we did not write (evals/phrasings/): per field,
the share of rows read as labelled by hand.

    .venv/bin/python -m evals.phrasings_score [--part all|fit|holdout] [--misses FIELD]

Fields: intent (every row); target (requests); task_type, drop, metric, budget_s, families,
exclude_families (requests and edits). A row is held out (never looked at while the rules
were fixed) when a hash of its id says so: about 30% of rows, fixed before any fix.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import sys
from pathlib import Path

CORPUS = Path(__file__).parent / "phrasings"
FIELDS = ("intent", "target", "task_type", "drop", "metric", "budget_s", "families",
          "exclude_families")
LISTS = ("drop", "families", "exclude_families")  # ";"-joined, compared as sets
HOLDOUT_SHARE = 0.3


def load(part: str = "all") -> list[dict]:
    """The labelled rows, each with its table's columns; part: all, fit or holdout."""
    with open(CORPUS / "tables.csv", newline="") as f:
        tables = {row["table"]: row["columns"].split(";") for row in csv.DictReader(f)}
    with open(CORPUS / "phrasings.csv", newline="") as f:
        rows = [{**row, "columns": tables[row["table"]]} for row in csv.DictReader(f)]
    if part == "all":
        return rows
    return [row for row in rows if held_out(row["id"]) == (part == "holdout")]


def held_out(row_id: str) -> bool:
    digest = int(hashlib.sha1(row_id.encode()).hexdigest(), 16)
    return digest % 100 < HOLDOUT_SHARE * 100


def expected(row: dict) -> dict:
    """The hand label, in the reader's terms (None and empty sets where the text says nothing)."""
    out = {}
    for field in FIELDS:
        value = row[field]
        if field in LISTS:
            out[field] = frozenset(v for v in value.split(";") if v)
        elif field == "budget_s":
            out[field] = float(value) if value else None
        else:
            out[field] = value or None
    return out


def read(text: str, columns: list[str]) -> dict:
    """The reader's reading: pipesmith.chat.task_text.read_text where it exists, else the
    frozen reader's parts put together in the chat's order (approval, rejection, request,
    edit, else question)."""
    from pipesmith.chat import task_text

    if hasattr(task_text, "read_text"):
        reading = task_text.read_text(text, columns)
        return {"intent": reading.intent, "target": reading.request.target,
                "target_guessed": reading.target_guessed, **_fields(reading.request)}
    request = task_text.parse_request(text, columns)
    if task_text.is_approval(text):
        intent = "approval"
    elif task_text.is_rejection(text):
        intent = "rejection"
    elif request.target or request.data_path or request.dataset \
            or request.task_type == "clustering":
        intent = "request"
    elif not task_text.parse_edit(text, columns).empty:
        intent = "edit"
    else:
        intent = "question"
    return {"intent": intent, "target": request.target, "target_guessed": False,
            **_fields(request)}


def _fields(request) -> dict:
    return {"task_type": request.task_type, "drop": frozenset(request.drop_columns),
            "metric": request.metric, "budget_s": request.budget_s,
            "families": frozenset(request.families),
            "exclude_families": frozenset(getattr(request, "exclude_families", ()))}


def scored(field: str, row: dict) -> bool:
    """Whether a field is scored on a row: intent always, target on requests, the rest on
    requests and edits."""
    if field == "intent":
        return True
    if field == "target":
        return row["intent"] == "request"
    return row["intent"] in ("request", "edit")


def score(rows: list[dict]) -> dict:
    """Per field: (right, scored); plus target guesses: wrong targets read as sure."""
    tally = {field: [0, 0] for field in FIELDS}
    misses: dict[str, list] = {field: [] for field in FIELDS}
    wrong_sure = 0
    for row in rows:
        want, got = expected(row), read(row["text"], row["columns"])
        for field in FIELDS:
            if not scored(field, row):
                continue
            tally[field][1] += 1
            if got[field] == want[field]:
                tally[field][0] += 1
            else:
                misses[field].append((row["id"], row["text"][:90], want[field], got[field]))
        if scored("target", row) and got["target"] not in (None, want["target"]) \
                and not got["target_guessed"]:
            wrong_sure += 1
    return {"tally": tally, "misses": misses, "wrong_sure_targets": wrong_sure}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="all", choices=("all", "fit", "holdout"))
    parser.add_argument("--misses", default=None, choices=FIELDS)
    args = parser.parse_args()
    rows = load(args.part)
    result = score(rows)
    lines = [f"{len(rows)} phrasings ({args.part})"]
    lines += [f"  {field:17s} {right:4d}/{total:<4d} {right / total:6.1%}"
              for field, (right, total) in result["tally"].items()]
    lines.append(f"  wrong target read as sure: {result['wrong_sure_targets']}")
    lines += ["    " + " | ".join(map(str, miss))
              for miss in (result["misses"][args.misses] if args.misses else ())]
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
