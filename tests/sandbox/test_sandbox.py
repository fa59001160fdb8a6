"""The local sandbox, on real processes: statuses, limits, isolation, no leftovers."""

from __future__ import annotations

import time
import uuid

import pytest

from pipesmith.sandbox.base import OUTPUT_CAP_BYTES, TRUNCATION_MARKER, ExecJob, Sandbox
from tests.conftest import write
from tests.sandbox.test_sandbox_contract import host_processes_with


def job(tmp_path, python, code: str, **kwargs) -> ExecJob:
    write(tmp_path / "main.py", code)
    return ExecJob(command=[python, "main.py"], workdir=tmp_path, **kwargs)


def test_backend_satisfies_the_protocol(sandbox):
    assert isinstance(sandbox, Sandbox)


def test_ok_run_reports_output_files_and_resources(sandbox, tmp_path, python):
    result = sandbox.run(job(tmp_path, python, "open('out.txt','w').write('hi'); print('done')"))
    assert result.status == "ok" and result.exit_code == 0
    assert result.stdout.strip() == "done"
    assert "out.txt" in result.files
    assert result.wall_s > 0 and result.peak_mem_mb > 1


def test_error_keeps_the_traceback(sandbox, tmp_path, python):
    result = sandbox.run(job(tmp_path, python, "raise ValueError('boom')"))
    assert result.status == "error" and result.exit_code == 1
    assert "ValueError: boom" in result.stderr


def test_timeout_kills_the_whole_process_group(sandbox, tmp_path, python):
    marker = f"child_{uuid.uuid4().hex[:8]}"  # pids inside a PID namespace mean nothing here
    code = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c',\n"
        f"                          'import time; time.sleep(60)  # {marker}'])\n"
        "time.sleep(60)\n"
    )
    started = time.monotonic()
    result = sandbox.run(job(tmp_path, python, code, timeout_s=2))
    assert result.status == "timeout"
    assert time.monotonic() - started < 10
    assert host_processes_with(marker) == []


def test_cpu_limit(sandbox, tmp_path, python):
    result = sandbox.run(job(tmp_path, python, "while True: pass", timeout_s=30, cpu_time_s=1))
    assert result.status == "cpu_timeout"


def test_output_is_capped_and_invalid_utf8_replaced(sandbox, tmp_path, python):
    code = ("import sys\nsys.stdout.buffer.write(b'\\xff' + b'x' * (3 << 20))\n")
    result = sandbox.run(job(tmp_path, python, code))
    assert TRUNCATION_MARKER in result.stdout
    assert len(result.stdout.encode()) < OUTPUT_CAP_BYTES + 1000
    assert result.stdout.startswith("\ufffd")


def test_pipe_drain_reads_both_pipes_to_eof_and_cuts_off_a_surviving_writer():
    """The supervisor drains stdout and stderr itself (no reader threads): every byte up to
    EOF arrives, capped, and a pipe whose writer outlives the job is cut off, not waited on."""
    import os

    from pipesmith.sandbox.capture import PipeDrain

    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    drain = PipeDrain((out_r, err_r), cap=1000)
    os.write(out_w, b"a" * 600 + b"b" * 600)
    os.write(err_w, b"error\n")
    os.close(out_w)  # stdout reaches EOF; stderr's writer "survives"
    started = time.monotonic()
    stdout, stderr = drain.finish(timeout_s=0.3)
    assert 0.3 <= time.monotonic() - started < 2
    assert stdout.truncated and stdout.text().startswith("a" * 500)
    assert stdout.text().endswith("b" * 500)
    assert stderr.text().startswith("error\n") and "stopped reading" in stderr.text()
    assert not drain.open  # both read ends closed
    os.close(err_w)


def test_environment_is_scrubbed(sandbox, tmp_path, python, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    result = sandbox.run(job(tmp_path, python, "import os; print(sorted(os.environ))"))
    assert "OPENAI_API_KEY" not in result.stdout
    assert "HOME" in result.stdout


@pytest.mark.skipif(not __import__("shutil").which("unshare"), reason="needs unshare")
def test_no_network(sandbox, tmp_path, python):
    # A UDP connect() sends nothing; it only asks the kernel for a route.
    code = (
        "import socket\n"
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        "try:\n"
        "    s.connect(('192.0.2.1', 9)); print('ROUTE')\n"
        "except OSError as e:\n"
        "    print('NOROUTE', e.errno)\n"
        "print(sorted(n for _, n in socket.if_nameindex()))\n"
    )
    if not sandbox.isolate_network:
        pytest.skip("network namespaces unavailable here")
    result = sandbox.run(job(tmp_path, python, code))
    assert "NOROUTE" in result.stdout
    assert "['lo']" in result.stdout


def test_missing_command_is_infra_or_error(sandbox, tmp_path):
    result = sandbox.run(ExecJob(command=["/no/such/binary"], workdir=tmp_path))
    assert result.status in ("infra", "error")
    assert result.status != "ok"


def test_memory_limit_kills_a_process_that_grows_past_it(sandbox, tmp_path, python):
    if not sandbox.limit_memory:
        pytest.skip("the memory cgroup controller is not writable here")
    code = "chunks = []\nwhile True:\n    chunks.append(bytearray(50 << 20))\n"
    result = sandbox.run(job(tmp_path, python, code, memory_mb=300, timeout_s=60))
    assert result.status == "oom"
    assert result.peak_mem_mb < 400


def test_memory_limit_leaves_a_normal_run_alone(sandbox, tmp_path, python):
    code = "import numpy, sklearn.ensemble\nprint(len(bytearray(100 << 20)))\n"
    result = sandbox.run(job(tmp_path, python, code, memory_mb=512))
    assert result.status == "ok", result.stderr


def test_unshare_fallback_still_runs_without_network(tmp_path, python):
    """Where bubblewrap is missing: no network, limits and cleanup, but the host
    filesystem stays visible (docs/sandbox.md)."""
    from pipesmith.sandbox.local import LocalSandbox, network_namespace_available

    if not network_namespace_available():
        pytest.skip("network namespaces unavailable here")
    fallback = LocalSandbox(isolation="unshare", allow_unsafe=True)
    code = ("import socket\nprint(sorted(n for _, n in socket.if_nameindex()))\n"
            "open('out.txt', 'w').write('x')\n")
    result = fallback.run(job(tmp_path, python, code))
    assert result.status == "ok" and result.stdout.strip() == "['lo']"
    assert "out.txt" in result.files
    timed = fallback.run(job(tmp_path, python, "import time\ntime.sleep(60)", timeout_s=1))
    assert timed.status == "timeout"


def test_cgroup_setup_failure_is_infra(sandbox, tmp_path, python, monkeypatch):
    if not sandbox.limit_pids:
        pytest.skip("the pids cgroup controller is not writable here")
    from pipesmith.sandbox import cgroups

    monkeypatch.setattr(cgroups, "new_name", lambda: "no-such-parent/pipesmith-test")
    result = sandbox.run(job(tmp_path, python, "print('never')"))
    assert result.status == "infra" and "cgroups" in result.detail


def test_filling_the_disk_cap_is_disk_full_not_oom(sandbox, tmp_path, python):
    """The size-capped workdir is a tmpfs whose pages count as the job's memory: a job that
    fills it is `disk_full` (the memory limit leaves room for the cap), never `oom`."""
    if not (sandbox.cap_disk and sandbox.limit_memory):
        pytest.skip("needs the tmpfs disk cap and the memory cgroup (root)")
    code = ("chunk = b'x' * (8 << 20)\n"
            "with open('big', 'wb') as out:\n"
            "    while True:\n"
            "        out.write(chunk)\n")
    result = sandbox.run(job(tmp_path, python, code, memory_mb=128, disk_mb=192, timeout_s=60))
    assert result.status == "disk_full", (result.status, result.stderr[-300:])
    small = sandbox.run(job(tmp_path, python, "print(len(bytearray(64 << 20)))",
                            memory_mb=128, disk_mb=192))
    assert small.status == "ok"  # the job keeps its own memory allowance


def test_seccomp_denies_kernel_attack_surface(sandbox, tmp_path, python):
    """ptrace(TRACEME) would succeed without the filter; the rest are denied too."""
    if not sandbox.seccomp:
        pytest.skip("the seccomp filter has tables for x86_64 and aarch64 only")
    from pipesmith.sandbox.seccomp import ARCHES, native_arch

    numbers = ARCHES[native_arch()].numbers
    code = (
        "import ctypes, socket\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "def errno(result):\n"
        "    return ctypes.get_errno() if result == -1 else 0\n"
        "found = {'ptrace': errno(libc.ptrace(0, 0, 0, 0)),\n"
        f"         'keyctl': errno(libc.syscall({numbers['keyctl']}, 0, 0, 0, 0)),\n"
        f"         'bpf': errno(libc.syscall({numbers['bpf']}, 0, 0, 0)),\n"
        "         'unshare': errno(libc.unshare(0x40000000))}\n"
        "try:\n"
        "    socket.socket(socket.AF_INET, socket.SOCK_RAW, 1)\n"
        "    found['raw'] = 0\n"
        "except OSError as exc:\n"
        "    found['raw'] = exc.errno\n"
        "socket.socket().close()  # ordinary sockets still work\n"
        "print(found)\n"
    )
    result = sandbox.run(job(tmp_path, python, code))
    assert result.status == "ok", result.stderr
    assert result.stdout.strip() == str({"ptrace": 1, "keyctl": 1, "bpf": 1, "unshare": 1,
                                         "raw": 1})
