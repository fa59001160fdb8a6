"""Repairs that must not silently change what a script does (#25): a keyword is renamed only
where the library says what it became, a dropped keyword makes the repair partial, and a
script's run gets the files it reads, not its whole folder."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from pipesmith.agents.executor import copy_read_files, read_files

pytestmark = pytest.mark.slow


def _repair(script, out):
    return subprocess.run([sys.executable, "-m", "pipesmith.cli", "repair", str(script),
                           "--no-kb", "--rounds", "2", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)


def test_dropped_keyword_makes_the_repair_partial(tmp_path):
    pytest.importorskip("lightgbm")
    script = tmp_path / "early.py"
    script.write_text(
        "from lightgbm import LGBMClassifier\n"
        "from sklearn.datasets import make_classification\n"
        "from sklearn.model_selection import train_test_split\n\n"
        "X, y = make_classification(n_samples=400, random_state=0)\n"
        "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)\n"
        "model = LGBMClassifier(n_estimators=50, verbose=-1)\n"
        "model.fit(X_tr, y_tr, eval_set=[(X_va, y_va)], silent=True)\n"
        "print(model.score(X_va, y_va))\n")
    done = _repair(script, tmp_path / "out")
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    # LightGBM 4 took `silent` out of fit() and no callback or constructor parameter takes
    # it (early_stopping_rounds moves to a callback instead: test_boosting_repairs.py):
    # it runs now, but without what the keyword did: not a repair, and said so
    assert report["final_success"] and report["status"] == "partial"
    assert done.returncode == 1 and "partial after" in done.stdout
    assert report["notes"][0].startswith("dropped keyword silent from fit()")
    assert report["attempts"][-1]["repair_notes"] == report["notes"]
    assert "dropped keyword silent" in " ".join(done.stderr.split())


def test_removed_keyword_with_a_documented_successor_is_a_full_repair(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    rng = np.random.default_rng(0)
    rows = [f"{a:.3f}   {b:.3f}  {int(a + b > 0)}" for a, b in rng.normal(size=(60, 2))]
    (data / "points.txt").write_text("x  y   label\n" + "\n".join(rows) + "\n")
    script = tmp_path / "spaces.py"
    script.write_text(
        "import pandas as pd\n"
        "from sklearn.linear_model import LogisticRegression\n\n"
        "df = pd.read_csv('data/points.txt', delim_whitespace=True)\n"
        "assert list(df.columns) == ['x', 'y', 'label'], df.columns\n"
        "print(LogisticRegression().fit(df[['x', 'y']], df['label']).score(\n"
        "    df[['x', 'y']], df['label']))\n")
    done = _repair(script, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["status"] == "repaired" and report["notes"] == []
    fixed = (tmp_path / "out" / "spaces.py").read_text()
    assert "sep=r'\\s+'" in fixed and "delim_whitespace" not in fixed


def test_a_script_run_gets_only_the_files_it_names(tmp_path):
    project, work = tmp_path / "project", tmp_path / "work"
    (project / "data").mkdir(parents=True)
    (project / "data" / "x.csv").write_text("a\n1\n")
    (project / "labels.csv").write_text("y\n0\n")
    (project / "unrelated.bin").write_bytes(b"0" * 4096)
    (project / "other").mkdir()
    (project / "other" / "big.bin").write_bytes(b"0" * 4096)
    script = project / "train.py"
    script.write_text("import pandas as pd\nX = pd.read_csv('data/x.csv')\n"
                      "y = pd.read_csv('labels.csv')\nprint('../secret', '/etc/passwd')\n")
    code = script.read_text()
    assert [p.name for p in read_files(code, project)] == ["x.csv", "labels.csv"]
    work.mkdir()
    assert copy_read_files(script, code, work) == []
    copied = sorted(str(p.relative_to(work)) for p in work.rglob("*") if p.is_file())
    assert copied == ["data/x.csv", "labels.csv"]


def test_a_script_run_copies_no_more_than_the_cap(tmp_path, monkeypatch):
    import pipesmith.agents.executor as executor

    monkeypatch.setattr(executor, "COPY_LIMIT_BYTES", 100)
    (tmp_path / "small.csv").write_text("a\n1\n")
    (tmp_path / "huge.csv").write_text("a\n" + "1\n" * 200)
    script = tmp_path / "train.py"
    script.write_text("open('huge.csv'); open('small.csv')\n")
    work = tmp_path / "work"
    work.mkdir()
    assert copy_read_files(script, script.read_text(), work) == ["huge.csv"]
    assert sorted(p.name for p in work.iterdir()) == ["small.csv"]
