"""`pipesmith sandbox exec`: the real sandbox behind the command line."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from pipesmith.cli import app
from tests.conftest import write

runner = CliRunner()


def test_exec_prints_the_result_as_json(tmp_path):
    script = write(tmp_path / "job.py", "open('made.txt', 'w').write('x')\nprint('hello')\n")
    done = runner.invoke(app, ["sandbox", "exec", str(script), "--json", "--timeout", "30"])
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    assert result["status"] == "ok" and result["stdout"] == "hello\n"
    assert result["files"] == ["made.txt"] and result["backend"] == "local"


def test_exec_reports_a_failing_status_with_exit_1(tmp_path):
    script = write(tmp_path / "slow.py", "import time\ntime.sleep(60)\n")
    done = runner.invoke(app, ["sandbox", "exec", str(script), "--timeout", "1"])
    assert done.exit_code == 1
    assert "status: timeout" in done.stdout


def test_exec_with_an_unreachable_engine_is_infra(tmp_path, monkeypatch):
    monkeypatch.setenv("PIPESMITH_DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    script = write(tmp_path / "job.py", "print('never runs')\n")
    done = runner.invoke(app, ["sandbox", "exec", str(script), "--backend", "docker", "--json"])
    assert done.exit_code == 1
    result = json.loads(done.stdout)
    assert result["status"] == "infra" and "unreachable" in result["detail"]


def test_bad_input_exits_2(tmp_path):
    assert runner.invoke(app, ["sandbox", "exec", str(tmp_path / "missing.py")]).exit_code == 2
    script = write(tmp_path / "job.py", "pass\n")
    done = runner.invoke(app, ["sandbox", "exec", str(script), "--backend", "k8s"])
    assert done.exit_code == 2
