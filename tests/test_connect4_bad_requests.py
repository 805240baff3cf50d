"""Bad boards, numbers and shapes given to Connect Four's front ends (issue 42 point 4): each is refused at once with
the package's one-line error, before a search, a server or an allocation starts: the mainline of a board no game
reaches is a 400 as its look-up is, ``solve serve --search-budget nan`` does not start, a tall gravity game is answered
by search (its index would not fit) and refused by ``solve build``, and ``solve analyze`` names a bad move first.
"""

from __future__ import annotations

import math

import pytest
from click.testing import CliRunner

import solver
from solver.cli import main
from solver.errors import GameTooLargeError, InvalidValueError
from solver.rules.game import parse_game

UNREACHABLE = {
    "a floating piece": "......./......./......./......./...X.../.......",
    "both sides won": "......./......./XXXX.../OOOO.../XXXO.../OOOX...",
    "an unreachable stack": "......./O....../X....../X....../X....../XOO...O",
    "code 27": "27",
}


@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from solver import web

    app = web.create_app([solver.table_for(), solver.table_for("connect4")], search_budget=2)
    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize("what", sorted(UNREACHABLE))
def test_the_mainline_of_a_board_no_game_reaches_is_a_400_with_the_look_ups_words(client, what: str) -> None:  # type: ignore[no-untyped-def]
    board = UNREACHABLE[what]
    looked_up = client.get("/api/v1/connect4", params={"board": board})
    mainline = client.get("/api/v1/connect4/mainline", params={"board": board})
    assert looked_up.status_code == 400, looked_up.text
    assert mainline.status_code == 400, f"{what}: {mainline.status_code} {mainline.text}"
    assert mainline.json()["error"] == looked_up.json()["error"]


def test_solve_serve_refuses_a_search_budget_that_is_not_a_finite_number_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("starlette")
    from solver import web

    started: list[object] = []
    monkeypatch.setattr(web, "serve", lambda *args, **kwargs: started.append(kwargs))
    for given in ("nan", "inf", "1e309"):
        result = CliRunner().invoke(main, ["serve", "--port", "0", "--search-budget", given])
        assert result.exit_code == 2, (given, result.output)
        assert "--search-budget" in result.stderr and "finite" in result.stderr
        assert "Traceback" not in result.output
    assert started == [], "the server started with a budget that is no number of seconds"
    with pytest.raises(InvalidValueError, match="search_budget"):
        web.create_app([solver.table_for()], search_budget=math.nan)


def test_building_a_tall_gravity_game_is_refused_in_one_line_before_its_index_is_allocated(monkeypatch: pytest.MonkeyPatch) -> None:
    """20x1k4-gravity's index wants a table over 3**20 column values (26 GiB): refused against the memory free, said."""
    from solver.encoding import columns

    monkeypatch.setattr(columns, "free_memory", lambda: 8 << 30)
    result = CliRunner().invoke(main, ["build", "--game", "20x1k4-gravity"])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "cannot be indexed on this machine" in result.stderr
    assert "26.2 GiB" in result.stderr and "8.0 GiB is free" in result.stderr
    with pytest.raises(GameTooLargeError, match="31x1k4-gravity cannot be indexed"):  # past every machine, unpatched too
        columns.ColumnLayout(parse_game("31x1k4-gravity"))


@pytest.mark.parametrize("rows", [20, 25, 31])
def test_a_tall_gravity_game_whose_index_does_not_fit_is_answered_by_search(rows: int) -> None:
    """A column of ``rows`` cells, k=4: alternate pieces never make four, so a draw at every ply; its index would not fit."""
    result = CliRunner().invoke(main, ["lookup", "--game", f"{rows}x1k4-gravity", "--moves", "1"])
    assert result.exit_code == 0, result.output
    assert "a draw with best play" in result.stdout


def test_solve_analyze_names_an_off_board_column_before_searching_the_opening(monkeypatch: pytest.MonkeyPatch) -> None:
    from solver.search.engine import Engine

    def no_search(*args: object, **kwargs: object) -> None:
        raise AssertionError("a position was searched before the moves were read")

    monkeypatch.setattr(Engine, "solve", no_search)
    monkeypatch.setattr(Engine, "score", no_search)
    result = CliRunner().invoke(main, ["analyze", "--game", "connect4", "3", "3", "9"])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (
        "solve: error: ply 3: column 9 is off the board: expected a column 0-6, or row,col (row 0-5, col 0-6) naming the lowest empty cell of its column"
    )
    full = CliRunner().invoke(main, ["analyze", "--game", "connect4", *["3"] * 7])
    assert full.exit_code == 2 and "ply 7: column 3 is full" in full.stderr, full.output
