"""The parts of `run --mlflow-dir` that need no MLflow store: keys and values within
MLflow's limits, and an attempt's files copied without trusting its folder.
(test_export.py logs a real run to a real store.)"""

from __future__ import annotations

import os

from pipesmith.export import mlflow_tracking as tracking


def test_keys_and_values_stay_within_mlflow_limits():
    assert tracking.key("cv_neg log/loss:x") == "cv_neg_log_loss_x"
    assert tracking.key("../escape") == "_escape"  # MLflow refuses keys that normalise away
    assert len(tracking.key("k" * 400)) == tracking.KEY_CHARS
    values = tracking._params({"long": "v" * 7000, "n": 3}, "plan.")
    assert values == {"plan.long": "v" * tracking.PARAM_CHARS, "plan.n": "3"}


def test_model_params_are_the_fitted_steps_namespaced():
    spec = {"steps": [{"name": "preprocess", "params": {"remainder": "drop"}},
                      {"name": "model", "params": {"n_estimators": 100, "max_depth": None}}]}
    assert tracking.model_params(spec) == {"model.preprocess.remainder": "drop",
                                           "model.model.n_estimators": "100",
                                           "model.model.max_depth": "None"}


def test_attempt_files_are_regular_text_files_capped_and_never_followed(tmp_path, monkeypatch):
    attempts = tmp_path / "run" / "attempts"
    workdir = attempts / "a1_x"
    (workdir / "folds" / "0").mkdir(parents=True)
    (workdir / "candidate.py").write_text("print('hi')\n")
    (workdir / "folds" / "0" / "diagnostics.json").write_text("{}")
    (workdir / "oof.npz").write_bytes(b"\0" * 10)  # predictions: not an artefact
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret")
    (workdir / "leak.txt").symlink_to(secret)
    (workdir / "linked").symlink_to(tmp_path, target_is_directory=True)
    os.mkfifo(workdir / "pipe.log")  # a reader of a FIFO would block for ever
    monkeypatch.setattr(tracking, "ATTEMPT_FILE_BYTES", 1000)
    (workdir / "big.log").write_text("x" * 1001)
    into = tmp_path / "out"
    skipped = tracking.copy_attempt_files(workdir, attempts, into)
    copied = sorted(str(p.relative_to(into)) for p in into.rglob("*") if p.is_file())
    assert copied == ["candidate.py", "folds/0/diagnostics.json"]
    assert sorted(s.split(":")[0] for s in skipped) == ["big.log", "leak.txt", "pipe.log"]


def test_attempt_files_outside_the_runs_attempts_are_refused(tmp_path):
    attempts = tmp_path / "run" / "attempts"
    attempts.mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "candidate.py").write_text("x = 1\n")
    (attempts / "a1").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    for workdir in (tmp_path / "elsewhere", attempts / "a1"):
        assert tracking.copy_attempt_files(workdir, attempts, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_attempt_files_share_one_size_cap(tmp_path, monkeypatch):
    attempts = tmp_path / "attempts"
    workdir = attempts / "a1"
    workdir.mkdir(parents=True)
    for name in ("a.py", "b.py", "c.py"):
        (workdir / name).write_text("x" * 400)
    monkeypatch.setattr(tracking, "ATTEMPT_BYTES", 1000)
    skipped = tracking.copy_attempt_files(workdir, attempts, tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a.py", "b.py"]
    assert [s.split(":")[0] for s in skipped] == ["c.py"]
