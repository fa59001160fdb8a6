"""The table of what people call the model families names only families that exist."""

from __future__ import annotations

from pipesmith.agents.families.names import FAMILY_WORDS
from pipesmith.agents.families.registry import FAMILIES


def test_every_word_names_known_families():
    known = {f.name for f in FAMILIES}
    unknown = {word: names for word, names in FAMILY_WORDS.items() if set(names) - known}
    assert unknown == {}


def test_every_family_has_a_word():
    named = {name for names in FAMILY_WORDS.values() for name in names}
    assert {f.name for f in FAMILIES} - named == set()
