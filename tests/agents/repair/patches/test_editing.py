"""Edits shared by the repair operators (agents/repair/patches/editing.py)."""

from __future__ import annotations

import ast

from pipesmith.agents.repair.patches.editing import calls_at_line, replace_nodes, with_keyword

CODE = "cv = KFold(5, random_state=0)\nscore = f1(y, p, pos_label=1)\n"


def test_with_keyword_replaces_a_keyword_the_call_passes_and_adds_one_it_does_not():
    tree = ast.parse(CODE)
    kfold, = calls_at_line(tree, 1)
    metric, = calls_at_line(tree, 2)
    edited = replace_nodes(CODE, [(kfold, with_keyword(kfold, "shuffle", "True")),
                                  (metric, with_keyword(metric, "pos_label",
                                                        ast.Constant("yes")))])
    assert edited == ("cv = KFold(5, random_state=0, shuffle=True)\n"
                      "score = f1(y, p, pos_label='yes')\n")
    # a keyword passed already is replaced where the call ends, never passed twice
    again = ast.parse(edited)
    kfold, = calls_at_line(again, 1)
    assert with_keyword(kfold, "random_state", "42") == "KFold(5, shuffle=True, random_state=42)"
