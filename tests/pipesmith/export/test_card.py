"""The model card's words and the pipeline's header: cut at words, and true to the code."""

from __future__ import annotations

from pipesmith.core.pipeline_imports import imported_libraries, needs_sentence
from pipesmith.export.card import clip

WARNING = ("ConvergenceWarning: lbfgs failed to converge (status=1):\nSTOP: TOTAL NO. OF "
           "ITERATIONS REACHED LIMIT.\n\nIncrease the number of iterations (max_iter) or scale "
           "the data as shown in:\n    https://scikit-learn.org/stable/modules/preprocessing."
           "html\nPlease also refer to the documentati")  # as a run stores it: cut mid-word


def test_a_long_warning_ends_at_a_whole_word():
    shown = clip(WARNING)
    assert shown.endswith(" …") and len(shown) <= 162
    assert shown.removesuffix(" …").split()[-1] in WARNING.split()
    assert "documentati" not in shown
    assert clip("short warning") == "short warning"


def test_the_header_names_pipesmith_when_the_pipeline_imports_it():
    code = ("from __future__ import annotations\nimport json\nimport pandas as pd\n"
            "from sklearn.pipeline import make_pipeline\n"
            "from pipesmith.estimators import DateFeatures\n")
    assert imported_libraries(code) == ["pandas", "pipesmith", "scikit-learn"]
    assert "pipesmith must be installed" in needs_sentence(code)
    plain = "from sklearn.linear_model import Ridge\n"
    assert needs_sentence(plain) == "It imports scikit-learn."
