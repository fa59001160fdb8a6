"""Server mode against a real `chroma run` started here, on 127.0.0.1 and a free port."""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from pipesmith.knowledge_base.store import KnowledgeBase
from tests.knowledge_base.kb_records import repair, run

CHROMA = Path(sys.executable).with_name("chroma")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def socket_addresses(pid: int) -> list[tuple[str, str]]:
    """(local, remote) IP addresses of every TCP/UDP socket the process holds (Linux /proc)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6", "udp", "udp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[9] in inodes:
                found.append((_ip(fields[1]), _ip(fields[2])))
    return found


def _ip(hex_address: str) -> str:
    raw = bytes.fromhex(hex_address.split(":")[0])
    # /proc stores each 32-bit word in host (little-endian) order
    ordered = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    return str(ipaddress.ip_address(ordered))


@pytest.fixture
def chroma_server(tmp_path):
    if not CHROMA.exists():
        pytest.skip("the chroma command is not installed next to this Python")
    port = free_port()
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    server = subprocess.Popen([str(CHROMA), "run", "--path", str(tmp_path / "server"),
                               "--port", str(port), "--host", "127.0.0.1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1).read()
            break
        except OSError:
            time.sleep(0.2)
    else:
        server.kill()
        pytest.fail("chroma run did not answer within 60 s")
    yield url, server.pid
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def test_server_mode_indexes_and_retrieves_through_a_real_chroma_server(tmp_path, chroma_server):
    url, pid = chroma_server
    kb = KnowledgeBase(tmp_path / "kb", url=url)
    kb.add_run(run("small", rows=150, dataset="iris"))
    kb.add_run(run("large", rows=90_000, columns=40, categorical=20, dataset="census"))
    kb.add_run(run("reg", task_type="regression", rows=400, n_classes=None, dataset="diabetes"))
    kb.add_repairs([repair("small", "sig", "impute", True)])
    assert not (tmp_path / "kb" / "chroma").exists()  # the index lives on the server
    assert kb.index.count() == 3

    # Another client, another process: the server's index answers for it.
    code = ("import sys; from pipesmith.knowledge_base.store import KnowledgeBase as K; "
            "kb = K(sys.argv[1], url=sys.argv[2]); "
            "print([r.run_id for r in kb.warm_start('classification on iris', "
            "'classification', {'rows': 160, 'columns': 10, 'numeric': 10, "
            "'n_classes': 2, 'minority_share': 0.5})]); print(kb.probe_result)")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "kb"), url],
                          capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    found, probe = done.stdout.strip().splitlines()[-2:]
    assert found == "['small', 'large']", done.stderr[-2000:]
    assert probe == "ok"

    # Rebuild drops the server's collection and re-indexes from the local log.
    assert kb.rebuild() == 3
    assert kb.index.ids() == {"small", "large", "reg"}

    # The server listens on loopback only and talks to nobody else.
    addresses = socket_addresses(pid)
    assert addresses, "the server holds no sockets?"
    for local, remote in addresses:
        assert ipaddress.ip_address(local).is_loopback, (local, remote)
        assert remote in ("0.0.0.0", "::") or ipaddress.ip_address(remote).is_loopback, remote
