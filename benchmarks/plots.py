"""What the report's plots add to a run: draw_plots on finished runs, timed.

    .venv/bin/python benchmarks/plots.py RUN_DIR [RUN_DIR ...] [--repeats 5] [--preload]

For each run folder: the refit's test predictions are read and checked as the executor
does (refit/predictions.npz, the test labels in referee/test.parquet), then the run's
plots are drawn into a scratch folder (draw_plots, as the report node calls it). Printed:
the first draw in this process (it imports matplotlib, as a run's first report does) and
the median of --repeats later draws, wall and CPU seconds, and each PNG's size. A run has
numpy, pandas and scikit-learn imported before its report: they are imported first here
too, outside the timing. --preload: matplotlib preloaded first (plots.preload, joined), as
the report node does while the refit job runs.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import pandas as pd
import sklearn.metrics  # noqa: F401  (a run has it before the report)

from pipesmith.agents.executor import held_out, n_classes
from pipesmith.core import referee
from pipesmith.core.plots import draw_plots, preload
from pipesmith.core.report import load_report


def held_out_of(run_dir: Path, report):
    """The checked test predictions, as the executor hands them to the report node."""
    dev = pd.read_parquet(run_dir / "development.parquet")
    test = pd.read_parquet(run_dir / "referee" / "test.parquet")
    y_dev = dev[report.target] if report.task_type == "classification" else None
    returned = referee.load_returned(run_dir / "refit", len(test), n_classes(y_dev))
    checked = referee.check_predictions(returned, len(test), report.task_type, report.metric,
                                        y_train=y_dev)
    inputs = type("Inputs", (), {"task_type": report.task_type, "target": report.target})
    return held_out(inputs, test, checked)


def timed(run_dir: Path, report, held) -> tuple[float, float, list]:
    with tempfile.TemporaryDirectory() as scratch:
        wall, cpu = time.perf_counter(), time.process_time()
        plots, warnings = draw_plots(Path(scratch), report, held)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert not warnings, warnings
        sizes = [(p.file, (Path(scratch) / p.file).stat().st_size // 1024) for p in plots]
    return wall, cpu, sizes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--preload", action="store_true")
    args = parser.parse_args()
    if args.preload:
        preload().join()
    for n, run_dir in enumerate(args.runs):
        report = load_report(run_dir / "report.json")
        held = held_out_of(run_dir, report)
        first_wall, first_cpu, sizes = timed(run_dir, report, held)
        later = [timed(run_dir, report, held)[:2] for _ in range(args.repeats)]
        cold = n == 0 and not args.preload
        print(f"{run_dir.name} ({report.task_type}, {len(sizes)} plots): "
              f"{'first draw, matplotlib imported' if cold else 'first draw'} "
              f"{first_wall:.2f}s wall / {first_cpu:.2f}s CPU; median of {args.repeats} "
              f"{statistics.median(w for w, _ in later):.2f}s wall / "
              f"{statistics.median(c for _, c in later):.2f}s CPU; "
              + ", ".join(f"{name} {kb} KiB" for name, kb in sizes))


if __name__ == "__main__":
    main()
