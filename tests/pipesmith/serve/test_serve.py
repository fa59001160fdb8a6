"""`pipesmith serve RUN` as a person starts it: the real CLI on 127.0.0.1 with --port 0, the
URL read from what it prints, rows with problems answered per row (docs/export.md)."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import httpx
import numpy as np
import pandas as pd
import pytest

from tests.pipesmith.export.test_export import cli, small_settings_env

pytestmark = pytest.mark.slow


def churn_table(n: int = 160, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "customer_id": np.arange(1000, 1000 + n),
        "signup_date": pd.date_range("2020-01-01", periods=n, freq="3D").strftime("%Y-%m-%d"),
        "plan": rng.choice(["basic", "pro", "team"], n),
        "seats": rng.integers(1, 50, n),
        "tenure": rng.normal(24, 8, n).round(1)})
    frame["churn"] = np.where((frame["plan"] == "basic") & (frame["tenure"] < 26), "yes", "no")
    return frame


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A run on the churn table, served by `pipesmith serve RUN --port 0`: (base URL, rows)."""
    folder = tmp_path_factory.mktemp("serve")
    churn_table().to_csv(folder / "churn.csv", index=False)
    done = cli("run", "--data", str(folder / "churn.csv"), "--target", "churn", "--no-kb",
               "--budget", "60", "--out", str(folder / "run"), "-q",
               env=small_settings_env(folder))
    assert done.returncode == 0, done.stderr[-3000:]
    process = subprocess.Popen([sys.executable, "-m", "pipesmith.cli", "serve",
                                str(folder / "run"), "--port", "0"],
                               stderr=subprocess.PIPE, text=True)
    try:
        line = process.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match and match.group(1) != "0", line
        url = match.group(0)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the socket is bound; the app may still load
            try:
                httpx.get(url + "health", timeout=5)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        rows = churn_table(6, seed=1).drop(columns="churn").to_dict(orient="records")
        yield url, rows
    finally:
        process.terminate()
        process.wait(20)


def test_the_printed_url_serves_and_columns_the_model_never_uses_are_optional(server):
    url, rows = server
    health = httpx.get(url + "health", timeout=30).json()
    assert "customer_id" in health["columns"] and "customer_id" not in health["required"]
    without_id = [{k: v for k, v in row.items() if k != "customer_id"} for row in rows]
    body = httpx.post(url + "predict", json={"rows": without_id}, timeout=30).json()
    assert body["errors"] == [] and all(p["prediction"] in ("yes", "no")
                                        for p in body["predictions"])


def test_bad_rows_are_named_and_the_good_rows_still_predicted(server):
    url, rows = server
    rows[1]["signup_date"] = "not a date"
    rows[2]["plan"] = "enterprise"
    del rows[3]["tenure"]
    rows[4]["seats"] = "a few"
    answer = httpx.post(url + "predict", json={"rows": rows}, timeout=30)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert [(e["row"], e["column"]) for e in body["errors"]] == [
        (1, "signup_date"), (2, "plan"), (3, "tenure"), (4, "seats")]
    assert "not a date" in body["errors"][0]["problem"]
    assert "unseen category 'enterprise'" in body["errors"][1]["problem"]
    assert body["errors"][2]["problem"] == "missing column"
    assert [p is None for p in body["predictions"]] == [False, True, True, True, True, False]


@pytest.mark.parametrize("method, path, body, status", [
    ("post", "predict", {"rows": []}, 422),
    ("post", "predict", {"rowz": [{}]}, 422),
    ("post", "predict", {"rows": [{"plan": "pro"}, 3]}, 422),
    ("get", "nowhere", None, 404),
    ("get", "predict", None, 405),
])
def test_every_error_has_the_one_shape(server, method, path, body, status):
    url, _ = server
    answer = httpx.request(method.upper(), url + path, json=body, timeout=30)
    assert answer.status_code == status, answer.text
    got = answer.json()
    assert set(got) == {"predictions", "errors"} and got["predictions"] == []
    assert got["errors"] and all(set(e) == {"row", "column", "problem"} for e in got["errors"])
    if body and body.get("rows") and len(body["rows"]) == 2:
        assert got["errors"][0]["row"] == 1
