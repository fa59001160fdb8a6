"""langgraph.json's graph in-process: each input on a thread starts a new run, and the served
runs directory stays out of `langgraph dev`'s reload watch. The real server:
tests/graph/test_langgraph_server.py."""

from __future__ import annotations

from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Overwrite
from structlog.testing import capture_logs

from pipesmith.agents.schemas import RunInputs
from pipesmith.core.driver import default_deps
from pipesmith.graph.builder import build_graph
from pipesmith.graph.served import served_runs_dir, served_settings
from pipesmith.graph.state import RunState, fresh_run
from pipesmith.settings import Settings


def test_a_new_run_resets_every_key_of_the_state():
    inputs = RunInputs.model_construct(run_id="r2")
    fresh = fresh_run(inputs, approval_asked=False)
    assert set(fresh) == set(RunState.__annotations__)  # a new key must say how it starts
    assert fresh["inputs"] is inputs and fresh["next_index"] == 0
    for key in ("candidates", "attempts", "smoke", "timings", "llm_usage", "llm_events"):
        assert isinstance(fresh[key], Overwrite) and not fresh[key].value, key  # no merge


def test_served_runs_go_outside_the_folder_the_server_watches(tmp_path, monkeypatch):
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.delenv("PIPESMITH_RUNS_DIR", raising=False)
    runs = served_settings().runs_dir
    assert runs == served_runs_dir() and project not in runs.resolve().parents
    assert served_settings(Settings(runs_dir=tmp_path / "mine")).runs_dir == tmp_path / "mine"
    with capture_logs() as logs:  # a runs_dir the watch sees is kept, with a warning
        assert served_settings(Settings(runs_dir=Path("runs"))).runs_dir == Path("runs")
    assert [e["event"] for e in logs] == ["runs_dir_watched"]


def test_new_input_on_a_thread_waiting_at_the_plan_starts_a_new_run(tmp_path):
    deps = default_deps(Settings(runs_dir=tmp_path / "runs", kb_dir=tmp_path / "kb",
                                 max_candidates=1, budget_s=40))
    graph = build_graph("full", InMemorySaver(), approval=True, default_context=lambda: deps,
                        plain_input=True)
    thread = {"configurable": {"thread_id": "t"}}
    graph.invoke({"dataset": "iris", "budget_s": 25, "approve_plan": True}, thread)
    [first] = graph.get_state(thread).interrupts
    graph.invoke({"dataset": "wine", "approve_plan": True}, thread)  # the plan is left
    state = graph.get_state(thread)
    [second] = state.interrupts
    assert (first.value["dataset"], second.value["dataset"]) == ("iris", "wine")
    assert second.value["run_id"] != first.value["run_id"]
    assert second.value["out_dir"] != first.value["out_dir"]
    assert second.value["budget_s"] == 40  # the first input's budget_s did not carry over
    assert state.values["inputs"].dataset == "wine" and state.values["approval_asked"]
