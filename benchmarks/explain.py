"""What SHAP contributions and per-segment errors add to a run: the refit, timed with and
without them, in one process.

    .venv/bin/python benchmarks/explain.py [--datasets penguins wa_churn diabetes]
                                           [--families lightgbm linear] [--repeats 2]

For each suite dataset (evals/suite.py) and family (`linear`: logistic regression or
ridge, by task), the offline coder's module is refit in the real sandbox
(Executor.refit, as the report node calls it) alternately with the explanations (SHAP
asked of the job, checked outside; segments computed outside) and without (no
`contributions` in job.json, no segments). Printed per dataset and family: the refit's
wall seconds each way (median of --repeats), their difference, and the parts: the SHAP
seconds inside the job (its diagnostics note; the job's own figure, for this benchmark
only), the outside check and the segments (timed here).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from pipesmith.agents.coder.agent import Coder
from pipesmith.agents.executor import Executor
from pipesmith.agents.planner.profiler import profile_table
from pipesmith.agents.schemas import CandidateSpec
from pipesmith.core import contributions, segments
from pipesmith.core.inputs import prepare_inputs
from pipesmith.evals.suite import DATASETS, load
from pipesmith.sandbox.local import LocalSandbox
from pipesmith.settings import Settings

OUTSIDE: dict[str, float] = {}


def _timed(name: str, fn):
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            OUTSIDE[name] = OUTSIDE.get(name, 0.0) + time.perf_counter() - started
    return wrapper


@contextmanager
def explanations(on: bool):
    """The executor as it is (on), or with neither SHAP asked nor segments computed."""
    saved = (contributions.job_request, contributions.shap_contributions,
             segments.segment_errors)
    if on:
        contributions.shap_contributions = _timed("shap check", saved[1])
        segments.segment_errors = _timed("segments", saved[2])
    else:
        contributions.job_request = lambda inputs, timeout_s: None
        contributions.shap_contributions = lambda *a, **k: ([], "off")
        segments.segment_errors = lambda *a, **k: ([], "off")
    try:
        yield
    finally:
        (contributions.job_request, contributions.shap_contributions,
         segments.segment_errors) = saved


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", nargs="+", default=["penguins", "wa_churn", "diabetes"])
    parser.add_argument("--families", nargs="+", default=["lightgbm", "linear"])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    sandbox = LocalSandbox()
    print(f"{'dataset':<10} {'family':<20} {'rows':>6} {'cols':>4} {'without s':>9} "
          f"{'with s':>7} {'added s':>7} {'shap in job':>11} {'check':>6} {'segments':>8}")
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.datasets:
            spec = DATASETS[name]
            folder = Path(scratch) / name
            folder.mkdir()
            load(spec).to_csv(folder / "data.csv", index=False)
            inputs, dev = prepare_inputs(folder / "run", data=folder / "data.csv",
                                         target=spec.target, task=spec.task,
                                         metric=spec.metric,
                                         settings=Settings(n_jobs=1, kb_dir=folder / "kb"))
            profile = profile_table(dev, inputs.target, inputs.task_type)
            for family in args.families:
                if family == "linear":
                    family = "logistic_regression" if inputs.task_type == "classification" \
                        else "ridge"
                onehot = family in ("logistic_regression", "ridge")
                candidate = Coder().draft("a1", CandidateSpec(
                    name=family, family=family, encoding="onehot" if onehot else "ordinal",
                    scale=onehot), profile, inputs)
                walls: dict[bool, list[float]] = {True: [], False: []}
                inside, check, segs = [], [], []
                for i in range(args.repeats):
                    for on in (True, False) if i % 2 == 0 else (False, True):
                        OUTSIDE.clear()
                        work = folder / f"{family}-{i}-{on}"
                        with explanations(on):
                            result, scores = Executor(sandbox).refit(candidate, inputs, work,
                                                                     300)
                        assert result.ok, result.stderr[-1000:]
                        walls[on].append(result.wall_s + sum(OUTSIDE.values()))
                        if on:
                            note = json.loads((work / "diagnostics.json").read_text())
                            inside.append(float(note.get("contributions", {}).get(
                                "seconds", 0.0)))
                            check.append(OUTSIDE.get("shap check", 0.0))
                            segs.append(OUTSIDE.get("segments", 0.0))
                            assert scores["contributions"], scores["contributions_note"]
                            assert scores["segments"], scores["segments_note"]
                w, wo = statistics.median(walls[True]), statistics.median(walls[False])
                print(f"{name:<10} {family:<20} {len(dev):>6} {dev.shape[1] - 1:>4} "
                      f"{wo:>9.2f} {w:>7.2f} {w - wo:>7.2f} {statistics.median(inside):>11.3f} "
                      f"{statistics.median(check):>6.3f} {statistics.median(segs):>8.3f}",
                      flush=True)


if __name__ == "__main__":
    main()
