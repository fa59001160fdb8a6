"""A seccomp filter for the local backend, hand-assembled classic BPF (no libseccomp).

bubblewrap installs it (`--seccomp FD`) just before it executes the job, so every process
of the job inherits it. Denied calls fail with EPERM (a library probing for a feature
degrades instead of dying): process inspection (`ptrace`, `process_vm_*`), mounts and
namespaces, kernel keyrings, `bpf`, `perf_event_open`, `userfaultfd`, module and kexec
loading, reboot, swap, quotas, accounting, `open_by_handle_at`, raw and packet
IP sockets, and what jobs could signal each other through (they share the host's read-only
files and page cache): page-cache residency (`mincore`, `cachestat`, `fadvise64`,
`readahead`, `preadv2` with RWF_NOWAIT), file events (`inotify_*`, `fanotify_init`, fcntl
F_NOTIFY), file locks and leases (`flock`, fcntl F_SETLK/F_SETLKW/F_OFD_*/F_SETLEASE), and
io_uring (whose reads the filter would never see). The x32 ABI (another way in to the same
calls) is denied whole; a foreign architecture's system calls kill the process.

The system call numbers are data, one table per architecture (x86_64, aarch64); the
filter first checks the audit architecture of every call against the one it was built for.
On any other architecture `seccomp_available()` is False and the job runs without a filter
(`pipesmith doctor` says so). The aarch64 table is checked against the kernel's generic
header and the program's logic by a BPF interpreter in the tests; it has not been run on an
aarch64 kernel by this project.
"""

from __future__ import annotations

import errno
import functools
import os
import platform
import struct
from dataclasses import dataclass

X32_BIT = 0x40000000
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_EPERM = 0x00050000 | errno.EPERM
LD_ABS_W, JEQ_K, JGE_K, AND_K, RET_K = 0x20, 0x15, 0x35, 0x54, 0x06
NR, ARCH, ARG0, ARG1, ARG5 = 0, 4, 16, 24, 56  # offsets in struct seccomp_data (low 32 bits)
AF_INET, AF_INET6, AF_PACKET, SOCK_RAW = 2, 10, 17, 3
# fcntl commands that lock, lease or watch a file: channels between jobs through a shared
# read-only file (F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE, F_NOTIFY)
FCNTL_DENIED = (6, 7, 37, 38, 1024, 1026)
RWF_NOWAIT = 0x8  # preadv2: fails unless the page is cached, a residency probe
FILTERED = ("socket", "fcntl", "preadv2")  # allowed or denied by their arguments

# The new mount API (424 and up) has one number on every architecture.
_MOUNT_API = {"open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
              "fsmount": 432, "fspick": 433, "mount_setattr": 442}
# io_uring runs reads the filter never sees; cachestat (6.5) reads page-cache residency.
_SHARED_NUMBERS = {"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
                   "cachestat": 451}
X86_64 = {  # arch/x86/entry/syscalls/syscall_64.tbl
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "unshare": 272,
    "setns": 308, **_MOUNT_API,
    "add_key": 248, "request_key": 249, "keyctl": 250, "bpf": 321, "perf_event_open": 298,
    "userfaultfd": 323, "init_module": 175, "finit_module": 313, "delete_module": 176,
    "kexec_load": 246, "kexec_file_load": 320, "reboot": 169, "swapon": 167, "swapoff": 168,
    "quotactl": 179, "acct": 163, "open_by_handle_at": 304, "iopl": 172, "ioperm": 173,
    # channels between jobs: page-cache residency, file events, locks on shared files
    "mincore": 27, "fadvise64": 221, "readahead": 187, "inotify_init": 253,
    "inotify_add_watch": 254, "inotify_init1": 294, "fanotify_init": 300, "flock": 73,
    **_SHARED_NUMBERS,
    "socket": 41, "fcntl": 72, "preadv2": 327,
}
AARCH64 = {  # include/uapi/asm-generic/unistd.h (no iopl/ioperm on arm64)
    "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271,
    "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "unshare": 97,
    "setns": 268, **_MOUNT_API,
    "add_key": 217, "request_key": 218, "keyctl": 219, "bpf": 280, "perf_event_open": 241,
    "userfaultfd": 282, "init_module": 105, "finit_module": 273, "delete_module": 106,
    "kexec_load": 104, "kexec_file_load": 294, "reboot": 142, "swapon": 224, "swapoff": 225,
    "quotactl": 60, "acct": 89, "open_by_handle_at": 265,
    "mincore": 232, "fadvise64": 223, "readahead": 213, "inotify_add_watch": 27,
    "inotify_init1": 26, "fanotify_init": 262, "flock": 32, **_SHARED_NUMBERS,
    "socket": 198, "fcntl": 25, "preadv2": 286,
}


@dataclass(frozen=True)
class Arch:
    audit: int  # AUDIT_ARCH_*: what seccomp_data.arch holds for this ABI
    numbers: dict[str, int]  # the denied calls, and FILTERED (decided by their arguments)
    x32: bool = False  # x86_64 only: the x32 ABI reuses the numbers with bit 30 set


ARCHES = {
    "x86_64": Arch(audit=0xC000003E, numbers=X86_64, x32=True),  # EM_X86_64 | 64BIT | LE
    "aarch64": Arch(audit=0xC00000B7, numbers=AARCH64),  # EM_AARCH64 | 64BIT | LE
}
MACHINES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}
DENIED = {name: number for name, number in X86_64.items() if name not in FILTERED}  # x86_64


def native_arch() -> str | None:
    """This machine's architecture when the filter has a table for it."""
    return MACHINES.get(platform.machine().lower())


def seccomp_available() -> bool:
    return native_arch() is not None


def _assemble(program: list[tuple]) -> bytes:
    """(code, label-or-0, label-or-0, k) with string labels resolved to relative jumps;
    ("label", name) entries mark targets."""
    labels, index = {}, 0
    for entry in program:
        if entry[0] == "label":
            labels[entry[1]] = index
        else:
            index += 1
    out, index = [], 0
    for entry in program:
        if entry[0] == "label":
            continue
        code, jt, jf, k = entry
        jt = labels[jt] - index - 1 if isinstance(jt, str) else jt
        jf = labels[jf] - index - 1 if isinstance(jf, str) else jf
        out.append(struct.pack("<HBBI", code, jt, jf, k))
        index += 1
    return b"".join(out)


@functools.cache
def filter_program(arch: str | None = None) -> bytes:
    """The filter as struct sock_filter[] bytes, as `bwrap --seccomp` reads it, for
    `arch` (default: this machine's)."""
    target = ARCHES[arch or native_arch() or "unsupported"]
    numbers = dict(target.numbers)
    socket, fcntl, preadv2 = (numbers.pop(name) for name in FILTERED)
    program: list[tuple] = [
        (LD_ABS_W, 0, 0, ARCH),
        (JEQ_K, 1, 0, target.audit),
        (RET_K, 0, 0, RET_KILL_PROCESS),  # a foreign ABI (x86 32-bit, arm32 compat)
        (LD_ABS_W, 0, 0, NR),
    ]
    if target.x32:
        program.append((JGE_K, "deny", 0, X32_BIT))
    program.append((JEQ_K, "socket", 0, socket))
    program.append((JEQ_K, "fcntl", 0, fcntl))
    program.append((JEQ_K, "preadv2", 0, preadv2))
    program += [(JEQ_K, "deny", 0, number) for number in sorted(numbers.values())]
    program += [
        (RET_K, 0, 0, RET_ALLOW),
        ("label", "fcntl"),  # locks, leases and dnotify; the other commands stay usable
        (LD_ABS_W, 0, 0, ARG1),
        *[(JEQ_K, "deny", 0, command) for command in FCNTL_DENIED],
        (RET_K, 0, 0, RET_ALLOW),
        ("label", "preadv2"),
        (LD_ABS_W, 0, 0, ARG5),
        (AND_K, 0, 0, RWF_NOWAIT),
        (JEQ_K, "deny", 0, RWF_NOWAIT),
        (RET_K, 0, 0, RET_ALLOW),
        ("label", "socket"),  # packet sockets, and raw IPv4/IPv6 (netlink stays usable)
        (LD_ABS_W, 0, 0, ARG0),
        (JEQ_K, "deny", 0, AF_PACKET),
        (JEQ_K, "inet", 0, AF_INET),
        (JEQ_K, "inet", 0, AF_INET6),
        (RET_K, 0, 0, RET_ALLOW),
        ("label", "inet"),
        (LD_ABS_W, 0, 0, ARG1),
        (AND_K, 0, 0, 0xF),  # the type without SOCK_NONBLOCK / SOCK_CLOEXEC
        (JEQ_K, "deny", 0, SOCK_RAW),
        (RET_K, 0, 0, RET_ALLOW),
        ("label", "deny"),
        (RET_K, 0, 0, RET_EPERM),
    ]
    return _assemble(program)


def filter_fd() -> int:
    """A fresh readable fd holding the program (bwrap reads it to the end, once per run);
    the caller passes it to the child and closes it after the start."""
    fd = os.memfd_create("pipesmith-seccomp", 0)
    try:
        os.write(fd, filter_program())
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd
