"""solver.analyze and `solve analyze`: every ply judged against the table."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import solver
from solver import analyze
from solver.cli import main
from solver.tables.analysis import verdict

RANK = {"loss": 0, "draw": 1, "win": 2}

# X 1,0; O 1,1; X 2,0; O 0,2 leaves X to move on ..O/XO./X.. with every kind of move:
# (0,0) wins at once, (2,1) and (2,2) win in 3, (0,1) only draws, (1,2) loses.
ALL_KINDS = [3, 4, 6, 2]


def run(*args: str):
    return CliRunner().invoke(main, list(args))


# -- the library -----------------------------------------------------------------------
def test_each_ply_records_mover_move_best_moves_results_and_verdict():
    game = analyze([4, 1, 0])  # X centre, O edge (a mistake: only corners hold the draw), X corner
    first, second, third = game.plies
    assert [p.ply for p in game.plies] == [1, 2, 3]
    assert [p.player for p in game.plies] == ["X", "O", "X"]
    assert [p.cell for p in game.plies] == [4, 1, 0]
    assert first.best_cells == tuple(range(9)) and first.verdict == "best"
    assert second.best_cells == (0, 2, 6, 8)
    assert (second.result_before, second.plies_before, second.result_after, second.plies_after) == ("draw", 8, "loss", 6)
    assert second.verdict == "mistake"
    assert third.result_before == third.result_after == "win" and third.verdict == "best"
    assert (third.before.board, third.after.board) == (".O./.X./...", "XO./.X./...")
    assert game.final == third.after


@pytest.mark.parametrize(
    ("cell", "expected", "after"),
    [(0, "best", "win"), (7, "ok", "win"), (8, "ok", "win"), (1, "mistake", "draw"), (5, "blunder", "loss")],
)
def test_verdict_separates_best_slower_win_half_point_and_whole_point(cell, expected, after):
    ply = analyze([*ALL_KINDS, cell]).plies[-1]
    assert ply.before.board == "..O/XO./X.."
    assert ply.result_before == "win"
    assert (ply.verdict, ply.result_after) == (expected, after)


def test_ok_means_same_result_but_more_plies_for_a_win():
    best = analyze([*ALL_KINDS, 0]).plies[-1]
    slower = analyze([*ALL_KINDS, 7]).plies[-1]
    assert best.plies_after == best.plies_before == 1
    assert slower.plies_after == 3 > slower.plies_before


def test_ok_also_covers_losing_faster():
    # X 0,0; O 0,1 (a mistake); X 1,0: O must block at 2,0 (loss in 4), 1,1 loses in 2.
    ply = analyze([0, 1, 3, 4]).plies[-1]
    assert (ply.result_before, ply.plies_before, ply.result_after, ply.plies_after) == ("loss", 4, "loss", 2)
    assert ply.verdict == "ok"


def test_flat_cells_and_row_col_pairs_give_the_same_analysis():
    assert analyze([4, 0, 8]) == analyze([(1, 1), (0, 0), (2, 2)]) == analyze([[1, 1], 0, (2, 2)])


def test_summary_counts_each_players_moves_by_verdict():
    game = analyze([0, 1, 3, 4, 5, 7])  # best, mistake, best, ok, blunder, best: O wins
    assert [p.verdict for p in game.plies] == ["best", "mistake", "best", "ok", "blunder", "best"]
    assert game.summary("X") == solver.PlayerSummary("X", moves=3, best=2, ok=0, mistakes=0, blunders=1)
    assert game.summary("O") == solver.PlayerSummary("O", moves=3, best=1, ok=1, mistakes=1, blunders=0)
    assert game.final.winner == "O"


def test_an_empty_game_has_no_plies_and_ends_on_the_empty_board():
    game = analyze([])
    assert game.plies == () and game.final.code == 0
    assert game.summary("X").moves == game.summary("O").moves == 0


def test_analyze_works_on_other_games():
    table = solver.build_table(game="2x2")  # in memory: nothing written to the table directory
    game = analyze([0, 1, 2], table=table)  # k = 2: X wins with 0 and 2 (a column)
    assert game.final.winner == "X"
    assert [p.verdict for p in game.plies] == ["best", "best", "best"]


@pytest.mark.parametrize(
    ("moves", "needle"),
    [
        ([4, 4], "ply 2: O cannot play row 1, col 1 (cell 4): X took it at ply 1"),
        ([4, 0, 0], "ply 3: X cannot play row 0, col 0 (cell 0): O took it at ply 2"),
        ([4, 9], "ply 2: cell 9 is off the board"),
        ([4, -1], "ply 2: cell -1 is off the board"),
        ([(3, 0)], "ply 1: (3, 0) is off the board"),
        ([4, "a"], "ply 2: cannot read move 'a'"),
        ([4, (1.0, 1.0)], "ply 2: cannot read move (1.0, 1.0)"),
        ([0, 3, 1, 4, 2, 5], "ply 6: cannot play row 1, col 2 (cell 5): the game ended at ply 5 (X won) on XXX/OO./..."),
    ],
)
def test_an_illegal_move_names_the_ply_and_the_cell(moves, needle):
    with pytest.raises(solver.InvalidBoardError) as caught:
        analyze(moves)
    assert needle in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_a_move_after_a_drawn_game_says_it_was_a_draw():
    draw = [4, 0, 8, 2, 1, 7, 6, 3, 5]
    assert analyze(draw).final.is_over and analyze(draw).final.winner is None
    with pytest.raises(solver.InvalidBoardError, match=r"ply 10: .*the game ended at ply 9 \(a draw\)"):
        analyze([*draw, 0])


games = st.permutations(range(9)).map(lambda cells: cells[: _legal_length(cells)])


def _legal_length(cells: list[int]) -> int:
    position = solver.lookup(0)
    for n, cell in enumerate(cells):
        if position.is_over:
            return n
        position = solver.lookup(position.code + (1 if position.to_move == "X" else 2) * 3**cell)
    return len(cells)


@settings(max_examples=200, deadline=None)
@given(games)
def test_every_ply_agrees_with_looking_up_the_boards(cells):
    game = analyze(cells)
    assert game.cells == tuple(cells)
    board = ["."] * 9
    for ply in game.plies:
        before = solver.lookup("".join(board))
        assert ply.before == before, f"ply {ply.ply} on {before.board}"
        assert ply.player == before.to_move
        assert ply.best_cells == before.best_cells
        board[ply.cell] = ply.player
        assert ply.after == solver.lookup("".join(board))
        move = before.move(ply.cell)
        assert ply.verdict == verdict(before, move)
        drop = RANK[before.result] - RANK[move.result]
        expected = "best" if move.score == before.score else {0: "ok", 1: "mistake", 2: "blunder"}[drop]
        assert ply.verdict == expected, f"ply {ply.ply} on {before.board}"
    x, o = game.summary("X"), game.summary("O")
    assert x.moves + o.moves == len(cells)
    assert x.moves == x.best + x.ok + x.mistakes + x.blunders


# -- the command -----------------------------------------------------------------------
def test_cli_prints_every_ply_the_final_board_and_the_summary():
    result = run("analyze", "0,0", "0,1", "1,0", "1,1", "1,2", "2,1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ply", "player", "move", "best", "moves", "before", "after", "verdict"]
    assert lines[2].split() == ["2", "O", "0,1", "(1)", "1,1", "D", "L6", "mistake"]
    assert lines[4].split() == ["4", "O", "1,1", "(4)", "2,0", "L4", "L2", "ok"]
    assert lines[5].split() == ["5", "X", "1,2", "(5)", "2,0", "W1", "L2", "blunder"]
    assert "Game over: O has won." in lines
    assert lines[-2].split() == ["X", "3", "2", "0", "0", "1"]
    assert lines[-1].split() == ["O", "3", "1", "1", "1", "0"]


def test_cli_flat_and_row_col_moves_print_the_same():
    assert run("analyze", "4", "0", "8").stdout == run("analyze", "1,1", "0,0", "2,2").stdout


def test_cli_json_lists_plies_with_flat_moves_players_verdicts_and_best_moves():
    result = run("analyze", "4", "1", "0", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [(p["move"], p["player"], p["verdict"]) for p in data["plies"]] == [(4, "X", "best"), (1, "O", "mistake"), (0, "X", "best")]
    assert data["plies"][1]["best_moves"] == [[0, 0], [0, 2], [2, 0], [2, 2]] and data["plies"][1]["best_cells"] == [0, 2, 6, 8]
    assert data["summary"]["O"] == {"moves": 1, "best": 0, "ok": 0, "mistakes": 1, "blunders": 0}
    assert data["final"]["board"] == "XO./.X./..."


@pytest.mark.parametrize(
    ("moves", "needle"),
    [
        (["4", "4"], "ply 2: O cannot play row 1, col 1"),
        (["4", "9"], "ply 2: move '9' is off the board"),
        (["4", "3,3"], "ply 2: move '3,3' is off the board"),
        (["4", "x"], "ply 2: cannot read move 'x'"),
        (["0", "3", "1", "4", "2", "5"], "ply 6: cannot play row 1, col 2 (cell 5): the game ended at ply 5"),
    ],
)
def test_cli_illegal_move_is_one_line_naming_the_ply_and_exit_status_2(moves, needle):
    result = run("analyze", *moves)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("solve: error: ")
    assert needle in result.stderr


# -- repr -------------------------------------------------------------------------------
def test_analysis_repr_is_one_line_with_the_moves_the_verdicts_and_the_final_board():
    assert repr(analyze(ALL_KINDS + [8])) == (
        "<GameAnalysis 3x3k3 [3, 4, 6, 2, 8] X: 2 best, 1 ok; O: 1 best, 1 mistake; now ..O/XO./X.X O to move: loss in 2 plies (value for X: +1)>"
    )
    assert repr(analyze([])) == "<GameAnalysis 3x3k3 no moves; now .../.../... X to move: draw, 9 plies to the end (value for X: 0)>"
    assert repr(analyze([0, 3, 1, 4, 2])).endswith("now XXX/OO./... game over: X won>")


def test_ply_repr_names_the_mover_the_move_the_verdict_and_the_change():
    plies = analyze(ALL_KINDS + [5]).plies
    assert repr(plies[0]) == "<PlyAnalysis ply 1: X plays (1, 0): best, draw>"
    assert repr(plies[4]) == "<PlyAnalysis ply 5: X plays (1, 2): blunder, win in 1 ply -> loss in 4 plies>"


def test_best_moves_are_row_col_pairs_and_best_cells_flat_in_analyze_and_lookup_json_alike():
    """Issue 24: ``best_moves`` was ``[[r, c], ...]`` in ``lookup --json`` and flat cells in ``analyze --json``."""
    analysis = json.loads(run("analyze", "4", "1", "--json").stdout)
    for ply in analysis["plies"]:
        position = json.loads(run("lookup", ply["board_before"], "--json").stdout)
        assert ply["best_moves"] == position["best_moves"] and ply["best_cells"] == position["best_cells"], ply
        assert all(isinstance(move, list) and len(move) == 2 for move in ply["best_moves"])
