"""Grading Connect Four functions (gravity play): a student's minimax on a 2-D list of rows, given the player,
answers a column or the (row, col) its piece lands on, with the same options as any other game (--turn,
--returns, --symbols, --numpy); any other cell is an illegal answer saying where the piece would land, and a
losing column is reported as thrown away, named as a column."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import solver
from solver.cli import main
from solver.grading.grader import answer_cell, positions_to_grade

GAME = "3x4k3-gravity"
STUDENT = Path(__file__).parent / "players" / "connect_four.py"


def in_play(side: str = "both") -> int:
    return len(positions_to_grade(side=side, game=GAME))


# -- one answer -------------------------------------------------------------------------------------
@pytest.mark.parametrize("answer", [2, "2", [2, 2], (2, 2), "2,2", np.int64(2)])
def test_a_column_or_the_cell_its_piece_lands_on_is_the_same_answer(answer):
    assert answer_cell(answer, solver.lookup("..../O.../XX.O", game=GAME)) == 10


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ((0, 2), "(0,2) is not playable: a piece dropped in column 2 lands on (2,2)"),
        ([1, 0], "(1,0) is taken: a piece dropped in column 0 lands on (0,0)"),
        (4, "column 4 is off the board: expected a column 0-3, or row,col (row 0-2, col 0-3) naming the lowest empty cell of its column"),
        (None, "answer None is not a move: expected a column 0-3"),
        (2.0, "answer 2.0 is not a move: expected a column 0-3"),
    ],
)
def test_an_answer_that_is_not_where_a_piece_lands_says_where_it_would(answer, message):
    with pytest.raises(ValueError) as caught:
        answer_cell(answer, solver.lookup("..../O.../XX.O", game=GAME))
    assert str(caught.value).startswith(message)


def test_a_full_column_as_an_answer_names_the_columns_with_room():
    with pytest.raises(ValueError, match=r"^column 0 is full: the columns with room are 1, 2 and 3$"):
        answer_cell(0, solver.lookup("X.../O.../XO..", game=GAME))


# -- whole gradings -------------------------------------------------------------------------------------
def test_the_students_connect_four_minimax_returning_columns_is_optimal_everywhere():
    report = solver.grade(f"{STUDENT}:connect", game=GAME, turn="symbol")
    assert report.positions == in_play() > 4000
    assert (report.kept, report.optimal, report.lost, report.errors) == (report.positions, report.positions, (), ())


def test_row_col_answers_of_the_landing_cell_grade_the_same_as_columns():
    columns = solver.grade(f"{STUDENT}:connect", game=GAME, turn="symbol", side="O")
    cells = solver.grade(f"{STUDENT}:connect_cells", game=GAME, turn="symbol", side="O")
    assert cells.answers == columns.answers and cells.optimal == cells.positions == in_play("O")


def test_a_shortsighted_minimax_is_reported_throwing_results_away_with_legal_landing_moves():
    report = solver.grade(f"{STUDENT}:shortsighted", game=GAME, turn="symbol")
    assert report.lost and not report.errors
    assert report.positions == report.kept + len(report.lost)
    for item in report.lost:
        assert item.move.cell in {move.cell for move in item.position.moves}, item.position.board
        assert not item.move.best and item.verdict in ("mistake", "blunder")
    text = str(report)
    assert "Where the result was thrown away" in text and "played column " in text


def test_the_top_cell_of_a_column_is_an_illegal_answer_saying_where_the_piece_lands():
    report = solver.grade(f"{STUDENT}:top_cell", game=GAME, turn="symbol", side="X")
    assert report.illegal and not report.lost
    first = report.illegal[0]
    assert "is not playable: a piece dropped in column" in first.message or "is taken: a piece dropped in column" in first.message
    assert all(" lands on (" in failure.message or "is full" in failure.message for failure in report.illegal)
    assert report.positions == report.kept + len(report.illegal)
    assert any("which is not where a piece lands: if it is (value, column)" in hint for hint in report.hints), report.hints


def test_a_value_column_function_graded_without_options_is_told_every_option_it_needs():
    with pytest.raises(solver.PlayerError, match=r"grade it with --turn symbol --returns value-move"):
        solver.grade(f"{STUDENT}:connect_value", game=GAME)
    report = solver.grade(f"{STUDENT}:connect_value", game=GAME, turn="symbol", returns="value-move", side="X")
    assert report.optimal == report.positions == in_play("X")


def test_an_in_process_function_answering_with_best_move_is_optimal_in_every_board_form():
    lists = solver.grade(lambda board: solver.best_move(board, game=GAME), game=GAME, side="X")
    arrays = solver.grade(lambda board: solver.best_move(board, game=GAME), game=GAME, side="X", array=True)
    assert lists.optimal == arrays.optimal == lists.positions == in_play("X")


def test_the_board_a_connect_four_function_gets_is_rows_top_row_first():
    seen = []
    solver.grade(lambda board, player: seen.append((board, player)) or 1, game=GAME, turn="symbol", side="O")
    board, player = next((board, player) for board, player in seen if sum(cell is not None for row in board for cell in row) == 1)
    assert len(board) == 3 and all(len(row) == 4 for row in board)
    assert board[0] == [None] * 4 and board[1] == [None] * 4 and sum(cell == "X" for cell in board[2]) == 1, "the piece lies on the bottom row"
    assert player == "O"


def test_the_student_player_is_graded_inside_the_sandbox():
    problem = solver.grading.sandbox.bwrap_problem()
    if problem is not None:
        pytest.skip(problem)
    report = solver.grade(f"{STUDENT}:connect", game=GAME, turn="symbol", sandbox="bwrap", side="O")
    assert report.optimal == report.positions == in_play("O")


def test_a_compact_gravity_table_is_graded_on_a_sample_of_reachable_positions_only():
    table = solver.table_for("3x6k3-gravity")  # 18 cells: compact, a few seconds to build
    assert table.kind == "compact"
    report = solver.grade(f"{STUDENT}:connect", table=table, turn="symbol", sample=200)
    assert report.positions == 200 and report.optimal == 200, report
    codes = np.array([code for code, _ in report.answers])
    assert np.all(table.lookup_codes(codes, check=False).reachable), "every position graded is one a game reaches"


# -- the command line ------------------------------------------------------------------------------------
def test_solve_grade_names_columns_and_marks_only_landing_cells():
    result = CliRunner().invoke(main, ["grade", f"{STUDENT}:shortsighted", "--game", GAME, "--turn", "symbol", "--limit", "1", "-q"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  X to move") or line.startswith("  O to move"))
    assert " played column " in lines[at] and ", best " in lines[at]
    board = [line.split() for line in lines[at + 1 : at + 4]]
    code = int(lines[at].rsplit("[code ", 1)[1].rstrip("]"))
    position = solver.lookup(code, game=GAME)
    landing = {(move.row, move.col) for move in position.moves}
    marked = {(r, c) for r, row in enumerate(board) for c, mark in enumerate(row) if mark in "!*"}
    assert marked and marked <= landing


def test_solve_grade_json_of_an_illegal_cell_keeps_the_message_and_the_answer():
    result = CliRunner().invoke(main, ["grade", f"{STUDENT}:top_cell", "--game", GAME, "--turn", "symbol", "--side", "X", "--json", "-q"])
    data = json.loads(result.stdout)
    assert data["illegal"] > 0
    error = next(error for error in data["errors"] if error["kind"] == "illegal")
    assert error["answer"].startswith("(0, ") and "lands on (" in error["message"]
