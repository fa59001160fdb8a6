"""Where jobs run: inline, in local worker processes, or as Ray tasks.

Each executor yields (job, row) as jobs finish, keeping at most `workers` jobs in flight,
and calls on_start(job) when one is handed out. Rows are written by the caller in this
process, so a job on another machine needs only the shared output directory.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from pipesmith.evals.jobs import crash_row, run_job

EXECUTORS = ("local", "ray")
Started = Callable[[object], None]


def local_map(jobs: Iterable, workers: int, on_start: Started) -> Iterator[tuple[object, dict]]:
    if workers <= 1:
        for job in jobs:
            on_start(job)
            yield job, run_job(job)
        return
    pending = iter(jobs)
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures: dict = {}

        def submit() -> None:
            job = next(pending, None)
            if job is not None:
                futures[pool.submit(run_job, job)] = job
                on_start(job)

        for _ in range(workers):
            submit()
        while futures:
            done, _ = wait(futures, return_when=FIRST_COMPLETED)
            for future in done:
                job = futures.pop(future)
                submit()
                error = future.exception()
                yield job, crash_row(job, error) if error else future.result()


def ray_map(jobs: Iterable, workers: int, on_start: Started) -> Iterator[tuple[object, dict]]:
    """Each job a Ray task on the cluster at RAY_ADDRESS, or on a local instance started
    here (no dashboard, no usage reporting) and shut down at the end."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        address = os.environ.get("RAY_ADDRESS")
        ray.init(address=address or None, include_dashboard=False, log_to_driver=False,
                 num_cpus=None if address else workers)
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(run_job)
        pending, refs = iter(jobs), {}

        def submit() -> None:
            job = next(pending, None)
            if job is not None:
                refs[remote.remote(job)] = job
                on_start(job)

        for _ in range(max(1, workers)):
            submit()
        while refs:
            ready, _ = ray.wait(list(refs), num_returns=1)
            for ref in ready:
                job = refs.pop(ref)
                submit()
                try:
                    row = ray.get(ref)
                except Exception as exc:  # the task or its worker died
                    row = crash_row(job, exc)
                yield job, row
    finally:
        if started_here:
            ray.shutdown()


def executor(name: str) -> Callable[[Iterable, int, Started], Iterator[tuple[object, dict]]]:
    return {"local": local_map, "ray": ray_map}[name]
