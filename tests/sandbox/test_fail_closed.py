"""Without bubblewrap the local backend refuses to run generated code (one line, exit 2,
nothing written) unless the user opts in with `--sandbox unsafe-local`. The adversarial
programs of the contract suite are tried on that fallback path: none of them runs."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.sandbox.test_sandbox_contract import host_processes_with

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def no_bwrap_path(tmp_path) -> str:
    """A PATH with the fallback's tools and no bwrap, as on a machine without bubblewrap."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("unshare", "sh", "prlimit", "setpriv"):
        found = shutil.which(tool)
        if found:
            (folder / tool).symlink_to(found)
    return str(folder)


def pipesmith(*args: str, path: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipesmith.cli", *args], cwd=cwd,
                          env={**os.environ, "PATH": path}, capture_output=True, text=True,
                          timeout=180)


def adversaries(host: Path, marker: str = "") -> dict[str, str]:
    """Programs that would harm the host if they ran unisolated; each leaves a trace in
    `host` (and a process tagged `marker`) when it runs."""
    return {
        "read_secrets": f"open({str(host / 'shadow')!r}, 'w').write(open('/etc/shadow').read())",
        "write_outside": f"open({str(host / 'outside.txt')!r}, 'w').write('escaped')",
        "fill_the_disk": f"open({str(host / 'big')!r}, 'wb').write(b'x' * (64 << 20))",
        "host_unix_socket": ("import socket\ns = socket.socket(socket.AF_UNIX)\n"
                             f"s.connect({str(host / 'engine.sock')!r}); s.send(b'hello')"),
        "leave_a_daemon": ("import os, time\nif os.fork() == 0:\n    os.setsid()\n"
                           "    if os.fork() == 0:\n"
                           "        import sys\n"
                           "        os.execv(sys.executable, [sys.executable, '-c', "
                           f"'import time; time.sleep(300)  # {marker}'])\n"
                           "    os._exit(0)\n"
                           f"open({str(host / 'daemon')!r}, 'w').write('{marker}')\n"),
    }


@pytest.mark.parametrize("name", list(adversaries(Path("/x"))))
def test_adversaries_never_run_without_bubblewrap(tmp_path, no_bwrap_path, name):
    host = tmp_path / "host"
    host.mkdir()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(host / "engine.sock"))
    listener.listen(1)
    listener.setblocking(False)
    program = tmp_path / f"{name}.py"
    marker = f"daemon_{uuid.uuid4().hex[:8]}"
    program.write_text(adversaries(host, marker)[name])
    done = pipesmith("sandbox", "exec", str(program), "--timeout", "20", path=no_bwrap_path)
    assert done.returncode == 2, done.stderr
    assert "apt-get install bubblewrap" in done.stderr and "unsafe-local" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert sorted(p.name for p in host.iterdir()) == ["engine.sock"]  # no trace of any kind
    with pytest.raises(BlockingIOError):
        listener.accept()
    assert host_processes_with(marker) == []


def test_every_command_refuses_before_writing(tmp_path, no_bwrap_path):
    program = tmp_path / "p.py"
    program.write_text("print('ran')\n")
    out = tmp_path / "out"
    for args in (["run", "--dataset", "iris", "--out", str(out), "--kb", str(tmp_path / "kb")],
                 ["repair", str(program), "--out", str(out), "--kb", str(tmp_path / "kb")],
                 ["validate", str(program), "--dataset", "iris"]):
        done = pipesmith(*args, path=no_bwrap_path)
        assert done.returncode == 2, (args, done.stderr)
        assert "apt-get install bubblewrap" in done.stderr, args
        assert not out.exists() and not (tmp_path / "kb").exists(), args


def test_unsafe_local_is_an_explicit_opt_in(tmp_path, no_bwrap_path):
    program = tmp_path / "p.py"
    program.write_text("print('ran unisolated')\n")
    done = pipesmith("sandbox", "exec", str(program), "--sandbox", "unsafe-local",
                     path=no_bwrap_path)
    assert done.returncode == 0, done.stderr
    assert "ran unisolated" in done.stdout
    assert "weak_isolation" in done.stderr  # and it says what it gave up


def test_the_refusal_is_an_input_error_with_one_line(monkeypatch):
    from pipesmith.errors import InputError
    from pipesmith.sandbox import local

    monkeypatch.setattr(local, "bwrap_available", lambda: False)
    with pytest.raises(InputError) as refused:
        local.LocalSandbox()
    assert "\n" not in str(refused.value)
    assert local.LocalSandbox(allow_unsafe=True).isolation in ("unshare", "none")
