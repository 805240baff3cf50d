"""The public API (solver/__init__.py): lookup, get, best_move, encode, lookup_codes, and the
immutable Position / Move / Scores values they return, checked against a plain minimax.
"""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import os
import pkgutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import solver
import solver.store.locate

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
FLIP = {"win": "loss", "loss": "win", "draw": "draw"}


def _cells(code: int) -> tuple[int, ...]:
    return tuple((code // 3**i) % 3 for i in range(9))


def _winner(cells: tuple[int, ...]) -> int:
    return next((cells[a] for a, b, c in LINES if cells[a] and cells[a] == cells[b] == cells[c]), 0)


@cache
def minimax(code: int) -> tuple[str, int]:
    """(result for the side to move, plies to the end): the winner hurries, the loser holds out."""
    cells = _cells(code)
    if _winner(cells):
        return "loss", 0
    if all(cells):
        return "draw", 0
    piece = 1 if cells.count(1) == cells.count(2) else 2
    outcomes = [minimax(code + piece * 3**i) for i in range(9) if not cells[i]]
    mine = [(FLIP[result], plies + 1) for result, plies in outcomes]
    if any(r == "win" for r, _ in mine):
        return "win", min(p for r, p in mine if r == "win")
    if any(r == "draw" for r, _ in mine):
        return "draw", cells.count(0)
    return "loss", max(p for _, p in mine)


@cache
def reachable() -> list[int]:
    seen, stack = set(), [0]
    while stack:
        code = stack.pop()
        if code in seen:
            continue
        seen.add(code)
        cells = _cells(code)
        if _winner(cells) or all(cells):
            continue
        piece = 1 if cells.count(1) == cells.count(2) else 2
        stack += [code + piece * 3**i for i in range(9) if not cells[i]]
    return sorted(seen)


# -- Position -------------------------------------------------------------------------------------------------


def test_position_fields_of_a_position_in_play():
    p = solver.lookup("X.O/.X./..O")
    assert (p.code, p.board, p.to_move, p.value, p.result, p.plies, p.winner, p.is_over) == (13222, "X.O/.X./..O", "X", 0, "draw", 5, None, False)
    assert p.best_moves == ((1, 2),)
    assert p.cells == ("X", None, "O", None, "X", None, None, None, "O")
    assert [m.cell for m in p.moves] == [1, 3, 5, 6, 7]
    assert [(m.row, m.col) for m in p.moves] == [(0, 1), (1, 0), (1, 2), (2, 0), (2, 1)]
    assert [m.best for m in p.moves] == [False, False, True, False, False]
    assert p.game == solver.Game(3, 3, 3)


def test_position_fields_of_a_win_in_one():
    p = solver.lookup("XX./OO./...")
    assert (p.to_move, p.result, p.plies, p.value, p.best_moves) == ("X", "win", 1, 1, ((0, 2),))
    (win,) = [m for m in p.moves if m.best]
    assert (win.cell, win.result, win.plies, win.value, win.label) == (2, "win", 1, 1, "W1")


@pytest.mark.parametrize(
    "board, winner, value, result",
    [
        ("XXX/OO./...", "X", 1, "loss"),
        ("OOO/XX./X..", "O", -1, "loss"),
        ("XOX/XOO/OXX", None, 0, "draw"),
        ("XOX/OXO/OXX", "X", 1, "loss"),  # the last move fills the board and wins
    ],
)
def test_position_fields_of_a_finished_game(board, winner, value, result):
    p = solver.lookup(board)
    assert p.is_over and p.to_move is None
    assert (p.winner, p.value, p.result, p.plies) == (winner, value, result, 0)
    assert p.best_moves == () and p.moves == () and p.best_cells == ()


def test_every_position_matches_plain_minimax_and_its_moves_match_their_children():
    for code in reachable():
        p = solver.lookup(code)
        result, plies = minimax(code)
        assert (p.result, p.plies) == (result, plies), p.board
        pieces = sum(1 for c in p.cells if c)
        sign = 1 if pieces % 2 == 0 else -1
        assert p.value == sign * {"win": 1, "draw": 0, "loss": -1}[result], p.board
        if p.is_over:
            continue
        assert p.to_move == ("X" if sign == 1 else "O")
        cells = [m.cell for m in p.moves]
        assert cells == sorted(cells) == [i for i, c in enumerate(p.cells) if c is None], p.board
        piece = 1 if p.to_move == "X" else 2
        for move in p.moves:
            child = solver.lookup(code + piece * 3**move.cell)
            assert (move.value, move.result, move.plies) == (child.value, FLIP[child.result], child.plies + 1), (p.board, move)
        best = [m for m in p.moves if m.best]
        assert p.best_moves == tuple((m.row, m.col) for m in best), p.board
        assert all((m.result, m.plies) == (result, plies) for m in best), p.board
        assert all((m.result, m.plies) != (result, plies) for m in p.moves if not m.best), p.board


def test_position_fields_cannot_be_assigned():
    p = solver.lookup("X.O/.X./..O")
    for name, value in (("code", 0), ("score", 5), ("best_mask", 0), ("game", solver.Game(2, 2, 2))):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(p, name, value)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.moves[0].best = True
    assert solver.lookup("X.O/.X./..O").code == 13222


@pytest.mark.parametrize("name", ["value", "result", "plies", "to_move", "best_moves", "note"])
def test_position_properties_and_new_attributes_cannot_be_assigned_either(name):
    """BUG: Position is @dataclass(frozen=True, slots=True); on Python < 3.12(?) the generated
    __setattr__ refers to the class *before* slots were added, so assigning anything that is not a
    field (p.value = 1, p.note = ...) raises 'TypeError: super(type, obj): obj must be an instance
    or subtype of type' instead of FrozenInstanceError."""
    p = solver.lookup("X.O/.X./..O")
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(p, name, 1)


def test_equal_boards_give_equal_positions():
    assert solver.lookup("X.O/.X./..O") == solver.lookup(13222) == solver.lookup([["X", None, "O"], [None, "X", None], [None, None, "O"]])
    assert hash(solver.lookup(13222)) == hash(solver.lookup("X.O.X...O"))
    assert solver.lookup(0) != solver.lookup(1)


def test_position_move_explains_a_cell_that_cannot_be_played():
    p = solver.lookup("X.O/.X./..O")
    assert p.move(5).best
    with pytest.raises(solver.InvalidBoardError, match=r"row 0, col 0 .*taken"):
        p.move(0)
    with pytest.raises(solver.InvalidBoardError, match="off the board"):
        p.move(9)
    with pytest.raises(solver.InvalidBoardError, match="game is over"):
        solver.lookup("XXX/OO./...").move(8)


def test_to_dict_is_json_ready():
    import json

    data = json.loads(json.dumps(solver.lookup("X.O/.X./..O").to_dict()))
    assert data["best_moves"] == [[1, 2]] and data["to_move"] == "X" and data["plies"] == 5


# -- get, best_move, encode ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("board", ["garbage", "XX./.../...", -1, 3**9, True, 1.5, None, [[1, 2]], np.zeros(4)])
def test_get_returns_the_default_for_an_invalid_board(board):
    marker = object()
    assert solver.get(board, marker) is marker
    assert solver.get(board) is None
    with pytest.raises(solver.InvalidBoardError):
        solver.lookup(board)


def test_get_returns_the_position_for_a_valid_board():
    assert solver.get("X.O/.X./..O", "default").code == 13222


def test_best_move_is_the_first_best_move_in_cell_order():
    for code in reachable():
        p = solver.lookup(code)
        if p.is_over:
            continue
        move = solver.best_move(code)
        assert move == p.best_moves[0] == min(p.best_moves) == divmod(min(p.best_cells), 3), p.board
        assert solver.best_move(p.board) == move


def test_best_move_of_the_seeds_000_docstring_board():
    assert solver.best_move([["X", None, None], [None, "O", None], [None, None, None]]) == (0, 1)


@pytest.mark.parametrize("board", ["XXX/OO./...", "XOX/XOO/OXX", "OOO/XX./X.."])
def test_best_move_refuses_a_finished_game(board):
    with pytest.raises(solver.InvalidBoardError, match="game is over") as caught:
        solver.best_move(board)
    assert board in str(caught.value)


def test_encode_checks_the_form_only():
    assert solver.encode("X.O/.X./..O") == 13222
    assert solver.encode("XX./.../...") == 4  # unreachable, but well-formed
    assert solver.encode(0) == 0
    assert solver.encode([["X", None], [None, "O"]], game="2x2") == 1 + 2 * 27
    assert solver.encode("X.../..../..../....", game="4x4") == 1  # 4x4: no table is needed
    with pytest.raises(solver.InvalidBoardError, match="'Z'"):
        solver.encode("XZ./.../...")


def test_small_games_through_the_api(table_dir):
    assert solver.lookup("../..", game="2x2").result == "win"
    assert solver.best_move([[None, None], [None, None]], game="2x2") == (0, 0)
    assert solver.get("X./X.", game="2x2") is None  # 2 X, 0 O


# -- lookup_codes and Scores ------------------------------------------------------------------------------------------


def per_code(table: solver.Table, codes: np.ndarray) -> dict[str, np.ndarray]:
    """score, best, value and plies of each code, one lookup per distinct code."""
    unique, inverse = np.unique(codes, return_inverse=True)
    rows = [(p.score, p.best_mask, p.value, p.plies) for p in map(table.at, map(int, unique))]
    columns = np.array(rows, dtype=np.int64).T
    return {name: column[inverse].reshape(codes.shape) for name, column in zip(("score", "best", "value", "plies"), columns, strict=True)}


def assert_scores_equal(scores: solver.Scores, expected: dict[str, np.ndarray]) -> None:
    for name in ("score", "best", "value", "plies"):
        got = np.asarray(getattr(scores, name))
        assert got.shape == expected[name].shape, name
        assert np.array_equal(got.astype(np.int64), expected[name]), name


def test_lookup_codes_of_every_reachable_code_equals_per_code_lookups():
    codes = np.array(reachable())
    assert_scores_equal(solver.lookup_codes(codes), per_code(solver.table_for(), codes))


def test_lookup_codes_of_100000_random_reachable_codes(table_dir):
    rng = np.random.default_rng(2024)
    for game in ("3x3", "3x4"):
        table = solver.table_for(game)
        codes = rng.choice(table.reachable_codes(), size=100_000)
        assert_scores_equal(solver.lookup_codes(codes, game=game), per_code(table, codes))


def test_lookup_codes_of_a_large_batch_equals_direct_indexing(table_dir):
    """Batches of a million codes or more take another path (gathered by two threads)."""
    table = solver.table_for("3x4")
    codes = np.random.default_rng(7).choice(table.reachable_codes(), size=(3, 400_000))
    scores = table.lookup_codes(codes)
    assert scores.score.shape == codes.shape
    assert np.array_equal(scores.score, np.asarray(table.score)[codes])
    assert np.array_equal(scores.best, np.asarray(table.best)[codes])


def test_lookup_codes_keeps_the_shape_and_accepts_lists():
    codes = np.array([[0, 13222], [81, 1]])
    scores = solver.lookup_codes(codes)
    assert scores.value.shape == scores.plies.shape == scores.best.shape == (2, 2)
    assert scores.value.tolist() == [[0, 0], [0, 0]]
    assert solver.lookup_codes([0, 13222]).plies.tolist() == [9, 5]
    assert solver.lookup_codes(np.array([], dtype=np.int64)).value.size == 0


@pytest.mark.parametrize(
    "codes, fragments",
    [
        ([0, 81, 3**9, 5], ["codes[2]", "19683", "out of range", "0 to 19682"]),
        ([0, -1], ["codes[1]", "-1", "out of range"]),
        (np.array([[0, 81], [10**12, 0]]), ["codes[2]", "out of range"]),
        ([0, 81, 4], ["codes[2]", "4", "XX./.../...", "not a reachable position", "2 X and 0 O"]),
        (np.array([0, 1, 2], dtype=np.uint16), ["codes[2]", "2", "0 X and 1 O"]),
    ],
)
def test_lookup_codes_names_the_index_of_a_bad_code(codes, fragments):
    with pytest.raises(solver.InvalidBoardError) as caught:
        solver.lookup_codes(codes)
    for fragment in fragments:
        assert fragment in str(caught.value), (fragment, str(caught.value))


@pytest.mark.parametrize("codes", [np.array([0.0, 1.0]), np.array([True, False]), ["X.O.X...O"]])
def test_lookup_codes_refuses_non_integers(codes):
    with pytest.raises(solver.InvalidBoardError, match="integers"):
        solver.lookup_codes(codes)


def test_lookup_codes_without_checks_reads_unreachable_codes():
    scores = solver.lookup_codes(np.array([4, 13222]), check=False)
    assert scores.score.tolist()[0] == -128
    assert scores.value.tolist()[1] == 0


@pytest.mark.parametrize("code, index", [(3**9, 0), (-1, 1), (-19683, 1)])
def test_lookup_codes_without_checks_still_refuses_codes_out_of_range(code, index):
    """A negative code must not wrap around to the end of the table (numpy indexing would)."""
    codes = np.array([code, 0]) if index == 0 else np.array([0, code])
    with pytest.raises(solver.InvalidBoardError, match=rf"codes\[{index}\] = {code} is out of range"):
        solver.lookup_codes(codes, check=False)


def test_a_bad_code_deep_in_a_large_batch_is_named_by_its_index(table_dir):
    """Large batches are gathered in two halves; the first bad code in order is still the one named."""
    table = solver.table_for("3x4")
    codes = np.random.default_rng(3).choice(table.reachable_codes(), size=1_200_000)
    codes[1_100_000] = 3**12  # out of range, in the second half
    codes[900_000] = 4  # XX.. : unreachable, in the first half
    with pytest.raises(solver.InvalidBoardError, match=r"codes\[900000\] = 4 .*not a reachable position"):
        table.lookup_codes(codes)
    with pytest.raises(solver.InvalidBoardError, match=r"codes\[1100000\] = 531441 is out of range"):
        table.lookup_codes(codes, check=False)


def test_scores_are_frozen():
    scores = solver.lookup_codes([0])
    with pytest.raises(dataclasses.FrozenInstanceError):
        scores.score = np.zeros(1)


def test_scores_value_and_plies_equal_positions_of_every_small_game(table_dir):
    for game in ("2x2", "2x3", "3x3k2"):
        table = solver.table_for(game)
        codes = table.reachable_codes()
        assert_scores_equal(table.lookup_codes(codes), per_code(table, codes))


# -- the package ------------------------------------------------------------------------------------------------------


def test_public_names_exist_and_errors_form_one_hierarchy():
    for name in solver.__all__:
        assert hasattr(solver, name), name
    assert issubclass(solver.InvalidBoardError, ValueError) and issubclass(solver.InvalidBoardError, solver.SolverError)
    assert issubclass(solver.TableError, solver.SolverError)


def test_the_search_errors_are_in_the_package_namespace_as_the_docs_name_them():
    """``except solver.SearchTimeout`` (docs/connect4.md) catches what a search past its budget raises."""
    from solver import errors

    for name in ("SearchTimeout", "SearchInterrupted"):
        assert name in solver.__all__ and getattr(solver, name) is getattr(errors, name), name
    with pytest.raises(solver.SearchTimeout, match="stopped at its budget"):
        solver.lookup(0, game="7x7k4-gravity", budget=0.01)  # the empty 7x7 gravity board: a search of hours


def test_nothing_is_computed_or_opened_at_import():
    env = {**os.environ, "PYTHONPATH": str(Path(solver.__file__).resolve().parent.parent), "SOLVED_TICTACTOE_DIR": "/nonexistent"}
    script = "import solver, solver.api; tb = solver.api.default_tablebase(); print(not tb.opened and not tb._open)"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip() == "True", out.stderr


def test_docstring_examples_are_real(table_dir):
    failures = []
    for info in pkgutil.iter_modules(solver.__path__, "solver."):
        module = importlib.import_module(info.name)
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        if result.failed:
            failures.append(info.name)
    result = doctest.testmod(solver)
    assert not failures and not result.failed, failures


# -- reprs: the board and the result, one line ----------------------------------------------------
def test_every_position_repr_is_one_line_with_the_game_the_board_and_the_result():
    table = solver.table_for()
    for position in (table.at(int(code)) for code in table.reachable_codes()):
        text = repr(position)
        assert "\n" not in text and text.startswith(f"<Position 3x3k3 {position.board} ") and text.endswith(">"), text
        if position.is_over:
            assert text.endswith(f"game over: {position.winner} won>" if position.winner else "game over: a draw>"), text
        else:
            assert f"{position.to_move} to move: {position.result}" in text and "(value for X: " in text, text
            assert " 1 plies" not in text and (" 1 ply " in text) == (position.plies == 1), text
        assert str(position).splitlines() == [" ".join(row) for row in position.board.split("/")]


def test_moves_are_a_tuple_whose_repr_groups_them_by_outcome_best_first():
    position = solver.lookup("..O/XO./X..")  # X to move: every kind of move
    moves = position.moves
    assert isinstance(moves, tuple) and moves == tuple(moves) and len(moves) == 5 and moves.player == "X"
    assert repr(moves) == ("<MoveList for X: win in 1 ply (best) at (0, 0); win in 3 plies at (2, 1), (2, 2); draw at (0, 1); loss in 4 plies at (1, 2)>")
    assert [repr(move) for move in moves[:2]] == ["<Move (0, 0): win in 1 ply, best>", "<Move (0, 1): draw>"]
    assert repr(solver.lookup("XXX/OO./...").moves) == "<MoveList: none, the game is over>" and solver.lookup("XXX/OO./...").moves == ()
