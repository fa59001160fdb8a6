"""The wild corpus as collected: each case fails, each reference fix reaches its floor.

    python benchmarks/wild_corpus.py [--split wild|wild2|wild3|wild4|wild5] [--workers N]
                                     [--timeout 240] [--ids a,b]

Every case of the `wild` split (evals/corpus/WILD.md; `wild2`: WILD2.md; `wild3`: WILD3.md;
`wild4`: WILD4.md; `wild5`: WILD5.md) and its reference fix
(evals/corpus/<split>_reference/<id>.py) run as plain subprocesses on the case's generated
data. A case must fail as collected (exit status, or a score under its floor for a silent
failure) with the error its thread describes
(<split>_reference/expected_errors.csv); its reference must run and reach the floor. Prints
one line per problem and the counts; exit 1 when any. Cases whose library is not installed are
left out, and counted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pipesmith.evals import repair_corpus
from pipesmith.evals.repair_corpus import WILD_SPLITS, expected_errors, reference, runnable


def run_script(script: Path, case, workdir: Path, timeout_s: float):
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


def problems_of(cases, results, errors) -> list[str]:
    problems = []
    for (case, path), (code, output, score) in zip(cases, results, strict=True):
        if path == case.file:  # as collected: fails with the thread's error, or under the floor
            failed = code != 0 or score is None or score < case.floor
            if not failed or errors[case.id] not in output:
                problems.append(f"{case.id}: broken script did not fail with "
                                f"{errors[case.id]!r} (exit {code}, score {score})")
        elif code != 0 or score is None or score < case.floor:
            problems.append(f"{case.id}: reference exit {code}, score {score} < floor "
                            f"{case.floor}: {output[-300:]}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="wild", choices=WILD_SPLITS)
    parser.add_argument("--workers", type=int, default=max(2, min(8, os.cpu_count() or 2)))
    parser.add_argument("--timeout", type=float, default=240.0)
    parser.add_argument("--ids", default="")
    args = parser.parse_args()
    wanted = set(filter(None, args.ids.split(",")))
    every = [c for c in repair_corpus.load(args.split) if not wanted or c.id in wanted]
    cases = [c for c in every if runnable(c)]
    jobs = [(c, path) for c in cases for path in (c.file, reference(args.split) / f"{c.id}.py")]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch, ThreadPoolExecutor(args.workers) as pool:
        results = list(pool.map(
            lambda job: run_script(job[1], job[0], Path(scratch), args.timeout), jobs))
    problems = problems_of(jobs, results, expected_errors(args.split))
    for line in problems:
        print(line)  # noqa: T201
    print(f"{len(cases)} cases checked ({len(every) - len(cases)} left out: library not "  # noqa: T201
          f"installed), {len(problems)} problems, {time.perf_counter() - started:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
