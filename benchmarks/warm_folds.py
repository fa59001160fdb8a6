"""Per-job overhead of a candidate's fold fits: warm workers (a fork of the fold's worker)
against fresh fold jobs (an interpreter per fold), measured in the same run.

A DummyClassifier candidate (no fit to speak of) is cross-validated REPEATS times each way
on the same folds; what a candidate run takes is then nearly all overhead: starting the
job (or forking), loading the fold, returning and scoring the predictions. The warm
workers' one-off start is reported apart.

    python benchmarks/warm_folds.py [--dataset wine] [--folds 5] [--repeats 7]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from pipesmith.agents.executor import Executor
from pipesmith.agents.schemas import Candidate
from pipesmith.core.inputs import prepare_inputs
from pipesmith.sandbox.local import LocalSandbox
from pipesmith.settings import Settings

DUMMY = ("from sklearn.dummy import DummyClassifier\n\n\n"
         "def build_pipeline(task):\n    return DummyClassifier()\n")


def p95(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, round(0.95 * (len(values) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="wine")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="warm-bench-"))
    inputs, _ = prepare_inputs(folder, dataset=args.dataset,
                               settings=Settings(n_jobs=2, kb_dir=folder / "kb"))
    inputs = inputs.model_copy(update={"cv_folds": args.folds, "out_dir": str(folder)})
    sandbox = LocalSandbox()
    walls: dict[str, list[float]] = {"fold jobs": [], "warm workers": []}
    warm = Executor(sandbox, warm=True)
    started = time.perf_counter()
    warm.run(Candidate(id="w0", name="dummy", phase="draft", code=DUMMY), inputs,
             folder / "w0", 60)  # starts the workers
    first = time.perf_counter() - started
    try:
        for i in range(args.repeats):  # interleaved, so load changes hit both alike
            for name, executor in (("fold jobs", Executor(sandbox)), ("warm workers", warm)):
                candidate = Candidate(id=f"{name[0]}{i + 1}", name="dummy", phase="draft",
                                      code=DUMMY)
                began = time.perf_counter()
                result, _ = executor.run(candidate, inputs, folder / candidate.id, 60)
                assert result.ok, result.stderr[-500:]
                walls[name].append(time.perf_counter() - began)
    finally:
        warm.close()
    k = args.folds
    print(f"{args.dataset}, {k} folds, {args.repeats} candidates each way, 2 at a time")
    print(f"warm workers' start (once per run, with the first candidate): {first:.2f} s")
    for name, values in walls.items():
        print(f"{name:13s} per candidate: median {statistics.median(values):.3f} s, "
              f"p95 {p95(values):.3f} s; per fold job: median "
              f"{statistics.median(values) / k * 1000:.0f} ms")
    ratio = statistics.median(walls["fold jobs"]) / statistics.median(walls["warm workers"])
    print(f"fold jobs / warm workers (median per candidate): {ratio:.1f}x")


if __name__ == "__main__":
    main()
