"""The `wild`, `wild2`, `wild3` and `wild4` splits of the corpus: breakages collected from public
threads, measured once.

Here: every case is loaded, sourced and has its reference fix and expected error. That each
case fails as collected and each reference reaches its floor is checked by real runs of every
case and reference, minutes of interpreters: `python benchmarks/wild_corpus.py --split wild`
(and `--split wild2`, `--split wild3`, `--split wild4`), a check of the data, run when cases
are added, not on every commit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipesmith.evals import repair_corpus
from pipesmith.evals.repair_corpus import expected_errors, reference

BENCHMARK = Path(__file__).parents[2] / "benchmarks" / "repair_corpus.py"


@pytest.mark.parametrize("split", ["wild", "wild2", "wild3", "wild4", "wild5"])
def test_a_wild_split_is_loaded_sourced_and_has_references(split):
    cases = repair_corpus.load(split)
    assert len(cases) >= 30
    assert len({c.id for c in repair_corpus.load()}) == len(repair_corpus.load())
    errors = expected_errors(split)
    assert set(errors) == {c.id for c in cases}
    for case in cases:
        assert case.kind == "script" and case.data in repair_corpus.DATA, case.id
        assert case.file.is_file() and (reference(split) / f"{case.id}.py").is_file(), case.id
        assert case.source.startswith("https://"), case.id
        assert case.task in ("classification", "regression"), case.id
    text = BENCHMARK.read_text()
    assert f'"{split}"' in text  # the benchmark's --split accepts it


@pytest.mark.parametrize("split", ["wild2", "wild3", "wild4", "wild5"])
def test_a_later_wild_split_shares_no_source_thread_with_the_rest_of_the_corpus(split):
    fresh = repair_corpus.load(split)
    earlier = [c for c in repair_corpus.load() if c.split != split]
    assert {c.source for c in fresh}.isdisjoint(c.source for c in earlier)
