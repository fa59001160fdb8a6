"""Launch overhead of each sandbox backend over a bare interpreter, measured in one run.

For each backend: the median wall time of `python -c pass` through the sandbox minus the
median of the same command run bare with subprocess (targets: local < 15 ms, docker
< 400 ms), then the same for a real scikit-learn candidate through the project's harness
(Executor.run on iris, logistic regression). Beside the wall time, the CPU time of a
launch (the supervisor's threads plus every process of the job, from the job's cpuacct
cgroup) is printed: on a loaded machine the wall-time overhead is inflated by waiting for a
core at each hand-over between processes, the CPU time much less. `preexec` is the local
backend started the
way it was before issue 14 (a Python preexec_fn in the forked child, so no vfork), for a
same-run comparison with today's launch (one shell that joins the cgroups, sets the rlimits
and execs bwrap). Jobs carry the limits real runs use (memory,
disk cap, CPU time, pids). Docker is measured when an engine answers at
PIPESMITH_DOCKER_HOST / DOCKER_HOST (start one with .ci/docker-engine.sh start && image).

    python benchmarks/sandbox_launch.py [--repeats 21] [--candidate-repeats 5] [--no-candidate]
"""

from __future__ import annotations

import argparse
import os
import resource
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
        started, before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(job.command, cwd=job.workdir, capture_output=True,
                              env=job_environment(job))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return ExecResult(status="ok" if done.returncode == 0 else "error", cpu_s=cpu,
                          exit_code=done.returncode, wall_s=time.monotonic() - started)


def own_cpu_s() -> float:
    """CPU seconds of this process, every thread (the supervisor's side of a launch)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def limits() -> dict:
    return {"memory_mb": 4096, "disk_mb": 1024, "cpu_time_s": 60, "timeout_s": 60}


def launch_once(sandbox, workdir: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds): the CPU of the supervisor's side plus the job's
    (every process of it: the cgroup's count for the sandbox, rusage for bare)."""
    workdir.mkdir(parents=True)
    job = ExecJob(command=[sys.executable, "-c", "pass"], workdir=workdir, **limits())
    cpu, started = own_cpu_s(), time.perf_counter()
    result = sandbox.run(job)
    elapsed = time.perf_counter() - started
    if result.status != "ok":
        raise SystemExit(f"{sandbox.name}: python -c pass failed: {result}")
    return elapsed, own_cpu_s() - cpu + result.cpu_s


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


def interleaved(sandboxes: list, repeats: int, once) -> dict:
    """Median per backend, the backends taking turns so that load drifting over the run
    (other jobs on a shared machine) hits each of them alike. `once` returns a number or
    a tuple of numbers (medians taken per position)."""
    times: dict[str, list] = {s.name: [] for s in sandboxes}
    for i in range(repeats):
        for sandbox in sandboxes:
            times[sandbox.name].append(once(sandbox, i))
    return {name: statistics.median(values) if not isinstance(values[0], tuple) else
            tuple(statistics.median(column) for column in zip(*values, strict=True))
            for name, values in times.items()}


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
    parser.add_argument("--no-candidate", action="store_true",
                        help="Measure the launch only (no scikit-learn candidate).")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="pipesmith-sandbox-bench-"))
    sandboxes = backends()
    from pipesmith.core.inputs import prepare_inputs
    from pipesmith.settings import Settings

    inputs, _ = prepare_inputs(root / "data", dataset="iris", task=None, metric=None,
                               settings=Settings(n_jobs=1, kb_dir=root / "kb"))
    load_before = os.getloadavg()[0]
    launch = interleaved(sandboxes, args.repeats,
                         lambda s, i: launch_once(s, root / f"{s.name}-launch-{i}"))
    trained = {s.name: float("nan") for s in sandboxes} if args.no_candidate else interleaved(
        sandboxes, args.candidate_repeats,
        lambda s, i: candidate_once(s, inputs, root / f"{s.name}-c{i}"))
    local = sandboxes[1]
    print(f"local isolation: {local.isolation}, disk cap tmpfs: {local.cap_disk}, "
          f"cgroups: pids={local.limit_pids} memory={local.limit_memory}; cpus={os.cpu_count()}")
    print(f"{'backend':<8} {'python -c pass':>15} {'overhead':>10} {'ratio':>6} "
          f"{'CPU':>9} {'CPU overhead':>13} {'sklearn candidate':>18} {'overhead':>10}")
    wall0, cpu0 = launch["bare"]
    for name, (wall, cpu) in launch.items():
        slower = trained[name] - trained["bare"]
        print(f"{name:<8} {wall * 1000:>12.1f} ms {(wall - wall0) * 1000:>7.1f} ms "
              f"{wall / wall0:>6.2f} {cpu * 1000:>6.1f} ms {(cpu - cpu0) * 1000:>10.1f} ms"
              f" {trained[name] * 1000:>15.1f} ms {slower * 1000:>7.1f} ms")
    print(f"(medians of {args.repeats} launches and {args.candidate_repeats} candidate runs, "
          f"backends interleaved; 1-min load average {load_before:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after)")


if __name__ == "__main__":
    main()
