"""The eval harness: the offline suite, runs over topologies, resume, baselines, summary, Ray."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from pipesmith.evals.measure import ROW_KEYS
from pipesmith.evals.suite import DATASETS, SUITES, load

SMOKE_TOPOLOGIES = "single-pass,self-repair"


def pipesmith(*args, timeout=1200, env=None):
    return subprocess.run([sys.executable, "-m", "pipesmith.cli", *args], capture_output=True,
                          text=True, timeout=timeout, env=env)


# The runs of the harness's tests: what they check (rows, resume, summary, the referee's
# split) is the harness's, not how many candidates or folds a run tries: two candidates on
# three folds, each fold a fork of a warm worker (the default outside the tests), start
# fewer interpreters than the defaults (four candidates, five folds, a fold job per fold).
SMALL_RUNS = {"PIPESMITH_MAX_CANDIDATES": "2", "PIPESMITH_CV_FOLDS": "3",
              "PIPESMITH_WARM_WORKERS": "1"}


def rows(out: Path, name: str = "results.jsonl") -> list[dict]:
    return [json.loads(line) for line in (out / name).read_text().splitlines()]


def test_the_suite_has_enough_real_datasets_of_each_kind():
    tasks = [spec.task for spec in DATASETS.values()]
    assert len(DATASETS) >= 24
    assert tasks.count("classification") >= 10 and tasks.count("regression") >= 8
    assert tasks.count("clustering") >= 4
    assert len(SUITES["smoke"]) == 3 and 10 <= len(SUITES["core"]) <= 14
    assert set(SUITES["full"]) == set(DATASETS)
    assert sum("imbalanced" in spec.traits for spec in DATASETS.values()) >= 3


def test_every_dataset_loads_offline_as_described():
    seen: set[str] = set()
    for spec in DATASETS.values():
        frame = load(spec)
        assert spec.target in frame.columns, spec.name
        assert not set(spec.drop) & set(frame.columns), spec.name
        assert spec.max_rows is None or len(frame) <= spec.max_rows
        y = frame[spec.target]
        if spec.task != "regression":
            assert y.nunique() >= 2, spec.name
        features = frame.drop(columns=[spec.target])
        strings = [c for c in features.columns
                   if not pd.api.types.is_numeric_dtype(features[c])]
        if features.isna().any().any():
            seen.add("missing")
        if y.isna().any():
            seen.add("missing target")
        if strings:
            seen.add("string categoricals")
        if any(features[c].nunique() > 100 for c in strings):
            seen.add("high cardinality")
        if any(features[c].astype(str).str.match(r"\d{4}-\d{2}-\d{2}").all() for c in strings):
            seen.add("dates as strings")
        if len(frame) >= 10_000:
            seen.add("10k+ rows")
    assert seen == {"missing", "missing target", "string categoricals", "high cardinality",
                    "dates as strings", "10k+ rows"}
    assert "injSeverity" not in load(DATASETS["nass_cds"]).columns  # leaks the target


def test_summary_tables_from_known_rows(tmp_path):
    from pipesmith.evals.summary import write_summary

    def row(dataset, topology, score, ok=True, failures=None):
        return {"dataset": dataset, "topology": topology, "seed": 0,
                "status": "succeeded" if ok else "failed", "final_success": ok,
                "first_pass_success": ok, "rounds": 0 if ok else 3,
                "failures_by_class": failures or {}, "score": score if ok else None,
                "baseline_scores": {}, "wall_s": 1.0, "peak_mem_mb": 100.0, "tokens": 0,
                "reliability_score": 0.9}

    (tmp_path / "eval.json").write_text(json.dumps({
        "datasets": ["a", "b"], "topologies": ["single-pass", "full"], "seeds": 1,
        "fault_rate": 0.5, "budget_s": 60, "baselines": ["hgb"],
        "specs": {"a": {"task": "classification", "metric": "accuracy"},
                  "b": {"task": "regression", "metric": "rmse"}}}))
    results = [row("a", "single-pass", 0.8), row("a", "full", 0.9),
               row("b", "single-pass", None, ok=False, failures={"syntax.invalid_syntax": 1}),
               row("b", "full", 2.0)]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results))
    (tmp_path / "baselines.jsonl").write_text(
        json.dumps({"dataset": "a", "baseline": "hgb", "seed": 0, "status": "ok",
                    "score": 0.9, "models": []}) + "\n"
        + json.dumps({"dataset": "b", "baseline": "hgb", "seed": 0, "status": "ok",
                      "score": 3.0, "models": []}) + "\n")
    text = write_summary(tmp_path).read_text()
    assert "| a | classification | accuracy | 0.8000 | **0.9000** | **0.9000** |" in text
    assert "| b | regression | rmse | fail | **2.0000** | 3.0000 |" in text  # lower is better
    assert "| single-pass | 2 | 50.0% | 50.0% | 50.0% | 0.0% |" in text
    assert "| full | 2 | 100.0% | 100.0% | 0.0% | 100.0% |" in text
    assert "| full | 1.25 | 2 |" in text  # tie with hgb on a (1.5), best on b (1)
    assert "| single-pass | 1/0/1 | " not in text
    assert "| single-pass | 0/0/2 |" in text and "| full | 1/1/0 |" in text
    assert "| single-pass | 1 | 1 |" in text  # one syntax failure
    for plot in ("success_by_round.png", "scores.png", "failure_classes.png"):
        assert (tmp_path / plot).stat().st_size > 1000


def test_summary_confidence_intervals_paired_differences_and_nmi(tmp_path):
    from pipesmith.evals.summary import write_summary

    def row(topology, seed, ok, score):
        return {"dataset": "c", "topology": topology, "seed": seed,
                "status": "succeeded" if ok else "failed", "final_success": ok,
                "first_pass_success": ok, "rounds": 0, "failures_by_class": {},
                "injected_faults": {}, "score": score if ok else None,
                "nmi": score + 0.1 if ok else None, "baseline_scores": {}, "wall_s": 1.0,
                "peak_mem_mb": 100.0, "tokens": 0, "reliability_score": 0.9}

    (tmp_path / "eval.json").write_text(json.dumps({
        "datasets": ["c"], "topologies": ["self-repair", "full"], "seeds": 4,
        "fault_rate": 0.5, "budget_s": 30, "baselines": [],
        "specs": {"c": {"task": "clustering", "metric": "ari"}}}))
    # full works on all four seeds; self-repair fails on seed 3 and scores lower elsewhere
    results = [row("full", s, True, 0.8) for s in range(4)]
    results += [row("self-repair", s, s != 3, 0.6) for s in range(4)]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results))
    text = write_summary(tmp_path).read_text()
    assert "| c | clustering | ari | 0.6000 | **0.8000** |" in text
    assert "| c | clustering | nmi | 0.7000 | **0.9000** |" in text
    # 3 of 4: the interval of k/4 with k ~ Binomial(4, 3/4) (tests/evals/test_bootstrap.py)
    assert ("| self-repair | 4 | 0.750 [0.250, 1.000] | 0.750 [0.250, 1.000] "
            "| 0.000 [0.000, 0.000] (1) | 0.600 [0.600, 0.600] | 3 | 2.00 [2.00, 2.00] |") in text
    assert ("| full | 4 | 1.000 [1.000, 1.000] | 1.000 [1.000, 1.000] | — (0) "
            "| 0.800 [0.800, 0.800] | 4 | 1.00 [1.00, 1.00] |") in text
    assert "| self-repair | 4 | 0.250 [0.000, 0.750] | 1.00 [1.00, 1.00] |" in text


@pytest.fixture(scope="module")
def smoke_eval(tmp_path_factory):
    """The CI eval (`make eval-smoke`): the smoke suite, two topologies, the
    HistGradientBoosting baseline; its runs small (SMALL_RUNS)."""
    out = tmp_path_factory.mktemp("smoke") / "eval"
    done = pipesmith("eval", "--suite", "smoke", "--topologies", SMOKE_TOPOLOGIES,
                     "--budget", "60", "--baselines", "hgb", "--out", str(out),
                     env=os.environ | SMALL_RUNS)
    return out, done


@pytest.mark.slow
def test_smoke_suite_over_two_topologies(smoke_eval):
    out, done = smoke_eval
    assert done.returncode in (0, 1), done.stderr  # 1: some run ended without a pipeline
    results = rows(out)
    assert len(results) == 3 * 2
    assert {(r["dataset"], r["topology"]) for r in results} == {
        (d, t) for d in SUITES["smoke"] for t in SMOKE_TOPOLOGIES.split(",")}
    for r in results:
        assert tuple(r) == ROW_KEYS
        assert not r["status"].startswith("error"), r["status"]
        if r["final_success"]:
            assert isinstance(r["score"], float) and r["reliability_score"] > 0
    assert sum(r["final_success"] for r in results) >= 4
    penguins = next(r for r in results if r["dataset"] == "penguins")
    assert penguins["baseline_scores"]["hgb"] > 0.8
    iris = next(r for r in results if r["dataset"] == "iris_clusters" and r["final_success"])
    assert -1 <= iris["score"] <= 1  # ARI against the held-out species
    assert 0 <= iris["nmi"] <= 1  # NMI beside it
    assert all(r["nmi"] is None for r in results if r["dataset"] != "iris_clusters")
    summary = (out / "summary.md").read_text()
    assert "| iris_clusters | clustering | nmi |" in summary
    for heading in ("Scores per dataset", "Success and reliability", "Confidence intervals",
                    "Mean rank",
                    "Wins / ties / losses", "Failures by class"):
        assert f"## {heading}" in summary
    assert "jobs finished" in summary and "jobs have no row yet" not in summary
    assert "eval" in done.stderr and "6/6" in done.stderr.replace(" ", "") or \
        "9/9" in done.stderr.replace(" ", "")  # the progress bar counted every job


@pytest.mark.slow
def test_baseline_and_pipeline_score_the_same_test_rows(smoke_eval):
    from pipesmith.evals.baselines import split

    out, _ = smoke_eval
    run_dir = out / "jobs" / "penguins__single-pass__s0" / "run"
    report = json.loads((run_dir / "report.json").read_text())
    assert report["test_score"] is not None
    test = pd.read_parquet(run_dir / "referee" / "test.parquet")
    _, X_test, _, y_test = split(DATASETS["penguins"], 0, 0.2)
    assert list(test[y_test.name].astype(str)) == list(y_test.astype(str))
    assert len(test) == len(X_test)


@pytest.mark.slow
def test_an_interrupted_eval_resumes_where_it_stopped(smoke_eval, tmp_path, monkeypatch):
    import shutil

    from pipesmith.evals import results
    from pipesmith.evals.runner import EvalPlan, run_eval
    from pipesmith.evals.suite import suite

    source, _ = smoke_eval
    out = tmp_path / "eval"
    shutil.copytree(source, out, ignore=shutil.ignore_patterns("jobs"))
    for name, value in SMALL_RUNS.items():  # the jobs it resumes run as the fixture's did
        monkeypatch.setenv(name, value)
    kept = (out / "results.jsonl").read_text().splitlines()[:4]
    # interrupted: two jobs never wrote a row, the last write was cut short
    (out / "results.jsonl").write_text("\n".join(kept) + '\n{"dataset": "iris_clu')
    started = []
    plan = EvalPlan(datasets=suite("smoke"), topologies=SMOKE_TOPOLOGIES.split(","), out=out,
                    budget_s=60, baselines=["hgb"])
    run_eval(plan, on_event=lambda kind, *args: started.append(args[0]) if kind == "start"
             else None)
    assert [(j.spec.name, j.topology) for j in started] == [
        ("iris_clusters", "single-pass"), ("iris_clusters", "self-repair")]
    after = results.read(out / "results.jsonl")  # the torn line is skipped, not fatal
    assert [json.dumps(r) for r in after[:4]] == kept
    assert all(tuple(r) == ROW_KEYS for r in after)
    assert len({(r["dataset"], r["topology"]) for r in after}) == 6
    with pytest.raises(Exception, match="fault_rate"):  # a different eval is not mixed in
        run_eval(EvalPlan(datasets=suite("smoke"), topologies=["single-pass"], out=out,
                          budget_s=60, fault_rate=0.5))


@pytest.mark.slow
def test_any_csv_with_a_target(tmp_path):
    from sklearn.datasets import load_wine

    csv = tmp_path / "wine.csv"
    load_wine(as_frame=True).frame.to_csv(csv, index=False)
    out = tmp_path / "eval"
    done = pipesmith("eval", "--data", str(csv), "--target", "target", "--task",
                     "classification", "--topologies", "single-pass", "--budget", "60",
                     "--baselines", "hgb", "--out", str(out), "-q",
                     env=os.environ | SMALL_RUNS)
    assert done.returncode == 0, done.stderr
    [row] = rows(out)
    assert row["dataset"] == "wine" and row["final_success"] and row["score"] > 0.8
    assert row["baseline_scores"]["hgb"] > 0.8


def test_bad_eval_input_is_one_line_and_exit_2(tmp_path):
    for args, message in (
            (["--suite", "nope"], "unknown suite"),
            (["--suite", "smoke", "--topologies", "single-pass,nope"], "unknown topology"),
            (["--suite", "smoke", "--baselines", "xgb"], "unknown baseline"),
            (["--data", str(tmp_path / "missing.csv"), "--target", "y"], "not found"),
            ([], "exactly one of --suite")):
        done = pipesmith("eval", *args, "--out", str(tmp_path / "o"), timeout=120)
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_ray_runs_each_job_as_a_task(tmp_path, monkeypatch):
    from pipesmith.evals.runner import EvalPlan, run_eval
    from pipesmith.evals.suite import suite

    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    for name, value in SMALL_RUNS.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "eval"
    plan = EvalPlan(datasets=suite("smoke")[:1], topologies=["single-pass"], out=out,
                    budget_s=60, workers=1, executor="ray")
    run_eval(plan)
    [row] = rows(out)
    assert row["dataset"] == "penguins" and row["final_success"], row
    assert (out / "jobs" / "penguins__single-pass__s0" / "run" / "report.json").exists()


def test_tokens_come_from_the_reports_llm_section():
    from pipesmith.evals.measure import tokens_used

    assert tokens_used({"llm": {"total": {"total_tokens": 1234.0, "calls": 3}}}) == 1234
    assert tokens_used({"status": "succeeded"}) == 0  # offline agents: no llm section


def test_jobs_share_the_knowledge_base_given_with_kb_and_get_their_own_otherwise(tmp_path):
    from pipesmith.evals.jobs import job_settings
    from pipesmith.evals.runner import EvalPlan
    from pipesmith.evals.suite import suite

    shared = tmp_path / "shared-kb"
    def kb_dirs(kb_dir):
        plan = EvalPlan(datasets=suite("smoke"), topologies=["full"], out=tmp_path / "o",
                        kb_dir=kb_dir)
        return [job_settings(job).kb_dir for job in plan.pipeline_jobs()]

    assert kb_dirs(shared) == [shared] * 3
    own = kb_dirs(None)
    assert len(set(own)) == 3 and all(d.parent.parent.name == "jobs" for d in own)


def test_a_baseline_past_its_wall_limit_is_killed_and_recorded_as_a_timeout(tmp_path):
    """FLAML asked for 60 s but given a 5 s wall limit: its process group is killed and the
    row says so, with no score (ranked last), instead of the eval waiting on it."""
    import time

    from pipesmith.evals.baselines import run_baseline
    from pipesmith.evals.jobs import BaselineJob
    from pipesmith.evals.suite import suite

    penguins = next(s for s in suite("smoke") if s.name == "penguins")
    job = BaselineJob(spec=penguins, baseline="flaml", seed=0, budget_s=60, out=str(tmp_path),
                      wall_limit_s=5)
    started = time.monotonic()
    row = run_baseline(job)
    assert row["status"] == "timeout: over its wall limit of 5 s", row
    assert row["score"] is None and time.monotonic() - started < 50
