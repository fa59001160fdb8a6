"""The seccomp filter's program, for every architecture it has a table for.

The x86_64 filter also runs in the real sandbox (tests/sandbox/test_sandbox.py); the aarch64 one
cannot run on this machine, so its table is checked against the kernel's own header and
both programs are executed here by a small classic-BPF interpreter on the seccomp_data a
kernel would hand them."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from pipesmith.sandbox.seccomp import (
    AF_INET,
    AF_INET6,
    AF_PACKET,
    ARCHES,
    FCNTL_DENIED,
    FILTERED,
    RET_ALLOW,
    RET_EPERM,
    RET_KILL_PROCESS,
    SOCK_RAW,
    X32_BIT,
    filter_program,
)

HEADERS = {"x86_64": Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
           "aarch64": Path("/usr/include/asm-generic/unistd.h")}
AF_UNIX, AF_NETLINK, SOCK_STREAM, SOCK_DGRAM, SOCK_CLOEXEC = 1, 16, 1, 2, 0o2000000
NEWER = {"cachestat"}  # may be missing from an older linux-libc-dev
OTHER_ARCH = {"x86_64": 0x40000003, "aarch64": 0x40000028}  # i386, arm (32-bit compat)
ALLOWED = {"x86_64": {"read": 0, "openat": 257, "clone": 56, "mmap": 9},
           "aarch64": {"read": 63, "openat": 56, "clone": 220, "mmap": 222}}


def run_bpf(program: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """Classic BPF as the kernel runs a seccomp filter (the instructions we emit)."""
    args = (*args, 0, 0, 0, 0, 0, 0)[:6]
    data = struct.pack("<iIQ6Q", nr, arch, 0, *args)
    code = [struct.unpack("<HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    pc, acc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        pc += 1
        if op == 0x20:  # LD|W|ABS
            acc = struct.unpack_from("<I", data, k)[0]
        elif op == 0x54:  # ALU|AND|K
            acc &= k
        elif op == 0x15:  # JMP|JEQ|K
            pc += jt if acc == k else jf
        elif op == 0x35:  # JMP|JGE|K
            pc += jt if acc >= k else jf
        elif op == 0x06:  # RET|K
            return k
        else:
            raise AssertionError(f"unknown opcode {op:#x}")


@pytest.mark.parametrize("arch", sorted(ARCHES))
def test_the_filter_denies_the_table_and_allows_the_rest(arch):
    program, target = filter_program(arch), ARCHES[arch]
    denied = {name: nr for name, nr in target.numbers.items() if name not in FILTERED}
    for name, nr in denied.items():
        assert run_bpf(program, nr, target.audit) == RET_EPERM, name
    for name, nr in ALLOWED[arch].items():
        assert run_bpf(program, nr, target.audit) == RET_ALLOW, name
    assert run_bpf(program, 0, OTHER_ARCH[arch]) == RET_KILL_PROCESS  # a foreign ABI
    other = ARCHES["aarch64" if arch == "x86_64" else "x86_64"].audit
    assert run_bpf(program, ALLOWED[arch]["read"], other) == RET_KILL_PROCESS
    socket = target.numbers["socket"]
    for family, kind, verdict in [
        (AF_INET, SOCK_RAW, RET_EPERM), (AF_INET6, SOCK_RAW | SOCK_CLOEXEC, RET_EPERM),
        (AF_PACKET, SOCK_DGRAM, RET_EPERM), (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, RET_ALLOW),
        (AF_INET6, SOCK_DGRAM, RET_ALLOW), (AF_UNIX, SOCK_STREAM, RET_ALLOW),
        (AF_NETLINK, SOCK_RAW, RET_ALLOW),  # socket.if_nameindex() needs it
    ]:
        assert run_bpf(program, socket, target.audit, (family, kind)) == verdict, (family, kind)
    fcntl = target.numbers["fcntl"]
    for command in FCNTL_DENIED:  # locks, leases, dnotify
        assert run_bpf(program, fcntl, target.audit, (3, command)) == RET_EPERM, command
    for command in (0, 1, 2, 3, 4, 5, 36, 1030):  # F_DUPFD, F_GETFD/SETFD, F_GETFL/SETFL...
        assert run_bpf(program, fcntl, target.audit, (3, command)) == RET_ALLOW, command
    preadv2 = target.numbers["preadv2"]
    assert run_bpf(program, preadv2, target.audit, (3, 0, 1, 0, 0, 0x8)) == RET_EPERM
    assert run_bpf(program, preadv2, target.audit, (3, 0, 1, 0, 0, 0x1)) == RET_ALLOW
    x32_read = X32_BIT | ALLOWED[arch]["read"]
    assert run_bpf(program, x32_read, target.audit) == (RET_EPERM if target.x32 else RET_ALLOW)


@pytest.mark.parametrize("arch", sorted(ARCHES))
def test_the_tables_match_the_kernel_headers(arch):
    header = HEADERS[arch]
    if not header.exists():
        pytest.skip(f"{header} is not installed (linux-libc-dev)")
    defined = {name: int(nr) for name, nr in re.findall(
        r"#define __NR(?:3264)?_(\w+)\s+(\d+)\b", header.read_text())}
    table = ARCHES[arch].numbers
    # calls newer than the installed header (cachestat, 6.5) are checked where it has them
    known = {name: nr for name, nr in table.items() if name in defined or name not in NEWER}
    assert {name: defined.get(name) for name in known} == known
