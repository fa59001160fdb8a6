"""One contract and adversarial suite, run against every sandbox backend.

Network isolation is proven without sending a packet off this machine: a UDP connect()
only consults the routes, the interface list is read locally, and the TCP and Unix
services the sandbox must not reach are started here, on 127.0.0.1 and in tmp_path.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from pipesmith.sandbox.base import OUTPUT_CAP_BYTES, TRUNCATION_MARKER, ExecJob, Sandbox
from tests.conftest import make_inputs, write
from tests.sandbox.sandbox_backends import DockerEngine, docker_sandbox

PUBLIC_V4, PUBLIC_V6 = "1.1.1.1", "2606:4700:4700::1111"


@pytest.fixture(scope="session")
def docker_backend():
    engine = DockerEngine()
    host = engine.start()
    if host is None:
        pytest.skip(engine.skip_reason)
    try:
        sandbox = docker_sandbox(host)
        from docker.errors import ImageNotFound

        try:
            sandbox.client().images.get(sandbox.image)
        except ImageNotFound:
            engine.build_image()
        yield sandbox
    finally:
        engine.stop()


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def backend(request):
    if request.param == "local":
        from pipesmith.sandbox.local import LocalSandbox

        return LocalSandbox()  # refuses (SandboxUnavailable) without bubblewrap: never a skip
    return request.getfixturevalue("docker_backend")


@pytest.fixture
def workdir(tmp_path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


def run(sandbox, workdir: Path, code: str, name: str = "main.py", **limits):
    write(workdir / name, code)
    limits.setdefault("timeout_s", 60)
    return sandbox.run(ExecJob(command=[sys.executable, name], workdir=workdir, **limits))


def lines(result) -> dict:
    """The job's report: one JSON object on the last line of stdout."""
    return json.loads(result.stdout.strip().splitlines()[-1])


def host_processes_with(marker: str) -> list[str]:
    listing = subprocess.run(["ps", "-eo", "pid,stat,args"], capture_output=True, text=True)
    return [line for line in listing.stdout.splitlines()
            if marker in line and "ps -eo" not in line and " Z" not in line]


# --- the contract ---------------------------------------------------------------------------

def test_backend_satisfies_the_protocol(backend):
    assert isinstance(backend, Sandbox)


def test_ok_run_reports_output_files_and_resources(backend, workdir):
    result = run(backend, workdir, "open('out.txt', 'w').write('hi')\nprint('done')")
    assert result.status == "ok" and result.exit_code == 0 and result.signal is None
    assert result.stdout.strip() == "done" and not result.stdout_truncated
    assert result.files == ["main.py", "out.txt"] or "out.txt" in result.files
    assert (workdir / "out.txt").read_text() == "hi"
    assert result.wall_s > 0 and result.cpu_s > 0 and result.peak_mem_mb > 0
    assert result.backend == backend.name


def test_error_keeps_the_traceback_and_exit_code(backend, workdir):
    result = run(backend, workdir, "raise ValueError('boom')")
    assert result.status == "error" and result.exit_code == 1
    assert "ValueError: boom" in result.stderr


# --- network ----------------------------------------------------------------------------------

def test_no_route_to_public_addresses_and_only_loopback(backend, workdir):
    code = f"""
import errno, json, socket
report = {{}}
for family, address in ((socket.AF_INET, {PUBLIC_V4!r}), (socket.AF_INET6, {PUBLIC_V6!r})):
    s = socket.socket(family, socket.SOCK_DGRAM)
    try:
        s.connect((address, 53))  # sends nothing: only looks up a route
        report[address] = "connected"
    except OSError as e:
        report[address] = errno.errorcode.get(e.errno, str(e.errno))
report["interfaces"] = sorted(name for _, name in socket.if_nameindex())
print(json.dumps(report))
"""
    report = lines(run(backend, workdir, code))
    assert report[PUBLIC_V4] == "ENETUNREACH"
    assert report[PUBLIC_V6] in ("ENETUNREACH", "EADDRNOTAVAIL", "EAFNOSUPPORT")
    assert report["interfaces"] == ["lo"]


def test_host_loopback_service_is_unreachable(backend, workdir):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    port = server.getsockname()[1]
    code = f"""
import socket
s = socket.socket()
s.settimeout(5)
try:
    s.connect(("127.0.0.1", {port})); print("CONNECTED")
except OSError as e:
    print("FAILED", type(e).__name__)
"""
    try:
        result = run(backend, workdir, code)
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody ever reached the host's service
    finally:
        server.close()
    assert result.stdout.startswith("FAILED"), result.stdout


def test_host_unix_sockets_are_unreachable(backend, workdir, tmp_path):
    path = tmp_path / "host.sock"
    abstract = f"\0pipesmith-test-{uuid.uuid4().hex}"
    servers = []
    for address in (str(path), abstract):
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(address)
        server.listen(1)
        server.setblocking(False)
        servers.append(server)
    code = f"""
import json, socket
report = []
for address in ({str(path)!r}, {abstract!r}):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(address); report.append("CONNECTED")
    except OSError as e:
        report.append(type(e).__name__)
print(json.dumps(report))
"""
    try:
        report = json.loads(run(backend, workdir, code).stdout.strip())
        for server in servers:
            with pytest.raises(BlockingIOError):
                server.accept()
    finally:
        for server in servers:
            server.close()
    assert "CONNECTED" not in report and len(report) == 2


# --- filesystem and secrets ---------------------------------------------------------------------

def test_writes_outside_the_workdir_fail(backend, workdir, tmp_path):
    outside = tmp_path / "outside.txt"
    code = f"""
import json, os
report = {{}}
for target in ({str(outside)!r}, "/etc/pipesmith-escape", "/usr/pipesmith-escape",
               "/pipesmith-escape"):
    try:
        open(target, "w").write("escaped"); report[target] = "WROTE"
    except OSError as e:
        report[target] = type(e).__name__
os.symlink({str(tmp_path / "via-link.txt")!r}, "link")
try:
    open("link", "w").write("escaped"); report["link"] = "WROTE"
except OSError as e:
    report["link"] = type(e).__name__
print(json.dumps(report))
"""
    report = lines(run(backend, workdir, code))
    assert "WROTE" not in report.values(), report
    assert not outside.exists() and not (tmp_path / "via-link.txt").exists()
    assert not Path("/etc/pipesmith-escape").exists()


def test_secrets_outside_the_workdir_are_unreadable(backend, workdir, tmp_path, monkeypatch):
    home = tmp_path / "home"
    key = write(home / ".ssh" / "id_rsa", "PRIVATE-KEY-MATERIAL")
    secret = write(tmp_path / "secret.txt", "TOP-SECRET")
    (workdir / "planted").symlink_to(secret)  # a link planted in the workdir
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value")
    code = f"""
import json, os
report = {{"env": "OPENAI_API_KEY" in os.environ, "home": os.path.expanduser("~")}}
for name, path in (("key", {str(key)!r}), ("secret", {str(secret)!r}), ("planted", "planted"),
                   ("user_ssh", os.path.expanduser("~/.ssh/id_rsa"))):
    try:
        report[name] = open(path).read()
    except OSError as e:
        report[name] = type(e).__name__
report["environ"] = " ".join(f"{{k}}={{v}}" for k, v in os.environ.items())
print(json.dumps(report))
"""
    report = lines(run(backend, workdir, code))
    assert report["env"] is False and "sk-test-secret-value" not in report["environ"]
    assert report["home"] != str(home)
    for name in ("key", "secret", "planted", "user_ssh"):
        assert report[name] not in ("PRIVATE-KEY-MATERIAL", "TOP-SECRET"), (name, report)


def test_disk_cap_gives_disk_full_and_spares_the_host(backend, workdir):
    code = "with open('fill.bin', 'wb') as f:\n    for _ in range(50):\n" \
           "        f.write(b'x' * (1 << 20))\n"
    result = run(backend, workdir, code, disk_mb=20)
    assert result.status == "disk_full", (result.status, result.stderr[-500:])
    written = workdir / "fill.bin"
    assert not written.exists() or written.stat().st_size <= 20 << 20


# --- processes ----------------------------------------------------------------------------------

def test_fork_bomb_is_contained(backend, workdir):
    marker = f"bomb_{uuid.uuid4().hex[:8]}"
    host_ok: list[bool] = []
    stop = threading.Event()

    def host_keeps_working() -> None:
        while not stop.is_set():
            host_ok.append(subprocess.run(["true"], timeout=30).returncode == 0)
            stop.wait(0.2)

    watcher = threading.Thread(target=host_keeps_working)
    watcher.start()
    try:
        result = run(backend, workdir, "import os\nwhile True:\n    os.fork()\n",
                     name=f"{marker}.py", max_pids=64, timeout_s=30)
    finally:
        stop.set()
        watcher.join()
    assert result.status == "pids_exhausted", (result.status, result.stderr[-300:])
    assert host_ok and all(host_ok)
    assert host_processes_with(marker) == []


MEMORY_HOG = "chunks = [bytearray(b'x') * (50 << 20) for _ in range(6)]\nprint('held 300 MB')\n"


def test_memory_bomb_is_oom_and_passes_under_a_higher_limit(backend, workdir):
    starved = run(backend, workdir, MEMORY_HOG, memory_mb=200)
    assert starved.status == "oom", (starved.status, starved.stderr[-300:])
    fed = run(backend, workdir, MEMORY_HOG, memory_mb=1024)
    assert fed.status == "ok" and "held 300 MB" in fed.stdout


def test_cpu_spin_is_cpu_timeout(backend, workdir):
    result = run(backend, workdir, "while True:\n    pass\n", cpu_time_s=1, timeout_s=60)
    assert result.status == "cpu_timeout" and result.signal == signal.SIGXCPU


def test_sleep_forever_is_timeout(backend, workdir):
    result = run(backend, workdir, "import time\ntime.sleep(3600)\n", timeout_s=1)
    assert result.status == "timeout" and result.signal == signal.SIGTERM


def test_sigterm_trap_is_killed_after_the_grace_period(backend, workdir):
    code = ("import signal, time\n"
            "signal.signal(signal.SIGTERM, lambda *a: print('ignoring SIGTERM', flush=True))\n"
            "while True:\n    time.sleep(0.05)\n")
    result = run(backend, workdir, code, timeout_s=1, kill_grace_s=1)
    assert result.status == "timeout" and result.signal == signal.SIGKILL
    assert "ignoring SIGTERM" in result.stdout  # it got the SIGTERM, and ignored it
    assert "grace" in result.detail and result.wall_s >= 2


def test_background_child_and_pipe_holding_grandchild_are_gone(backend, workdir):
    marker = f"linger_{uuid.uuid4().hex[:8]}"
    code = f"""
import os, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)  # {marker}"],
                 start_new_session=True, stdout=subprocess.DEVNULL)
if os.fork() == 0:  # a grandchild in its own session, holding stdout open
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c",
                 "import time; time.sleep(120)  # {marker}"])
    os._exit(0)
print("parent done", flush=True)
"""
    result = run(backend, workdir, code, timeout_s=60)
    assert result.status == "ok" and "parent done" in result.stdout
    assert host_processes_with(marker) == []


def test_proc_shows_only_the_sandbox_processes(backend, workdir):
    code = """
import json, os
pids = [p for p in os.listdir("/proc") if p.isdigit()]
commands = []
for pid in pids:
    try:
        commands.append(open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\\0", b" ").decode())
    except OSError:
        pass
print(json.dumps({"pids": pids, "commands": commands}))
"""
    report = lines(run(backend, workdir, code))
    assert len(report["pids"]) <= 3, report  # a wrapper or init, the job, nothing else
    this_test = Path("/proc/self/cmdline").read_bytes().replace(b"\0", b" ").decode()
    assert this_test not in report["commands"]


# --- output ---------------------------------------------------------------------------------

def test_100_mb_of_stdout_is_capped_and_the_run_completes(backend, workdir):
    code = ("import sys\nchunk = b'y' * (1 << 20)\nfor _ in range(100):\n"
            "    sys.stdout.buffer.write(chunk)\nsys.stdout.buffer.write(b'THE END')\n")
    result = run(backend, workdir, code)
    assert result.status == "ok" and result.stdout_truncated
    assert TRUNCATION_MARKER in result.stdout and result.stdout.endswith("THE END")
    assert len(result.stdout.encode()) <= OUTPUT_CAP_BYTES + len(TRUNCATION_MARKER)


def test_invalid_utf8_is_replaced(backend, workdir):
    code = "import sys\nsys.stdout.buffer.write(b'ok \\xff\\xfe end')\n" \
           "sys.stderr.buffer.write(b'\\xc3(')\n"
    result = run(backend, workdir, code)
    assert result.status == "ok"
    assert result.stdout == "ok \ufffd\ufffd end" and "\ufffd" in result.stderr


def test_printed_accuracy_without_metrics_is_not_a_success(backend, tmp_path):
    from pipesmith.agents.executor import Executor
    from pipesmith.agents.schemas import Candidate

    inputs, _ = make_inputs(tmp_path)
    code = "import sys\nprint('accuracy=0.99')\nsys.exit(0)\n"
    candidate = Candidate(id="a1", name="liar", phase="draft", code=code)
    result, metrics = Executor(backend).run(candidate, inputs, tmp_path / "attempt",
                                            timeout_s=60)
    assert metrics is None and result.status != "ok"
    assert "accuracy=0.99" in result.stdout


def test_a_real_candidate_trains_through_the_harness(backend, tmp_path):
    from pipesmith.agents.executor import Executor
    from pipesmith.agents.schemas import Candidate

    inputs, _ = make_inputs(tmp_path)
    code = ("from sklearn.linear_model import LogisticRegression\n"
            "def build_pipeline(task):\n    return LogisticRegression(max_iter=500)\n")
    candidate = Candidate(id="a1", name="logreg", phase="draft", code=code)
    result, metrics = Executor(backend).run(candidate, inputs, tmp_path / "attempt",
                                            timeout_s=120)
    assert result.status == "ok", result.stderr[-800:]
    assert metrics is not None and metrics["score"] > 0.8
    assert "predictions.npz" in result.files  # what the last fold job returned


def test_an_hdf5_file_is_written_without_the_file_lock_the_filter_denies(backend, workdir):
    """Keras' checkpoints and h5py files (HDF5 locks each file it opens) work in a job
    although file locks are denied: the job's environment turns HDF5's locking off."""
    pytest.importorskip("h5py")
    code = ("import h5py\nwith h5py.File('w.h5', 'w') as f:\n    f['a'] = [1, 2, 3]\n"
            "with h5py.File('w.h5', 'r') as f:\n    print(list(f['a'][:]))\n")
    result = run(backend, workdir, code)
    assert result.ok, result.stderr[-1500:]
    assert result.stdout.strip() == "[np.int64(1), np.int64(2), np.int64(3)]"


def test_the_channels_between_jobs_are_closed(backend, workdir):
    """Issue #26, 4 and 5: record locks on a shared read-only file, page-cache residency and
    file events reach from one job to another; each primitive fails with EPERM in a job of
    either backend (Docker: the filter is stacked on its own profile), the ordinary calls
    beside them still work, and the data sets the libraries bundle are not there."""
    from pipesmith.sandbox.seccomp import native_arch
    from tests.sandbox.test_redteam import CHANNELS

    result = run(backend, workdir, CHANNELS)
    assert result.ok, result.stderr[-2000:]
    seen = lines(result)
    assert backend.seccomp == (native_arch() is not None)
    if backend.seccomp:
        denied = ("flock", "lockf", "ofd_lock", "dnotify", "fadvise", "readahead", "mincore",
                  "cachestat", "preadv2_nowait", "inotify_init1", "io_uring_setup")
        assert {name: seen[name] for name in denied} == dict.fromkeys(denied, "EPERM")
    assert seen["fcntl_getfl"] == seen["pread"] == "allowed" and seen["sqlite_memory"] == 1
    assert seen["sklearn_data"] == []
