"""The chat's web page in a real headless Chromium (Selenium): the landing examples, an
upload, request, approve, plain-words progress, result, downloads, follow-ups, a reload;
bad input; a screenshot kept as a test artifact and checked not blank. The API's uploads,
bundle and files without a browser."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), "/usr/bin/chromedriver"
needs_browser = pytest.mark.skipif(
    CHROMIUM is None or not Path(CHROMEDRIVER).exists(),
    reason="apt chromium and chromium-driver are needed for the browser test")


@pytest.fixture
def server(tmp_path):
    """`pipesmith serve` on 127.0.0.1, a free port; yields (base url, runs directory)."""
    runs = tmp_path / "runs"
    env = {**os.environ, "PIPESMITH_MAX_CANDIDATES": "2", "PIPESMITH_N_JOBS": "1"}
    log = (tmp_path / "serve.log").open("w+")
    process = subprocess.Popen(
        [sys.executable, "-m", "pipesmith.cli", "serve", "--port", "0", "--runs", str(runs),
         "--kb", str(tmp_path / "kb")], stderr=log, stdout=log, env=env)
    try:
        url = None
        for _ in range(600):
            text = Path(log.name).read_text()
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", text)
            if found:
                url = found.group(0)
                break
            assert process.poll() is None, text
            time.sleep(0.1)
        assert url, "pipesmith serve printed no address"
        yield url, runs
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


@pytest.fixture
def browser(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_AVOID_STATS"] = "true"  # Selenium Manager sends no statistics
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--window-size=1400,900",
                 f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def send(driver, text: str) -> None:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, "message")
    box.send_keys(text)
    driver.find_element(By.ID, "send").click()


def last_reply(driver, count: int, timeout_s: float = 240) -> str:
    """Wait until the page shows `count` replies; the last one's text."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout_s).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, ".msg.assistant")) >= count)
    return driver.find_elements(By.CSS_SELECTOR, ".msg.assistant")[count - 1].text


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as answer:  # the test's own 127.0.0.1 server
        assert answer.status == 200, url
        return answer.read()


def upload(driver, path: Path) -> None:
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, "upload").send_keys(str(path))


def not_blank(png: Path) -> float:
    """The screenshot's grey-level standard deviation: a blank page is ~0."""
    import numpy as np
    from PIL import Image

    grey = np.asarray(Image.open(png).convert("L"), dtype=float)
    return float(grey.std())


@pytest.mark.slow
@needs_browser
def test_request_approve_result_and_follow_up_in_the_browser(server, browser, tmp_path):
    import pandas as pd
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    from sklearn.datasets import load_iris

    url, runs = server
    browser.get(url)
    # the landing shows once the page has fetched its (empty) thread
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "landing").is_displayed())
    examples = browser.find_elements(By.CSS_SELECTOR, "#landing .example")
    assert len(examples) == 4
    examples[0].click()  # an example fills the box
    assert browser.find_element(By.ID, "message").get_attribute("value") == examples[0].text
    browser.find_element(By.ID, "message").clear()

    (tmp_path / "notes.txt").write_text("not data")
    upload(browser, tmp_path / "notes.txt")
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "upload-error").text)
    assert browser.find_element(By.ID, "upload-error").text == (
        "notes.txt is not a CSV or Parquet file (.csv, .parquet)")
    send(browser, f"predict churn from {tmp_path}/nope.csv")
    assert last_reply(browser, 1) == f"Sorry, data file not found: {tmp_path}/nope.csv."

    iris = load_iris(as_frame=True)
    flowers = iris.frame.rename(columns=lambda c: re.sub(r"\W+", "_", c.replace(" (cm)", "")))
    flowers["species"] = iris.target_names[iris.target]
    (tmp_path / "my flowers.csv").write_text(flowers.drop(columns="target").to_csv(index=False))
    upload(browser, tmp_path / "my flowers.csv")  # saved as my_flowers.csv under runs/uploads
    asked = last_reply(browser, 2)
    saved = next((runs / "uploads").glob("*/my_flowers.csv"))
    assert asked.startswith(f"Which column of {saved} should I predict?") and "species" in asked
    assert not browser.find_element(By.ID, "landing").is_displayed()
    send(browser, "species in 60 seconds")
    assert last_reply(browser, 3).startswith(f"Plan for {saved}: classification of species")
    assert browser.find_element(By.ID, "plan").is_displayed()
    send(browser, "make the budget 45 seconds")
    last_reply(browser, 4)
    assert browser.find_element(By.ID, "plan-budget").text == "45"
    browser.find_element(By.ID, "approve").click()
    done = last_reply(browser, 5)
    report = json.loads(next(runs.glob("*/report.json")).read_text())
    assert done.startswith(f"Done ({report['status']})")
    assert report["budget_s"] == 45
    assert browser.find_element(By.ID, "score").text == f"{report['score']:.4f}"
    assert browser.find_element(By.ID, "test-score").text == f"{report['test_score']:.4f}"
    progress = browser.find_element(By.ID, "progress").text
    for words in ("Looking at the data", "Planned 2 candidate models", "of 2 (",
                  "left of 45s", "Fitting the chosen model", "The report is ready"):
        assert words in progress, (words, progress)
    assert "execute" not in progress and "prevalidate" not in progress  # no node names
    # the report's plots on the page, loaded (a broken image has no natural width)
    images = browser.find_elements(By.CSS_SELECTOR, "#plots img")
    shown = {Path(i.get_attribute("src")).name for i in images}
    assert shown == {p["file"] for p in report["plots"]} and "confusion_matrix.png" in shown
    WebDriverWait(browser, 30).until(lambda d: all(d.execute_script(
        "return arguments[0].complete && arguments[0].naturalWidth > 0", i) for i in images))

    send(browser, f"predict on {saved}")
    assert last_reply(browser, 6).startswith(f"Predicted {len(flowers)} rows")
    links = {a.text: a.get_attribute("href")
             for a in browser.find_elements(By.CSS_SELECTOR, "#downloads a")}
    assert {"report (markdown)", "pipeline.py", "my_flowers.predictions.csv",
            "deployment bundle (.zip)"} <= set(links), links
    assert fetch(links["report (markdown)"]).decode().startswith("#")
    assert b"def build_pipeline" in fetch(links["pipeline.py"])
    predicted = pd.read_csv(io.BytesIO(fetch(links["my_flowers.predictions.csv"])))
    assert len(predicted) == len(flowers)

    send(browser, "which model won?")
    assert last_reply(browser, 7).startswith(
        f"{report['final_candidate']} ({report['final_attempt']}) won")
    assert "Planned 2 candidate models" in browser.find_element(By.ID, "progress").text
    browser.refresh()  # the conversation and its whole progress log come back
    last_reply(browser, 7)
    WebDriverWait(browser, 30).until(
        lambda d: "The report is ready" in d.find_element(By.ID, "progress").text)
    assert "Looking at the data" in browser.find_element(By.ID, "progress").text
    shot = tmp_path / "chat-page.png"
    browser.save_screenshot(str(shot))
    sys.stderr.write(f"screenshot: {shot}\n")
    assert shot.stat().st_size > 20_000 and not_blank(shot) > 10


def test_the_page_api_serves_threads_and_no_file_outside_a_run(tmp_path):
    from fastapi.testclient import TestClient

    from pipesmith.chat.web import create_app
    from pipesmith.settings import Settings

    (tmp_path / "secret.txt").write_text("no")
    (tmp_path / "runs" / "r1").mkdir(parents=True)
    (tmp_path / "runs" / "r1" / "report.md").write_text("# a report")
    app = create_app(Settings(runs_dir=tmp_path / "runs", use_kb=False))
    with TestClient(app) as client:
        thread = client.post("/api/threads").json()["thread_id"]
        assert client.get(f"/api/threads/{thread}").json()["messages"] == []
        assert client.get("/files/r1/report.md").text == "# a report"
        for sneaky in ("/files/r1/..%2F..%2Fsecret.txt", "/files/%2E%2E/secret.txt",
                       "/files/r1/%2E%2E/%2E%2E/secret.txt"):
            assert client.get(sneaky).status_code == 404, sneaky
        assert client.get("/").text.startswith("<!doctype html>")


def csv_bytes(rows: int = 30) -> bytes:
    lines = ["x,y,label"] + [f"{i},{i % 7},{'a' if i % 2 else 'b'}" for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def test_uploads_are_saved_under_the_runs_folder_checked_and_capped(tmp_path):
    from fastapi.testclient import TestClient

    from pipesmith.chat.web import create_app
    from pipesmith.settings import Settings

    runs = tmp_path / "runs"
    app = create_app(Settings(runs_dir=runs, use_kb=False), max_upload_mb=0.01)
    with TestClient(app) as client:
        good = client.post("/api/uploads", params={"name": "../../evil name.CSV"},
                           content=csv_bytes())
        assert good.status_code == 200, good.text
        saved = Path(good.json()["path"])
        assert saved.name == "evil_name.csv" and saved.parent.parent == runs / "uploads"
        assert good.json()["rows"] == 30 and good.json()["columns"] == ["x", "y", "label"]
        assert good.json()["message"] == f"I uploaded {saved}"
        bad = {"notes.txt": (b"x,y\n1,2\n", "notes.txt is not a CSV or Parquet file"),
               "empty.csv": (b"", "empty.csv is empty"),
               "broken.parquet": (b"\x00\x01 not a table", "cannot read broken.parquet"),
               "big.csv": (csv_bytes(2000), "big.csv is larger than the 0.01 MB upload limit")}
        for name, (body, said) in bad.items():
            answer = client.post("/api/uploads", params={"name": name}, content=body)
            assert answer.status_code in (400, 413), name
            detail = answer.json()["detail"]
            assert detail.startswith(said) and "\n" not in detail and str(runs) not in detail
        assert [p.name for p in (runs / "uploads").glob("*/*")] == ["evil_name.csv"]


def test_downloads_and_the_bundle_zip(tmp_path, monkeypatch):
    from fastapi.testclient import TestClient

    import pipesmith.export.bundle
    from pipesmith.chat.web import create_app, downloads
    from pipesmith.settings import Settings

    run = tmp_path / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "report.json").write_text("{}")
    (run / "new.predictions.csv").write_text("prediction\n1\n")
    files = {"report_md": "report.md", "pipeline": "pipeline.py", "model": "model.joblib"}
    assert [d["label"] for d in downloads(run, files)] == [
        "report (markdown)", "pipeline.py", "model.joblib", "new.predictions.csv",
        "deployment bundle (.zip)"]
    no_final = [d["label"] for d in downloads(run, {"report_md": "report.md"})]
    assert no_final == ["report (markdown)", "new.predictions.csv"]  # nothing to export

    made = []

    def fake_export(run_dir, out, fmt="bundle", force=False):  # the real one: tests/export
        made.append(run_dir)
        out.mkdir()
        (out / "predict.py").write_text("print('hi')\n")
        return out

    monkeypatch.setattr(pipesmith.export.bundle, "export", fake_export)
    with TestClient(create_app(Settings(runs_dir=tmp_path / "runs", use_kb=False))) as client:
        for _ in range(2):  # zipped once, then served from RUNS/exports
            answer = client.get("/api/runs/r1/bundle.zip")
            assert answer.status_code == 200
            assert zipfile.ZipFile(io.BytesIO(answer.content)).namelist() == ["predict.py"]
        assert len(made) == 1
        assert client.get("/api/runs/nope/bundle.zip").status_code == 404
        assert client.get("/api/runs/..%2F..%2Fetc/bundle.zip").status_code == 404
        assert client.get("/api/threads/bad%20id%2F..").status_code == 404
