"""`pipesmith export` (deployment bundle), `pipesmith serve` and `run --mlflow-dir`.

One scikit-learn run on a mixed table (numbers, integers, strings, string classes) is made
by the real CLI with `--mlflow-dir` and exported by the real CLI, both under a network audit
hook (every Python process they start imports it); the other tests read that bundle. The
bundle's predict.py runs in a fresh virtual environment made from its requirements.txt
alone (no pipesmith there) and must write the bytes `pipesmith predict` writes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
import venv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from pipesmith.agents.families import backends

pytestmark = pytest.mark.slow
AUDIT = '''
import os, socket, sys

_LOG = os.environ.get("PIPESMITH_NET_AUDIT")
_LOCAL = ("localhost", "127.", "::1", "0.0.0.0", "")


def _local(host):
    return host is None or str(host).startswith(_LOCAL) or str(host) == "::1"


def _hook(event, args):
    if event == "socket.connect":
        sock, address = args
        if sock.family == getattr(socket, "AF_UNIX", None):
            return
        host = address[0] if isinstance(address, tuple) else address
    elif event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex",
                   "socket.sendto"):
        host = args[0] if event != "socket.sendto" else (args[1][0] if args[1] else None)
    else:
        return
    if not _local(host):
        with open(_LOG, "a") as handle:
            handle.write(f"{event} {host} pid={os.getpid()} argv={sys.orig_argv[1:3]}\\n")
        raise OSError(f"blocked by the test's network audit: {host}")


if _LOG:
    sys.addaudithook(_hook)
    with open(_LOG, "a") as handle:
        handle.write(f"hook pid={os.getpid()} argv={sys.orig_argv[1:3]}\\n")
'''


def mixed_table(n: int = 200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"x": rng.normal(size=n),
                          "colour": rng.choice(["red", "green", "blue"], n),
                          "count": rng.integers(0, 10, n)})
    signal = frame["x"] + 1.5 * (frame["colour"] == "red") + 0.2 * frame["count"]
    frame["label"] = np.where(signal > 1.2, "yes", "no")
    return frame


def cli(*args, env=None, cwd=None, timeout=400) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipesmith.cli", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=timeout)


def small_settings_env(folder: Path) -> dict:
    """One candidate, no knowledge base, no spread folds: the quickest honest run."""
    return os.environ | {"PIPESMITH_MAX_CANDIDATES": "1", "PIPESMITH_CV_FOLDS": "0",
                         "PIPESMITH_SMOKE_ROWS": "0", "PIPESMITH_N_JOBS": "1",
                         "PIPESMITH_RUNS_DIR": str(folder)}


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """run --mlflow-dir, then export, by the CLI, under the network audit."""
    folder = tmp_path_factory.mktemp("export")
    mixed_table().to_csv(folder / "train.csv", index=False)
    (folder / "audit").mkdir()
    (folder / "audit" / "sitecustomize.py").write_text(AUDIT)
    log = folder / "net.log"
    env = small_settings_env(folder) | {
        "PYTHONPATH": os.pathsep.join([str(folder / "audit"), os.environ.get("PYTHONPATH", "")]),
        "PIPESMITH_NET_AUDIT": str(log)}
    done = cli("run", "--data", str(folder / "train.csv"), "--target", "label", "--no-kb",
               "--budget", "120", "--out", str(folder / "run"), "--mlflow-dir",
               str(folder / "mlflow"), env=env | {"PIPESMITH_MLFLOW_REGISTER": "churn-model"},
               cwd=folder)
    assert done.returncode == 0, done.stderr[-3000:]
    (folder / "run.stderr").write_text(done.stderr)
    exported = cli("export", str(folder / "run"), "--out", str(folder / "bundle"), env=env)
    assert exported.returncode == 0, exported.stderr[-3000:]
    rows = mixed_table(60, seed=1).drop(columns="label").assign(comment="new")
    rows.to_csv(folder / "new.csv", index=False)
    reference = cli("predict", str(folder / "run"), "--data", str(folder / "new.csv"),
                    "--out", str(folder / "reference.csv"))
    assert reference.returncode == 0, reference.stderr
    return folder


def test_export_and_mlflow_tracking_send_nothing_off_loopback(made):
    lines = (made / "net.log").read_text().splitlines()
    hooked = [line for line in lines if line.startswith("hook ")]
    # the CLI processes; the model probe and the MLflow writer run as sandbox jobs (an
    # allow-listed environment, without this hook, in a network namespace with no route out)
    assert sum("pipesmith.cli" in line for line in hooked) >= 2, lines  # run, export
    assert not any("pipesmith.export.probe" in line for line in hooked), lines
    assert [line for line in lines if not line.startswith("hook ")] == []


def test_export_never_loads_the_model_in_its_own_process(made, tmp_path):
    """A model whose unpickling writes a file: exporting it (probe, MLflow model) and
    serving it leave no trace on the host (its code ran in the sandbox)."""
    import shutil

    from pipesmith.core.model_io import save_model
    from tests.pipesmith.core.test_model_host import Spy

    run = tmp_path / "run"
    shutil.copytree(made / "run", run)
    marker = tmp_path / "host-marker"
    save_model(Spy(str(marker)), run / "model.joblib")
    done = cli("export", str(run), "--out", str(tmp_path / "bundle"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "bundle" / "model" / "MLmodel").is_file()
    assert "runs that code" in (tmp_path / "bundle" / "MODEL_CARD.md").read_text()
    assert not marker.exists()


def test_bundle_predicts_in_a_fresh_venv_exactly_as_pipesmith_predict(made, tmp_path):
    bundle = made / "bundle"
    venv.create(tmp_path / "venv", with_pip=True)
    python = tmp_path / "venv" / "bin" / "python"
    started = time.monotonic()
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "-r",
                              str(bundle / "requirements.txt")], capture_output=True, text=True,
                             timeout=900)
    assert install.returncode == 0, install.stderr[-3000:]
    sys.stderr.write(f"fresh venv from requirements.txt: {time.monotonic() - started:.0f}s\n")
    no_pipesmith = subprocess.run([str(python), "-c", "import importlib.util as u; "
                                   "print(u.find_spec('pipesmith'))"],
                                  capture_output=True, text=True, cwd=tmp_path)
    assert no_pipesmith.stdout.strip() == "None"  # only the bundle's vendor/ can supply it
    done = subprocess.run([str(python), str(bundle / "predict.py"), str(made / "new.csv"),
                           str(tmp_path / "out.csv")], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.csv").read_bytes() == (made / "reference.csv").read_bytes()
    # the schema is checked first: text in a numeric column is one line, exit 2, no output
    bad = pd.read_csv(made / "new.csv").astype({"x": str})
    bad.loc[3, "x"] = "lots"
    bad.to_csv(tmp_path / "bad.csv", index=False)
    refused = subprocess.run([str(python), str(bundle / "predict.py"), str(tmp_path / "bad.csv"),
                              str(tmp_path / "bad_out.csv")], capture_output=True, text=True,
                             cwd=tmp_path, timeout=300)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "'x'" in refused.stderr and "lots" in refused.stderr
    assert not (tmp_path / "bad_out.csv").exists()
    # train.py retrains the pipeline there too, with the run's seed: twice, the same model
    data = pd.read_csv(made / "train.csv")
    data.to_csv(tmp_path / "table.csv", index=False)
    for name in ("m1.joblib", "m2.joblib"):
        trained = subprocess.run([str(python), str(bundle / "train.py"), "--data",
                                  str(tmp_path / "table.csv"), "--out", str(tmp_path / name)],
                                 capture_output=True, text=True, cwd=tmp_path, timeout=300)
        assert trained.returncode == 0, trained.stderr
    compare = subprocess.run([str(python), "-c", (
        "import sys; sys.path.insert(0, sys.argv[1]); import joblib, pandas as pd; "
        "x = pd.read_csv(sys.argv[2]).drop(columns='label'); "
        "a, b = (joblib.load(p).predict_proba(x) for p in sys.argv[3:]); "
        "print((a == b).all(), len(a))"), str(bundle / "vendor"), str(tmp_path / "table.csv"),
        str(tmp_path / "m1.joblib"), str(tmp_path / "m2.joblib")],
        capture_output=True, text=True, cwd=tmp_path)
    assert compare.stdout.split() == ["True", "200"], compare.stderr


def test_mlflow_model_loads_with_pyfunc_and_predicts_the_same(made, tmp_path):
    script = ("import os, sys; os.environ.update(MLFLOW_DISABLE_TELEMETRY='true', "
              "DO_NOT_TRACK='true'); import mlflow.pyfunc, pandas as pd; "
              "sys.path.insert(0, sys.argv[1]); import predict; "
              "model = mlflow.pyfunc.load_model(sys.argv[2]); "
              "model.predict(predict.read_table(sys.argv[3])).to_csv(sys.argv[4], index=False); "
              "print(model.metadata.get_input_schema().input_names())")
    done = subprocess.run([sys.executable, "-c", script, str(made / "bundle"),
                           str(made / "bundle" / "model"), str(made / "new.csv"),
                           str(tmp_path / "out.csv")], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "out.csv").read_bytes() == (made / "reference.csv").read_bytes()
    assert "colour" in done.stdout  # the signature names the features
    assert (made / "bundle" / "model" / "input_example.json").is_file()


def mlflow_client(store: Path):
    from pipesmith.export.mlflow_model import import_mlflow
    from pipesmith.export.mlflow_tracking import tracking_uri

    import_mlflow()  # telemetry off first
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri=tracking_uri(store), registry_uri=tracking_uri(store))


def test_mlflow_run_logs_named_metrics_hyperparameters_attempts_and_the_model(made):
    from urllib.parse import urlparse

    client = mlflow_client(made / "mlflow")
    report = json.loads((made / "run" / "report.json").read_text())
    metric = report["metric"]
    experiment = client.get_experiment_by_name("pipesmith")
    runs = client.search_runs([experiment.experiment_id])
    parent = next(r for r in runs if "mlflow.parentRunId" not in r.data.tags)
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]
    metrics, params = parent.data.metrics, parent.data.params
    # the metric's own name, CV (selection) apart from test (the untouched part)
    assert metrics[f"cv_{metric}"] == pytest.approx(report["score"])
    assert metrics[f"test_{metric}"] == pytest.approx(report["test_score"])
    assert f"cv_baseline_{metric}" in metrics and "score" not in metrics
    assert params["metric"] == metric and params["target"] == "label"
    assert params["final_candidate"] == report["final_candidate"]
    fitted = {k: v for k, v in params.items() if k.startswith("model.")}
    spec = yaml.safe_load((made / "bundle" / "pipeline.yaml").read_text())
    final_step = spec["steps"][-1]
    assert fitted and all(fitted[f"model.{final_step['name']}.{name}"] == str(value)
                          for name, value in final_step["params"].items())
    assert {"report.json", "report.md", "pipeline.yaml", "MODEL_CARD.md"} <= {
        a.path for a in client.list_artifacts(parent.info.run_id)}

    assert sorted(c.data.params["attempt"] for c in children) == sorted(
        a["id"] for a in report["attempts"])
    for child in children:
        attempt = next(a for a in report["attempts"] if a["id"] == child.data.params["attempt"])
        if attempt["score"] is not None:
            assert child.data.metrics[f"cv_{metric}"] == pytest.approx(attempt["score"])
        assert "test_" + metric not in child.data.metrics  # attempts are never tested
        logged = {a.path for a in client.list_artifacts(child.info.run_id)} | {
            a.path for a in client.list_artifacts(child.info.run_id, "files")}
        assert {"attempt.json", "files/candidate.py"} <= logged, logged

    [model] = client.search_logged_models([experiment.experiment_id])
    assert model.source_run_id == parent.info.run_id and model.status.name == "READY"
    assert [o.model_id for o in client.get_run(parent.info.run_id).outputs.model_outputs] == [
        model.model_id]
    [version] = client.search_model_versions("name='churn-model'")
    assert str(version.version) == "1" and version.run_id == parent.info.run_id
    assert version.tags["pipesmith.model_id"] == model.model_id
    assert (Path(urlparse(version.source).path) / "MLmodel").is_file()
    # progress while it logs, and no store left in the working folder (MLflow's default)
    stderr = (made / "run.stderr").read_text()
    assert "mlflow      registered churn-model version 1" in stderr
    assert "mlflow      logged run " in stderr and not (made / "mlflow.db").exists()


def test_mlflow_log_values_batches_within_mlflow_limits():
    from pipesmith.export.mlflow_tracking import PARAMS_PER_CALL, log_values

    calls = []

    class Client:
        def log_batch(self, run_id, metrics=(), params=(), tags=()):
            calls.append((len(metrics), len(params), len(tags)))

    log_values(Client(), "r", params={f"p{i}": "x" for i in range(150)},
               metrics={"cv_r2": 0.5}, tags={"t": "y"})
    assert calls == [(1, PARAMS_PER_CALL, 0), (0, 50, 1)]


def test_pipeline_yaml_validates_against_the_documented_schema(made):
    from pipesmith.export import spec as export_spec

    spec = yaml.safe_load((made / "bundle" / "pipeline.yaml").read_text())
    assert export_spec.validate(spec) == []
    assert spec["data"]["target"] == "label" and spec["data"]["classes"] == ["no", "yes"]
    assert [c["name"] for c in spec["data"]["columns"]] == ["x", "colour", "count"]
    report = json.loads((made / "run" / "report.json").read_text())
    assert spec["scores"]["cv"]["mean"] == pytest.approx(report["score"], abs=1e-6)
    final = next(a for a in report["attempts"] if a["id"] == report["final_attempt"])
    assert spec["resources"]["bound"]["memory_mb"] == final["mem_bound_mb"]
    assert spec["resources"]["measured"]["wall_s"] == final["wall_s"]
    assert spec["environment"]["requirements"]["scikit-learn"] == report["versions"]["scikit-learn"]
    assert spec["steps"][-1]["params"]  # the fitted estimator's parameters
    broken = {key: value for key, value in spec.items() if key != "scores"}
    broken["resources"] = {**spec["resources"], "bound": {"coverage": 2}}
    errors = export_spec.validate(broken)
    assert any("scores" in e for e in errors) and any("coverage" in e for e in errors)
    component = yaml.safe_load((made / "bundle" / "components" / "predict.component.yaml")
                               .read_text())
    assert component["implementation"]["container"]["image"] == spec["environment"]["image"]
    assert component["implementation"]["container"]["args"] == [
        {"inputPath": "features"}, {"outputPath": "predictions"}]


def test_dockerfile_parses_and_names_only_files_in_the_bundle(made):
    from pipesmith.export import docker as export_docker

    bundle = made / "bundle"
    text = (bundle / "Dockerfile").read_text()
    steps = export_docker.instructions(text)
    assert steps[0] == ("FROM", "python:3.11-slim") or steps[0][1].endswith("-slim")
    assert steps[-1] == ("ENTRYPOINT", '["python", "/bundle/predict.py"]')
    sources = export_docker.copied_sources(text)
    assert {"requirements.txt", "predict.py", "schema.json", "model/", "vendor/"} <= set(sources)
    assert all((bundle / source).exists() for source in sources)
    ignored = (bundle / ".dockerignore").read_text().split()
    assert not set(sources) & set(ignored)


def test_requirements_are_pinned_to_the_run_versions(made):
    from importlib.metadata import version

    lines = [line for line in (made / "bundle" / "requirements.txt").read_text().splitlines()
             if line and not line.startswith("#")]
    pins = dict(line.split("==") for line in lines)
    assert {"scikit-learn", "pandas", "numpy", "joblib", "pyarrow", "pydantic"} <= set(pins)
    assert all(pins[name] == version(name) for name in pins)
    assert "pipesmith" not in pins and "torch" not in pins and "mlflow" not in pins


def test_conflicts_name_the_pair_and_the_versions_satisfying_both():
    from importlib.metadata import version

    from pipesmith.agents.prevalidator.dependencies import conflicts
    from pipesmith.export.requirements import conflict_error

    assert conflicts({"scikit-learn": version("scikit-learn"), "numpy": version("numpy")}) == []
    found = conflicts({"scikit-learn": version("scikit-learn"), "numpy": "1.0.0"})
    assert [(c.required_by, c.name, c.version) for c in found] == [
        (f"scikit-learn {version('scikit-learn')}", "numpy", "1.0.0")]
    assert found[0].satisfying.startswith("numpy>=")
    assert "versions satisfying both: numpy>=" in str(conflict_error(found))


def test_model_card_has_scores_and_limits(made):
    card = (made / "bundle" / "MODEL_CARD.md").read_text()
    report = json.loads((made / "run" / "report.json").read_text())
    assert f"{report['score']:.4f}" in card and f"{report['baseline_score']:.4f}" in card
    assert "Leak suspects" in card and "Rows dropped for a missing target: 0" in card
    assert "`schema.json` lists" in card and (made / "bundle" / "schema.json").is_file()
    assert "feature_schema.json" not in card
    # the run's plots travel with the bundle, and the card shows them
    plots = [p["file"] for p in report["plots"]]
    assert "roc.png" in plots and "stage_times.png" in plots
    assert all((made / "bundle" / "plots" / name).is_file() for name in plots)
    assert all(f"(plots/{name})" in card for name in plots)


def test_bad_input_is_one_line_exit_2_and_writes_nothing(made, tmp_path):
    failed = tmp_path / "failed"
    failed.mkdir()
    report = json.loads((made / "run" / "report.json").read_text())
    report |= {"status": "failed", "final_attempt": None, "final_success": False}
    (failed / "report.json").write_text(json.dumps(report))
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    cases = [(failed, tmp_path / "o1", "failed"), (tmp_path / "nope", tmp_path / "o2", "no run"),
             (made / "run", tmp_path / "full", "not empty")]
    for run_dir, out, words in cases:
        done = cli("export", str(run_dir), "--out", str(out))
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and words in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["keep.txt"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging


def test_format_mlflow_and_force_replace(made, tmp_path):
    out = tmp_path / "m"
    out.mkdir()
    (out / "old.txt").write_text("old")
    done = cli("export", str(made / "run"), "--out", str(out), "--format", "mlflow", "--force")
    assert done.returncode == 0, done.stderr[-2000:]
    assert (out / "MLmodel").is_file() and not (out / "old.txt").exists()
    assert not (out / "Dockerfile").exists()


def _serve(app):
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    return server, thread, server.servers[0].sockets[0].getsockname()[1]


@pytest.mark.parametrize("which", ["bundle", "run"])
def test_serve_answers_over_loopback(made, which):
    import httpx

    from pipesmith.serve.app import create_app, load_predictor

    server, thread, port = _serve(create_app(load_predictor(made / which)))
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            health = client.get("/health").json()
            assert health["status"] == "ok" and health["columns"] == ["x", "colour", "count"]
            rows = pd.read_csv(made / "new.csv").head(5)
            answer = client.post("/predict", json={"rows": rows.to_dict(orient="records")})
            assert answer.status_code == 200, answer.text
            expected = pd.read_csv(made / "reference.csv").head(5)
            got = pd.DataFrame(answer.json()["predictions"])
            assert list(got.columns) == list(expected.columns)
            assert (got["prediction"] == expected["prediction"]).all()
            assert np.allclose(got["proba_yes"], expected["proba_yes"])
            bad = rows.to_dict(orient="records")
            bad[2]["count"] = "many"
            del bad[3]["colour"]
            answer = client.post("/predict", json={"rows": bad})
            assert answer.status_code == 200, answer.text
            body = answer.json()
            assert body["errors"] == [
                {"row": 2, "column": "count", "problem": "must be numeric (int64), not 'many'"},
                {"row": 3, "column": "colour", "problem": "missing column"}]
            assert [p is None for p in body["predictions"]] == [False, False, True, True, False]
            assert body["predictions"][4]["prediction"] == expected["prediction"][4]
    finally:
        server.should_exit = True
        thread.join(10)


def test_serve_with_a_bad_target_is_exit_2(tmp_path):
    for args in ([str(tmp_path / "nothing")], [str(tmp_path)]):
        done = cli("serve", *args, "--port", "0")
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr


@pytest.fixture(scope="module")
def torch_bundle(tmp_path_factory):
    folder = tmp_path_factory.mktemp("torch")
    done = cli("run", "--dataset", "breast_cancer", "--backend", "torch", "--no-kb", "--budget",
               "180", "--out", str(folder / "run"), "-q", env=small_settings_env(folder))
    assert done.returncode == 0, done.stderr[-3000:]
    exported = cli("export", str(folder / "run"), "--out", str(folder / "bundle"))
    assert exported.returncode == 0, exported.stderr[-3000:]
    return folder


@pytest.mark.torch
@pytest.mark.skipif(not backends.available("torch"), reason="PyTorch is not installed")
def test_torch_bundle_predicts_as_pipesmith_predict(torch_bundle, tmp_path):
    """Checked in the dev environment (a fresh venv would download torch: too slow for CI);
    the bundle's own vendored pipesmith.estimators is the one that loads."""
    folder = torch_bundle
    rows = pd.read_parquet(folder / "run" / "data.parquet").drop(columns="target").head(80)
    rows.to_csv(tmp_path / "new.csv", index=False)
    reference = cli("predict", str(folder / "run"), "--data", str(tmp_path / "new.csv"),
                    "--out", str(tmp_path / "reference.csv"))
    assert reference.returncode == 0, reference.stderr
    probe = textwrap.dedent("""
        import runpy, sys
        sys.argv = sys.argv[1:]
        try:
            runpy.run_path(sys.argv[0], run_name="__main__")
        except SystemExit as exc:
            assert not exc.code, exc.code
        import pipesmith.estimators.torch_mlp as module
        print(module.__file__)
        """)
    done = subprocess.run([sys.executable, "-c", probe, str(folder / "bundle" / "predict.py"),
                           str(tmp_path / "new.csv"), str(tmp_path / "out.csv")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().startswith(str(folder / "bundle" / "vendor"))
    assert (tmp_path / "out.csv").read_bytes() == (tmp_path / "reference.csv").read_bytes()
    pins = (folder / "bundle" / "requirements.txt").read_text()
    assert "torch==" in pins and "+cpu" in pins and "--extra-index-url" in pins
