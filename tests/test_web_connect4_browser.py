"""The page plays Connect Four in a real browser (headless Chromium, as tests/test_web_browser.py drives it):
`solve serve --game connect4` answers by search. The board is drawn as Connect Four players know it (discs
in a blue frame of round holes, each column's outcome above it), and every claim is checked against the
server's own JSON answers: a late position reached by a move string (searched in milliseconds), and a late
position of Pons' End-Easy set where those sets are beside the checkout.

Skipped where Chromium, chromedriver or the web extra is missing (an error in CI, which sets
``SOLVED_TICTACTOE_REQUIRE_WEB=1``), the Pons test where his sets are missing. Nothing is timed: the server's
search budget is generous, so the engine's first compilation cannot refuse the first request. The screenshots
(the board mid-game on a 390 px phone and a 1280 px desktop) are saved under the test's temporary directory.
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from web_support import chromium, need_chromium, need_web, running_server

import solver

need_web()
need_chromium()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

GAME = "6x7k4-gravity"
LATE = "444444333333522222"
"""A Connect Four game written as players write it (columns 1 to 7): 18 plies, X to move, searched in milliseconds.
Columns 3 and 4 are full; the others give a draw, two wins in 21 plies, a loss in 24 and a win on the spot (column 6)."""
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
    with running_server(tables, "--game", "connect4", "--search-budget", "120", timeout=120) as (url, _):
        with chromium("--window-size=1100,900", page_load_timeout=60) as driver:
            yield driver, url


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


# -- Connect Four as its players know it: discs in a frame, each column's outcome above it ----------------------
def wait_for(driver: WebDriver, condition: Callable[[WebDriver], Any], timeout: float = 120) -> Any:
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(condition)


def answer(url: str, board: str) -> dict[str, Any]:
    """The server's JSON answer for ``board``: what the page draws must agree with it."""
    with urllib.request.urlopen(f"{url}api/v1/{GAME}?board={urllib.parse.quote(board)}", timeout=120) as response:
        return dict(json.load(response))


def late_board(url: str) -> str:
    """The board of :data:`LATE`, each disc dropped here by hand (X first, columns 1 to 7); the server answers it."""
    rows: list[list[str]] = [["."] * 7 for _ in range(6)]
    for ply, column in enumerate(LATE):
        row = max(r for r in range(6) if rows[r][int(column) - 1] == ".")
        rows[row][int(column) - 1] = "XO"[ply % 2]
    board = "/".join("".join(row) for row in rows)
    assert answer(url, board)["board"] == board
    return board


def label_of(move: dict[str, Any]) -> str:
    """What the head above a column shows for the API's move there: W or L and the plies, or D."""
    return "D" if move["result"] == "draw" else f"{move['result'][0].upper()}{move['plies']}"


def open_at(driver: WebDriver, url: str, board: str, extra: str = "") -> None:
    driver.get(f"{url}?game={GAME}&board={board}{extra}")
    wait_for(driver, lambda d: d.find_element(By.ID, "board").get_attribute("data-board") == board and d.execute_script("return !document.body.dataset.busy"))


def shown_heads(driver: WebDriver) -> list[dict[str, Any]]:
    """The heads above the columns: each one's column, label, text, accessible name and whether it is marked full or best."""
    return list(
        driver.execute_script(
            "return [...document.querySelectorAll('#columns .column')].map(b => ({col: Number(b.dataset.col), label: b.dataset.label || null,"
            " text: b.textContent, name: b.getAttribute('aria-label'), full: b.classList.contains('full'), best: b.classList.contains('best')}))"
        )
    )


def set_viewport(driver: WebDriver, width: int, height: int) -> None:
    """Size the window so the page itself (the viewport, without the browser's frame) is ``width`` x ``height``."""
    driver.set_window_size(width, height)
    frame = driver.execute_script("return window.outerHeight - window.innerHeight")
    driver.set_window_size(width, height + frame)
    wait_for(driver, lambda d: d.execute_script("return [window.innerWidth, window.innerHeight]") == [width, height])


def test_connect4_is_drawn_as_discs_in_a_blue_frame_of_round_holes(browser: tuple[WebDriver, str]) -> None:
    driver, url = browser
    board = late_board(url)
    open_at(driver, url, board)
    look = driver.execute_script(
        "const board = document.getElementById('board'), style = getComputedStyle(board);"
        "const cells = [...board.querySelectorAll('.cell')].map(c => { const s = getComputedStyle(c), r = c.getBoundingClientRect();"
        "  return {radius: s.borderRadius, width: r.width, height: r.height, hole: s.backgroundColor, landing: c.classList.contains('landing')}; });"
        "const discs = [...board.querySelectorAll('.cell .piece')].map(p => { const s = getComputedStyle(p), r = p.getBoundingClientRect();"
        "  return {piece: p.closest('.cell').className.match(/piece-(X|O)/)[1], radius: s.borderRadius, colour: s.backgroundColor, text: p.textContent,"
        "  round: Math.abs(r.width - r.height) < 1, name: p.closest('.cell').getAttribute('aria-label')}; });"
        "return {frame: style.backgroundColor, padding: parseFloat(style.paddingLeft), cells, discs,"
        " legend: document.getElementById('discs').checkVisibility() ? document.getElementById('discs').textContent : null};"
    )
    assert look["frame"] == "rgb(29, 79, 184)" and look["padding"] >= 4, "a blue frame around the holes"
    assert len(look["cells"]) == 42 and all(c["radius"] == "50%" and abs(c["width"] - c["height"]) < 1 for c in look["cells"]), "round holes"
    assert {c["hole"] for c in look["cells"] if not c["landing"]} == {"rgb(255, 255, 255)"}, "white holes (a landing hole is tinted with its hint)"
    discs = look["discs"]
    assert len(discs) == 18 and all(d["radius"] == "50%" and d["round"] for d in discs), "each piece a round disc"
    colours = {piece: {d["colour"] for d in discs if d["piece"] == piece} for piece in "XO"}
    assert colours == {"X": {"rgb(211, 47, 47)"}, "O": {"rgb(253, 216, 53)"}}, "X's discs red, O's yellow"
    for disc in discs:  # never colour alone: each disc shows its player's letter and names its colour
        colour = {"X": "red", "O": "yellow"}[disc["piece"]]
        assert disc["text"] == disc["piece"] and f": {disc['piece']} ({colour} disc)" in disc["name"], disc
    assert look["legend"] and "X plays the red discs" in " ".join(look["legend"].split())


def test_connect4_each_columns_outcome_above_it_is_the_apis_and_full_columns_show_nothing(browser: tuple[WebDriver, str]) -> None:
    driver, url = browser
    board = late_board(url)
    position = answer(url, board)
    open_at(driver, url, board)
    moves = {move["col"]: move for move in position["moves"]}
    assert sorted(moves) == [0, 1, 4, 5, 6], "columns 2 and 3 are full"
    heads = shown_heads(driver)
    assert [head["col"] for head in heads] == list(range(7))
    for head in heads:
        move = moves.get(head["col"])
        if move is None:
            assert head["full"] and head["label"] is None and head["text"] == "" and head["name"].endswith("full"), head
            continue
        verb = {"win": "wins", "draw": "draws", "loss": "loses"}[move["result"]]
        assert head["label"] == label_of(move) and head["text"].startswith(label_of(move)), head
        assert head["name"].startswith(f"column {head['col']}: X {verb}") and head["best"] == move["best"] == ("★" in head["text"]), head
    assert [head["label"] for head in heads] == ["L24", "D", None, None, "W21", "W1", "W21"]
    boxes = driver.execute_script(  # each head sits right above its column of holes
        "const top = [...document.querySelectorAll('#board .cell')].slice(0, 7).map(c => c.getBoundingClientRect().toJSON());"
        "return [...document.querySelectorAll('#columns .column')].map((h, i) => [h.getBoundingClientRect().toJSON(), top[i]])"
    )
    for head, hole in boxes:
        assert abs(head["left"] - hole["left"]) < 1 and abs(head["width"] - hole["width"]) < 1 and 0 <= hole["top"] - head["bottom"] < 20, (head, hole)
    open_at(driver, url, board, "&hints=off")  # hints off: no outcome above any column, only where to drop
    assert all(head["label"] is None and head["text"] in ("▼", "") for head in shown_heads(driver))


def test_connect4_a_click_anywhere_in_a_column_drops_the_disc_to_its_lowest_free_hole(browser: tuple[WebDriver, str]) -> None:
    driver, url = browser
    board = late_board(url)
    position = answer(url, board)
    open_at(driver, url, board)
    landing = driver.execute_script("return [...document.querySelectorAll('#board .cell.landing')].map(b => Number(b.dataset.cell)).sort((a, b) => a - b)")
    assert landing == sorted(move["cell"] for move in position["moves"]), "each open column's landing hole is the API's move there"
    target = next(move for move in position["moves"] if move["col"] == 4)
    assert target["cell"] == 4 * 7 + 4, "column 4 holds one disc: the next lands on row 4"
    driver.find_element(By.CSS_SELECTOR, '#board .cell[data-cell="4"]').click()  # the top hole of column 4
    cells = list(board.replace("/", ""))
    cells[target["cell"]] = "X"
    after = "/".join("".join(cells[row * 7 : row * 7 + 7]) for row in range(6))
    wait_for(driver, lambda d: d.find_element(By.ID, "board").get_attribute("data-board") == after)
    assert answer(url, after)["board"] == after and answer(url, after)["to_move"] == "O"
    dropped = driver.find_element(By.CSS_SELECTOR, f'#board .cell[data-cell="{target["cell"]}"]')
    assert "piece-X" in dropped.get_attribute("class") and dropped.get_attribute("aria-label").startswith("row 4, column 4: X (red disc)")
    wait_for(driver, lambda d: d.find_element(By.ID, "board").get_attribute("data-to-move") == "O")
    after_moves = {move["col"]: move for move in answer(url, after)["moves"]}
    wait_for(driver, lambda d: [head["label"] for head in shown_heads(d)] == [label_of(after_moves[c]) if c in after_moves else None for c in range(7)])


def test_connect4_by_keyboard_a_column_is_focused_and_enter_or_space_drops_and_a_win_rings_its_four(browser: tuple[WebDriver, str]) -> None:
    driver, url = browser
    board = late_board(url)
    position = answer(url, board)
    open_at(driver, url, board)
    driver.find_element(By.ID, "hints").send_keys(Keys.TAB)  # the next stop after the controls: the column heads, one stop
    active = driver.switch_to.active_element
    assert active.get_attribute("data-col") == "0"
    for _ in range(5):
        driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    assert driver.switch_to.active_element.get_attribute("data-col") == "5" and driver.switch_to.active_element.get_attribute("tabindex") == "0"
    driver.switch_to.active_element.send_keys(Keys.ENTER)  # column 5: X's four on the bottom row
    win = next(move for move in position["moves"] if move["col"] == 5)
    assert (win["result"], win["plies"]) == ("win", 1)
    wait_for(driver, lambda d: d.find_element(By.ID, "status").text == "X won")
    final = driver.find_element(By.ID, "board").get_attribute("data-board")
    assert answer(url, final)["winner"] == "X"
    ring = driver.execute_script(
        "return [...document.querySelectorAll('#board .cell.in-line')].map(c => [Number(c.dataset.cell), getComputedStyle(c).boxShadow,"
        " c.getAttribute('aria-label')])"
    )
    assert sorted(cell for cell, _, _ in ring) == [37, 38, 39, 40], "the winning four: row 5, columns 2 to 5"
    assert all("rgb(255, 255, 255)" in shadow and name.endswith("in the winning line") for _, shadow, name in ring), ring
    plain = driver.execute_script("return getComputedStyle(document.querySelector('#board .cell.piece-X:not(.in-line)')).boxShadow")
    assert "rgb(255, 255, 255)" not in plain, "only the four are ringed"
    assert driver.find_element(By.ID, "detail").text == "4 in a row (row,col): 5,2 5,3 5,4 5,5"

    driver.find_element(By.ID, "undo").send_keys(Keys.SPACE)  # back to X to move; Space on a hole of column 0 drops there
    wait_for(driver, lambda d: d.find_element(By.ID, "board").get_attribute("data-board") == board)
    hole = driver.find_element(By.CSS_SELECTOR, '#board .cell[data-cell="0"]')
    driver.execute_script("arguments[0].focus()", hole)
    hole.send_keys(Keys.SPACE)
    landed = next(move for move in position["moves"] if move["col"] == 0)["cell"]
    assert landed == 35, "column 0 is empty: the bottom hole"
    wait_for(driver, lambda d: "piece-X" in d.find_element(By.CSS_SELECTOR, f'#board .cell[data-cell="{landed}"]').get_attribute("class"))


def test_connect4_mid_game_fits_a_390_px_phone_and_a_desktop(browser: tuple[WebDriver, str], tmp_path_factory: pytest.TempPathFactory) -> None:
    driver, url = browser
    board = late_board(url)
    artifacts = tmp_path_factory.mktemp("connect4-screenshots")
    try:
        for name, (width, height) in (("connect4-phone.png", (390, 844)), ("connect4-desktop.png", (1280, 800))):
            set_viewport(driver, width, height)
            open_at(driver, url, board)
            wait_for(driver, lambda d: any(head["label"] for head in shown_heads(d)))
            sizes = driver.execute_script(
                "const box = (id) => document.getElementById(id).getBoundingClientRect().toJSON();"
                "return {scroll: document.documentElement.scrollWidth, inner: window.innerWidth, board: box('board'), heads: box('columns'),"
                " side: document.querySelector('.side').getBoundingClientRect().toJSON()}"
            )
            assert sizes["scroll"] <= sizes["inner"], sizes
            assert 0 <= sizes["board"]["left"] and sizes["board"]["right"] <= sizes["inner"], sizes
            assert abs(sizes["heads"]["right"] - sizes["board"]["right"]) < 1, sizes
            if width > 640:  # beside the moves on a desktop
                assert sizes["board"]["right"] <= sizes["side"]["left"], sizes
            driver.execute_script("document.activeElement && document.activeElement.blur()")
            shot = artifacts / name
            assert driver.save_screenshot(str(shot))
            print(f"screenshot: {shot}")
    finally:
        driver.set_window_size(1100, 900)


def test_connect4_a_slow_answer_says_the_position_is_being_searched(browser: tuple[WebDriver, str]) -> None:
    """A search may take seconds (the opening without the book): the page says so instead of looking stuck.
    The server's answer is held back here (the page's fetch delayed by 2 s), so no slow search is needed."""
    driver, url = browser
    board = late_board(url)
    open_at(driver, url, board)
    held = "const fetchNow = window.fetch; window.fetch = (...args) => new Promise((go) => setTimeout(go, 2000)).then(() => fetchNow(...args));"
    driver.execute_script(held)
    driver.find_element(By.CSS_SELECTOR, '#columns .column[data-col="0"]').click()
    wait_for(driver, lambda d: d.find_element(By.ID, "detail").text.startswith("Searching this position: 6x7k4-gravity is answered by search"))
    assert driver.find_element(By.ID, "board").get_attribute("data-to-move") == "O", "the move is on the board while its answer is searched"
    wait_for(driver, lambda d: d.execute_script("return !document.body.dataset.busy"))
    assert not driver.find_element(By.ID, "detail").text.startswith("Searching"), "the answer replaces the notice"


# -- the board at once: before any answer, beside a refusal, at a link's position ----------------------------------
HARD = [0, 1, 2, 3, 4, 5, 6, 0, 1, 2]
"""A link's moves (columns from 0, as the page's URL writes them): ply 10, past any book, whose search takes seconds,
so a server with a search budget of 0.05 s refuses it."""


@pytest.fixture(scope="module")
def refusing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebDriver, str]]:
    """A server whose first game is tic-tac-toe, Connect Four second, with a search budget too small for the opening."""
    tables = tmp_path_factory.mktemp("tables-refusing")
    with running_server(tables, "--game", "3x3k3", "--game", "connect4", "--search-budget", "0.05", timeout=120) as (url, _):
        with chromium("--window-size=1100,900", page_load_timeout=60) as driver:
            yield driver, url


def dropped(columns: list[int]) -> str:
    """The board after dropping X, O, X, ... in ``columns`` (from 0), by hand."""
    rows: list[list[str]] = [["."] * 7 for _ in range(6)]
    for ply, column in enumerate(columns):
        row = max(r for r in range(6) if rows[r][column] == ".")
        rows[row][column] = "XO"[ply % 2]
    return "/".join("".join(row) for row in rows)


def test_connect4_shows_a_clickable_board_at_once_even_when_the_server_refuses_the_opening(refusing: tuple[WebDriver, str]) -> None:
    driver, url = refusing
    driver.get(f"{url}?game=connect4")  # not the first game served: resolved by name, with no search
    wait_for(driver, lambda d: d.find_element(By.ID, "board").get_attribute("data-board") == dropped([]), timeout=30)
    assert driver.find_element(By.ID, "game").get_attribute("value") == GAME
    assert driver.find_element(By.ID, "error").text == "", "connect4 is served: no 'not served' and no error"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#board .cell")) == 42
    heads = driver.find_elements(By.CSS_SELECTOR, "#columns .column")
    assert len(heads) == 7 and all(head.get_attribute("aria-disabled") == "false" for head in heads), "every column head can be clicked"
    heads[3].click()
    wait_for(driver, lambda d: d.find_element(By.ID, "board").get_attribute("data-board") == dropped([3]), timeout=30)
    assert "moves=3" in driver.current_url


def test_connect4_a_link_with_moves_opens_at_its_position_and_a_refusal_is_a_sentence_beside_a_playable_board(
    refusing: tuple[WebDriver, str],
) -> None:
    driver, url = refusing
    driver.get(f"{url}?game=connect4&moves={','.join(map(str, HARD))}")
    wait_for(driver, lambda d: d.find_element(By.ID, "board").get_attribute("data-board") == dropped(HARD), timeout=30)
    detail = wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#detail.refused"), timeout=60)  # 0.05 s cannot solve ply 10
    assert "not solved within the server's time budget" in detail.text and "can still be played" in detail.text
    assert driver.find_element(By.ID, "error").text == "", "the link's moves are all kept"
    assert driver.find_element(By.ID, "status").text.startswith("X to move")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#plies li button")) == len(HARD)
    driver.find_elements(By.CSS_SELECTOR, "#columns .column")[3].click()
    wait_for(driver, lambda d: d.find_element(By.ID, "board").get_attribute("data-board") == dropped([*HARD, 3]), timeout=30)
    driver.get(f"{url}?game=connect4&board={dropped(HARD)}")  # a link with the board, whose answer is refused too
    wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#detail.refused"), timeout=60)
    assert driver.find_element(By.ID, "board").get_attribute("data-board") == dropped(HARD)
    assert driver.find_element(By.ID, "error").text == ""


def test_connect4_the_developers_code_is_exact_past_two_to_the_53(browser: tuple[WebDriver, str]) -> None:
    """The page shows ``code_str``: a Connect Four code is past 2**53, where JavaScript's numbers round it."""
    driver, url = browser
    board = late_board(url)
    code = solver.lookup(board, game="connect4").code
    assert code > 2**53 and answer(url, board)["code_str"] == str(code)
    open_at(driver, url, board)
    driver.find_element(By.CSS_SELECTOR, "details.api summary").click()
    assert f"code {code} " in driver.find_element(By.ID, "position-data").text
