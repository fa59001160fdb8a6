"""Install pipesmith's seccomp filter on this process, then become the job's command.

Usage: python -m pipesmith.sandbox.seccomp_exec COMMAND [ARG ...]

The docker backend's way to give a container the filter bubblewrap gives a local job
(sandbox/seccomp.py: the channels between jobs, namespaces, keyrings, ...). It is stacked on
Docker's own profile, so a call either denies stays denied. The container runs with
no-new-privileges, which is what lets an unprivileged process install a filter; every
process the command starts inherits it. Failing to install it fails the job (exit 125,
the local launcher's marker): a job never runs without the filter it was meant to have.
"""

from __future__ import annotations

import ctypes
import os
import sys

from pipesmith.sandbox.seccomp import filter_program

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
SETUP_FAILED = "pipesmith-sandbox: could not set up the job"  # sandbox/local.py's JOIN_FAILED


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(program: bytes) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    ulong = ctypes.c_ulong
    if libc.prctl(PR_SET_NO_NEW_PRIVS, ulong(1), ulong(0), ulong(0), ulong(0)) != 0 or \
            libc.prctl(PR_SET_SECCOMP, ulong(SECCOMP_MODE_FILTER), ctypes.byref(fprog),
                       ulong(0), ulong(0)) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


def main(argv: list[str]) -> int:
    if not argv:
        sys.stderr.write("usage: python -m pipesmith.sandbox.seccomp_exec COMMAND [ARG ...]\n")
        return 2
    try:
        install(filter_program())
    except OSError as exc:
        sys.stderr.write(f"{SETUP_FAILED}: seccomp: {exc}\n")
        return 125
    os.execvp(argv[0], argv)
    return 127  # not reached: execvp raises when it fails


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
