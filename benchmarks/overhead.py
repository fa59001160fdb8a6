"""Orchestration overhead of `pipesmith run` on breast_cancer.

Prints the share of wall time spent outside sandboxed candidate execution, for
the in-process API (graph, checkpoints, knowledge base, report) and for the CLI
as a user runs it (adding interpreter start-up and imports). The baseline,
measured in the same run, is the same candidates run straight through the
sandbox with no graph around them.

    python benchmarks/overhead.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dataset", default="breast_cancer")
    args = parser.parse_args()

    from pipesmith import run
    from pipesmith.agents.executor import Executor
    from pipesmith.agents.schemas import Candidate
    from pipesmith.logs import configure_logging
    from pipesmith.sandbox.local import LocalSandbox
    from pipesmith.settings import Settings

    configure_logging(level="error")
    root = Path(tempfile.mkdtemp(prefix="pipesmith-bench-"))
    settings = Settings(kb_dir=root / "kb", runs_dir=root / "runs")
    api_rows, cli_rows, direct_rows = [], [], []
    for i in range(args.repeats):
        started = time.perf_counter()
        report = run(dataset=args.dataset, budget_s=120, out=root / f"api{i}", settings=settings)
        wall = time.perf_counter() - started
        api_rows.append((wall, report.sandbox_s + report.smoke_s))

        # Baseline: the same candidate files, straight through the sandbox, no graph.
        executor = Executor(LocalSandbox())
        inputs = report_inputs(root / f"api{i}")
        started = time.perf_counter()
        for attempt in report.attempts:
            code = (Path(attempt.workdir) / "candidate.py").read_text()
            executor.run(Candidate(id=attempt.id, name=attempt.candidate, phase="draft",
                                   code=code), inputs, root / f"direct{i}" / attempt.id, 120)
        direct_rows.append(time.perf_counter() - started)

        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pipesmith.cli", "run", "--dataset", args.dataset,
                        "--budget", "120", "--out", str(root / f"cli{i}"), "--kb",
                        str(root / "kb"), "-q"], check=True, capture_output=True)
        cli_wall = time.perf_counter() - started
        from pipesmith.core.report import load_report

        cli_report = load_report(root / f"cli{i}" / "report.json")
        cli_rows.append((cli_wall, cli_report.sandbox_s + cli_report.smoke_s))

    print(f"dataset {args.dataset}; 'outside' = 1 - sandbox s / wall s")
    print(f"{'repeat':<8}{'':34}{'wall s':>8}{'sandbox s':>11}{'outside':>9}")
    for i in range(args.repeats):
        label = "cold" if i == 0 else "warm"  # repeat 0 of run() pays the imports
        rows = [("direct sandbox runs (baseline)", direct_rows[i], direct_rows[i]),
                (f"pipesmith.run() in process, {label}", *api_rows[i]),
                ("pipesmith run (CLI, new process)", *cli_rows[i])]
        for name, wall, sandbox in rows:
            print(f"{i:<8}{name:34}{wall:8.2f}{sandbox:11.2f}{1 - sandbox / wall:8.1%}")

    def median_share(rows):
        return statistics.median(1 - sandbox / wall for wall, sandbox in rows)

    direct = statistics.median(direct_rows)
    print(f"medians: run() outside {median_share(api_rows):.1%}, "
          f"CLI outside {median_share(cli_rows):.1%}; "
          f"wall vs baseline: run() {statistics.median(w for w, _ in api_rows) / direct:.2f}x, "
          f"CLI {statistics.median(w for w, _ in cli_rows) / direct:.2f}x")
    print("target: under 15% of wall time outside sandboxed execution")


def report_inputs(run_dir: Path):
    import json

    from pipesmith.agents.schemas import RunInputs

    return RunInputs(**json.loads((run_dir / "run.json").read_text())["inputs"])


if __name__ == "__main__":
    main()
