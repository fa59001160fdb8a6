"""`pipesmith kb ...` as users run it: real processes, real exit codes, JSON that parses."""

from __future__ import annotations

import json

import pytest

from pipesmith.knowledge_base.store import KnowledgeBase
from tests.knowledge_base.kb_records import repair, run
from tests.pipesmith.cli.test_cli import pipesmith


@pytest.fixture
def filled(tmp_path):
    folder = tmp_path / "kb"
    kb = KnowledgeBase(folder)
    kb.add_run(run("20260101-iris-aaaa", rows=150, dataset="iris",
                   text="classify iris species from petal sizes"))
    kb.add_run(run("20260101-house-bbbb", task_type="regression", dataset="houses",
                   n_classes=None, text="predict house prices from area and rooms"))
    kb.add_run(run("20260101-bad-cccc", dataset="broken", outcome="failed"))
    kb.add_repairs([repair("20260101-iris-aaaa", "sig", "impute", True),
                    repair("20260101-iris-aaaa", "sig", "scale_features", False)])
    return folder


def test_stats_json_counts_runs_and_repairs(filled):
    done = pipesmith("kb", "stats", "--kb", str(filled), "--json")
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout)
    assert (stats["runs"], stats["failed_runs"], stats["repairs"], stats["repairs_fixed"]) == \
        (3, 1, 2, 1)
    assert stats["runs_by_task"] == {"classification": {"succeeded": 1, "failed": 1},
                                     "regression": {"succeeded": 1}}
    human = pipesmith("kb", "stats", "--kb", str(filled))
    assert "3 runs (1 failed), 2 repairs" in human.stdout


def test_search_json_is_ranked_with_task_text_and_dataset(filled):
    done = pipesmith("kb", "search", "house prices", "--kb", str(filled), "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert [r["rank"] for r in found] == [1, 2, 3]
    assert found[0]["run_id"] == "20260101-house-bbbb"
    assert found[0]["task_text"] == "predict house prices from area and rooms"
    assert found[0]["dataset"] == "houses"
    assert found[0]["distance"] <= found[1]["distance"] <= found[2]["distance"]
    only = json.loads(pipesmith("kb", "search", "house prices", "--kb", str(filled),
                                "--task", "classification", "--outcome", "succeeded",
                                "--json").stdout)
    assert [r["dataset"] for r in only] == ["iris"]


def test_show_a_run_by_prefix_with_its_repairs(filled):
    done = pipesmith("kb", "show", "20260101-iris", "--kb", str(filled), "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["run"]["dataset"] == "iris"
    assert [r["action"] for r in shown["repairs"]] == ["impute", "scale_features"]
    ambiguous = pipesmith("kb", "show", "20260101", "--kb", str(filled))
    assert ambiguous.returncode == 2 and "matches 3 runs" in ambiguous.stderr
    missing = pipesmith("kb", "show", "nope", "--kb", str(filled))
    assert missing.returncode == 2 and missing.stderr.startswith("error: no run 'nope'")


def test_export_import_round_trip_and_rebuild(filled, tmp_path):
    dump = tmp_path / "kb.jsonl"
    exported = json.loads(pipesmith("kb", "export", str(dump), "--kb", str(filled),
                                    "--json").stdout)
    assert exported["exported"] == 5
    other = tmp_path / "other"
    first = json.loads(pipesmith("kb", "import", str(dump), "--kb", str(other), "--json").stdout)
    assert first == {"runs_added": 3, "repairs_added": 2}
    again = json.loads(pipesmith("kb", "import", str(dump), "--kb", str(other), "--json").stdout)
    assert again == {"runs_added": 0, "repairs_added": 0}  # nothing twice
    rebuilt = json.loads(pipesmith("kb", "rebuild", "--kb", str(other), "--json").stdout)
    assert rebuilt == {"reindexed": 3}
    found = json.loads(pipesmith("kb", "search", "iris petal", "--kb", str(other),
                                 "--json").stdout)
    assert found[0]["dataset"] == "iris"
    bad = pipesmith("kb", "import", str(tmp_path / "missing.jsonl"), "--kb", str(other))
    assert bad.returncode == 2 and bad.stderr.strip().startswith("error: file not found")


def test_every_kb_command_takes_kb_and_json():
    for command in ("stats", "search", "show", "rebuild", "export", "import", "seed"):
        done = pipesmith("kb", command, "--help")
        assert done.returncode == 0
        assert "--kb" in done.stdout and "--json" in done.stdout, command
    for command in ("run", "repair", "validate"):
        assert "--kb" in pipesmith(command, "--help").stdout, command


@pytest.mark.slow
def test_seed_fills_an_empty_store_and_skips_what_it_has(tmp_path, monkeypatch):
    # three folds (diabetes would get five): the test is about what seed records and skips
    monkeypatch.setenv("PIPESMITH_CV_FOLDS", "3")
    folder = tmp_path / "kb"
    done = pipesmith("kb", "seed", "--kb", str(folder), "--datasets", "iris,diabetes",
                     "--budget", "60", "--candidates", "1", "--json", timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    seeded = json.loads(done.stdout)
    assert [(a["dataset"], a["task_type"]) for a in seeded["added"]] == [
        ("iris", "classification"), ("diabetes", "regression"), ("iris", "clustering")]
    assert seeded["stats"]["runs"] == 3
    assert "[1/3] iris classification" in done.stderr  # progress
    kb = KnowledgeBase(folder)
    for added in seeded["added"]:  # each run recorded; failures flagged, successes with code
        record = kb.get(added["run_id"])
        assert record.failed == (added["status"] != "succeeded")
        assert bool(record.final_code) == (added["status"] == "succeeded")
    assert any(a["status"] == "succeeded" for a in seeded["added"])
    again = json.loads(pipesmith("kb", "seed", "--kb", str(folder), "--datasets",
                                 "iris,diabetes", "--json").stdout)
    assert again["added"] == [] and len(again["skipped"]) == 3
    bad = pipesmith("kb", "seed", "--kb", str(folder), "--datasets", "mnist")
    assert bad.returncode == 2 and "unknown seed dataset(s) mnist" in bad.stderr


def test_repair_with_kb_records_each_repair_and_its_fix_rate(tmp_path):
    from tests.agents.repair.test_repair_loop import SCRIPT

    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "train.py").write_text(SCRIPT)
    rows = ["rooms,area,price"] + [f"{r},{30 + 7 * r},{10 * r + 0.5}" for r in range(1, 60)]
    (folder / "houses.csv").write_text("\n".join(rows) + "\n")
    done = pipesmith("repair", str(folder / "train.py"), "--data", str(folder / "houses.csv"),
                     "--target", "price", "--out", str(tmp_path / "out"),
                     "--kb", str(tmp_path / "kb"))
    assert done.returncode == 0, done.stderr
    kb = KnowledgeBase(tmp_path / "kb")
    records = kb.repairs()
    assert [r.taxonomy.split(".")[1] for r in records] == ["invalid_parameter", "missing_column"]
    assert all(r.fixed for r in records) and records[-1].succeeded
    assert all(r.diff.startswith("--- a1/train.py") or r.diff.startswith("--- a2/train.py")
               for r in records)
    assert kb.fixes_for(records[0].signature) == [records[0].action]


def test_kb_commands_on_bad_paths_are_one_line_and_create_nothing(filled, tmp_path):
    """A read-only command never creates the store; `export` checks its target before it
    opens the store; `import` of a file with no records writes nothing."""
    a_file = tmp_path / "a-file"
    a_file.write_text("not records\n")
    missing = tmp_path / "missing-kb"
    cases = [
        ("export", str(a_file / "sub" / "out.jsonl"), "--kb", str(missing)),
        ("export", str(a_file / "sub" / "out.jsonl"), "--kb", str(filled)),
        ("export", str(tmp_path / "out.jsonl"), "--kb", str(missing)),
        ("stats", "--kb", str(missing)),
        ("search", "iris", "--kb", str(missing)),
        ("show", "x", "--kb", str(missing)),
        ("rebuild", "--kb", str(missing)),
        ("stats", "--kb", str(a_file)),
        ("import", str(a_file), "--kb", str(missing)),
    ]
    before = sorted(p.name for p in tmp_path.iterdir())
    log_before = (filled / "records.jsonl").read_bytes()
    for args in cases:
        done = pipesmith("kb", *args)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1, (args, done.stderr)
        assert lines[0].startswith("error:") and "Traceback" not in done.stderr, args
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no store, no export
    assert (filled / "records.jsonl").read_bytes() == log_before
    assert "no knowledge base at" in pipesmith("kb", "stats", "--kb", str(missing)).stderr


def test_doctor_says_when_the_store_cannot_be_created(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    done = pipesmith("doctor", "--json", "--kb", str(a_file / "kb"))
    health = json.loads(done.stdout)["knowledge_base"]
    assert health["state"].startswith("absent, and cannot be created"), health
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]
