"""Gravity play (Connect Four's family) in the Python API: a move is a column, or the (row, col) of the cell
a piece dropped there lands on; a position lists, scores and plays only those cells; best_move, to_dict and
analyze speak in columns; a move anywhere else is an InvalidMoveError saying where the piece would land.

Values are checked against an independent minimax elsewhere (tests/reference.py); these tests prove behaviour.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import solver
from solver.encoding.drops import Drop, landing_cell, read_drop
from solver.errors import InvalidBoardError, InvalidMoveError, OffBoardMoveError
from solver.rules.game import parse_game

GAME = "3x4k3-gravity"  # 3 rows, 4 columns: 531,441 codes, built in about a second
WIN_AT_2 = "..../O.../XX.O"  # X to move: column 2 completes the bottom row


# -- reading a move ---------------------------------------------------------------------------
@pytest.mark.parametrize("move", [2, np.int64(2), np.array(2), "2", " 2 "])
def test_a_bare_number_is_a_column_not_a_cell(move: object) -> None:
    assert read_drop(move, parse_game(GAME)) == Drop(col=2, cell=None)


@pytest.mark.parametrize("move", [(2, 1), [2, 1], np.array([2, 1]), "2,1", "(2,1)", "2 1", "[2, 1]"])
def test_a_pair_is_a_row_and_a_column_naming_a_cell(move: object) -> None:
    assert read_drop(move, parse_game(GAME)) == Drop(col=1, cell=9)


@pytest.mark.parametrize(
    ("move", "error", "needle"),
    [
        (4, OffBoardMoveError, "column 4 is off the board: expected a column 0-3, or row,col (row 0-2, col 0-3)"),
        ("-1", OffBoardMoveError, "column -1 is off the board"),
        ((3, 0), OffBoardMoveError, "(3, 0) is off the board: expected a column 0-3"),
        ("99999999999", OffBoardMoveError, "is off the board"),
        (True, InvalidBoardError, "cannot read move True: expected a column 0-3"),
        ("(2)", InvalidBoardError, "cannot read move '(2)': expected a column 0-3"),
        (2.0, InvalidBoardError, "cannot read move 2.0"),
        (None, InvalidBoardError, "cannot read move None"),
    ],
)
def test_an_unreadable_or_off_board_move_says_what_a_move_is_under_gravity(move: object, error: type[Exception], needle: str) -> None:
    with pytest.raises(error) as raised:
        read_drop(move, parse_game(GAME))
    assert needle in str(raised.value)
    assert "cell 0-" not in str(raised.value), "a bare number is no cell under gravity: the message must not offer one"


def test_a_column_lands_on_its_lowest_empty_cell() -> None:
    game = parse_game(GAME)
    assert [landing_cell(Drop(col, None), game, taken=0) for col in range(4)] == [8, 9, 10, 11]
    taken = 1 << 8 | 1 << 4  # column 0 holds two pieces
    assert landing_cell(Drop(0, None), game, taken) == 0
    with pytest.raises(InvalidMoveError, match=r"^column 0 is full: the columns with room are 1, 2 and 3$"):
        landing_cell(Drop(0, None), game, taken | 1)


# -- a position ---------------------------------------------------------------------------------
def test_a_position_lists_one_move_a_column_each_on_the_cell_a_piece_lands_on() -> None:
    position = solver.lookup("..../O.../XX.O", game=GAME)
    assert [(move.row, move.col) for move in position.moves] == [(0, 0), (1, 1), (1, 3), (2, 2)]  # in cell order
    assert position.playable == 1 << 0 | 1 << 5 | 1 << 7 | 1 << 10
    assert all(move.plies > 0 for move in position.moves), "no move may read as an unreachable child (the old W-27)"


def test_no_empty_cell_above_the_landing_cells_gets_a_score_in_to_dict() -> None:
    data = solver.lookup("..../..../.X..", game=GAME).to_dict()
    assert sorted((move["row"], move["col"]) for move in data["moves"]) == [(1, 1), (2, 0), (2, 2), (2, 3)]
    assert all(move["plies"] > 0 for move in data["moves"])


def test_json_gives_the_best_columns_after_the_best_cells_and_mnk_json_is_unchanged() -> None:
    data = solver.lookup("..../..../.X..", game=GAME).to_dict()
    assert (data["best_moves"], data["best_cells"], data["best_columns"]) == ([[2, 0], [2, 2], [2, 3]], [8, 10, 11], [0, 2, 3])
    assert list(data).index("best_columns") == list(data).index("best_cells") + 1
    assert "best_columns" not in solver.lookup("X../.../...").to_dict(), "m,n,k JSON is unchanged"


def test_best_move_is_a_column_under_gravity_and_a_row_col_pair_elsewhere() -> None:
    assert solver.best_move(WIN_AT_2, game=GAME) == 2
    assert solver.table_for(GAME).best_move(WIN_AT_2) == 2
    assert solver.best_move("XX./OO./...") == (0, 2)


def test_best_move_is_the_lowest_numbered_best_column() -> None:
    position = solver.lookup("..../..../....", game=GAME)
    assert position.best_columns == (1, 2)
    assert solver.best_move("..../..../....", game=GAME) == 1


def test_play_drops_a_piece_in_a_column() -> None:
    start = solver.lookup(0, game=GAME)
    assert start.play(1).play(1).play("1").board == ".X../.O../.X.."


@pytest.mark.parametrize("move", [1, "1", (2, 1), "2,1", [2, 1]])
def test_a_column_and_its_landing_cell_are_the_same_move(move: object) -> None:
    start = solver.lookup(0, game=GAME)
    assert start.play(move).board == "..../..../.X.."
    assert start.move(move).cell == 9


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ((0, 3), "(0,3) is not playable on ..../O.../XX.O: a piece dropped in column 3 lands on (1,3)"),
        ((2, 0), "(2,0) is taken on ..../O.../XX.O: a piece dropped in column 0 lands on (0,0)"),
        ("1,2", "(1,2) is not playable on ..../O.../XX.O: a piece dropped in column 2 lands on (2,2)"),
    ],
)
def test_a_cell_that_is_not_where_the_piece_lands_is_an_invalid_move_saying_where_it_lands(move: object, message: str) -> None:
    position = solver.lookup(WIN_AT_2, game=GAME)
    with pytest.raises(InvalidMoveError) as raised:
        position.play(move)
    assert str(raised.value) == message
    assert isinstance(raised.value, InvalidBoardError), "an InvalidMoveError is still an InvalidBoardError (a ValueError)"


def test_a_full_column_is_an_invalid_move_naming_the_columns_with_room() -> None:
    position = solver.lookup("X.../O.../XO..", game=GAME)
    with pytest.raises(InvalidMoveError, match=r"column 0 is full on X\.\.\./O\.\.\./XO\.\.: the columns with room are 1, 2 and 3"):
        position.play(0)
    with pytest.raises(InvalidMoveError, match=r"\(0,0\) is taken on .*: column 0 is full; the columns with room are 1, 2 and 3"):
        position.play((0, 0))


def test_no_move_is_legal_once_the_game_is_over() -> None:
    over = solver.lookup(WIN_AT_2, game=GAME).play(2)
    assert over.is_over and over.moves == () and over.playable == 0
    with pytest.raises(InvalidMoveError, match=r"cannot play column 1 on \.\.\.\./O\.\.\./XXXO: the game is over"):
        over.play(1)


def test_moves_repr_names_columns() -> None:
    assert repr(solver.lookup(WIN_AT_2, game=GAME).moves) == (
        "<MoveList for X: win in 1 ply (best) at column 2; win in 3 plies at column 1; win in 5 plies at column 3; win in 7 plies at column 0>"
    )


def test_a_taken_cell_on_an_mnk_board_is_an_invalid_move_too() -> None:
    with pytest.raises(InvalidMoveError, match="cannot play row 0, col 0 on X../.../...: the cell is taken"):
        solver.lookup("X../.../...").play(0)


# -- batches -----------------------------------------------------------------------------------------
def test_lookup_codes_of_a_gravity_batch_agrees_with_one_lookup_each() -> None:
    boards = ["..../..../....", "..../..../.X..", WIN_AT_2, "..../O.../XXXO"]
    codes = np.array([solver.encode(board, game=GAME) for board in boards])
    scores = solver.lookup_codes(codes, game=GAME)
    for i, board in enumerate(boards):
        position = solver.lookup(board, game=GAME)
        assert (int(scores.value[i]), int(scores.plies[i]), int(scores.best[i]), int(scores.pieces[i])) == (
            position.value,
            position.plies,
            position.best_mask,
            position.pieces,
        ), board
    assert int(scores.best[2]) == 1 << 10, "best moves as a mask of the landing cells"


def test_lookup_codes_refuses_a_floating_piece_and_says_why_or_answers_it_unreachable() -> None:
    floating = solver.encode("..../X.../....", game=GAME)
    with pytest.raises(InvalidBoardError, match=r"the piece at \(1,0\) floats"):
        solver.lookup_codes([floating], game=GAME)
    unchecked = solver.lookup_codes([floating], game=GAME, check=False)
    assert not unchecked.reachable[0]


# -- analyze -------------------------------------------------------------------------------------------------
def test_analyze_reads_columns_and_judges_every_ply() -> None:
    game = solver.analyze([1, 1, 0, 1], game=GAME)
    assert game.columns == (1, 1, 0, 1)
    assert game.cells == (9, 5, 8, 1)
    assert [ply.player for ply in game.plies] == ["X", "O", "X", "O"]
    assert game.plies[0].verdict == "best"
    assert game.final.board == ".O../.O../XX.."
    assert repr(game.plies[0]) == "<PlyAnalysis ply 1: X plays column 1: best, win in 9 plies>"


def test_analyze_accepts_landing_cells_as_row_col_and_mixes_them_with_columns() -> None:
    assert solver.analyze([(2, 1), "1", "2,0"], game=GAME).cells == solver.analyze([1, 1, 0], game=GAME).cells


def test_analyze_json_adds_the_columns_played_and_each_plys_best_columns() -> None:
    data = solver.analyze([1, 1], game=GAME).to_dict()
    assert (data["moves"], data["columns"]) == ([9, 5], [1, 1])
    first = data["plies"][0]
    assert (first["move"], first["row"], first["col"]) == (9, 2, 1)
    assert (first["best_moves"], first["best_cells"], first["best_columns"]) == ([[2, 1], [2, 2]], [9, 10], [1, 2])
    assert "columns" not in solver.analyze([4]).to_dict() and "best_columns" not in solver.analyze([4]).to_dict()["plies"][0]


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ([0, 0, 0, 0], "ply 4: column 0 is full on X.../O.../X...: the columns with room are 1, 2 and 3"),
        ([0, (2, 0)], "ply 2: O cannot play row 2, col 0 (cell 8): X took it at ply 1; a piece dropped in column 0 lands on (1,0)"),
        ([0, 0, 0, (0, 0)], "ply 4: O cannot play row 0, col 0 (cell 0): X took it at ply 3; column 0 is full"),
        ([0, (0, 1)], "ply 2: (0,1) is not playable on ..../..../X...: a piece dropped in column 1 lands on (2,1)"),
        ([0, 4], "ply 2: column 4 is off the board"),
        ([0, 1, 0, 1, 0, 1], "ply 6: cannot play column 1: the game ended at ply 5 (X won)"),
    ],
)
def test_analyze_names_the_ply_and_where_the_piece_would_land(moves: list[object], message: str) -> None:
    with pytest.raises(InvalidBoardError) as raised:
        solver.analyze(moves, game=GAME)
    assert str(raised.value).startswith(message)


def test_analyze_of_mnk_games_still_reads_cells() -> None:
    assert solver.analyze([4, 0, 8]).cells == (4, 0, 8)
    assert solver.analyze(["1,1", (0, 0)]).cells == (4, 0)


# -- notebook pictures -------------------------------------------------------------------------------------
def test_the_notebook_picture_labels_only_landing_cells_and_names_the_best_columns() -> None:
    import re

    from solver.present.svg import analysis_html, position_html

    html = position_html(solver.lookup(WIN_AT_2, game=GAME))
    labelled = {tuple(map(int, found)) for found in re.findall(r'aria-label="row (\d), column (\d): X (?:wins|draws|loses)', html)}
    assert labelled == {(0, 0), (1, 1), (2, 2), (1, 3)}
    assert "best columns: 2 · " in html
    table = analysis_html(solver.analyze([1, 1], game=GAME))
    assert "<th" in table and ">column<" in table and ">1 (2,1)<" in table


def test_invalid_move_error_is_public_and_an_invalid_board_error() -> None:
    assert "InvalidMoveError" in solver.__all__
    assert issubclass(solver.InvalidMoveError, solver.InvalidBoardError) and issubclass(solver.InvalidMoveError, ValueError)


# -- names read otherwise than meant (issue 42 point 11) --------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "chosen", "said"),
    [
        ("6x7-gravity", "6x7k6-gravity", "6x7-gravity is 6x7k6-gravity, 6 in a row (k, when the name gives none, is the shorter side); Connect Four"),
        ("7x6k4-gravity", "7x6k4-gravity", "7x6k4-gravity is 7 rows by 6 columns (a name gives the rows first); Connect Four"),
        ("7x6-gravity", "7x6k6-gravity", "7x6-gravity is 7x6k6-gravity, 6 in a row (k, when the name gives none, is the shorter side) and 7 rows by 6 columns"),
        ("4x4-gravity", "4x4k4-gravity", "4x4-gravity is 4x4k4-gravity, 4 in a row (k, when the name gives none, is the shorter side)"),
    ],
)
def test_a_gravity_name_read_otherwise_than_meant_warns_once_naming_the_game_chosen(name: str, chosen: str, said: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``6x7-gravity`` is six in a row and ``7x6k4-gravity`` 7 rows by 6 columns, as the names say: the game is what the
    name says, and a GameNameWarning says which, naming connect4 where the board is 6x7 or 7x6; once per name."""
    from solver.errors import GameNameWarning
    from solver.rules import game as games

    monkeypatch.delitem(games._PARSED, name, raising=False)  # not parsed yet in this process
    monkeypatch.setattr(games, "_WARNED", set())  # nor warned of
    with pytest.warns(GameNameWarning) as caught:
        assert parse_game(name).name == chosen
    [warning] = caught
    message = str(warning.message)
    assert message.startswith(said), message
    assert ("is connect4 (6x7k4-gravity)" in message) == (name != "4x4-gravity"), message
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert parse_game(name).name == chosen  # said once: the name is read once a process


@pytest.mark.parametrize("name", ["connect4", "6x7k4-gravity", "6x7k5-gravity", "4x4k3-gravity", "4x4", "5x4"])
def test_a_gravity_name_that_gives_k_and_rows_first_or_no_gravity_says_nothing(name: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from solver.rules import game as games

    monkeypatch.delitem(games._PARSED, name, raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parse_game(name)
