"""Sandboxes that run untrusted candidate code: the protocol and its backends."""

from pipesmith.sandbox.base import ExecJob, ExecResult, ExecStatus, Sandbox
from pipesmith.sandbox.local import LocalSandbox

__all__ = ["ExecJob", "ExecResult", "ExecStatus", "LocalSandbox", "Sandbox"]
