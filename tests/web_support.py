"""Helpers of the web tests: skip (or, in CI, fail) without the web extra, and a real `solve serve` to test against.

Set ``SOLVED_TICTACTOE_REQUIRE_WEB=1`` (as ``.ci/run`` does) to make a missing web extra
or browser an error instead of a skip.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REQUIRE = os.environ.get("SOLVED_TICTACTOE_REQUIRE_WEB") == "1"
URL = re.compile(r"at (http://\S+/) ")


def need(module: str, why: str) -> ModuleType:
    """Import ``module``, or skip with ``why`` (fail instead when CI requires the web tests).

    Called at the top of a test module (as :func:`need_web` is), the skip covers the whole
    module: a missing extra is a skip, not a collection error.
    """
    try:
        return __import__(module, fromlist=["_"])
    except ImportError as error:
        if REQUIRE:
            pytest.fail(f"{why}: {error} (SOLVED_TICTACTOE_REQUIRE_WEB=1)")
        pytest.skip(f"{why}: {error}", allow_module_level=True)
        raise  # unreachable: skip raises


def need_chromium() -> None:
    """Skip (fail in CI) unless Selenium, Chromium and chromedriver are all here: call at a browser test module's top."""
    need("selenium", "needs selenium (the test extra)")
    if not (shutil.which("chromium") or shutil.which("chromium-browser")) or not shutil.which("chromedriver"):
        reason = "needs Chromium and chromedriver (apt-get install chromium chromium-driver)"
        if REQUIRE:
            pytest.fail(f"{reason} (SOLVED_TICTACTOE_REQUIRE_WEB=1)", pytrace=False)
        pytest.skip(reason, allow_module_level=True)


@contextmanager
def chromium(*arguments: str, page_load_timeout: float = 30, logs: bool = False) -> Iterator[Any]:
    """A headless Chromium driven by Selenium (a ``WebDriver``), in a profile of its own that is removed after;
    ``arguments`` add to the headless ones (a window size), ``logs`` keeps the page's console log."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--user-data-dir={profile}", *arguments):
        options.add_argument(argument)
    if logs:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    driver.set_page_load_timeout(page_load_timeout)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def need_web() -> None:
    """Skip unless the web extra (Starlette, uvicorn, httpx for the test client) is installed."""
    for module in ("starlette", "uvicorn", "httpx"):
        need(module, "needs the web extra: pip install '.[test,web]'")


@contextmanager
def running_server(table_dir: Path, *args: str, timeout: float = 60) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``solve serve --port 0`` in a child process; yields its base URL and the process, and stops it after."""
    env = {**os.environ, "SOLVED_TICTACTOE_DIR": str(table_dir), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "solver.cli", "serve", "--port", "0", "--quiet", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + timeout
        line = ""
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if URL.search(line) or not line:
                break
        match = URL.search(line)
        if match is None:
            process.kill()
            _, err = process.communicate(timeout=10)
            raise AssertionError(f"solve serve did not start: {line!r}\n{err}")
        yield match[1], process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
