"""A SIGKILLed supervisor's Docker container is swept by the next pipesmith command, like
its cgroups and folders: labelled with its owner, removed once that owner is dead, and
never when the owner lives or ran on another machine (sandbox/container_sweep.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from pipesmith.sandbox.container_sweep import (
    BOOT_LABEL,
    LABEL,
    MACHINE_LABEL,
    OWNER_LABEL,
    RUN_LABEL,
    abandoned,
    boot_id,
    machine_id,
    owner_labels,
    sweep_containers,
)
from pipesmith.sandbox.owner import Sweep, owner, start_time
from tests.sandbox.test_sandbox_contract import docker_backend  # noqa: F401  (the engine fixture)

ROOT = Path(__file__).resolve().parents[2]


def dead_owner() -> str:
    """'PID.START' of a process that has exited (and been reaped)."""
    proc = subprocess.Popen(["sleep", "30"])
    stamp = f"{proc.pid}.{start_time(proc.pid)}"
    proc.kill()
    proc.wait()
    return stamp


def labels(**changes) -> dict[str, str]:
    base = {LABEL: "1", OWNER_LABEL: owner(), RUN_LABEL: "r", MACHINE_LABEL: "m",
            BOOT_LABEL: "b"}
    return {k: v for k, v in (base | changes).items() if v is not None}


def test_the_sweep_decision():
    alive = labels()
    assert owner_labels()[OWNER_LABEL] == owner()
    assert not abandoned(alive, "m", "b")  # this very process owns it
    assert abandoned(labels(**{OWNER_LABEL: dead_owner()}), "m", "b")
    # a PID reused by a younger process is not the owner
    pid, start = owner().split(".")
    assert abandoned(labels(**{OWNER_LABEL: f"{pid}.{int(start) - 1}"}), "m", "b")
    assert abandoned(alive, "m", "another boot")  # this machine rebooted since
    assert not abandoned(labels(**{OWNER_LABEL: dead_owner()}), "another machine", "b")
    assert not abandoned(labels(**{OWNER_LABEL: None}), "m", "b")  # before the labels
    assert not abandoned(labels(**{OWNER_LABEL: "garbage"}), "m", "b")
    assert not abandoned(labels(**{LABEL: None, OWNER_LABEL: dead_owner()}), "m", "b")


@pytest.mark.docker
def test_the_sweep_removes_only_dead_owners_containers(docker_backend):  # noqa: F811
    client = docker_backend.client()
    mine = {MACHINE_LABEL: machine_id(), BOOT_LABEL: boot_id(), RUN_LABEL: "sweep-test"}
    cases = {
        "dead": {LABEL: "1", OWNER_LABEL: dead_owner(), **mine},
        "alive": {LABEL: "1", OWNER_LABEL: owner(), **mine},
        "other machine": {LABEL: "1", OWNER_LABEL: dead_owner(), **mine,
                          MACHINE_LABEL: "elsewhere"},
        "unlabelled": {LABEL: "1"},
        "not ours": {OWNER_LABEL: dead_owner(), **mine},
    }
    made = {name: client.containers.create(docker_backend.image, ["true"], labels=tags)
            for name, tags in cases.items()}
    try:
        done = Sweep()
        sweep_containers(client, done)
        left = {c.id for c in client.containers.list(all=True)}
        assert made["dead"].id not in left
        assert all(made[name].id in left for name in cases if name != "dead")
        assert done.failed == [] and len(done.removed) == 1
        assert made["dead"].short_id in done.removed[0]
    finally:
        for container in made.values():
            try:
                container.remove(force=True)
            except Exception:  # the swept one is gone already
                pass


@pytest.mark.docker
@pytest.mark.slow
def test_a_sigkilled_supervisors_container_is_swept_by_the_next_command(
        docker_backend, tmp_path):  # noqa: F811
    client = docker_backend.client()
    marker = f"docker_swept_{uuid.uuid4().hex[:8]}"
    program = tmp_path / "sleeper.py"
    program.write_text(f"import time\ntime.sleep(300)  # {marker}\n")
    env = {**os.environ, "PIPESMITH_DOCKER_HOST": docker_backend.base_url}
    proc = subprocess.Popen([sys.executable, "-m", "pipesmith.cli", "sandbox", "exec",
                             str(program), "--backend", "docker", "--timeout", "120"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    owner_filter = {"label": f"{OWNER_LABEL}={proc.pid}.{start_time(proc.pid)}"}
    deadline = time.monotonic() + 120
    while not client.containers.list(filters={**owner_filter, "status": "running"}):
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        assert time.monotonic() < deadline, "the container never started"
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert client.containers.list(all=True, filters=owner_filter)  # left behind
    done = subprocess.run([sys.executable, "-m", "pipesmith.cli", "doctor", "--json"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode in (0, 1), done.stderr
    swept = json.loads(done.stdout)["leftovers"]
    assert client.containers.list(all=True, filters=owner_filter) == []
    assert any(item.startswith("container ") for item in swept["removed"]), swept
    assert not swept["failed"], swept
