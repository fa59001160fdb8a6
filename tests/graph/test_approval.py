"""Plan edits applied to a real prepared run folder (graph/approval.py apply_edits)."""

from __future__ import annotations

import pytest

from pipesmith.core.inputs import prepare_inputs
from pipesmith.errors import InputError
from pipesmith.graph.approval import apply_edits


def test_excluded_families_accumulate_and_re_plan(tmp_path):
    inputs, _ = prepare_inputs(tmp_path / "run", dataset="iris")
    once, goto = apply_edits(inputs, {"exclude_families": ["random_forest"]})
    assert (once.excluded_families, goto) == (["random_forest"], "plan")
    twice, _ = apply_edits(once, {"exclude_families": ["xgboost", "random_forest"]})
    assert twice.excluded_families == ["random_forest", "xgboost"]


@pytest.mark.parametrize("edits, words", [
    ({"exclude_families": ["random_forrest"]}, "no model family named random_forrest"),
    ({"families": ["knn"], "exclude_families": ["knn"]}, "every classification model family"),
])
def test_an_edit_that_leaves_nothing_or_names_no_family_is_refused(tmp_path, edits, words):
    inputs, _ = prepare_inputs(tmp_path / "run", dataset="iris")
    with pytest.raises(InputError, match=words):
        apply_edits(inputs, edits)
