"""The web page in a real browser: headless Chromium (the distribution's package) driven by Selenium,
against a `solve serve` started here on a free 127.0.0.1 port.

Skipped with the reason when Chromium, chromedriver or the web extra is missing (CI sets
``SOLVED_TICTACTOE_REQUIRE_WEB=1`` and installs them, so there they run). The screenshot is
saved under the test's temporary directory; ``SOLVED_TICTACTOE_UPDATE_SCREENSHOT=1`` also
copies the desktop ones (a 1280x800 viewport) to ``docs/web.png`` (the README's picture) and
``docs/web-gravity.png`` (a gravity game, in docs/http.md).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from web_support import chromium, need_chromium, need_web, running_server

import solver

need_web()
need_chromium()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.remote.webelement import WebElement  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("2x4k2", "3x4k3")
"""Served besides tic-tac-toe: other board shapes, small enough to build in milliseconds."""
GRAVITY = "4x4k4-gravity"
"""Served too: a gravity game (a piece drops to the lowest empty cell of its column), built in seconds."""
WIDE = "2x7k4-gravity"
"""Served too: a board as wide as Connect Four's (seven columns), built in a second."""
MISERE = ("3x3k3-misere", "3x3k3-gravity-misere")
"""Served too: misère play (whoever completes a line loses), with and without gravity; the longest names in the menu."""


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("tables")
    for game in (*GAMES, WIDE, GRAVITY, *MISERE):
        solver.table_for(game, table_dir=directory)
    return directory


@pytest.fixture(scope="module")
def server(tables: Path) -> Iterator[str]:
    with running_server(tables, "--table-dir", str(tables)) as (url, _):
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    quiet = ("--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync")
    with chromium(*quiet, "--window-size=1100,820", logs=True) as driver:
        yield driver


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
    wait_for(driver, lambda d: board_of(d).get_attribute("data-board") == board and d.execute_script("return document.body.dataset.busy === undefined"))


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
        " b.classList.contains('best'), b.textContent])"
    )
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


def expected_outcome(position: solver.Position) -> str:
    """What the status says perfect play gives: "a draw", "X wins", "O wins"."""
    if position.result == "draw":
        return "a draw"
    winner = position.to_move if position.result == "win" else {"X": "O", "O": "X"}[position.to_move or "X"]
    return f"{winner} wins"


def assert_no_hints(driver: WebDriver) -> None:
    """Hints off: empty cells show nothing (no label, no star, no outline), say only "empty"; no legend."""
    shown = driver.execute_script(
        "return [...document.querySelectorAll('#board button.empty')].map(b => [b.dataset.label || null, b.textContent,"
        " b.classList.contains('best'), b.getAttribute('aria-label')])"
    )
    assert shown, "some empty cells"
    for label, text, best, name in shown:
        assert label is None and text == "" and not best and name.endswith(": empty"), name
    assert not driver.find_element(By.ID, "legend").is_displayed()
    assert not driver.find_element(By.ID, "hints").is_selected()


def visible_in_viewport(driver: WebDriver, element_id: str) -> bool:
    return bool(
        driver.execute_script(
            "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
            "return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth",
            element_id,
        )
    )


# -- the tests --------------------------------------------------------------------------
def test_the_page_loads_with_no_console_errors_and_shows_the_empty_board(page: Callable[[str], WebDriver]) -> None:
    driver = page("")
    wait_for_board(driver, ".../.../...")
    assert errors_in_console(driver) == []
    assert driver.find_element(By.ID, "status").text == "X to move: a draw with best play"
    assert driver.find_element(By.ID, "detail").text == "in 9 plies · every move is best"
    assert_cells_match_lookup(driver, solver.lookup(0))
    served = [option.get_attribute("value") for option in Select(driver.find_element(By.ID, "game")).options]
    assert sorted(served) == sorted(["3x3k3", *GAMES, WIDE, GRAVITY, *MISERE])
    assert "solve serve --game" in driver.find_element(By.ID, "more").text


def test_clicking_cells_plays_moves_and_every_label_matches_lookup(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3")
    position = solver.lookup(0)
    for index in (4, 1, 0, 2, 8):  # X wins on the diagonal at ply 5
        cell(driver, index).click()
        position = position.play(index)
        wait_for_board(driver, position.board)
        assert_cells_match_lookup(driver, position)
        status, detail = driver.find_element(By.ID, "status").text, driver.find_element(By.ID, "detail").text
        if position.is_over:
            assert status == f"{position.winner} won" and detail.startswith("3 in a row (row,col): 0,0 1,1 2,2")
        else:
            assert status == f"{position.to_move} to move: {expected_outcome(position)} with best play"
            assert detail.startswith(f"in {position.plies} {'ply' if position.plies == 1 else 'plies'} · "), detail
    assert position.winner == "X"
    cell(driver, 3).click()  # the game is over: nothing happens, and the page says why
    wait_for(driver, lambda d: d.find_element(By.ID, "notice").text.startswith("The game is over"))
    assert board_of(driver).get_attribute("data-ply") == "5"
    assert errors_in_console(driver) == []


def test_the_perfect_player_answers_with_a_best_move_for_either_side(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3")
    Select(driver.find_element(By.ID, "mode")).select_by_value("X")
    cell(driver, 1).click()  # an edge: O has good and bad answers
    wait_for(driver, lambda d: board_of(d).get_attribute("data-ply") == "2")
    moves = parse_qs(urlparse(driver.current_url).query)["moves"][0].split(",")
    assert moves[0] == "1" and int(moves[1]) in solver.lookup(".X./.../...").best_cells
    assert driver.find_element(By.ID, "status").text == "X to move (you)"  # hints are off against the perfect player

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
    driver = page(shared[len(shared.split("?")[0]) :])
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
    wait_for(driver, lambda d: d.find_element(By.ID, "paste-error").text)
    assert driver.find_element(By.ID, "paste-error").text.startswith("ply 2: O cannot play row 1, col 1")


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
                " document.documentElement.scrollWidth <= document.documentElement.clientWidth]"
            )
            assert fits == [True, True, True], query
        driver.save_screenshot(str(tmp_path / "web-phone.png"))
    finally:
        driver.set_window_size(1100, 820)


def test_hints_are_on_exploring_off_against_the_perfect_player_and_the_switch_shows_them(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3&moves=4")
    position = solver.lookup(".../.X./...")
    wait_for_board(driver, position.board)
    assert driver.find_element(By.ID, "hints").is_selected() and driver.find_element(By.ID, "legend").is_displayed()
    assert_cells_match_lookup(driver, position)

    driver = page("?game=3x3k3&play=X&moves=4,0")  # against the perfect player: the game is not given away
    position = solver.lookup("O../.X./...")
    wait_for_board(driver, position.board)
    assert_no_hints(driver)
    assert driver.find_element(By.ID, "status").text == "X to move (you)"
    assert driver.find_element(By.ID, "detail").text.startswith("Hints are off")
    assert driver.find_elements(By.CSS_SELECTOR, "#plies .outcomes") == []  # no D → D either
    driver.find_element(By.CSS_SELECTOR, "label.switch").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "hints").is_selected())
    assert_cells_match_lookup(driver, position)
    assert driver.find_element(By.ID, "status").text == "X to move (you): a draw with best play"
    assert parse_qs(urlparse(driver.current_url).query)["hints"] == ["on"]  # remembered in the URL, so a link keeps it

    driver = page("?" + urlparse(driver.current_url).query)
    wait_for_board(driver, position.board)
    assert driver.find_element(By.ID, "hints").is_selected()
    assert_cells_match_lookup(driver, position)
    Select(driver.find_element(By.ID, "mode")).select_by_value("both")  # another mode: its own default again
    wait_for(driver, lambda d: "hints" not in parse_qs(urlparse(d.current_url).query) and "play" not in d.current_url)
    assert driver.find_element(By.ID, "hints").is_selected()
    driver.find_element(By.ID, "hints").send_keys(Keys.SPACE)  # the switch works from the keyboard too
    wait_for(driver, lambda d: parse_qs(urlparse(d.current_url).query).get("hints") == ["off"])
    assert_no_hints(driver)
    assert driver.find_element(By.ID, "status").text == "X to move"
    assert errors_in_console(driver) == []


@pytest.mark.parametrize(
    ("query", "board", "winner", "line", "status"),
    [
        ("?game=3x3k3&moves=0,4,1,2,5,6", "XXO/.OX/O..", "O", {2, 4, 6}, "O won"),
        ("?game=3x3k3&moves=0,3,1,4,2", "XXX/OO./...", "X", {0, 1, 2}, "X won"),
        ("?game=2x4k2&moves=0,1,4", "XO../X...", "X", {0, 4}, "X won"),
        ("?game=3x3k3&moves=0,1,2,4,3,5,7,6,8", "XOX/XOO/OXX", "", set(), "Draw"),
        ("?game=3x3k3&play=X&moves=0,1,2,4,3,5,7,6,8", "XOX/XOO/OXX", "", set(), "Draw: you held the perfect player"),
        ("?game=3x3k3&play=X&moves=0,4,1,2,5,6", "XXO/.OX/O..", "O", {2, 4, 6}, "O won: the perfect player won"),
    ],
)
def test_a_finished_game_marks_its_winning_line_and_drops_the_legend(
    page: Callable[[str], WebDriver], query: str, board: str, winner: str, line: set[int], status: str
) -> None:
    driver = page(query)
    wait_for_board(driver, board)
    assert board_of(driver).get_attribute("data-winner") == winner
    marked = driver.execute_script("return [...document.querySelectorAll('#board .in-line')].map(b => Number(b.dataset.cell))")
    assert set(marked) == line
    for index in line:
        assert cell(driver, index).get_attribute("aria-label").endswith(f": {winner}, in the winning line")
    assert driver.find_element(By.ID, "status").text == status
    assert not driver.find_element(By.ID, "legend").is_displayed()
    shadow = driver.execute_script("return [...document.querySelectorAll('#board .in-line')].map(b => getComputedStyle(b).boxShadow)")
    assert all("inset" in value for value in shadow), shadow


@pytest.mark.parametrize(
    ("moves", "status", "detail"),
    [
        ("", "X to move: a draw with best play", "in 9 plies · every move is best"),
        ("4,1", "X to move: X wins with best play", "in 5 plies · best (row,col): "),
        ("4,1,0", "O to move: X wins with best play", "in 4 plies · best (row,col): 2,2"),
        ("0,3,1,4", "X to move: X wins with best play", "in 1 ply · best (row,col): 0,2"),
        ("0,2,1", "O to move: O wins with best play", "in 5 plies · best (row,col): 1,2 2,2"),
    ],
)
def test_the_status_says_who_is_to_move_and_what_best_play_gives_in_plain_words(page: Callable[[str], WebDriver], moves: str, status: str, detail: str) -> None:
    driver = page(f"?game=3x3k3&moves={moves}" if moves else "?game=3x3k3")
    position = solver.analyze([int(m) for m in moves.split(",")]).final if moves else solver.lookup(0)
    wait_for_board(driver, position.board)
    assert driver.find_element(By.ID, "status").text == status
    assert driver.find_element(By.ID, "status").get_attribute("aria-live") == "polite"
    assert driver.find_element(By.ID, "detail").text.startswith(detail)
    assert status == f"{position.to_move} to move: {expected_outcome(position)} with best play"


def test_hint_labels_are_small_and_in_a_corner_so_an_empty_board_does_not_look_full(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3&moves=4")
    wait_for_board(driver, ".../.X./...")
    sizes = driver.execute_script("""
        const box = (e) => e.getBoundingClientRect();
        const cell = document.querySelector('#board button[data-cell="0"]'), piece = document.querySelector('#board .piece');
        const label = cell.querySelector('.label');
        return {cell: [box(cell).left, box(cell).top, box(cell).width], label: [box(label).left, box(label).top, box(label).width,
                box(label).height], labelFont: parseFloat(getComputedStyle(label).fontSize),
                pieceFont: parseFloat(getComputedStyle(piece).fontSize),
                emptyBackground: getComputedStyle(cell).backgroundColor,
                pieceBackground: getComputedStyle(piece.parentElement).backgroundColor};""")
    left, top, side = sizes["cell"]
    label_left, label_top, label_width, label_height = sizes["label"]
    assert sizes["labelFont"] * 2.5 < sizes["pieceFont"], sizes  # a label is far smaller than a piece
    assert label_left - left < side / 4 and label_top - top < side / 4, sizes  # in the top-left corner
    assert label_width < side / 2 and label_height < side / 3, sizes
    assert sizes["emptyBackground"] != sizes["pieceBackground"], sizes
    colours = driver.execute_script("return [...document.querySelectorAll('#board .piece')].map(p => [p.textContent, getComputedStyle(p).color])")
    assert colours == [["X", "rgb(13, 71, 161)"]]  # svg.PIECE_COLOURS: the notebook picture's X

    driver = page("?game=3x3k3&play=O")  # hints off: an empty cell is empty
    wait_for(driver, lambda d: board_of(d).get_attribute("data-ply") == "1")
    assert_no_hints(driver)


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_the_last_moves_verdict_is_next_to_the_board_without_scrolling(page: Callable[[str], WebDriver], size: tuple[int, int]) -> None:
    driver = page("?game=3x3k3")
    driver.set_window_size(*size)
    try:
        driver = page("?game=3x3k3&moves=0,2")
        wait_for_board(driver, "X.O/.../...")
        cell(driver, 1).click()  # a blunder: X threw away a win
        wait_for(driver, lambda d: d.find_element(By.ID, "last-move").get_attribute("data-verdict") == "blunder")
        text = driver.find_element(By.ID, "last-move").text
        assert text == "Last move: X at 0,1, a blunder (a win in 5 plies became a loss in 6 plies for X)"
        assert visible_in_viewport(driver, "last-move") and visible_in_viewport(driver, "board")
        gap = driver.execute_script(
            "return document.getElementById('board').getBoundingClientRect().top - document.getElementById('last-move').getBoundingClientRect().bottom"
        )
        assert 0 <= gap < 40, "the verdict sits right above the board"

        driver = page("?game=3x3k3&play=X")  # against the perfect player: your own move's verdict
        cell(driver, 1).click()
        wait_for(driver, lambda d: board_of(d).get_attribute("data-ply") == "2")
        wait_for(driver, lambda d: d.find_element(By.ID, "last-move").get_attribute("data-verdict"))
        assert driver.find_element(By.ID, "last-move").text.startswith("Your move: X at 0,1, ")
        assert visible_in_viewport(driver, "last-move")
    finally:
        driver.set_window_size(1100, 820)


OVER_SHAPE = """
window.reshaped = 0;
const original = window.fetch;
window.fetch = async (...args) => {
  const response = await original(...args);
  if (!/\\/api\\/v1\\/3x3k3\\?board=/.test(String(args[0]))) return response;
  const body = await response.json();
  body.over = body.to_move === null;
  if (body.over) { delete body.to_move; if (DROP_WINNER) delete body.winner; }
  window.reshaped += 1;
  return new Response(JSON.stringify(body), {status: response.status, headers: {"content-type": "application/json"}});
};
"""


@pytest.mark.parametrize("drop_winner", [False, True])
def test_a_finished_board_answered_with_over_and_no_to_move_reads_the_same(page: Callable[[str], WebDriver], browser: WebDriver, drop_winner: bool) -> None:
    """The API's newer shape for a finished board (``"over": true``, no ``to_move``; the winner from the board if absent)."""
    source = OVER_SHAPE.replace("DROP_WINNER", "true" if drop_winner else "false")
    script = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})
    try:
        driver = page("?game=3x3k3&moves=0,3,1,4")
        wait_for_board(driver, "XX./OO./...")
        assert driver.find_element(By.ID, "status").text == "X to move: X wins with best play"
        cell(driver, 2).click()
        wait_for_board(driver, "XXX/OO./...")
        assert driver.execute_script("return window.reshaped") >= 2, "the answers went through the reshaping"
        assert driver.find_element(By.ID, "status").text == "X won"
        assert board_of(driver).get_attribute("data-to-move") == "" and board_of(driver).get_attribute("data-winner") == "X"
        marked = driver.execute_script("return [...document.querySelectorAll('#board .in-line')].map(b => Number(b.dataset.cell))")
        assert marked == [0, 1, 2]
        cell(driver, 8).click()
        wait_for(driver, lambda d: d.find_element(By.ID, "notice").text.startswith("The game is over"))
        assert board_of(driver).get_attribute("data-ply") == "5"
        assert errors_in_console(driver) == []
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})


def test_a_click_that_does_nothing_says_why_in_a_live_region(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3&moves=4")
    wait_for_board(driver, ".../.X./...")
    notice = driver.find_element(By.ID, "notice")
    assert notice.get_attribute("aria-live") == "polite" and notice.text == ""
    cell(driver, 4).click()
    wait_for(driver, lambda d: d.find_element(By.ID, "notice").text == "That cell is taken.")
    cell(driver, 4).send_keys(Keys.ENTER)  # the keyboard gets the same answer
    wait_for(driver, lambda d: d.find_element(By.ID, "notice").text == "That cell is taken.")
    assert board_of(driver).get_attribute("data-ply") == "1"
    cell(driver, 0).click()  # a move clears it
    wait_for_board(driver, "O../.X./...")
    assert driver.find_element(By.ID, "notice").text == ""

    driver = page("?game=3x3k3&play=X")
    driver.execute_async_script("""
        const done = arguments[0], board = document.getElementById("board");
        const observer = new MutationObserver(() => {  // as soon as X's move is drawn, before the perfect player answers
          if (board.dataset.ply !== "1") return;
          observer.disconnect();
          board.querySelector('[data-cell="0"]').click();
          done();
        });
        observer.observe(board, { attributes: true });
        board.querySelector('[data-cell="4"]').click();""")
    wait_for(driver, lambda d: d.find_element(By.ID, "notice").text == "Wait: the perfect player is moving.")
    wait_for(driver, lambda d: board_of(d).get_attribute("data-ply") == "2")
    assert len(parse_qs(urlparse(driver.current_url).query)["moves"][0].split(",")) == 2
    assert errors_in_console(driver) == []


def set_viewport(driver: WebDriver, width: int, height: int) -> None:
    """Size the window so the page itself (the viewport, without the browser's frame) is ``width`` x ``height``."""
    driver.set_window_size(width, height)
    frame = driver.execute_script("return window.outerHeight - window.innerHeight")  # headless Chromium has no side frame
    driver.set_window_size(width, height + frame)
    wait_for(driver, lambda d: d.execute_script("return [window.innerWidth, window.innerHeight]") == [width, height])


def test_screenshots_of_the_page_are_saved(page: Callable[[str], WebDriver], browser: WebDriver, tmp_path_factory: pytest.TempPathFactory) -> None:
    """docs/web.png is the desktop one (1280x800), the outcomes by ply open; the phone one (390x844) is for looking at."""
    artifacts = tmp_path_factory.mktemp("artifacts")
    try:
        for name, (width, height) in (("web.png", (1280, 800)), ("web-phone.png", (390, 844))):
            set_viewport(page(""), width, height)
            driver = page("?game=3x3k3&moves=0,2,1")  # O to move with wins, draws and losses to choose from
            wait_for_board(driver, "XXO/.../...")
            wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#plies li[data-verdict]")) == 3)
            wait_for(driver, lambda d: d.find_element(By.ID, "last-move").get_attribute("data-verdict") == "blunder")
            driver.find_element(By.CSS_SELECTOR, "#outcomes summary").click()  # the chart of the outcomes by ply, open
            wait_for(driver, lambda d: chart_title(d).startswith("3x3k3"))
            driver.execute_script("document.activeElement && document.activeElement.blur()")
            shot = artifacts / name
            assert driver.save_screenshot(str(shot))
            assert shot.stat().st_size > 10_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert int.from_bytes(shot.read_bytes()[16:20], "big") == width
            print(f"screenshot: {shot}")
    finally:
        browser.set_window_size(1100, 820)
    if os.environ.get("SOLVED_TICTACTOE_UPDATE_SCREENSHOT") == "1":
        (ROOT / "docs").mkdir(exist_ok=True)
        shutil.copyfile(artifacts / "web.png", ROOT / "docs" / "web.png")


# -- the page as a user expects it --------------------------------------------------------------
def last_move(driver: WebDriver) -> str:
    return str(driver.find_element(By.ID, "last-move").text)


def test_choosing_another_side_never_relabels_the_moves_already_played(page: Callable[[str], WebDriver]) -> None:
    """Who played a move is what happened, whatever side is chosen afterwards."""
    driver = page("?game=3x3k3&play=X&moves=0,4,1,2,5,6")  # you played X; the perfect player won with O
    wait_for_board(driver, "XXO/.OX/O..")
    assert driver.find_element(By.ID, "status").text == "O won: the perfect player won"
    assert last_move(driver).startswith("Your move: X at 1,2")
    Select(driver.find_element(By.ID, "mode")).select_by_value("both")  # explore the finished game: it keeps its story
    wait_for(driver, lambda d: "play" not in parse_qs(urlparse(d.current_url).query))
    assert board_of(driver).get_attribute("data-board") == "XXO/.OX/O.."
    assert driver.find_element(By.ID, "status").text == "O won: the perfect player won"
    assert last_move(driver).startswith("Your move: X at 1,2")

    driver = page("?game=3x3k3&play=X&moves=0,4,1,2,5,6")
    wait_for_board(driver, "XXO/.OX/O..")
    Select(driver.find_element(By.ID, "mode")).select_by_value("O")  # a side after a game: a new game with it
    wait_for(driver, lambda d: board_of(d).get_attribute("data-ply") == "1")  # the perfect player opens as X
    assert driver.find_element(By.ID, "status").text == "O to move (you)"
    assert last_move(driver).startswith("The perfect player: X at ")
    assert "won" not in driver.find_element(By.ID, "status").text

    driver = page("?game=3x3k3&play=X&moves=4,0")  # mid-game: you played X at 1,1, the perfect player O at 0,0
    wait_for_board(driver, "O../.X./...")
    Select(driver.find_element(By.ID, "mode")).select_by_value("O")  # hand X over: the perfect player moves X now
    wait_for(driver, lambda d: board_of(d).get_attribute("data-ply") == "3")
    assert last_move(driver).startswith("Your move: X at 1,1"), "the move you played, not the perfect player's O"
    assert errors_in_console(driver) == []


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_the_error_for_a_pasted_move_list_is_under_the_paste_box(page: Callable[[str], WebDriver], size: tuple[int, int]) -> None:
    driver = page("?game=3x3k3")
    set_viewport(driver, *size)
    try:
        driver = page("?game=3x3k3")
        box = driver.find_element(By.ID, "paste")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
        box.send_keys("4 4", Keys.ENTER)
        wait_for(driver, lambda d: d.find_element(By.ID, "paste-error").text)
        assert driver.find_element(By.ID, "paste-error").text.startswith("ply 2: O cannot play row 1, col 1")
        assert driver.find_element(By.ID, "error").text == "", "not in the other column"
        gap = driver.execute_script(
            "const box = document.getElementById('paste').getBoundingClientRect(), error = document.getElementById('paste-error').getBoundingClientRect();"
            "return [error.top - box.bottom, error.left - box.left]"
        )
        assert 0 <= gap[0] < 30 and abs(gap[1]) < 2, gap
        assert visible_in_viewport(driver, "paste-error") and visible_in_viewport(driver, "paste")
        box.clear()
        box.send_keys("4 0", Keys.ENTER)  # a good list clears it
        wait_for_board(driver, "O../.X./...")
        assert driver.find_element(By.ID, "paste-error").text == ""
    finally:
        driver.set_window_size(1100, 820)


def test_on_a_phone_the_board_is_centred_and_the_keyboard_line_hidden(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3")
    assert driver.find_element(By.ID, "keys").is_displayed(), "a desktop shows the keys"
    set_viewport(driver, 390, 844)
    try:
        for query in ("?game=3x3k3&moves=4", "?game=2x4k2"):
            driver = page(query)
            margins = driver.execute_script(
                "const r = document.getElementById('board').getBoundingClientRect();return [r.left, document.documentElement.clientWidth - r.right]"
            )
            assert margins[0] > 10 and abs(margins[0] - margins[1]) <= 1, (query, margins)
            assert not driver.find_element(By.ID, "keys").is_displayed()
    finally:
        driver.set_window_size(1100, 820)


def test_the_subtitle_says_whether_hints_are_on(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3")
    assert "Hints are on" in driver.find_element(By.ID, "tagline").text
    driver = page("?game=3x3k3&play=X")
    wait_for_board(driver, ".../.../...")
    tagline = driver.find_element(By.ID, "tagline").text
    assert "Hints are off" in tagline and "hints on" not in tagline.lower(), tagline
    driver.find_element(By.CSS_SELECTOR, "label.switch").click()
    wait_for(driver, lambda d: "Hints are on" in d.find_element(By.ID, "tagline").text)


def test_undoing_to_the_empty_board_takes_the_undone_moves_out_of_the_list_and_the_summary(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3&moves=4,0,8")
    wait_for_board(driver, "O../.X./..X")
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#plies li[data-verdict]")) == 3)
    summary = driver.find_element(By.ID, "summary")
    assert summary.text.startswith("X: 2 moves; ") and "O: 1 move; " in summary.text
    driver.find_element(By.ID, "undo").click()  # one undone: listed as a move to redo, but not in the summary
    wait_for_board(driver, "O../.X./...")
    assert summary.text.startswith("X: 1 move; best 1, ") and "O: 1 move; " in summary.text
    assert len(driver.find_elements(By.CSS_SELECTOR, "#plies li.future")) == 1
    for board in (".../.X./...", ".../.../..."):
        driver.find_element(By.TAG_NAME, "body").send_keys("u")
        wait_for_board(driver, board)
    assert driver.find_elements(By.CSS_SELECTOR, "#plies li[data-verdict]") == []
    assert [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#plies li")] == ["No moves on the board: click a cell, or Redo."]
    assert summary.text == "" and last_move(driver) == ""
    driver.find_element(By.ID, "redo").click()  # the undone moves are still there to redo
    wait_for_board(driver, ".../.X./...")
    assert summary.text.startswith("X: 1 move; ") and "O: 0 moves" in summary.text


def test_the_status_is_in_words_and_the_code_is_kept_for_developers(page: Callable[[str], WebDriver]) -> None:
    for moves, board in (("0,2,1", "XXO/.../..."), ("0,3,1,4,2", "XXX/OO./...")):
        driver = page(f"?game=3x3k3&moves={moves}")
        wait_for_board(driver, board)
        position = solver.lookup(board)
        shown = " ".join(driver.find_element(By.ID, name).text for name in ("status", "detail", "last-move", "summary"))
        assert "code" not in shown and "value for X" not in shown, shown
        assert not driver.find_element(By.ID, "position-data").is_displayed(), "closed until a developer opens it"
        driver.find_element(By.CSS_SELECTOR, "details.api summary").click()
        data = driver.find_element(By.ID, "position-data").text
        assert f"code {position.code} " in data and f"value for X {'+1' if position.value > 0 else position.value} " in data, data


def chart_bars(driver: WebDriver) -> list[dict[str, Any]]:
    return list(
        driver.execute_script(
            "return [...document.querySelectorAll('#outcomes-chart svg rect[data-outcome]')].map(r => ({ply: Number(r.dataset.ply),"
            " outcome: r.dataset.outcome, count: Number(r.dataset.count), of: Number(r.dataset.of), height: Number(r.getAttribute('height'))}))"
        )
    )


def chart_title(driver: WebDriver) -> str:
    return str(driver.execute_script("const s = document.querySelector('#outcomes-chart svg'); return s ? s.getAttribute('aria-label') : ''"))


def test_the_outcomes_of_each_ply_are_charted_from_the_tables_counts(page: Callable[[str], WebDriver], tables: Path) -> None:
    driver = page("?game=3x3k3")
    assert driver.find_elements(By.CSS_SELECTOR, "#outcomes-chart svg") == [], "drawn only when asked for"
    driver.find_element(By.CSS_SELECTOR, "#outcomes summary").click()
    for game in ("3x3k3", "2x4k2"):
        if game != "3x3k3":
            Select(driver.find_element(By.ID, "game")).select_by_value(game)
        wait_for(driver, lambda d, game=game: chart_title(d).startswith(game))
        counts = solver.table_for(game, table_dir=tables).ply_counts()
        bars = chart_bars(driver)
        shown = {(bar["ply"], bar["outcome"]): bar["count"] for bar in bars}
        for ply, layer in enumerate(counts):
            x_wins, o_wins = (layer.wins, layer.losses) if ply % 2 == 0 else (layer.losses, layer.wins)
            expected = {"x_wins": x_wins, "draws": layer.draws, "o_wins": o_wins, "positions": layer.positions}
            assert {key: shown.get((ply, key), 0) for key in expected} == expected, (game, ply)
        for bar in bars:
            if bar["outcome"] != "positions":
                assert bar["height"] == pytest.approx(150 * bar["count"] / bar["of"], abs=0.01), bar
    assert errors_in_console(driver) == [], "nothing the page's Content-Security-Policy refuses"


# -- gravity: a click drops a piece in its column ---------------------------------------------
def gravity_table(tables: Path) -> solver.Table:
    return solver.table_for(GRAVITY, table_dir=tables)


def column_heads(driver: WebDriver) -> list[dict[str, Any]]:
    """The heads above the columns: each one's column, label, classes, accessible name and box."""
    return list(
        driver.execute_script(
            "return [...document.querySelectorAll('#columns button[data-col]')].map(b => ({col: Number(b.dataset.col),"
            " label: b.dataset.label || null, best: b.classList.contains('best'), full: b.classList.contains('full'), text: b.textContent,"
            " name: b.getAttribute('aria-label'), box: b.getBoundingClientRect().toJSON(), disabled: b.getAttribute('aria-disabled')}))"
        )
    )


def assert_heads_match_lookup(driver: WebDriver, position: solver.Position) -> None:
    """Each column's head shows what dropping there gives (the API's move of that column), best starred; no cell shows a hint."""
    from solver.web.batch import position_dict

    moves = {move["col"]: move for move in position_dict(position)["moves"]}
    heads = column_heads(driver)
    assert [head["col"] for head in heads] == list(range(position.game.cols))
    for head in heads:
        move = moves.get(head["col"])
        if move is None:
            assert head["full"] and head["label"] is None, head
            continue
        label = "D" if move["result"] == "draw" else f"{move['result'][0].upper()}{move['plies']}"
        verb = {"win": "wins", "draw": "draws", "loss": "loses"}[move["result"]]
        assert head["label"] == label and label in head["text"], (position.board, head)
        assert head["name"].startswith(f"column {head['col']}: {position.to_move} {verb}"), head
        assert head["best"] == move["best"] == ("★" in head["text"]) == ("best move" in head["name"]), (position.board, head)
    assert driver.find_elements(By.CSS_SELECTOR, "#board .label, #board .star") == [], "under gravity the hints are above the columns"


def test_gravity_a_click_on_any_cell_of_a_column_drops_the_piece_to_the_lowest_empty_cell(page: Callable[[str], WebDriver], tables: Path) -> None:
    driver = page(f"?game={GRAVITY}")
    position = gravity_table(tables).at(0)
    wait_for_board(driver, position.board)
    for clicked, landed in ((1, 13), (5, 9), (13, 5), (15, 15)):  # the top of column 1, then lower cells of it, pieces too
        cell(driver, clicked).click()
        position = position.play(position.game.coords(landed))
        wait_for_board(driver, position.board)
        assert_heads_match_lookup(driver, position)
    assert position.board == "..../.X../.O../.X.O"
    assert parse_qs(urlparse(driver.current_url).query)["moves"] == ["1,1,1,3"], "the link holds the columns, as solve analyze reads them"
    assert last_move(driver).startswith("Last move: O in col 3")
    driver.find_element(By.CSS_SELECTOR, '#columns button[data-col="1"]').click()  # a head drops too
    position = position.play(1)
    wait_for_board(driver, position.board)
    landing = driver.execute_script("return [...document.querySelectorAll('#board .cell.landing')].map(b => Number(b.dataset.cell))")
    assert sorted(landing) == [11, 12, 14], "each open column's landing cell is ringed; column 1 is full"
    cell(driver, 9).click()  # column 1 is full: nothing happens, and the page says why
    wait_for(driver, lambda d: d.find_element(By.ID, "notice").text == "That column is full.")
    assert board_of(driver).get_attribute("data-ply") == "5"
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#plies li[data-verdict]")) == 5)  # the game analysed ply by ply
    assert [li.text.split()[2:4] for li in driver.find_elements(By.CSS_SELECTOR, "#plies li")] == [["col", str(c)] for c in (1, 1, 1, 3, 1)]
    cell(driver, 0).send_keys(Keys.ENTER)  # the keyboard drops too: Enter on a cell plays its column
    wait_for_board(driver, position.play(position.game.coords(12)).board)
    assert errors_in_console(driver) == []


def test_gravity_a_link_may_name_the_game_as_the_server_reads_names(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=4x4-gravity&moves=1")  # k is the board's smaller side, as on the command line; a move is a column
    wait_for_board(driver, "..../..../..../.X..")
    assert Select(driver.find_element(By.ID, "game")).first_selected_option.get_attribute("value") == GRAVITY
    assert parse_qs(urlparse(driver.current_url).query)["game"] == [GRAVITY]
    driver = page("?game=connect4")  # 6x7k4-gravity: not served here, and the page says so
    wait_for(driver, lambda d: d.find_element(By.ID, "error").text.startswith("The game connect4 is not served here."))
    assert errors_in_console(driver) == [] or all("404" in entry["message"] for entry in errors_in_console(driver))


def test_gravity_hints_are_above_each_column_with_the_best_starred_and_off_against_the_perfect_player(page: Callable[[str], WebDriver], tables: Path) -> None:
    driver = page(f"?game={GRAVITY}&moves=1,0,1,3,0,1,3")  # O to move: a draw, two wins and a loss to choose from
    position = gravity_table(tables).lookup(".... .O.. XX.X OX.O".replace(" ", "/"))
    wait_for_board(driver, position.board)
    assert_heads_match_lookup(driver, position)
    assert [head["label"] for head in column_heads(driver)] == ["D", "W9", "L2", "W9"]
    heads = column_heads(driver)
    cells = driver.execute_script("return [...document.querySelectorAll('#board button')].slice(0, 4).map(b => b.getBoundingClientRect().toJSON())")
    for head, top in zip(heads, cells, strict=True):  # each head right above its column, as wide
        assert 0 <= top["top"] - head["box"]["bottom"] < 12 and abs(head["box"]["left"] - top["left"]) < 1 and abs(head["box"]["width"] - top["width"]) < 1
    assert driver.find_element(By.ID, "detail").get_attribute("textContent") == "in 9 plies · best columns: 1, 3"  # as a screen reader or a copy reads it
    assert "each column shows what dropping a piece there leads to" in driver.find_element(By.ID, "tagline").text

    driver = page(f"?game={GRAVITY}&play=O")  # the perfect player drops X first; hints are off: arrows, no labels
    wait_for(driver, lambda d: board_of(d).get_attribute("data-ply") == "1")
    first = int(parse_qs(urlparse(driver.current_url).query)["moves"][0])
    assert 0 <= first < 4 and 12 + first in gravity_table(tables).at(0).best_cells, "a column, the piece on the bottom row"
    heads = column_heads(driver)
    assert all(head["label"] is None and head["text"] == "▼" and head["name"].endswith("drop O here") for head in heads), heads
    assert errors_in_console(driver) == []


def test_gravity_a_game_to_the_end_marks_the_winning_four(page: Callable[[str], WebDriver], tables: Path, tmp_path: Path) -> None:
    driver = page(f"?game={GRAVITY}")
    position = gravity_table(tables).at(0)
    for col in (0, 1, 1, 2, 2, 3, 2, 3, 3, 0, 3):  # X builds the rising diagonal 3,0 2,1 1,2 0,3, the last on top of column 3
        driver.find_element(By.CSS_SELECTOR, f'#columns button[data-col="{col}"]').click()
        x = o = 0
        for index, piece in enumerate(position.cells):
            x |= (piece == "X") << index
            o |= (piece == "O") << index
        landed = position.game.rules.landing(x | o, col)
        assert landed is not None
        position = position.play(position.game.coords(landed))
        wait_for_board(driver, position.board)
    assert position.is_over and position.winner == "X"
    assert driver.find_element(By.ID, "status").text == "X won"
    assert driver.find_element(By.ID, "detail").text == "4 in a row (row,col): 0,3 1,2 2,1 3,0"
    marked = driver.execute_script("return [...document.querySelectorAll('#board .cell.in-line')].map(b => Number(b.dataset.cell))")
    assert sorted(marked) == [3, 6, 9, 12]
    assert all("in the winning line" in cell(driver, index).get_attribute("aria-label") for index in marked)
    assert all(head["full"] and head["disabled"] == "true" for head in column_heads(driver))
    driver.save_screenshot(str(tmp_path / "web-gravity-won.png"))
    cell(driver, 0).click()
    wait_for(driver, lambda d: d.find_element(By.ID, "notice").text.startswith("The game is over"))
    assert errors_in_console(driver) == []


def test_gravity_on_a_phone_the_board_and_its_column_heads_fit_centred(page: Callable[[str], WebDriver], tmp_path: Path) -> None:
    driver = page("?game=3x3k3")
    set_viewport(driver, 390, 844)
    try:
        driver = page(f"?game={GRAVITY}&moves=1,0,1,3,0,1,3")
        wait_for(driver, lambda d: column_heads(d)[0]["label"] == "D")
        fits = driver.execute_script(
            "const b = document.getElementById('board').getBoundingClientRect(), h = document.getElementById('columns').getBoundingClientRect(),"
            " width = document.documentElement.clientWidth;"
            "return {board: [b.left, width - b.right], heads: [h.left, width - h.right, b.top - h.bottom],"
            " overflow: document.documentElement.scrollWidth - width}"
        )
        assert fits["overflow"] <= 0, fits
        assert fits["board"][0] >= 10 and abs(fits["board"][0] - fits["board"][1]) <= 1, fits
        assert abs(fits["heads"][0] - fits["board"][0]) < 1 and 0 <= fits["heads"][2] < 12, fits
        assert visible_in_viewport(driver, "columns") and visible_in_viewport(driver, "board")
        cell(driver, 2).click()  # a tap on a column drops there too
        wait_for_board(driver, "..../.O../XX.X/OXOO")  # O lands on the bottom of column 2
        driver.save_screenshot(str(tmp_path / "web-gravity-phone.png"))
    finally:
        driver.set_window_size(1100, 820)


def test_screenshots_of_a_gravity_game_are_saved(page: Callable[[str], WebDriver], browser: WebDriver, tmp_path_factory: pytest.TempPathFactory) -> None:
    """docs/web-gravity.png is the desktop one (1280x800): O to move on 4x4k4-gravity, hints above the columns; the phone one (390x844) is for looking at."""
    artifacts = tmp_path_factory.mktemp("artifacts")
    try:
        for name, (width, height) in (("web-gravity.png", (1280, 800)), ("web-gravity-phone.png", (390, 844))):
            set_viewport(page(""), width, height)
            driver = page(f"?game={GRAVITY}&moves=1,0,1,3,0,1,3")  # O to move: a draw, two wins and a loss to choose from
            wait_for_board(driver, "..../.O../XX.X/OX.O")
            wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#plies li[data-verdict]")) == 7)
            wait_for(driver, lambda d: column_heads(d)[0]["label"] == "D")
            driver.execute_script("document.activeElement && document.activeElement.blur()")
            shot = artifacts / name
            assert driver.save_screenshot(str(shot))
            assert shot.stat().st_size > 10_000 and int.from_bytes(shot.read_bytes()[16:20], "big") == width
            print(f"screenshot: {shot}")
    finally:
        browser.set_window_size(1100, 820)
    if os.environ.get("SOLVED_TICTACTOE_UPDATE_SCREENSHOT") == "1":
        (ROOT / "docs").mkdir(exist_ok=True)
        shutil.copyfile(artifacts / "web-gravity.png", ROOT / "docs" / "web-gravity.png")


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_gravity_a_seven_column_board_fits_beside_the_moves_and_on_a_phone(page: Callable[[str], WebDriver], size: tuple[int, int]) -> None:
    driver = page("?game=3x3k3")
    set_viewport(driver, *size)
    try:
        driver = page(f"?game={WIDE}&moves=3,4,3")
        wait_for(driver, lambda d: len(column_heads(d)) == 7 and column_heads(d)[0]["label"] == "D")
        boxes = driver.execute_script(
            "const box = (id) => document.getElementById(id).getBoundingClientRect().toJSON();"
            "return {board: box('board'), heads: box('columns'), side: document.querySelector('.side').getBoundingClientRect().toJSON(),"
            " width: document.documentElement.clientWidth, overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth}"
        )
        assert boxes["overflow"] <= 0 and boxes["board"]["right"] <= boxes["width"], boxes
        assert abs(boxes["heads"]["right"] - boxes["board"]["right"]) < 1, boxes
        if size[0] > 640:  # side by side: the board stays on its side of the page
            assert boxes["board"]["right"] <= boxes["side"]["left"], boxes
        else:
            assert abs(boxes["board"]["left"] - (boxes["width"] - boxes["board"]["right"])) <= 1, boxes
    finally:
        driver.set_window_size(1100, 820)


def board_look(driver: WebDriver) -> dict[str, Any]:
    """How the board is drawn: the frame's colour and padding, each cell's corner radius and squareness, each piece's shape, colour and text."""
    return dict(
        driver.execute_script(
            "const board = document.getElementById('board'), style = getComputedStyle(board);"
            "const cells = [...board.querySelectorAll('.cell')].map(c => { const r = c.getBoundingClientRect();"
            "  return {radius: getComputedStyle(c).borderRadius, square: Math.abs(r.width - r.height) < 1}; });"
            "const pieces = [...board.querySelectorAll('.cell .piece')].map(p => ({piece: p.closest('.cell').className.match(/piece-(X|O)/)[1],"
            "  radius: getComputedStyle(p).borderRadius, colour: getComputedStyle(p).backgroundColor, text: p.textContent,"
            "  name: p.closest('.cell').getAttribute('aria-label')}));"
            "return {frame: style.backgroundColor, padding: parseFloat(style.paddingLeft), cells, pieces,"
            " legend: document.getElementById('discs').checkVisibility()};"
        )
    )


def test_gravity_is_drawn_as_discs_in_a_frame_of_round_holes_and_placement_games_keep_their_cells(page: Callable[[str], WebDriver]) -> None:
    driver = page(f"?game={GRAVITY}&moves=1,0,1,3,0,1,3")
    wait_for_board(driver, "..../.O../XX.X/OX.O")
    look = board_look(driver)
    assert look["frame"] == "rgb(29, 79, 184)" and look["padding"] >= 4, "a blue frame"
    assert all(c["radius"] == "50%" and c["square"] for c in look["cells"]), "round holes"
    assert {(p["piece"], p["radius"], p["colour"], p["text"]) for p in look["pieces"]} == {
        ("X", "50%", "rgb(211, 47, 47)", "X"),
        ("O", "50%", "rgb(253, 216, 53)", "O"),
    }, "round discs, X red and O yellow, each showing its letter"
    colours = {"X": "red", "O": "yellow"}
    assert all(f"{p['piece']} ({colours[p['piece']]} disc)" in p["name"] for p in look["pieces"]), "the colour is named, not only shown"
    assert look["legend"] and "X plays the red discs" in " ".join(driver.find_element(By.ID, "discs").text.split())

    driver = page("?game=3x3k3&moves=4,0")  # tic-tac-toe keeps its look: square cells, letters, no frame, no discs
    wait_for_board(driver, "O../.X./...")
    look = board_look(driver)
    assert look["frame"] == "rgba(0, 0, 0, 0)" and look["padding"] == 0
    assert {c["radius"] for c in look["cells"]} == {"8px"}
    assert {(p["piece"], p["radius"], p["colour"]) for p in look["pieces"]} == {("X", "0px", "rgba(0, 0, 0, 0)"), ("O", "0px", "rgba(0, 0, 0, 0)")}
    assert not look["legend"] and all("disc" not in p["name"] for p in look["pieces"])


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_gravity_the_dropped_disc_falls_into_its_hole_unless_reduced_motion_is_asked(page: Callable[[str], WebDriver], browser: WebDriver, motion: str) -> None:
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": motion}]})
    try:
        driver = page(f"?game={GRAVITY}&moves=1")
        driver.find_element(By.CSS_SELECTOR, '#columns button[data-col="1"]').click()
        wait_for_board(driver, "..../..../.O../.X..")
        falling = driver.execute_script(
            "return [...document.querySelectorAll('#board .cell.dropped')]"
            ".map(c => [Number(c.dataset.cell), getComputedStyle(c.querySelector('.piece')).animationName])"
        )
        assert falling == [[9, "drop" if motion == "no-preference" else "none"]]
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


# -- issue 31: one move language under gravity, the page on a phone, misère results --------------------------------
def served_games(driver: WebDriver) -> list[str]:
    return [option.get_attribute("value") for option in Select(driver.find_element(By.ID, "game")).options]


def test_the_page_fits_a_phone_with_every_served_game_chosen(page: Callable[[str], WebDriver]) -> None:
    """The menu's longest name (3x3k3-gravity-misere ...) made the page 424 px wide on a 390 px phone."""
    driver = page("?game=3x3k3")
    set_viewport(driver, 390, 844)
    try:
        driver = page("?game=3x3k3")
        games = served_games(driver)
        assert len(games) == 7
        for game in games:
            Select(driver.find_element(By.ID, "game")).select_by_value(game)
            wait_for(driver, lambda d, game=game: board_of(d).get_attribute("data-game") == game and not d.execute_script("return document.body.dataset.busy"))
            sizes = driver.execute_script(
                "return {scroll: document.documentElement.scrollWidth, inner: window.innerWidth,"
                " menu: document.getElementById('game').getBoundingClientRect().right}"
            )
            assert sizes["scroll"] <= sizes["inner"] and sizes["menu"] <= sizes["inner"], (game, sizes)
    finally:
        driver.set_window_size(1100, 820)


def test_the_game_menu_is_grouped_by_rule_and_sorted_by_size(page: Callable[[str], WebDriver]) -> None:
    driver = page("?game=3x3k3")
    groups = driver.execute_script(
        "return [...document.querySelectorAll('#game optgroup')].map(g => [g.label, [...g.querySelectorAll('option')].map(o => o.value)])"
    )
    assert groups == [
        ["Normal play", ["2x4k2", "3x3k3", "3x4k3"]],
        ["Misère", ["3x3k3-misere"]],
        ["Gravity", [WIDE, GRAVITY]],
        ["Gravity, misère", ["3x3k3-gravity-misere"]],
    ]
    assert Select(driver.find_element(By.ID, "game")).first_selected_option.text == "3x3k3 (3×3, 3 in a row)"


@pytest.mark.parametrize(
    ("game", "title"),
    [("3x3k3", "Solved tic-tac-toe"), ("3x3k3-misere", "Solved misère tic-tac-toe"), (GRAVITY, f"Solved {GRAVITY}"), ("3x4k3", "Solved 3x4k3")],
)
def test_the_title_names_the_game_the_page_plays(page: Callable[[str], WebDriver], game: str, title: str) -> None:
    driver = page(f"?game={game}")
    assert driver.find_element(By.TAG_NAME, "h1").text == title
    assert driver.title == title
    Select(driver.find_element(By.ID, "game")).select_by_value("3x3k3" if game != "3x3k3" else GRAVITY)  # and it follows the menu
    wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "h1").text != title)
    assert driver.title == driver.find_element(By.TAG_NAME, "h1").text


@pytest.mark.parametrize("game", ["3x3k3", GRAVITY])
def test_on_a_phone_the_buttons_are_centred_under_the_centred_board(page: Callable[[str], WebDriver], game: str) -> None:
    driver = page("?game=3x3k3")
    set_viewport(driver, 390, 844)
    try:
        driver = page(f"?game={game}&moves=1")
        boxes = driver.execute_script(
            "const board = document.getElementById('board').getBoundingClientRect(), width = document.documentElement.clientWidth;"
            "const buttons = [...document.querySelectorAll('.buttons button')].map(b => b.getBoundingClientRect());"
            "return {board: [board.left, width - board.right],"
            " buttons: [Math.min(...buttons.map(b => b.left)), width - Math.max(...buttons.map(b => b.right))],"
            " tops: [...new Set(buttons.map(b => Math.round(b.top)))]}"
        )
        assert abs(boxes["board"][0] - boxes["board"][1]) <= 1, boxes
        assert abs(boxes["buttons"][0] - boxes["buttons"][1]) <= 1, boxes
        assert len(boxes["tops"]) == 1, f"the four buttons on one line: {boxes}"
    finally:
        driver.set_window_size(1100, 820)


def pieces_opacity(driver: WebDriver, piece: str) -> list[float]:
    script = f"return [...document.querySelectorAll('#board .piece-{piece} .piece')].map(p => getComputedStyle(p).opacity)"
    return [float(value) for value in driver.execute_script(script)]


@pytest.mark.parametrize(
    ("query", "board", "winner", "kind", "line", "detail"),
    [
        (
            "?game=3x3k3-misere&moves=1,4,2,5,3,7,6,8,0",  # X's last move completes a row and a column at once: X loses
            "XXX/XOO/XOO",
            "O",
            "losing",
            {0, 1, 2, 3, 6},
            "the losing lines, 3 in a row each (row,col): 0,0 0,1 0,2 and 0,0 1,0 2,0",
        ),
        ("?game=3x3k3-gravity-misere&moves=0,1,0,1,2,2,0", "X../XOO/XOX", "O", "losing", {0, 3, 6}, "the losing line, 3 in a row (row,col): 0,0 1,0 2,0"),
        (
            "?game=3x3k3&moves=1,4,2,5,3,7,6,8,0",  # the same game in normal play: X wins with two lines
            "XXX/XOO/XOO",
            "X",
            "winning",
            {0, 1, 2, 3, 6},
            "the winning lines, 3 in a row each (row,col): 0,0 0,1 0,2 and 0,0 1,0 2,0",
        ),
    ],
)
def test_a_finished_game_draws_the_winner_plain_and_a_misere_line_as_the_losers(
    page: Callable[[str], WebDriver], query: str, board: str, winner: str, kind: str, line: set[int], detail: str
) -> None:
    """A finished misère game looked as if X won: the loser's line bold, the winner's pieces faded, and "3 in a row" listed 5 cells."""
    driver = page(query)
    wait_for_board(driver, board)
    assert board_of(driver).get_attribute("data-winner") == winner and board_of(driver).get_attribute("data-line") == kind
    marked = driver.execute_script("return [...document.querySelectorAll('#board .in-line')].map(b => Number(b.dataset.cell))")
    struck = driver.execute_script("return [...document.querySelectorAll('#board .lost-line')].map(b => Number(b.dataset.cell))")
    assert (set(marked), set(struck)) == ((line, set()) if kind == "winning" else (set(), line))
    for index in line:
        assert cell(driver, index).get_attribute("aria-label").endswith(f"in the {kind} line")
    loser = {"X": "O", "O": "X"}[winner]
    assert all(value == 1 for value in pieces_opacity(driver, winner)), "the winner's pieces are plain"
    assert all(value < 1 for value in pieces_opacity(driver, loser)), "the loser's fade"
    assert driver.find_element(By.ID, "detail").text == detail
    assert driver.find_element(By.ID, "status").text.startswith(f"{winner} won")
    assert errors_in_console(driver) == []


@pytest.mark.parametrize(
    ("query", "board", "error"),
    [
        ("?game=3x3k3&moves=4,4", ".../.X./...", "The moves in the link cannot be played: ply 2: O cannot play row 1, col 1 (cell 4): X took it at ply 1"),
        ("?game=3x3k3&moves=4,0,9", "O../.X./...", "The moves in the link cannot be played: ply 3: move '9' is off the board"),
        (f"?game={GRAVITY}&moves=1,1,1,1,1", ".O../.X../.O../.X..", "The moves in the link cannot be played: ply 5: column 1 is full"),
    ],
)
def test_a_link_whose_moves_cannot_be_played_says_why_in_the_move_readers_words(page: Callable[[str], WebDriver], query: str, board: str, error: str) -> None:
    """?moves=4,4 said "impossible piece counts"; now the server's move reader says which move, and the moves before it are kept."""
    driver = page(query)
    wait_for_board(driver, board)
    wait_for(driver, lambda d: d.find_element(By.ID, "error").text)
    shown = driver.find_element(By.ID, "error").text
    assert shown.startswith(error) and "impossible piece counts" not in shown, shown


def test_gravity_the_paste_box_and_the_link_take_columns_as_solve_analyze_does(page: Callable[[str], WebDriver], tables: Path) -> None:
    driver = page(f"?game={GRAVITY}")
    box = driver.find_element(By.ID, "paste")
    assert "(columns)" in box.get_attribute("placeholder")
    box.send_keys("1 1 0", Keys.ENTER)
    expected = solver.analyze(["1", "1", "0"], table=gravity_table(tables))
    wait_for_board(driver, expected.final.board)
    assert expected.final.board == "..../..../.O../XX.."
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#plies li[data-verdict]")) == 3)
    assert [li.get_attribute("data-verdict") for li in driver.find_elements(By.CSS_SELECTOR, "#plies li")] == [ply.verdict for ply in expected.plies]
    assert parse_qs(urlparse(driver.current_url).query)["moves"] == ["1,1,0"]
    assert driver.find_element(By.ID, "paste-error").text == ""
    driver = page(f"?game={GRAVITY}&moves=1,1,0")  # the link reads the same columns
    wait_for_board(driver, expected.final.board)
    assert errors_in_console(driver) == []


def test_a_tapped_cell_is_not_left_shaded_on_a_touch_screen(page: Callable[[str], WebDriver], browser: WebDriver) -> None:
    """On a phone the last tapped cell stayed shaded (a :hover style sticks after a tap): hover styles apply only where a pointer hovers."""
    driver = page(f"?game={GRAVITY}")
    outside = driver.execute_script(
        "const out = [];"
        "for (const sheet of document.styleSheets) for (const rule of sheet.cssRules) {"
        "  if (rule.selectorText && rule.selectorText.includes(':hover')) out.push(rule.selectorText); }"
        "return out;"
    )
    assert outside == [], "every :hover rule is inside @media (hover: hover)"
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "hover", "value": "none"}, {"name": "pointer", "value": "coarse"}]})
    try:
        driver = page(f"?game={GRAVITY}")
        box = driver.execute_script("return document.querySelector('#board [data-cell=\"5\"]').getBoundingClientRect().toJSON()")
        point = {"x": box["left"] + box["width"] / 2, "y": box["top"] + box["height"] / 2}
        browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
        browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        wait_for_board(driver, "..../..../..../.X..")
        shaded = driver.execute_script(
            "return [...document.querySelectorAll('#board .cell, #columns .column')]"
            ".filter(b => getComputedStyle(b).filter !== 'none' || b.classList.contains('aim'))"
            ".map(b => b.dataset.cell ?? 'head ' + b.dataset.col)"
        )
        assert shaded == [], "nothing stays shaded after a tap"
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
