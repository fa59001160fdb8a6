"""The `wild` split of the corpus: breakages collected from public threads, measured once.

Here: every case is loaded, sourced and has its reference fix and expected error. That each
case fails as collected and each reference reaches its floor is checked by real runs of all
78 scripts, minutes of interpreters: `python benchmarks/wild_corpus.py` (a check of the data,
run when cases are added, not on every commit).
"""

from __future__ import annotations

from pathlib import Path

from pipesmith.evals import repair_corpus
from pipesmith.evals.repair_corpus import REFERENCE, expected_errors

BENCHMARK = Path(__file__).parents[2] / "benchmarks" / "repair_corpus.py"

def test_the_wild_split_is_loaded_sourced_and_has_references():
    cases = repair_corpus.load("wild")
    assert len(cases) >= 30
    assert len({c.id for c in repair_corpus.load()}) == len(repair_corpus.load())
    errors = expected_errors()
    assert set(errors) == {c.id for c in cases}
    for case in cases:
        assert case.kind == "script" and case.data in repair_corpus.DATA, case.id
        assert case.file.is_file() and (REFERENCE / f"{case.id}.py").is_file(), case.id
        assert case.source.startswith("https://"), case.id
        assert case.task in ("classification", "regression"), case.id
    text = BENCHMARK.read_text()
    assert '"wild"' in text  # the benchmark's --split accepts it
