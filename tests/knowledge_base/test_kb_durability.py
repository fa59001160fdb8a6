"""The store under abuse, on real embedded Chroma in real processes: a writer killed with
SIGKILL, a torn last line, several writers at once, a damaged index."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pipesmith.knowledge_base.store import KnowledgeBase
from tests.knowledge_base.kb_records import run

ROOT = Path(__file__).resolve().parents[2]

WRITER = """
import sys
from pipesmith.knowledge_base.store import KnowledgeBase
from tests.knowledge_base.kb_records import repair, run
kb, name, count = KnowledgeBase(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for i in range(count):
    kb.add_repairs([repair(f"{name}-{i}", "sig-a", "impute", fixed=i % 2 == 0)])
    kb.add_run(run(f"{name}-{i}", rows=100 + i, dataset=name, padding=int(sys.argv[4])))
"""


def writer(folder: Path, name: str, count: int, padding: int = 0) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(folder), name, str(count),
                             str(padding)], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def complete_lines(log: Path) -> list[dict]:
    data = log.read_bytes()
    return [json.loads(line) for line in data[:data.rfind(b"\n") + 1].splitlines()]


def test_a_writer_killed_mid_write_loses_nothing_complete(tmp_path):
    # Records of 1 MB each, written until SIGKILL lands somewhere in the loop.
    child = writer(tmp_path, "w", 10_000, padding=1_000_000)
    log = tmp_path / "records.jsonl"
    deadline = time.monotonic() + 120
    while (not log.exists() or log.stat().st_size < 4_000_000) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    lines = complete_lines(log)  # every complete line is a whole record
    written_runs = [r["run_id"] for r in lines if r["kind"] == "run"]
    assert len(written_runs) >= 3

    kb = KnowledgeBase(tmp_path)
    assert [r.run_id for r in kb.records()] == written_runs
    # The probe indexes what the log holds and the index missed (killed in between).
    assert kb.index.count() >= len(written_runs)
    found = kb.search("classification on w", k=len(written_runs) + 5)
    assert sorted(r.run_id for r, _ in found) == sorted(written_runs)


def test_a_torn_last_line_is_ignored_and_ended_by_the_next_writer(tmp_path):
    kb = KnowledgeBase(tmp_path)
    kb.add_run(run("r1"))
    kb.add_run(run("r2"))
    log = tmp_path / "records.jsonl"
    data = log.read_bytes()
    second = data.index(b"\n") + 1
    log.write_bytes(data[:second + (len(data) - second) // 2])  # a crash mid-record
    fresh = KnowledgeBase(tmp_path)
    assert [r.run_id for r in fresh.records()] == ["r1"]
    fresh.add_run(run("r3"))
    again = KnowledgeBase(tmp_path)
    assert [r.run_id for r in again.records()] == ["r1", "r3"]
    assert len(log.read_bytes().splitlines()) == 3  # the torn line stays on its own line
    found = again.similar_runs("classification on d", "classification", k=5)
    assert sorted(r.run_id for r in found) == ["r1", "r3"]


def test_concurrent_writers_do_not_corrupt_the_store(tmp_path):
    writers = [writer(tmp_path, f"p{n}", 8) for n in range(4)]
    for child in writers:
        _, stderr = child.communicate(timeout=300)
        assert child.returncode == 0, stderr[-2000:]
    lines = complete_lines(tmp_path / "records.jsonl")
    assert len(lines) == 64  # every line parses: no interleaved records
    kb = KnowledgeBase(tmp_path)
    runs = {r.run_id for r in kb.records()}
    assert runs == {f"p{n}-{i}" for n in range(4) for i in range(8)}
    assert kb.index.count() == 32
    assert kb.index.ids() == runs
    rates = kb.fix_rates("sig-a")
    assert [(r.action, r.fixed, r.total) for r in rates] == [("impute", 16, 32)]
    # Chroma's HNSW search is approximate: a query may miss a record the index holds (the
    # ids above prove it holds all 32); what it returns must be records of these runs.
    found = {r.run_id for r, _ in kb.search("classification on p2", k=32,
                                             task_type="classification")}
    assert found <= runs and len(found) >= 28


def test_a_damaged_index_is_detected_and_rebuilt_from_the_log(tmp_path):
    kb = KnowledgeBase(tmp_path)
    for i in range(3):
        kb.add_run(run(f"r{i}", rows=100 * (i + 1)))
    del kb
    sqlite = tmp_path / "chroma" / "chroma.sqlite3"
    sqlite.write_bytes(b"this is not a database" * 100)
    code = ("import sys; from pipesmith.knowledge_base.store import KnowledgeBase as K; "
            "kb = K(sys.argv[1]); hits = kb.search('classification', k=5); "
            "print(kb.probe_result); print(sorted(r.run_id for r, _ in hits)); "
            "print(kb.index.count())")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    probe, hits, count = done.stdout.strip().splitlines()[-3:]  # after the log lines
    assert probe.startswith("rebuilt 3 records")
    assert hits == "['r0', 'r1', 'r2']" and count == "3"
    assert list(tmp_path.glob("chroma.damaged-*"))  # kept aside, not deleted


def test_an_index_that_lost_records_is_completed_on_open(tmp_path):
    kb = KnowledgeBase(tmp_path)
    kb.add_run(run("r1"))
    kb.log.append([run("r2")])  # as if killed between the log write and the index write
    code = ("import sys; from pipesmith.knowledge_base.store import KnowledgeBase as K; "
            "kb = K(sys.argv[1]); kb.index; print(kb.probe_result, kb.index.count())")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.stdout.strip().splitlines()[-1] == "indexed 1 missing records 2", done.stderr
