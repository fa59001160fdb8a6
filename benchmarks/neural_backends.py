"""Neural backends against scikit-learn: validation score, wall time and peak memory.

    python benchmarks/neural_backends.py [--datasets breast_cancer,wine,diabetes] [--seed 0]

For each dataset, every scikit-learn candidate the offline planner proposes (its default
four) and the first PyTorch and Keras candidate run through the real sandbox and harness
on the same split, without the cross-validation folds; the table puts each neural backend
beside the best scikit-learn candidate, with the ratios of their wall times and peaks
(measured in the same run). Wall time is the whole sandboxed process: interpreter start,
library imports, fit, predict and scoring.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

DATASETS = ("breast_cancer", "wine", "diabetes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from pipesmith.agents.coder.agent import Coder
    from pipesmith.agents.executor import Executor
    from pipesmith.agents.families.backends import available
    from pipesmith.agents.planner.agent import Planner
    from pipesmith.agents.planner.profiler import profile_table
    from pipesmith.core.inputs import prepare_inputs
    from pipesmith.logs import configure_logging
    from pipesmith.sandbox.local import LocalSandbox
    from pipesmith.settings import Settings

    configure_logging(level="error")
    root = Path(tempfile.mkdtemp(prefix="pipesmith-neural-"))
    executor, coder = Executor(LocalSandbox()), Coder()
    backends = [b for b in ("torch", "tensorflow") if available(b)]
    print(f"backends installed: sklearn, {', '.join(backends) or 'no neural one'}")
    header = ("| dataset | metric | candidate | score | wall s | peak MB | wall x | peak x |\n"
              "|---|---|---|---|---|---|---|---|")
    rows = []
    for dataset in args.datasets.split(","):
        folder = root / dataset
        inputs, frame = prepare_inputs(folder, dataset=dataset, seed=args.seed,
                                       settings=Settings(n_jobs=2, kb_dir=root / "kb"))
        inputs = inputs.model_copy(update={"cv_folds": 0})
        profile = profile_table(frame, inputs.target, inputs.task_type)
        results = {}
        for backend in ("sklearn", *backends):
            planned = inputs.model_copy(update={"backend": backend})
            specs = Planner().plan(planned, profile, []).candidates
            for spec in specs if backend == "sklearn" else specs[:1]:
                candidate = coder.draft(f"{backend}-{spec.name}", spec, profile, planned)
                result, metrics = executor.run(candidate, planned, folder / candidate.id, 600)
                if not result.ok:
                    print(f"{dataset} {spec.name}: {result.status}\n{result.stderr[-800:]}")
                    continue
                results.setdefault(backend, []).append(
                    (spec.name, metrics["score"], result.wall_s, result.peak_mem_mb))
            print(f"{dataset}: {backend} done", flush=True)
        best = max(results.get("sklearn", []), key=lambda r: r[1], default=None)
        for backend in ("sklearn", *backends):
            if backend not in results:
                continue
            name, score, wall, peak = best if backend == "sklearn" else results[backend][0]
            ratios = (f"{wall / best[2]:.1f} | {peak / best[3]:.1f}" if best and
                      backend != "sklearn" else "1.0 | 1.0")
            label = f"{name} (best of {len(results['sklearn'])})" if backend == "sklearn" \
                else name
            rows.append(f"| {dataset} | {inputs.metric} | {label} | {score:.4f} | {wall:.1f} | "
                        f"{peak:.0f} | {ratios} |")
    print(header)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
