"""The pre-validator: faults caught before the full run, false alarms, resource prediction.

    python benchmarks/prevalidation.py [--datasets iris,wine,...] [--seeds 2]

Part 1 injects each fault operator that a check could see (syntax, imports, removed or
renamed keywords and values, removed attributes, wrong columns, NaN into estimators that
reject it, a bad contract) into a draft for each bundled dataset, and counts how many are
caught by the static checks, how many more by a smoke run on a 300-row sample, and how
many reach the full run. A fault that nothing caught is run in full to tell a miss from a
silent fault (one that does not fail at all). Clean drafts of every family give the
false-positive count. Part 2 predicts each clean draft's peak memory and wall time, runs
it with limits from the bound, and compares: median absolute percentage error, the share
of runs above the bound, and the memory limit against a fixed 4 GB default. The margins
are learnt as the runs accumulate, as the knowledge base would learn them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
from pathlib import Path

DATASETS = ("iris", "wine", "breast_cancer", "digits", "diabetes")
STATIC_OPERATORS = (
    "syntax_missing_colon", "syntax_unclosed_paren", "misspelled_module",
    "uninstalled_package", "removed_class", "renamed_keyword", "removed_keyword",
    "outdated_parameter_value", "misspelled_strategy", "numpy_alias", "misspelled_column",
    "phantom_column", "log_of_negative", "too_many_components", "missing_build_pipeline",
    "tuple_return",
)
FIXED_LIMIT_MB = 4096


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args()

    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.coder.faults import BY_NAME, FaultContext
    from pipesmith.agents.executor import Executor
    from pipesmith.agents.planner.agent import Planner
    from pipesmith.agents.planner.profiler import profile_table
    from pipesmith.agents.prevalidator.agent import Prevalidator, blocking
    from pipesmith.agents.prevalidator.resources import predict
    from pipesmith.core.inputs import prepare_inputs
    from pipesmith.logs import configure_logging
    from pipesmith.sandbox.local import LocalSandbox
    from pipesmith.settings import Settings

    configure_logging(level="error")
    root = Path(tempfile.mkdtemp(prefix="pipesmith-prevalidation-"))
    sandbox = LocalSandbox()
    executor, checks, coder = Executor(sandbox), Prevalidator(), Coder()
    counts = {"static": 0, "smoke": 0, "smoke_if_large": 0, "full_failed": 0, "silent": 0}
    by_operator: dict[str, list[str]] = {}
    false_positives = clean = 0
    history: list[dict] = []
    resource_rows = []
    for dataset in args.datasets.split(","):
        folder = root / dataset
        folder.mkdir()
        inputs, frame = prepare_inputs(folder, dataset=dataset,
                                       settings=Settings(max_candidates=10))
        profile = profile_table(frame, inputs.target, inputs.task_type)
        columns = list(frame.columns)
        specs = Planner().plan(inputs, profile, []).candidates
        ctx = FaultContext([c.name for c in profile.columns], inputs.task_type, False)
        # Part 1: injected faults.
        for name in STATIC_OPERATORS:
            operator = BY_NAME[name]
            for spec in specs:  # the first family the operator applies to
                base = coder.draft("a1", spec, profile, inputs)
                code = operator.mutate(base.code, random.Random(0), ctx)
                if code is not None:
                    break
            else:
                continue
            candidate = base.model_copy(update={"code": code})
            if blocking(checks.check(code, columns, profile)):
                verdict = "static"
            else:
                smoke, _ = executor.smoke(candidate, inputs, folder / f"{name}-smoke")
                if not smoke.ok:
                    verdict = "smoke" if profile.n_rows > 2 * inputs.smoke_rows \
                        else "smoke_if_large"
                else:
                    full, _ = executor.run(candidate, inputs, folder / f"{name}-full", 60)
                    verdict = "silent" if full.ok else "full_failed"
            counts[verdict] += 1
            by_operator.setdefault(name, []).append(f"{dataset}:{verdict}")
        # False positives and part 2: clean drafts.
        for seed in range(args.seeds):
            seeded = inputs.model_copy(update={"seed": seed})
            for spec in specs:
                candidate = coder.draft("a1", spec, profile, seeded)
                clean += 1
                issues = blocking(checks.check(candidate.code, columns, profile))
                work = folder / f"clean-{seed}-{spec.name}"
                smoke = None
                if profile.n_rows > 2 * inputs.smoke_rows:
                    result, _ = executor.smoke(candidate, seeded, work / "smoke")
                    if not result.ok:
                        issues.append(result.status)
                    smoke = {"peak_mem_mb": result.peak_mem_mb, "wall_s": result.wall_s}
                false_positives += bool(issues)
                p = predict(profile, spec, seeded.cv_folds, smoke, seeded.smoke_rows, history)
                limit = int(min(FIXED_LIMIT_MB, max(512, p.mem_bound_mb)))
                result, _ = executor.run(candidate, seeded, work, 120, memory_mb=limit)
                if not result.ok:
                    print(f"  clean run failed: {dataset} {spec.name} {result.status}")
                    continue
                history.append({"predicted_mem_mb": p.peak_mem_mb,
                                "measured_mem_mb": result.peak_mem_mb,
                                "predicted_wall_s": p.wall_s, "measured_wall_s": result.wall_s})
                resource_rows.append((p, limit, result))
        print(f"  {dataset}: done", flush=True)

    faults = sum(counts.values()) - counts["silent"]
    before = counts["static"] + counts["smoke"]
    print("\nPart 1: injected faults (one draft per operator and dataset)")
    print(f"  faults that fail: {faults} (+{counts['silent']} silent, they never fail)")
    print(f"  caught statically           {counts['static']:4d}  "
          f"{counts['static'] / faults:.1%}")
    print(f"  caught by the smoke run     {counts['smoke']:4d}  ({counts['smoke_if_large']} "
          "more would be on data over 600 rows; the graph runs no smoke below that)")
    print(f"  reached the full run        {counts['full_failed'] + counts['smoke_if_large']:4d}")
    print(f"  caught before the full run  {before / faults:.1%}  "
          f"(counting smoke runs on small data too: "
          f"{(before + counts['smoke_if_large']) / faults:.1%})")
    print(f"  false positives on clean drafts: {false_positives} of {clean}")
    for name, verdicts in sorted(by_operator.items()):
        print(f"    {name:26} {' '.join(verdicts)}")

    print("\nPart 2: resource prediction on clean drafts")
    mem_err = [abs(p.peak_mem_mb - r.peak_mem_mb) / r.peak_mem_mb for p, _, r in resource_rows]
    wall_err = [abs(p.wall_s - r.wall_s) / r.wall_s for p, _, r in resource_rows]
    over_mem = sum(r.peak_mem_mb > p.mem_bound_mb for p, _, r in resource_rows)
    over_wall = sum(r.wall_s > p.wall_bound_s for p, _, r in resource_rows)
    ooms = sum(r.status == "oom" for _, _, r in resource_rows)
    limits = [limit for _, limit, _ in resource_rows]
    n = len(resource_rows)
    print(f"  runs: {n}")
    print(f"  peak memory MAPE (median)   {statistics.median(mem_err):.1%}")
    print(f"  wall time MAPE (median)     {statistics.median(wall_err):.1%}")
    print(f"  above the memory bound      {over_mem}/{n} ({over_mem / n:.1%}); "
          f"out-of-memory kills: {ooms}")
    print(f"  above the wall-time bound   {over_wall}/{n} ({over_wall / n:.1%})")
    print(f"  memory limit vs fixed {FIXED_LIMIT_MB} MB: mean {statistics.mean(limits):.0f} MB "
          f"({statistics.mean(limits) / FIXED_LIMIT_MB - 1:+.1%}); "
          f"mean measured peak {statistics.mean(r.peak_mem_mb for *_, r in resource_rows):.0f} MB")
    print("\ntargets: caught before the full run >= 90%, false positives 0, memory MAPE <= 25%,"
          " <= 5% above the bound with no OOM kill, over-provisioning -50% or better")


if __name__ == "__main__":
    main()
