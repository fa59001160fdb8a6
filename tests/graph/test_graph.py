"""The whole graph, end to end through the real sandbox, Chroma and SQLite checkpoints."""

from __future__ import annotations

import json
import subprocess
import sys

import joblib
import pytest

from pipesmith import build_graph, resume, run
from pipesmith.agents.coder.agent import Coder
from pipesmith.api import RunInterrupted
from pipesmith.core.driver import default_deps
from pipesmith.sandbox.local import LocalSandbox

pytestmark = pytest.mark.slow


def test_run_writes_a_complete_report(settings, tmp_path):
    out = tmp_path / "run"
    report = run(dataset="breast_cancer", out=out, settings=settings)
    assert report.status == "succeeded" and report.final_success
    assert report.task_type == "classification" and report.metric == "accuracy"
    assert report.inferred == ["task_type", "metric"]
    assert report.score >= 0.93 and report.score > report.baseline_score
    assert report.cv_score.mean == report.score and report.cv_score.folds == 3
    assert report.test_score >= 0.9 and report.test_score > report.test_baseline_score
    assert report.refit.n_test == 114 and report.refit.n_dev == 455
    control = report.permutation_control  # an honest final passes (one fold job)
    assert control.attempt == report.final_attempt and control.verdict == "passed"
    assert control.folds == 1 and control.score <= report.score - 0.1
    # what the refit job says it fitted, beside the plan's name for it
    assert report.final_estimator and report.final_estimator.isidentifier()
    assert [a.phase for a in report.attempts][:2] == ["draft", "draft"]
    assert all(a.status == "ok" and a.wall_s > 0 and a.peak_mem_mb > 0 for a in report.attempts)
    assert report.first_pass_success and report.rounds_used == 0
    assert set(report.timings) >= {"profile", "plan", "draft", "execute", "ensemble"}
    assert report.versions["scikit-learn"]
    data = json.loads((out / "report.json").read_text())
    for key in ("status", "task_type", "metric", "score", "baseline_score", "attempts",
                "cv_score", "test_score", "test_baseline_score", "refit",
                "final_success", "rounds_used", "ensemble", "timings", "versions"):
        assert key in data
    assert set(data["attempts"][0]) >= {"id", "parent", "candidate", "phase", "status",
                                        "diagnosis", "wall_s", "peak_mem_mb"}
    for name in ("report.md", "pipeline.py", "model.joblib", "checkpoints.sqlite"):
        assert (out / name).exists(), name
    assert hasattr(joblib.load(out / "model.joblib"), "predict")
    for attempt in report.attempts:
        assert (out / "attempts" / f"{attempt.id}_{attempt.candidate}" / "candidate.py").exists()
    # The standalone script retrains the winner on every row with plain scikit-learn.
    done = subprocess.run([sys.executable, str(out / "pipeline.py"), "--out",
                           str(tmp_path / "m.joblib")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "trained on all 569 rows" in done.stdout  # development and test parts alike
    assert hasattr(joblib.load(tmp_path / "m.joblib"), "predict")
    # --score-test-part refits on the held-out split's other rows and scores that split.
    held_out = subprocess.run([sys.executable, str(out / "pipeline.py"), "--score-test-part",
                               "--out", str(tmp_path / "h.joblib")], capture_output=True,
                              text=True, timeout=120)
    assert held_out.returncode == 0, held_out.stderr
    assert f"test part accuracy: {report.test_score:.4f}" in held_out.stdout


def test_regression_beats_the_dummy_baseline(settings, tmp_path):
    report = run(dataset="diabetes", out=tmp_path / "run", settings=settings)
    assert report.task_type == "regression" and report.metric == "r2"
    assert report.score > report.baseline_score
    assert report.test_score > report.test_baseline_score  # on rows no job saw in selection


class InjectsFaults(Coder):
    """Breaks the first draft at run time (a wrong column) and the second statically."""

    def draft(self, candidate_id, spec, profile, inputs, examples=None):
        candidate = super().draft(candidate_id, spec, profile, inputs)
        if candidate_id == "a1":
            code = candidate.code.replace("NUMERIC_COLUMNS = [", "NUMERIC_COLUMNS = ['ghost', ", 1)
        else:
            code = candidate.code.replace("def build_pipeline(task):", "def build_pipeline(task)")
        return candidate.model_copy(update={"code": code})


def test_failures_are_diagnosed_and_repaired(settings, tmp_path):
    deps = default_deps(settings)
    deps.coder = InjectsFaults()
    report = run(dataset="iris", out=tmp_path / "run", settings=settings, deps=deps)
    by_id = {a.id: a for a in report.attempts}
    a1 = by_id["a1"]
    assert a1.status == "rejected"  # the column check caught it before anything ran
    assert (a1.diagnosis.taxonomy_class, a1.diagnosis.subclass) == ("data_flow", "missing_column")
    assert "ghost" in a1.diagnosis.excerpt
    repairs = [a for a in report.attempts if a.phase == "repair"]
    assert {a.parent for a in repairs} == {"a1", "a3"}
    assert all(a.succeeded for a in repairs)
    # Both were fixed by patching the failing code, not by rendering a fresh draft.
    assert {a.parent: a.repair_action for a in repairs} == {"a1": "fix_columns",
                                                            "a3": "fix_syntax"}
    rejected = by_id["a3"]
    assert rejected.status == "rejected" and rejected.diagnosis.taxonomy_class == "syntax"
    assert not report.first_pass_success and report.final_success
    assert report.rounds_used == 1


def test_the_knowledge_base_remembers_runs(settings, tmp_path):
    settings = settings.model_copy(update={"max_candidates": 1})  # recall needs no second
    first = run(dataset="wine", out=tmp_path / "one", settings=settings)
    second = run(dataset="wine", out=tmp_path / "two", settings=settings)
    assert first.retrieved_runs == []
    assert second.retrieved_runs == [first.run_id]
    assert "similar past runs" in second.plan.notes[0]


class Interrupting:
    """A real sandbox that is interrupted (like Ctrl-C) when asked for the first job of its
    Nth attempt; `workdirs` names the attempts (or `refit`) it ran jobs for."""

    def __init__(self, stop_at: int | None = None) -> None:
        import threading

        self.inner, self.stop_at, self.workdirs = LocalSandbox(), stop_at, []
        self.lock = threading.Lock()  # fold jobs run two at a time

    def run(self, job):
        folder = job.workdir
        name = folder.parent.parent.name if folder.parent.name == "folds" else \
            folder.parent.name if folder.name == "fold" else folder.name
        with self.lock:
            if name not in self.workdirs:
                if len(self.workdirs) + 1 == self.stop_at:
                    raise KeyboardInterrupt
                self.workdirs.append(name)
        return self.inner.run(job)


def test_resume_continues_an_interrupted_run(settings, tmp_path):
    out = tmp_path / "run"
    first = Interrupting(stop_at=2)
    deps = default_deps(settings, sandbox=first)
    with pytest.raises(RunInterrupted) as interrupted:
        run(dataset="iris", out=out, settings=settings, deps=deps)
    assert interrupted.value.run_dir == out
    assert not (out / "report.json").exists()
    second = Interrupting()
    report = resume(out, deps=default_deps(settings, sandbox=second))
    assert first.workdirs == ["a1_hist_gradient_boosting"]
    assert "a1_hist_gradient_boosting" not in second.workdirs  # not run again
    assert second.workdirs[0] == "a2_logistic_regression"
    assert second.workdirs[-1] == "refit"  # the chosen pipeline, refit once at the end
    assert [a.id for a in report.attempts][:2] == ["a1", "a2"]
    assert report.final_success
    # Resuming a finished run returns its report without running anything.
    third = Interrupting()
    assert resume(out, deps=default_deps(settings, sandbox=third)).run_id == report.run_id
    assert third.workdirs == []


def test_clustering_run(settings, tmp_path):
    report = run(dataset="iris", task="clustering", out=tmp_path / "run", settings=settings)
    assert report.metric == "silhouette" and report.inferred == ["metric"]
    assert report.score > report.baseline_score
    assert report.test_score > report.test_baseline_score and report.refit.n_test == 30
    # consensus clustering vs the best single one, chosen by silhouette and stability
    assert report.ensemble.strategy in ("single", "consensus")
    assert any(k.startswith("single:") for k in report.ensemble.nested_scores)
    if report.ensemble.strategy == "consensus":  # it ran, or the run says it had no time
        # (a consensus fits every member again: at a load of 6, one of 23 members did not fit)
        ran = any(a.phase == "ensemble" for a in report.attempts)
        assert ran != report.ensemble.reason.startswith("not run: its members' cost"), \
            report.ensemble.reason


def test_build_graph_exposes_the_flow():
    graph = build_graph()
    nodes = set(graph.get_graph().nodes)
    assert {"profile", "retrieve", "plan", "draft", "prevalidate", "execute", "diagnose",
            "repair", "ensemble", "report", "remember"} <= nodes
