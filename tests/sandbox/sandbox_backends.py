"""The sandbox backends under test, for the contract suite and the benchmark.

Docker: PIPESMITH_TEST_DOCKER_HOST (e.g. unix:///tmp/pipesmith-docker/docker.sock) points
at an engine that must answer (CI sets it: failing to reach it is an error, not a skip).
Without it, a private engine is started with .ci/docker-engine.sh and stopped afterwards
by its PID; only where that cannot be done are the docker cases skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ENGINE_SCRIPT = Path(__file__).resolve().parents[2] / ".ci" / "docker-engine.sh"


class DockerEngine:
    """An engine to test against: the one CI names, or one started (and stopped) here."""

    def __init__(self) -> None:
        self.started_here = False
        self.host = os.environ.get("PIPESMITH_TEST_DOCKER_HOST")
        self.skip_reason = ""
        self.env = {**os.environ, "PIPESMITH_DOCKER_STATE": os.environ.get(
            "PIPESMITH_DOCKER_STATE", "/tmp/pipesmith-docker-tests")}

    def _script(self, action: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(ENGINE_SCRIPT), action], env=self.env,
                              capture_output=True, text=True, timeout=180)

    def start(self) -> str | None:
        """The engine's address, or None (with skip_reason) where none can be started."""
        if self.host:
            return self.host
        if shutil.which("dockerd") is None:
            self.skip_reason = "no docker engine: dockerd is not installed"
            return None
        done = self._script("start")
        if done.returncode != 0:
            self.skip_reason = f"no docker engine could be started: {done.stderr[-500:]}"
            return None
        self.started_here = True
        self.host = self._script("host").stdout.strip()
        return self.host

    def build_image(self) -> None:
        done = self._script("image")
        if done.returncode != 0:
            raise RuntimeError(f"could not build the sandbox image: {done.stderr[-500:]}")

    def stop(self) -> None:
        if self.started_here:
            self._script("stop")


def docker_sandbox(host: str):
    from pipesmith.sandbox.container import DEFAULT_IMAGE, DockerSandbox

    sandbox = DockerSandbox(image=os.environ.get("PIPESMITH_DOCKER_IMAGE", DEFAULT_IMAGE),
                            base_url=host)
    if not sandbox.available():
        raise RuntimeError(f"the docker engine at {host} does not answer")
    return sandbox
