"""Launch overhead of each sandbox backend over a bare interpreter, measured in one run.

For each backend: the median wall time of `python -c pass` through the sandbox minus the
median of the same command run bare with subprocess (targets: local < 15 ms, docker
< 400 ms), then the same for a real scikit-learn candidate through the project's harness
(Executor.run on iris, logistic regression). `preexec` is the local backend started the
way it was before issue 14 (a Python preexec_fn in the forked child, so no vfork), for a
same-run comparison with today's launch (one shell that joins the cgroups, sets the rlimits
and execs bwrap). Jobs carry the limits real runs use (memory,
disk cap, CPU time, pids). Docker is measured when an engine answers at
PIPESMITH_DOCKER_HOST / DOCKER_HOST (start one with .ci/docker-engine.sh start && image).

    python benchmarks/sandbox_launch.py [--repeats 21] [--candidate-repeats 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pipesmith.sandbox.base import ExecJob, ExecResult
from pipesmith.sandbox.runtime import job_environment


class Bare:
    """The baseline: the same command and environment (thread counts included) with
    subprocess, and no isolation, limits or capture."""

    name = "bare"
    isolate_network = False

    def run(self, job: ExecJob) -> ExecResult:
        started = time.monotonic()
        done = subprocess.run(job.command, cwd=job.workdir, capture_output=True,
                              env=job_environment(job))
        return ExecResult(status="ok" if done.returncode == 0 else "error",
                          exit_code=done.returncode, wall_s=time.monotonic() - started)


def limits() -> dict:
    return {"memory_mb": 4096, "disk_mb": 1024, "cpu_time_s": 60, "timeout_s": 60}


def launch_once(sandbox, workdir: Path) -> float:
    workdir.mkdir(parents=True)
    job = ExecJob(command=[sys.executable, "-c", "pass"], workdir=workdir, **limits())
    started = time.perf_counter()
    result = sandbox.run(job)
    elapsed = time.perf_counter() - started
    if result.status != "ok":
        raise SystemExit(f"{sandbox.name}: python -c pass failed: {result}")
    return elapsed


def candidate_once(sandbox, inputs, workdir: Path) -> float:
    from pipesmith.agents.executor import Executor
    from pipesmith.agents.schemas import Candidate

    code = ("from sklearn.linear_model import LogisticRegression\n"
            "def build_pipeline(task):\n    return LogisticRegression(max_iter=500)\n")
    candidate = Candidate(id="a1", name="logreg", phase="draft", code=code)
    started = time.perf_counter()
    result, metrics = Executor(sandbox).run(candidate, inputs, workdir, timeout_s=300)
    elapsed = time.perf_counter() - started
    if metrics is None:
        raise SystemExit(f"{sandbox.name}: the candidate failed: {result.stderr[-500:]}")
    return elapsed


def interleaved(sandboxes: list, repeats: int, once) -> dict[str, float]:
    """Median per backend, the backends taking turns so that load drifting over the run
    (other jobs on a shared machine) hits each of them alike."""
    times: dict[str, list[float]] = {s.name: [] for s in sandboxes}
    for i in range(repeats):
        for sandbox in sandboxes:
            times[sandbox.name].append(once(sandbox, i))
    return {name: statistics.median(values) for name, values in times.items()}


def backends() -> list:
    from pipesmith.logs import configure_logging
    from pipesmith.sandbox.container import DockerSandbox
    from pipesmith.sandbox.local import LocalSandbox

    configure_logging(level="error")
    found = [Bare(), LocalSandbox()]
    preexec = LocalSandbox()  # the launch before issue 14: Python preexec_fn (fork, no vfork)
    preexec.exec_launch, preexec.name = False, "preexec"
    found.append(preexec)
    docker = DockerSandbox(base_url=os.environ.get("PIPESMITH_DOCKER_HOST"))
    if docker.available():
        found.append(docker)
    else:
        print("docker: no engine answers; start one with .ci/docker-engine.sh start && image")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--candidate-repeats", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="pipesmith-sandbox-bench-"))
    sandboxes = backends()
    from pipesmith.api import prepare_inputs
    from pipesmith.settings import Settings

    inputs, _ = prepare_inputs(root / "data", dataset="iris", task=None, metric=None,
                               settings=Settings(n_jobs=1, kb_dir=root / "kb"))
    load_before = os.getloadavg()[0]
    launch = interleaved(sandboxes, args.repeats,
                         lambda s, i: launch_once(s, root / f"{s.name}-launch-{i}"))
    trained = interleaved(sandboxes, args.candidate_repeats,
                          lambda s, i: candidate_once(s, inputs, root / f"{s.name}-c{i}"))
    local = sandboxes[1]
    print(f"local isolation: {local.isolation}, disk cap tmpfs: {local.cap_disk}, "
          f"cgroups: pids={local.limit_pids} memory={local.limit_memory}; cpus={os.cpu_count()}")
    print(f"{'backend':<8} {'python -c pass':>15} {'overhead':>10} "
          f"{'sklearn candidate':>18} {'overhead':>10}")
    for name in launch:
        extra, slower = launch[name] - launch["bare"], trained[name] - trained["bare"]
        print(f"{name:<8} {launch[name] * 1000:>12.1f} ms {extra * 1000:>7.1f} ms"
              f" {trained[name] * 1000:>15.1f} ms {slower * 1000:>7.1f} ms")
    print(f"(medians of {args.repeats} launches and {args.candidate_repeats} candidate runs, "
          f"backends interleaved; 1-min load average {load_before:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after)")


if __name__ == "__main__":
    main()
