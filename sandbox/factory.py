"""Build the sandbox a run asks for: `sandbox_backend` = local | docker | unsafe-local.

`local` refuses to run anything where bubblewrap is missing (SandboxUnavailable, an
InputError: one line, exit 2); `unsafe-local` is the explicit opt-in to run generated code
without it (the host filesystem is visible to the job), named for what it is.
"""

from __future__ import annotations

from pipesmith.sandbox.base import Sandbox

BACKENDS = ("local", "docker", "unsafe-local")


def make_sandbox(backend: str = "local", docker_image: str | None = None,
                 docker_host: str | None = None, docker_host_runtime: bool = True) -> Sandbox:
    if backend in ("local", "unsafe-local"):
        from pipesmith.sandbox.local import LocalSandbox

        return LocalSandbox(allow_unsafe=backend == "unsafe-local")
    if backend == "docker":
        from pipesmith.sandbox.container import DEFAULT_IMAGE, DockerSandbox

        return DockerSandbox(image=docker_image or DEFAULT_IMAGE, base_url=docker_host,
                             host_runtime=docker_host_runtime)
    raise ValueError(f"unknown sandbox backend {backend!r}: choose one of {', '.join(BACKENDS)}")


def sandbox_from_settings(settings) -> Sandbox:
    return make_sandbox(settings.sandbox_backend, settings.docker_image, settings.docker_host,
                        settings.docker_host_runtime)
