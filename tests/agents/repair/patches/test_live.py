"""What the installed libraries say, read for the repairs: callables, docstring renames,
documented attributes, input tags, declared constraints."""

from __future__ import annotations

import ast

from pipesmith.agents.repair.patches import live


def test_a_call_resolves_to_the_installed_callable_including_methods_of_built_objects():
    tree = ast.parse("import pandas as pd\nfrom sklearn.svm import SVC as S\n"
                     "df = pd.DataFrame()\nm = S()\nm.fit(1)\ndf.sort_values('a')\n")
    calls = {ast.unparse(c.func): live.call_target(tree, c)
             for c in ast.walk(tree) if isinstance(c, ast.Call)}
    import pandas as pd
    from sklearn.svm import SVC

    assert calls["m.fit"] is SVC.fit and calls["df.sort_values"] is pd.DataFrame.sort_values
    assert live.qualified(tree, "DataFrame.sort_values") is pd.DataFrame.sort_values
    assert live.qualified(tree, "SVC.__init__") is SVC


def test_a_local_module_is_never_imported():
    tree = ast.parse("import my_local_helpers as h\n")
    assert live.dotted(tree, "h.train") is None


def test_renames_are_read_from_docstrings_on_two_libraries():
    from sklearn.manifold import TSNE

    # "Parameter name changed from `n_iter` to `max_iter`" (scikit-learn 1.5)
    assert live.docstring_successor(TSNE, "n_iter") == "max_iter"

    def load(path, sep=","):
        """Read a table.

        .. deprecated:: 2.0
            `delimiter` was renamed to `sep`.
        """

    assert live.docstring_successor(load, "delimiter") == "sep"
    assert live.docstring_successor(load, "header") is None


def test_fitted_attributes_come_from_the_class_docstring():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression

    assert "coef_" in live.member_names(LogisticRegression)
    assert "feature_importances_" in live.member_names(RandomForestClassifier)


def test_input_tags_and_declared_options():
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    assert live.input_tags(LogisticRegression) == {"allow_nan": False, "text": False,
                                                   "one_d": False, "two_d": True}
    assert live.input_tags(HistGradientBoostingClassifier)["allow_nan"] is True
    assert live.input_tags(int) is None
    solvers = live.option_values(LogisticRegression, "solver")
    assert solvers[0] == "lbfgs" and "liblinear" in solvers  # the default first
