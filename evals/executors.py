"""Where jobs run: inline, in local worker processes, or as Ray tasks.

Each executor yields (job, row) as jobs finish, keeping at most `workers` jobs in flight,
and calls on_start(job) when one is handed out. Rows are written by the caller in this
process, so a job on another machine needs only the shared output directory.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from pipesmith.evals.jobs import crash_row, run_job
from pipesmith.sandbox.owner import OWNER_ENV, owner

EXECUTORS = ("local", "ray")
Started = Callable[[object], None]
WATCH_S = 0.5  # how often a worker checks that its eval still lives


def local_map(jobs: Iterable, workers: int, on_start: Started) -> Iterator[tuple[object, dict]]:
    if workers <= 1:
        for job in jobs:
            on_start(job)
            yield job, run_job(job)
        return
    pending = iter(jobs)
    with _owned_workers(), ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=_die_with_parent, initargs=(os.getpid(),)) as pool:
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


@contextlib.contextmanager
def _owned_workers():
    """Workers spawned in the block carry this process as their owner (sandbox/owner.py):
    if it is SIGKILLed, the next pipesmith command's sweep ends any that still run."""
    previous = os.environ.get(OWNER_ENV)
    os.environ[OWNER_ENV] = owner()
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(OWNER_ENV, None)
        else:
            os.environ[OWNER_ENV] = previous


def _die_with_parent(parent: int) -> None:
    """In each worker: once the eval that started it is gone (SIGKILLed: it could not shut
    the pool down), stop the sandbox jobs and leave, instead of running the job on into the
    output folder that a rerun of the eval uses."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_S)
        from pipesmith.sandbox.local import stop_all

        stop_all()
        os._exit(137)

    threading.Thread(target=watch, daemon=True, name="die-with-parent").start()


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
