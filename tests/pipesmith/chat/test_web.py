"""The chat's web page in a real headless Chromium (Selenium): request, approve, result,
follow-up; bad input; a screenshot kept as a test artifact."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
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


@pytest.mark.slow
@needs_browser
def test_request_approve_result_and_follow_up_in_the_browser(server, browser, tmp_path):
    from selenium.webdriver.common.by import By

    url, runs = server
    browser.get(url)
    send(browser, f"predict churn from {tmp_path}/nope.csv")
    assert last_reply(browser, 1) == f"Sorry, data file not found: {tmp_path}/nope.csv."
    send(browser, "classify the wine dataset in 60 seconds")
    assert last_reply(browser, 2).startswith("Plan for wine")
    assert browser.find_element(By.ID, "plan").is_displayed()
    send(browser, "make the budget 45 seconds")
    last_reply(browser, 3)
    assert browser.find_element(By.ID, "plan-budget").text == "45"
    browser.find_element(By.ID, "approve").click()
    done = last_reply(browser, 4)
    report = json.loads(next(runs.glob("*/report.json")).read_text())
    assert done.startswith(f"Done ({report['status']})")
    assert report["budget_s"] == 45
    assert browser.find_element(By.ID, "score").text == f"{report['score']:.4f}"
    assert browser.find_element(By.ID, "test-score").text == f"{report['test_score']:.4f}"
    assert "execute" in browser.find_element(By.ID, "progress").text  # live progress lines
    links = [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "#files a")]
    assert any(link.endswith("/report.md") for link in links)
    send(browser, "which model won?")
    assert last_reply(browser, 5).startswith(
        f"{report['final_candidate']} ({report['final_attempt']}) won")
    shot = tmp_path / "chat-page.png"
    browser.save_screenshot(str(shot))
    sys.stderr.write(f"screenshot: {shot}\n")
    assert shot.stat().st_size > 0


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
