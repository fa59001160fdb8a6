"""The pre-validator on the corpus of real broken pipelines, and its false alarms.

    python benchmarks/prevalidation_corpus.py [--split all]

Caught: a corpus case (evals/corpus/) whose failure the static checks report before
anything runs (a module is checked with the data's columns and profile; a script with the
script checks). False positives: clean modules, i.e. the offline coder's drafts of every
planned family on every corpus table (text categories, missing values, rare classes
included), flagged by a blocking issue.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import defaultdict
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="all", choices=["dev", "heldout", "all"])
    args = parser.parse_args()

    import pandas as pd

    from pipesmith.agents.coder import Coder
    from pipesmith.agents.planner import Planner
    from pipesmith.agents.prevalidator import Prevalidator, blocking
    from pipesmith.agents.profiler import profile_table
    from pipesmith.api import prepare_inputs
    from pipesmith.evals.repair_corpus import DATA, load, write_data
    from pipesmith.logs import configure_logging
    from pipesmith.settings import Settings

    configure_logging(level="error")
    checks, coder = Prevalidator(), Coder()
    caught: dict[str, list[bool]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="pipesmith-prevalidate-") as tmp:
        root = Path(tmp)
        for case in load(None if args.split == "all" else args.split):
            folder = root / case.id
            folder.mkdir()
            frame = pd.read_csv(write_data(case, folder))
            profile = profile_table(frame, case.target, case.task)
            code = case.file.read_text()
            issues = checks.check(code, profile.table_columns, profile) \
                if case.kind == "module" else checks.check_script(code)
            hit = bool(blocking(issues))
            caught[case.family].append(hit)
            print(f"{case.id:38s} {'caught' if hit else '-':7s} "
                  f"{blocking(issues)[0].message[:90] if hit else ''}")
        flagged, clean = [], 0
        for name in DATA:
            target = {"iris": "species", "iris_rare": "species", "passengers": "survived",
                      "houses": "price", "plant": "output", "wine": "cultivar",
                      "breast_cancer": "malignant", "diabetes": "progression"}[name]
            path = root / f"{name}.csv"
            DATA[name]().to_csv(path, index=False)
            folder = root / f"clean-{name}"
            folder.mkdir()
            inputs, frame = prepare_inputs(folder, data=path, target=target,
                                           settings=Settings(max_candidates=10))
            profile = profile_table(frame, inputs.target, inputs.task_type)
            for spec in Planner().plan(inputs, profile, []).candidates:
                clean += 1
                draft = coder.draft("a1", spec, profile, inputs)
                issues = blocking(checks.check(draft.code, profile.table_columns, profile))
                if issues:
                    flagged.append(f"{name}:{spec.name}: {issues[0].message[:80]}")
    total = [hit for hits in caught.values() for hit in hits]
    print(f"\nsplit {args.split}: caught before running")
    for family, hits in sorted(caught.items()):
        print(f"  {family:10s} {sum(hits):3d}/{len(hits):3d}  {sum(hits) / len(hits):.0%}")
    print(f"  {'all':10s} {sum(total):3d}/{len(total):3d}  {sum(total) / len(total):.0%}")
    print(f"false positives on clean modules: {len(flagged)}/{clean}")
    for line in flagged:
        print("  " + line)


if __name__ == "__main__":
    main()
