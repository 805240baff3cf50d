"""The web page in a real browser: headless Chromium (the distribution's package) driven by Selenium,
against a `solve serve` started here on a free 127.0.0.1 port.

Skipped with the reason when Chromium, chromedriver or the web extra is missing (CI sets
``SOLVED_TICTACTOE_REQUIRE_WEB=1`` and installs them, so there they run). The screenshot is
saved under the test's temporary directory; ``SOLVED_TICTACTOE_UPDATE_SCREENSHOT=1`` also
copies it to ``docs/web.png`` (the README's picture).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from web_support import REQUIRE, need, need_web, running_server

import solver

need_web()
need("selenium", "needs selenium (the test extra)")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.remote.webelement import WebElement  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    reason = "needs Chromium and chromedriver (apt-get install chromium chromium-driver)"
    if REQUIRE:
        pytest.fail(f"{reason} (SOLVED_TICTACTOE_REQUIRE_WEB=1)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("2x4k2", "3x4k3")
"""Served besides tic-tac-toe: other board shapes, small enough to build in milliseconds."""


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("tables")
    for game in GAMES:
        solver.table_for(game, table_dir=directory)
    return directory


@pytest.fixture(scope="module")
def server(tables: Path) -> Iterator[str]:
    with running_server(tables, "--table-dir", str(tables)) as (url, _):
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM  # type: ignore[assignment]
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1100,820"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser: WebDriver, server: str) -> Callable[[str], WebDriver]:
    """Open the page at ``server + query`` and wait for its first position; console logs start empty."""

    def open_page(query: str = "") -> WebDriver:
        browser.get(server + query)
        wait_for(browser, lambda d: d.find_element(By.ID, "board").get_attribute("data-board"))
        return browser

    browser.get_log("browser")  # drop what earlier tests left
    return open_page


def wait_for(driver: WebDriver, condition: Callable[[WebDriver], Any], timeout: float = 10) -> Any:
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(condition)


def board_of(driver: WebDriver) -> WebElement:
    return driver.find_element(By.ID, "board")


def wait_for_board(driver: WebDriver, board: str) -> None:
    wait_for(driver, lambda d: board_of(d).get_attribute("data-board") == board and
             d.execute_script("return document.body.dataset.busy === undefined"))


def cell(driver: WebDriver, index: int) -> WebElement:
    return driver.find_element(By.CSS_SELECTOR, f'#board button[data-cell="{index}"]')


def errors_in_console(driver: WebDriver) -> list[dict[str, Any]]:
    return [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]


def assert_cells_match_lookup(driver: WebDriver, position: solver.Position) -> None:
    """Every cell is a button with data-cell; empty ones show lookup's label and say row, column and outcome."""
    buttons = driver.find_elements(By.CSS_SELECTOR, "#board button[data-cell]")
    assert [int(b.get_attribute("data-cell")) for b in buttons] == list(range(position.game.cells))
    moves = {move.cell: move for move in position.moves}
    shown = driver.execute_script(
        "return [...document.querySelectorAll('#board button')].map(b => [b.dataset.label || null, b.getAttribute('aria-label'),"
        " b.classList.contains('best'), b.textContent])")
    for index, (label, name, best, text) in enumerate(shown):
        row, col = position.game.coords(index)
        assert name.startswith(f"row {row}, column {col}: "), name
        if index in moves:
            move = moves[index]
            verb = {"win": "wins", "draw": "draws", "loss": "loses"}[move.result]
            assert label == move.label and move.label in text, f"cell {index} of {position.board}"
            assert verb in name and (move.result == "draw" or f"in {move.plies} pl" in name), name
            assert best == move.best and ("best move" in name) == move.best, f"cell {index} of {position.board}"
        else:
            assert label is None and (position.cells[index] or "empty") in name


# -- the tests --------------------------------------------------------------------------
def test_the_page_loads_with_no_console_errors_and_shows_the_empty_board(page: Callable[[str], WebDriver]) -> None:
    driver = page("")
    wait_for_board(driver, ".../.../...")
    assert errors_in_console(driver) == []
    assert "X to move draws in 9 plies" in driver.find_element(By.ID, "status").text
    assert_cells_match_lookup(driver, solver.lookup(0))
    served = [option.get_attribute("value") for option in Select(driver.find_element(By.ID, "game")).options]
    assert served == ["3x3k3", *GAMES]
    assert "solve serve --game" in driver.find_element(By.ID, "more").text


def test_clicking_cells_plays_moves_and_every_label_matches_lookup(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3")
    position = solver.lookup(0)
    for index in (4, 1, 0, 2, 8):  # X wins on the diagonal at ply 5
        cell(driver, index).click()
        position = position.play(index)
        wait_for_board(driver, position.board)
        assert_cells_match_lookup(driver, position)
        status = driver.find_element(By.ID, "status").text
        if position.is_over:
            assert status == f"Game over: {position.winner} has won."
        else:
            verb = {"win": "wins", "draw": "draws", "loss": "loses"}[position.result]
            plies = f"{position.plies} {'ply' if position.plies == 1 else 'plies'}"
            assert status.startswith(f"{position.to_move} to move {verb} in {plies} under perfect play"), status
    assert position.winner == "X"
    cell(driver, 3).click()  # the game is over: nothing happens
    wait_for_board(driver, position.board)
    assert board_of(driver).get_attribute("data-ply") == "5"
    assert errors_in_console(driver) == []


def test_the_perfect_player_answers_with_a_best_move_for_either_side(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3")
    Select(driver.find_element(By.ID, "mode")).select_by_value("X")
    cell(driver, 1).click()  # an edge: O has good and bad answers
    wait_for(driver, lambda d: board_of(d).get_attribute("data-ply") == "2")
    moves = parse_qs(urlparse(driver.current_url).query)["moves"][0].split(",")
    assert moves[0] == "1" and int(moves[1]) in solver.lookup(".X./.../...").best_cells
    assert "Your move" in driver.find_element(By.ID, "status").text

    driver = page("?game=3x3k3&play=O")  # the perfect player is X and moves first
    wait_for(driver, lambda d: board_of(d).get_attribute("data-ply") == "1")
    first = int(parse_qs(urlparse(driver.current_url).query)["moves"][0])
    assert first in solver.lookup(0).best_cells
    assert board_of(driver).get_attribute("data-to-move") == "O"
    assert errors_in_console(driver) == []


def test_a_shared_url_restores_its_position_and_the_url_follows_every_move(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3&moves=4,0,8")
    position = solver.lookup("O../.X./..X")
    wait_for_board(driver, position.board)
    assert_cells_match_lookup(driver, position)
    cell(driver, 2).click()
    wait_for_board(driver, position.play(2).board)
    shared = driver.current_url
    assert parse_qs(urlparse(shared).query) == {"game": ["3x3k3"], "moves": ["4,0,8,2"]}
    driver.get("about:blank")
    driver = page(shared[len(shared.split("?")[0]):])
    wait_for_board(driver, position.play(2).board)
    assert_cells_match_lookup(driver, position.play(2))

    driver = page("?game=3x3k3&board=XO./.X./...")  # a position with no history
    wait_for_board(driver, "XO./.X./...")
    assert_cells_match_lookup(driver, solver.lookup("XO./.X./..."))
    assert errors_in_console(driver) == []


def test_undo_redo_and_new_game_with_buttons_and_keys(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3&moves=4,0,8")
    wait_for_board(driver, "O../.X./..X")
    driver.find_element(By.ID, "undo").click()
    wait_for_board(driver, "O../.X./...")
    driver.find_element(By.TAG_NAME, "body").send_keys("u")
    wait_for_board(driver, ".../.X./...")
    driver.find_element(By.ID, "redo").click()
    wait_for_board(driver, "O../.X./...")
    driver.find_element(By.TAG_NAME, "body").send_keys("r")
    wait_for_board(driver, "O../.X./..X")
    assert driver.find_element(By.ID, "redo").get_attribute("disabled") == "true"
    driver.find_element(By.ID, "reset").click()
    wait_for_board(driver, ".../.../...")
    assert "moves" not in parse_qs(urlparse(driver.current_url).query)


def test_the_board_is_usable_with_the_keyboard_alone(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3")
    cell(driver, 0).send_keys(Keys.ARROW_RIGHT)  # focus moves to cell 1
    assert driver.switch_to.active_element.get_attribute("data-cell") == "1"
    driver.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
    assert driver.switch_to.active_element.get_attribute("data-cell") == "4"
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait_for_board(driver, ".../.X./...")
    tabbable = driver.execute_script("return [...document.querySelectorAll('#board button')].filter(b => b.tabIndex === 0).length")
    assert tabbable == 1, "one cell in the tab order; arrows move within the board"


def test_pasting_a_move_list_analyses_the_game_ply_by_ply(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3")
    box = driver.find_element(By.ID, "paste")
    box.send_keys("0,0 0,1 1,0 1,1 1,2 2,1", Keys.ENTER)
    wait_for_board(driver, "XO./XOX/.O.")
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#plies li[data-verdict]")) == 6)
    verdicts = [li.get_attribute("data-verdict") for li in driver.find_elements(By.CSS_SELECTOR, "#plies li")]
    assert verdicts == [ply.verdict for ply in solver.analyze([0, 1, 3, 4, 5, 7]).plies]
    assert verdicts == ["best", "mistake", "best", "ok", "blunder", "best"]
    assert "O: 3 moves; best 1, ok 1, mistakes 1, blunders 0" in driver.find_element(By.ID, "summary").text
    box.clear()
    box.send_keys("4 4", Keys.ENTER)
    wait_for(driver, lambda d: d.find_element(By.ID, "error").text)
    assert driver.find_element(By.ID, "error").text.startswith("ply 2: O cannot play row 1, col 1")


@pytest.mark.parametrize("game", GAMES)
def test_other_board_shapes_draw_and_play(page: Callable[[str], WebDriver], tables: Path, game: str) -> None:
    driver = page("?game=3x3k3")
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    table = solver.table_for(game, table_dir=tables)
    position = table.at(0)
    wait_for_board(driver, position.board)
    assert_cells_match_lookup(driver, position)
    for index in (0, table.game.cells - 1):
        cell(driver, index).click()
        position = position.play(index)
        wait_for_board(driver, position.board)
        assert_cells_match_lookup(driver, position)
    assert parse_qs(urlparse(driver.current_url).query)["game"] == [game]
    assert errors_in_console(driver) == []


def test_a_phone_sized_screen_shows_the_whole_board_without_sideways_scrolling(page: Callable[[str], WebDriver], tmp_path: Path) -> None:
    driver = page("?game=3x3k3")
    driver.set_window_size(390, 844)
    try:
        for query in ("?game=3x3k3&moves=4,1", "?game=3x4k3&moves=5", "?game=2x4k2&moves=1"):
            driver = page(query)
            fits = driver.execute_script(
                "const r = document.getElementById('board').getBoundingClientRect();"
                "return [r.left >= 0, r.right <= document.documentElement.clientWidth,"
                " document.documentElement.scrollWidth <= document.documentElement.clientWidth]")
            assert fits == [True, True, True], query
        driver.save_screenshot(str(tmp_path / "web-phone.png"))
    finally:
        driver.set_window_size(1100, 820)


def test_a_screenshot_of_the_page_is_saved(page: Callable[[str], WebDriver], tmp_path_factory: pytest.TempPathFactory) -> None:
    driver = page("?game=3x3k3&moves=0,2,1")  # O to move with wins, draws and losses to choose from
    wait_for_board(driver, "XXO/.../...")
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#plies li[data-verdict]")) == 3)
    driver.execute_script("document.activeElement && document.activeElement.blur()")
    shot = tmp_path_factory.mktemp("artifacts") / "web.png"
    assert driver.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"screenshot: {shot}")
    if os.environ.get("SOLVED_TICTACTOE_UPDATE_SCREENSHOT") == "1":
        (ROOT / "docs").mkdir(exist_ok=True)
        shutil.copyfile(shot, ROOT / "docs" / "web.png")
