"""The `wild` split of the corpus: breakages collected from public threads, measured once.

Each wild case must fail as collected (on the installed libraries, with the error its thread
describes, or - for a silent failure - with a score under its floor), and its reference fix
(evals/corpus/wild_reference/<id>.py) must run and reach the floor. Both are real runs of
the scripts as plain subprocesses on the case's generated data.
"""

from __future__ import annotations

import csv
import importlib.util
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pipesmith.evals import repair_corpus

REFERENCE = repair_corpus.ROOT / "wild_reference"
BENCHMARK = Path(__file__).parents[2] / "benchmarks" / "repair_corpus.py"
NEEDS = {"torch_": "torch", "keras_": "keras", "xgb_": "xgboost", "lgb_": "lightgbm",
         "catboost_": "catboost"}


def expected_errors() -> dict[str, str]:
    with (REFERENCE / "expected_errors.csv").open() as handle:
        return {row["id"]: row["error"] for row in csv.DictReader(handle)}


def runnable(case) -> bool:
    need = next((lib for prefix, lib in NEEDS.items() if case.id.startswith(prefix)), None)
    return need is None or importlib.util.find_spec(need) is not None


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


def _run(script: Path, case, workdir: Path, timeout_s: float) -> tuple[int, str, float | None]:
    folder = workdir / f"{case.id}-{script.parent.name}"
    folder.mkdir()
    repair_corpus.write_data(case, folder)
    (folder / "script.py").write_text(script.read_text())
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    try:
        done = subprocess.run([sys.executable, "script.py"], cwd=folder, env=env, text=True,
                              capture_output=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return -1, "timeout", None
    return done.returncode, done.stdout + done.stderr, repair_corpus.parse_score(done.stdout)


@pytest.mark.slow
def test_every_wild_case_fails_as_collected_and_its_reference_reaches_the_floor(tmp_path):
    cases = [c for c in repair_corpus.load("wild") if runnable(c)]
    errors = expected_errors()
    timeout_s = float(os.environ.get("PIPESMITH_WILD_TIMEOUT", "240"))
    jobs = [(c, path) for c in cases for path in (c.file, REFERENCE / f"{c.id}.py")]
    workers = int(os.environ.get("PIPESMITH_WILD_WORKERS", max(2, min(8, os.cpu_count() or 2))))
    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(lambda job: _run(job[1], job[0], tmp_path, timeout_s), jobs))
    problems = []
    for (case, path), (code, output, score) in zip(jobs, results, strict=True):
        if path == case.file:  # as collected: fails with the thread's error, or under the floor
            failed = code != 0 or score is None or score < case.floor
            if not failed or errors[case.id] not in output:
                problems.append(f"{case.id}: broken script did not fail with "
                                f"{errors[case.id]!r} (exit {code}, score {score})")
        elif code != 0 or score is None or score < case.floor:
            problems.append(f"{case.id}: reference exit {code}, score {score} < floor "
                            f"{case.floor}: {output[-300:]}")
    assert not problems, "\n".join(problems)
