"""A name a library removed and guards with its own ImportError (scikit-learn's `load_boston`)
is an API removal the static checks report, never a traceback out of `hasattr`."""

from __future__ import annotations

import subprocess
import sys

from pipesmith.agents.prevalidator import static_checks

BOSTON = ("from sklearn.datasets import load_boston\n"
          "from sklearn.linear_model import LinearRegression\n\n"
          "X, y = load_boston(return_X_y=True)\n"
          "print(LinearRegression().fit(X, y).score(X, y))\n")


def test_static_import_of_removed_name_is_an_api_removal():
    import ast

    tree = ast.parse(BOSTON)
    issues = static_checks.check_imported_names(tree)
    assert [(i.taxonomy_class, i.subclass, i.line) for i in issues] == \
        [("api", "removed_function", 1)]
    assert "has been removed" in issues[0].message
    # the other checks resolve the same name and must not raise either
    assert static_checks.check_calls(tree) == []
    assert static_checks.check_attributes(tree) == []


def test_static_attribute_of_removed_name_is_an_api_removal():
    import ast

    tree = ast.parse("import sklearn.datasets as ds\nds.load_boston(return_X_y=True)\n")
    issues = static_checks.check_attributes(tree)
    assert [(i.subclass, i.line) for i in issues] == [("removed_function", 2)]
    assert "has been removed from scikit-learn" in issues[0].message


def test_static_import_removed_name_through_the_cli(tmp_path):
    script = tmp_path / "boston.py"
    script.write_text(BOSTON)
    done = subprocess.run([sys.executable, "-m", "pipesmith.cli", "validate", str(script)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    out = done.stdout + done.stderr
    assert "Traceback" not in out and "ImportError" not in out
    assert "boston.py:1: error api.removed_function: cannot import name 'load_boston'" in out


def test_static_import_removed_name_repair_cli_reports_it(tmp_path):
    script = tmp_path / "boston.py"
    script.write_text(BOSTON)
    done = subprocess.run([sys.executable, "-m", "pipesmith.cli", "repair", str(script),
                           "--no-kb", "--rounds", "1", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    out = done.stdout + done.stderr
    assert done.returncode == 1 and "Traceback" not in out, out
    assert "api.removed_function" in out
