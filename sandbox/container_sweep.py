"""Containers a SIGKILLed supervisor left in a Docker engine, and the sweep that removes them.

The docker backend removes its container after every run, on every exit path it lives
through. A supervisor killed by SIGKILL cannot: its container stays in the engine's list
(running until the cgroup sweep or its own exit stops it, then exited). Every container
therefore carries labels naming its owner (`pipesmith.owner` = PID.START, as every other
leftover, sandbox/owner.py), the run, and the machine and boot the owner ran on. The sweep
that every pipesmith command starts with asks the configured engine for pipesmith's
containers and force-removes those whose owner is dead:

- another machine's container (a shared remote engine) is never touched: its owner's PID
  means nothing here;
- this machine's container from an earlier boot: its owner is dead;
- this machine and boot: dead when the PID is gone or now belongs to a younger process;
- a container without an owner label (made before the labels existed) is left alone.

The engine is asked only where one is configured (`docker_host`, DOCKER_HOST) or the
default socket exists, with a short timeout; an engine that does not answer is skipped
(logged, never an error of the command it precedes).
"""

from __future__ import annotations

import functools
import os
import socket
from pathlib import Path

import structlog

from pipesmith.sandbox.owner import Sweep, current_run, owner, owner_alive

log = structlog.get_logger(__name__)

LABEL = "pipesmith.sandbox"
OWNER_LABEL = "pipesmith.owner"
RUN_LABEL = "pipesmith.run"
MACHINE_LABEL = "pipesmith.machine"
BOOT_LABEL = "pipesmith.boot"
DEFAULT_SOCKET = Path("/var/run/docker.sock")
TIMEOUT_S = 5


def _first_line(*paths: str) -> str | None:
    for path in paths:
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text:
            return text
    return None


@functools.cache
def machine_id() -> str:
    return _first_line("/etc/machine-id", "/var/lib/dbus/machine-id") or socket.gethostname()


@functools.cache
def boot_id() -> str:
    return _first_line("/proc/sys/kernel/random/boot_id") or "unknown"


def owner_labels() -> dict[str, str]:
    """The labels of a container this process creates now."""
    return {LABEL: "1", OWNER_LABEL: owner(), RUN_LABEL: current_run(), MACHINE_LABEL: machine_id(),
            BOOT_LABEL: boot_id()}


def abandoned(labels: dict[str, str], machine: str, boot: str, alive=owner_alive) -> bool:
    """True when the container's owner is known to be dead (the rules above)."""
    if labels.get(LABEL) != "1" or labels.get(MACHINE_LABEL) != machine:
        return False
    pid, dot, start = (labels.get(OWNER_LABEL) or "").partition(".")
    if not (dot and pid.isdigit() and start.isdigit()):
        return False
    if labels.get(BOOT_LABEL) != boot:
        return True
    return not alive(int(pid), int(start))


def sweep_containers(client, done: Sweep) -> None:
    """Force-remove pipesmith's containers whose owner is dead, noting them in `done`."""
    machine, boot = machine_id(), boot_id()
    for container in client.containers.list(all=True, filters={"label": f"{LABEL}=1"}):
        if not abandoned(container.labels or {}, machine, boot):
            continue
        name = f"container {container.short_id} ({container.labels.get(RUN_LABEL, '?')})"
        done.found.append(name)
        try:
            container.remove(force=True)
            done.removed.append(name)
        except Exception as exc:  # removed meanwhile counts as removed
            from docker.errors import NotFound

            (done.removed if isinstance(exc, NotFound) else done.failed).append(name)


def engine_url(docker_host: str | None) -> str | None:
    """The engine to sweep: the configured one, else DOCKER_HOST, else the default socket
    where it exists; None where no engine is configured here."""
    url = docker_host or os.environ.get("DOCKER_HOST")
    if url:
        return url
    return f"unix://{DEFAULT_SOCKET}" if DEFAULT_SOCKET.exists() else None


def safe_sweep_containers(docker_host: str | None, done: Sweep) -> None:
    """`sweep_containers` against the configured engine; never raises."""
    url = engine_url(docker_host)
    if url is None:
        return
    try:
        import docker

        client = docker.DockerClient(base_url=url, timeout=TIMEOUT_S)
    except Exception as exc:
        log.info("sandbox.container_sweep_skipped", engine=url, error=str(exc)[:200])
        return
    try:
        before = len(done.found)
        sweep_containers(client, done)
        if len(done.found) > before:
            log.info("sandbox.containers_swept", found=len(done.found) - before)
    except Exception as exc:  # the engine is down or refuses: nothing to sweep there now
        log.info("sandbox.container_sweep_skipped", engine=url, error=str(exc)[:200])
    finally:
        client.close()
