"""The page plays Connect Four in a real browser (headless Chromium, as tests/test_web_browser.py drives it):
`solve serve --game connect4` answers by search, and a late position of Pons' End-Easy set is played on.

Skipped where Chromium, chromedriver, the web extra or Pons' test sets are missing. Nothing is timed: the
server's search budget is generous, so the engine's first compilation cannot refuse the first request.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_support import need, need_web, running_server

import solver

need_web()
need("selenium", "needs selenium (the test extra)")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip("needs Chromium and chromedriver (apt-get install chromium chromium-driver)", allow_module_level=True)

PONS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4" / "pons_tests" / "Test_L3_R1"


@pytest.fixture(scope="module")
def start() -> str:
    """A late Connect Four position (Pons' first End-Easy one), as the board string the page's URL takes."""
    if not PONS.is_file():
        pytest.skip("Pons' test sets are not beside the checkout (../shared/data/connect4/pons_tests)")
    moves = PONS.read_text().split()[0]
    return solver.lookup(moves=moves, game="connect4").board


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebDriver, str]]:
    tables = tmp_path_factory.mktemp("tables")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM  # type: ignore[assignment]
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1100,900"):
        options.add_argument(argument)
    with running_server(tables, "--game", "connect4", "--search-budget", "120", timeout=120) as (url, _):
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        driver.set_page_load_timeout(60)
        try:
            yield driver, url
        finally:
            driver.quit()
            shutil.rmtree(profile, ignore_errors=True)


def heads(driver: WebDriver) -> list[str]:
    return [button.get_attribute("data-label") or "" for button in driver.find_elements(By.CSS_SELECTOR, "#columns .column")]


def test_the_page_plays_a_connect4_move_and_shows_each_columns_outcome(browser: tuple[WebDriver, str], start: str) -> None:
    driver, url = browser
    driver.get(f"{url}?game=6x7k4-gravity&board={start}")
    wait = WebDriverWait(driver, 120, poll_frequency=0.1)
    wait.until(lambda d: d.find_element(By.ID, "board").get_attribute("data-board") == start)
    position = solver.lookup(start, game="connect4")
    wait.until(lambda d: any(heads(d)))
    labels = heads(driver)
    assert len(labels) == 7
    for move in position.moves:  # the label above each open column is the lookup's outcome for that column
        assert labels[move.col].startswith({"win": "W", "draw": "D", "loss": "L"}[move.result])
    assert driver.find_element(By.ID, "board").get_attribute("class").split().count("drops") == 1
    column = position.best_columns[0]
    driver.find_elements(By.CSS_SELECTOR, "#columns .column")[column].click()
    after = position.play(column).board
    wait.until(lambda d: d.find_element(By.ID, "board").get_attribute("data-board") == after)
