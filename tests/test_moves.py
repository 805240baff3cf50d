"""One move parser (solver.encoding.moves) for the CLI, analyze, Position.play, the grader and interop;
one board drawer (solver.encoding.board.draw); and the cases that had no test before:
``Table.lookup(board, game=other)`` and ``analyze`` swapping row and column."""

from __future__ import annotations

import numpy as np
import pytest

import solver
import solver.api
import solver.store.locate
import solver.store.tablebase
from solver import interop
from solver.encoding.board import draw
from solver.encoding.moves import parse_move, parse_moves
from solver.rules.game import Game, parse_game

GAME_3X4 = Game(3, 4, 3)


# -- every form, the same cell -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "move",
    [
        5,
        np.int64(5),
        np.array(5),
        "5",
        " 5 ",
        (1, 2),
        [1, 2],
        (np.int8(1), np.uint8(2)),
        np.array([1, 2]),
        "1,2",
        "1 2",
        " 1 , 2 ",
        "(1,2)",
        "( 1, 2 )",
        "[1, 2]",
        "[1 2]",
    ],
)
def test_every_form_of_row_1_col_2_is_cell_5(move):
    assert parse_move(move) == 5


def test_row_and_col_are_read_in_that_order_on_a_board_that_is_not_square():
    assert parse_move((1, 2), GAME_3X4) == 6 and parse_move((2, 1), GAME_3X4) == 9
    assert parse_move("(2,3)", "3x4") == 11
    with pytest.raises(solver.InvalidBoardError, match=r"\(3, 2\) is off the board.*row 0-2 and col 0-3"):
        parse_move((3, 2), GAME_3X4)


@pytest.mark.parametrize(
    "move",
    [
        True,
        False,
        np.True_,
        4.0,
        1.5,
        None,
        "",
        "x",
        "²",
        "1,1,1",
        "1,",
        ",1",
        "(1)",
        "()",
        "(1,1",
        "1.0",
        (1, 1, 1),
        (1,),
        (True, 1),
        (1, np.False_),
        (1.0, 1),
        ("1", "1"),
        b"4",
        np.array([[1, 1]]),
        object(),
    ],
)
def test_unreadable_moves_are_refused_the_same_way_everywhere(move):
    message = "cannot read move"
    for call in (lambda: parse_move(move), lambda: solver.lookup(0).play(move), lambda: solver.analyze([move]), lambda: interop.openspiel_action(move)):
        with pytest.raises(solver.InvalidBoardError, match=message):
            call()


@pytest.mark.parametrize(
    "move, shown", [(9, "cell 9"), (-1, "cell -1"), ("9", "move '9'"), ("3,0", "move '3,0'"), ((0, 3), "(0, 3)"), ("1" * 5000, "5,000 characters")]
)
def test_moves_off_the_board_say_so_and_what_fits(move, shown):
    with pytest.raises(solver.InvalidBoardError) as caught:
        parse_move(move)
    assert str(caught.value).startswith(f"{shown}") or shown in str(caught.value)
    assert "is off the board: expected a cell 0-8 or row,col with row 0-2 and col 0-2" in str(caught.value)


def test_where_names_the_ply():
    with pytest.raises(solver.InvalidBoardError, match=r"^ply 3: cell 9 is off the board"):
        parse_move(9, where="ply 3: ")


# -- a list of moves as one text (the HTTP API's moves=) ---------------------------------------------------


@pytest.mark.parametrize(
    "text, cells",
    [
        ("", []),
        ("  ; ", []),
        ("4 0 8", [4, 0, 8]),
        ("4;0;8", [4, 0, 8]),
        ("4\t0\n8", [4, 0, 8]),
        ("1,1 0,0", [4, 0]),
        ("(1,1);(0,0)", [4, 0]),
        ("(1, 1) [0, 0] 2,2", [4, 0, 8]),
        ("(1 1)", [4]),
        ("1,1", [4]),
        ("(1,1)", [4]),
    ],
)
def test_a_move_list_is_split_at_spaces_and_semicolons_and_each_move_read_by_parse_move(text, cells):
    assert parse_moves(text) == cells
    assert [parse_move(cell) for cell in cells] == cells


def test_every_move_of_a_list_means_what_it_means_alone():
    for move in ["5", "1,2", "(1,2)", "[1, 2]", "( 1, 2 )", "[1 2]"]:
        assert parse_moves(f"0;{move}") == [0, parse_move(move)], move


@pytest.mark.parametrize(
    "text, needles",
    [
        ("4,0,8", ["ply 1: cannot read move '4,0,8'", "(4 0 8 or 4;0;8)"]),
        ("0 4,1", ["ply 2: move '4,1' is off the board", "two cells are written 4 1 or 4;1"]),
        ("1, 1", ["ply 1: cannot read move '1,'"]),
        ("(1,1)(0,0)", ["ply 1: cannot read move '(1,1)(0,0)'"]),
        ("4 ( 0", ["ply 2: cannot read move '('"]),
        ("\u0663", ["ply 1: cannot read move"]),
        ("0 1 2 3 4 5 6 7 8 9", ["more than 9 moves given: a 3x3k3 game has at most 9 plies"]),
    ],
)
def test_a_move_list_that_cannot_be_read_names_the_ply_and_how_to_write_it(text, needles):
    with pytest.raises(solver.InvalidBoardError) as raised:
        parse_moves(text)
    for needle in needles:
        assert needle in str(raised.value)


def test_a_move_list_follows_the_game():
    assert parse_moves("(2,3) 11", "3x4") == [11, 11]  # legality (the cell taken twice) is analyze's to say
    with pytest.raises(solver.InvalidBoardError, match="at most 4 plies"):
        parse_moves("0 1 2 3 0", "2x2")


def test_a_huge_move_list_is_refused_after_one_more_move_than_the_board_has(monkeypatch):
    read = []
    monkeypatch.setattr("solver.encoding.moves.parse_move", lambda move, game, where="": read.append(move) or 0)
    with pytest.raises(solver.InvalidBoardError, match="more than 9 moves"):
        parse_moves("0 " * 1_000_000)
    assert len(read) == 9


def test_position_play_takes_any_move_form():
    assert solver.lookup(0).play("(1,1)").board == solver.lookup(0).play(4).board == ".../.X./..."


# -- one board drawer ---------------------------------------------------------------------------------------


def test_draw_is_every_board_picture():
    code = solver.encode("X.O/.X./..O")
    assert draw(parse_game(None), code) == ["X . O", ". X .", ". . O"]
    assert draw(parse_game(None), code, marks={5: "*", 1: "!"}) == ["X ! O", ". X *", ". . O"]
    assert draw(parse_game(None), code, marks={1: "L2"}, width=2) == [" X L2  O", " .  X  .", " .  .  O"]
    assert draw(GAME_3X4, 1 + 2 * 3**11) == ["X . . .", ". . . .", ". . . O"]


# -- the missing tests of point 7 ---------------------------------------------------------------------------


@pytest.mark.parametrize("other", ["3x3k2", "2x2", "4x4k3", Game(3, 3, 2)])
def test_a_table_refuses_a_look_up_for_another_game(other):
    table = solver.table_for()
    for board in (0, 13222, "X.O/.X./..O", [["X", None, "O"], [None, "X", None], [None, None, "O"]]):
        with pytest.raises(solver.InvalidBoardError):
            table.lookup(board, game=other)
        assert table.get(board, "refused", game=other) == "refused"
    assert table.lookup(13222, game="3x3k3").board == "X.O/.X./..O"


def test_analyze_does_not_swap_row_and_column():
    # Off-diagonal moves: (0, 1) is cell 1 and (1, 0) is cell 3; a swap would play the other one.
    game = solver.analyze([(0, 1), (1, 0), (0, 2), (2, 0)])
    assert game.cells == (1, 3, 2, 6)
    assert [(ply.move.row, ply.move.col) for ply in game.plies] == [(0, 1), (1, 0), (0, 2), (2, 0)]
    assert game.final.board == ".XX/O../O.."
    wide = solver.analyze([(0, 3), (2, 1)], table=solver.build_table(game="3x4"))
    assert wide.cells == (3, 9) and wide.final.board == "...X/..../.O.."


# -- lookup(game=...) is a dictionary hit ----------------------------------------------------------------


def test_lookup_with_game_opens_the_table_once_and_then_only_indexes(table_dir, monkeypatch):
    game = Game(2, 2, 2)
    first = solver.lookup(0, game="2x2k2")
    assert solver.lookup(0, game=game).table is first.table

    def no_more(*args, **kwargs):
        raise AssertionError("the game or its table was looked for again")

    monkeypatch.setattr(solver.api.default_tablebase(), "table", no_more)
    monkeypatch.setattr(solver.store.tablebase, "parse_game", no_more)
    monkeypatch.setattr(solver.rules.game, "_NAME", None)  # parsing a name again would fail
    assert solver.lookup(1, game="2x2k2").table is first.table
    assert solver.lookup("X./..", game=game).code == 1
    monkeypatch.undo()  # this also undoes the table_dir fixture's SOLVED_TICTACTOE_DIR: set it again, or the user's own directory is used
    monkeypatch.setenv("SOLVED_TICTACTOE_DIR", str(table_dir))
    solver.forget()  # a forgotten table is opened afresh
    assert solver.lookup(0, game="2x2k2").table is not first.table
