"""Build the sandbox a run asks for: `sandbox_backend` = local | docker (settings)."""

from __future__ import annotations

from pipesmith.sandbox.base import Sandbox

BACKENDS = ("local", "docker")


def make_sandbox(backend: str = "local", docker_image: str | None = None,
                 docker_host: str | None = None, docker_host_runtime: bool = True) -> Sandbox:
    if backend == "local":
        from pipesmith.sandbox.local import LocalSandbox

        return LocalSandbox()
    if backend == "docker":
        from pipesmith.sandbox.container import DEFAULT_IMAGE, DockerSandbox

        return DockerSandbox(image=docker_image or DEFAULT_IMAGE, base_url=docker_host,
                             host_runtime=docker_host_runtime)
    raise ValueError(f"unknown sandbox backend {backend!r}: choose one of {', '.join(BACKENDS)}")


def sandbox_from_settings(settings) -> Sandbox:
    return make_sandbox(settings.sandbox_backend, settings.docker_image, settings.docker_host,
                        settings.docker_host_runtime)
