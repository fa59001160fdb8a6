"""The pre-validator on the corpus of real broken pipelines, and its false alarms.

    python benchmarks/prevalidation_corpus.py [--split dev|heldout|all] [--clean-only]
        [--smoke ROWS]

Caught: a corpus case (evals/corpus/) whose failure the static checks report before
anything runs. Every case is checked with the columns and profile of the table it reads
(a module with the module checks, a script with the script checks). False positives: clean
code flagged by a blocking issue, on two sets: the offline coder's drafts of every planned
family of every backend (scikit-learn, boosters, torch, Keras) on every corpus table (text
categories, missing values, rare classes included), and the hand-written working scripts
and modules of evals/corpus/clean/ (each checked against the table it names). Prints the
pre-validator's time per checked module.

`--smoke ROWS` adds the smoke run (graph/nodes.py: prevalidate) on a sample of ROWS rows for
the corpus modules the static checks let through, in the real sandbox: a smoke failure counts
as caught (a run would only smoke these tables from 2 x smoke_rows = 600 rows, which none of
them has); a smoke score below the dummy baseline on the sample is printed, not counted.
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
from collections import defaultdict
from pathlib import Path

TARGETS = {"iris": "species", "iris_rare": "species", "passengers": "survived",
           "houses": "price", "plant": "output", "wine": "cultivar",
           "breast_cancer": "malignant", "diabetes": "progression"}
BACKENDS = ("sklearn", "torch", "tensorflow")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="all", choices=["dev", "heldout", "all"])
    parser.add_argument("--clean-only", action="store_true", help="only the false-alarm sets")
    parser.add_argument("--smoke", type=int, default=0, metavar="ROWS",
                        help="smoke-run the modules the static checks pass, on ROWS rows")
    args = parser.parse_args()

    import pandas as pd

    from pipesmith.agents.planner.profiler import profile_table
    from pipesmith.agents.prevalidator.agent import Prevalidator, blocking
    from pipesmith.evals.repair_corpus import DATA, ROOT, load, write_data
    from pipesmith.logs import configure_logging

    configure_logging(level="error")
    checks = Prevalidator()
    caught: dict[str, list[bool]] = defaultdict(list)
    timings: list[float] = []

    def timed(function, *arguments):
        started = time.perf_counter()
        result = function(*arguments)
        timings.append(time.perf_counter() - started)
        return result

    with tempfile.TemporaryDirectory(prefix="pipesmith-prevalidate-") as tmp:
        root = Path(tmp)
        profiles = {}
        for name in DATA:
            frame = DATA[name]()
            profiles[name] = profile_table(frame, TARGETS[name], "classification"
                                           if name not in ("houses", "plant", "diabetes")
                                           else "regression")
        for case in ([] if args.clean_only else
                     load(None if args.split == "all" else args.split)):
            folder = root / case.id
            folder.mkdir()
            frame = pd.read_csv(write_data(case, folder))
            profile = profile_table(frame, case.target, case.task)
            check = checks.check if case.kind == "module" else checks.check_script
            issues = blocking(timed(check, case.file.read_text(), profile.table_columns,
                                    profile))
            note = issues[0].message[:90] if issues else ""
            smoked = ""
            if not issues and args.smoke and case.kind == "module":
                failed, note = _smoke(case, folder, args.smoke)
                smoked = " smoke" if failed else ""
                issues = [note] if failed else []
            caught[case.family].append(bool(issues))
            print(f"{case.id:38s} {'caught' + smoked if issues else '-':13s} {note}")
        flagged, clean = [], 0
        for kind, name, label, code in _drafts(root, profiles) + _hand_written(ROOT):
            clean += 1
            profile = profiles[name]
            check = checks.check if kind == "module" else checks.check_script
            issues = blocking(timed(check, code, profile.table_columns, profile))
            if issues:
                flagged.append(f"{label}: line {issues[0].line}: {issues[0].message[:80]}")
    total = [hit for hits in caught.values() for hit in hits]
    if total:
        print(f"\nsplit {args.split}: caught before running")
        for family, hits in sorted(caught.items()):
            print(f"  {family:10s} {sum(hits):3d}/{len(hits):3d}  {sum(hits) / len(hits):.0%}")
        print(f"  {'all':10s} {sum(total):3d}/{len(total):3d}  {sum(total) / len(total):.0%}")
    print(f"false positives on clean code: {len(flagged)}/{clean}")
    for line in flagged:
        print("  " + line)
    timings.sort()
    print(f"pre-validator time per module: mean {sum(timings) / len(timings) * 1000:.0f} ms, "
          f"median {timings[len(timings) // 2] * 1000:.0f} ms, max {timings[-1] * 1000:.0f} ms "
          f"({len(timings)} modules; the first pays the libraries' imports)")


def _smoke(case, folder: Path, rows: int) -> tuple[bool, str]:
    """The executor's smoke run of a corpus module on `rows` rows, in the sandbox."""
    from pipesmith.agents.executor import Executor
    from pipesmith.agents.schemas import Candidate
    from pipesmith.core.inputs import prepare_inputs
    from pipesmith.sandbox.factory import sandbox_from_settings
    from pipesmith.settings import Settings

    settings = Settings(smoke_rows=rows)
    inputs, _ = prepare_inputs(folder / "run", data=folder / "data.csv", target=case.target,
                               task=case.task, settings=settings)
    candidate = Candidate(id="a1", name=case.id, phase="draft", code=case.file.read_text())
    result, metrics = Executor(sandbox_from_settings(settings)).smoke(
        candidate, inputs, folder / "smoke")
    if not result.ok:
        return True, f"smoke: {result.status} after {result.wall_s:.1f} s"
    below = metrics and metrics["score"] < metrics["baseline_score"]
    return False, (f"smoke ok in {result.wall_s:.1f} s; score {metrics['score']:.3f} vs "
                   f"dummy {metrics['baseline_score']:.3f}{' (below)' if below else ''}"
                   if metrics else "smoke ok")


def _drafts(root: Path, profiles: dict) -> list[tuple[str, str, str, str]]:
    """The offline coder's draft of every planned family, every backend, every table."""
    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.planner.agent import Planner
    from pipesmith.core.inputs import prepare_inputs
    from pipesmith.errors import InputError
    from pipesmith.evals.repair_corpus import DATA
    from pipesmith.settings import Settings

    coder, drafts = Coder(), []
    for name in DATA:
        path = root / f"{name}.csv"
        DATA[name]().to_csv(path, index=False)
        for backend in BACKENDS:
            folder = root / f"clean-{name}-{backend}"
            try:
                inputs, _ = prepare_inputs(folder, data=path, target=TARGETS[name],
                                           settings=Settings(max_candidates=40,
                                                             backend=backend))
            except InputError:  # a class too small to split off a test part (iris_rare):
                frame = DATA[name]()  # plan without it, check against the whole table
                counts = frame[TARGETS[name]].value_counts()
                frame[frame[TARGETS[name]].isin(counts[counts > 1].index)].to_csv(
                    path.with_suffix(".split.csv"), index=False)
                inputs, _ = prepare_inputs(folder, data=path.with_suffix(".split.csv"),
                                           target=TARGETS[name],
                                           settings=Settings(max_candidates=40,
                                                             backend=backend))
            profile = profiles[name]
            for spec in Planner().plan(inputs, profile, []).candidates:
                draft = coder.draft("a1", spec, profile, inputs)
                drafts.append(("module", name, f"{name}:{backend}:{spec.name}", draft.code))
    return drafts


def _hand_written(root: Path) -> list[tuple[str, str, str, str]]:
    """evals/corpus/clean/: working code of varied style, each row naming its table."""
    manifest = root.parent / "corpus" / "clean" / "manifest.csv"
    if not manifest.exists():
        return []
    with manifest.open() as handle:
        return [(row["kind"], row["data"], f"clean/{row['id']}",
                 (manifest.parent / f"{row['id']}.py").read_text())
                for row in csv.DictReader(handle)]


if __name__ == "__main__":
    main()
