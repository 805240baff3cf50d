"""solver.grade and `solve grade`: a move function judged on every position where it moves."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import solver
from solver.cli import main
from solver.grading import answer_cell, board_maker, parse_symbols, positions_to_grade

PLAYERS = Path(__file__).parent / "players"
SIMPLE = PLAYERS / "simple_players.py"
RANK = {"loss": 0, "draw": 1, "win": 2}

# Reachable unfinished tic-tac-toe positions, by side to move (from the table's layers:
# 5,478 reachable minus 958 finished).
TRIED = {"both": 4520, "X": 2423, "O": 2097}


def player(name: str):
    return solver.load_player(f"{SIMPLE}:{name}")


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def assert_buckets_add_up(report: solver.GradeReport) -> None:
    assert report.positions == report.kept + len(report.lost) + len(report.exceptions) + len(report.illegal)
    assert report.kept == report.optimal + len(report.slower)
    for item in report.lost:
        assert RANK[item.move.result] < RANK[item.position.result], item.position.board
    for item in report.slower:
        p, move = item.position, item.move
        assert move.result == p.result and move.score < p.score and not move.best, p.board


# -- which positions, which boards -----------------------------------------------------------
@pytest.mark.parametrize("side", ["both", "X", "O"])
def test_positions_tried_are_every_unfinished_reachable_position_of_that_side(side):
    positions = positions_to_grade(side=side)
    assert len(positions) == TRIED[side]
    assert all(not p.is_over and side in ("both", p.to_move) for p in positions)
    assert len({p.code for p in positions}) == len(positions)
    assert [p.pieces for p in positions] == sorted(p.pieces for p in positions)


def test_each_call_gets_the_board_of_its_position_in_the_default_form():
    seen = []
    report = solver.grade(lambda board: seen.append(board) or solver.best_move(board), side="O")
    expected = positions_to_grade(side="O")
    assert len(seen) == report.positions == len(expected)
    for board, position in zip(seen, expected, strict=True):
        assert board == [list(position.cells[r * 3 : r * 3 + 3]) for r in range(3)], position.board
    assert seen[0] == [["X", None, None], [None, None, None], [None, None, None]]


def test_symbols_choose_x_o_and_empty_in_the_rows():
    make = board_maker(solver.Game(), symbols=("x", "o", "-"))
    assert make(solver.lookup("X.O/.X./..O")) == [["x", "-", "o"], ["-", "x", "-"], ["-", "-", "o"]]
    make = board_maker(solver.Game(), symbols=(1, 2, 0))
    assert make(solver.lookup("X.O/.X./..O")) == [[1, 0, 2], [0, 1, 0], [0, 0, 2]]


def test_array_boards_are_fresh_3x3_int_arrays_of_1_minus_1_and_0():
    make = board_maker(solver.Game(), array=True)
    position = solver.lookup("X.O/.X./..O")
    first, second = make(position), make(position)
    assert first.shape == (3, 3) and first.dtype.kind == "i"
    assert first.tolist() == [[1, 0, -1], [0, 1, 0], [0, 0, -1]]
    assert first is not second and not np.shares_memory(first, second)


def test_flat_boards_are_one_character_per_cell_with_dot_for_none():
    position = solver.lookup("X.O/.X./..O")
    assert board_maker(solver.Game(), flat=True)(position) == "X.O.X...O"
    assert board_maker(solver.Game(), flat=True, symbols=("x", "o", "-"))(position) == "x-o-x---o"


@pytest.mark.parametrize(
    ("text", "symbols"),
    [("X,O,None", ("X", "O", None)), ("x,o,-", ("x", "o", "-")), ("X,O, ", ("X", "O", " ")), ("X, O, None", ("X", "O", None)), ("1,-1,0", (1, -1, 0))],
)
def test_parse_symbols_reads_none_spaces_and_integers(text, symbols):
    assert parse_symbols(text) == symbols


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"symbols": ("X", "X", None)}, "must differ"),
        ({"symbols": ("X", "O")}, "must be three"),
        ({"array": True, "flat": True}, "not both"),
        ({"flat": True, "symbols": ("X", "O", "  ")}, "one-character symbols"),
        ({"side": "Z"}, "side must be 'X', 'O' or 'both'"),
    ],
)
def test_options_that_do_not_fit_raise_player_error_before_any_call(options, needle):
    calls = []
    with pytest.raises(solver.PlayerError, match=needle):
        solver.grade(calls.append, **options)
    assert calls == []


def test_parse_symbols_needs_three_parts():
    with pytest.raises(solver.PlayerError, match="has 2 parts"):
        parse_symbols("X,O")


# -- answers --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "convert",
    [
        lambda rc: rc,  # (row, col)
        lambda rc: list(rc),  # [row, col]
        lambda rc: rc[0] * 3 + rc[1],  # flat index
        lambda rc: np.int64(rc[0] * 3 + rc[1]),
        lambda rc: np.array(rc),  # e.g. from np.argwhere
        lambda rc: tuple(np.int64(v) for v in rc),
    ],
    ids=["tuple", "list", "flat", "numpy-int", "numpy-array", "numpy-tuple"],
)
def test_every_answer_form_of_a_best_move_is_optimal(convert):
    report = solver.grade(lambda board: convert(solver.best_move(board)), side="O")
    assert (report.positions, report.kept, report.optimal) == (TRIED["O"],) * 3
    assert report.lost == report.slower == report.errors == ()


@pytest.mark.parametrize(
    ("answer", "needle"),
    [((0, 0), "cell (0, 0) is taken by X"), (9, "cell 9 is off the board"), ((3, 1), "(3, 1) is off the board"),
     (None, "answer None is not a move"), ("1,1", "answer '1,1' is not a move"), ((1.0, 1.0), "must be integers"),
     (True, "answer True is not a move"), ((1, 1, 1), "is not a move")],
)
def test_answer_cell_says_why_an_answer_is_not_a_legal_move(answer, needle):
    with pytest.raises(ValueError) as caught:
        answer_cell(answer, solver.lookup("X../.../..."))
    assert needle in str(caught.value)


# -- grading fast players --------------------------------------------------------------------
def test_the_tables_own_player_is_optimal_everywhere():
    report = solver.grade(player("perfect"))
    assert (report.positions, report.kept, report.optimal) == (4520, 4520, 4520)
    assert report.lost == report.slower == report.exceptions == report.illegal == ()
    assert report.mutated == 0


def test_first_empty_cell_player_throws_away_the_result_where_reading_order_is_wrong():
    report = solver.grade(player("first_empty"))
    assert_buckets_add_up(report)
    assert report.errors == ()
    assert 0 < report.optimal < report.kept < report.positions
    first = report.lost[0]  # X took a corner; O's first empty cell (0,1) loses, only the centre draws
    assert (first.position.board, first.move.cell, first.position.best_cells) == ("X../.../...", 1, (4,))
    assert (first.position.result, first.move.result, first.verdict) == ("draw", "loss", "mistake")
    assert report.mistakes + report.blunders == len(report.lost)
    # the numbers the README shows
    assert (report.kept, report.optimal, len(report.lost), report.mistakes, report.blunders) == (2651, 2267, 1869, 852, 1017)


def test_the_board_form_does_not_change_the_grade_of_the_same_strategy():
    rows = solver.grade(player("first_empty"))
    array = solver.grade(player("numpy_first_empty"), array=True)
    flat = solver.grade(player("flat_first_empty"), flat=True)
    assert rows == array == flat


def test_random_player_is_reproducible_and_its_buckets_add_up():
    first = solver.grade(player("random_player")(seed=1))
    again = solver.grade(player("random_player")(seed=1))
    assert first == again
    assert_buckets_add_up(first)
    assert first.lost and first.slower and first.errors == ()


def test_exceptions_are_recorded_with_type_file_and_line_never_raised():
    report = solver.grade(player("raises_on_full_corners"))
    corners_taken = [p for p in positions_to_grade() if all(p.cells[c] for c in (0, 2, 6, 8))]
    assert len(report.exceptions) == len(corners_taken) > 0
    assert {f.position.code for f in report.exceptions} == {p.code for p in corners_taken}
    line = SIMPLE.read_text().splitlines().index("        return 1 / 0") + 1
    assert {f.message for f in report.exceptions} == {f"ZeroDivisionError: division by zero (simple_players.py, line {line})"}
    assert report.optimal == report.kept == report.positions - len(corners_taken)
    assert all(f.kind == "exception" for f in report.exceptions)


def test_illegal_answers_are_counted_with_the_reason_never_raised():
    report = solver.grade(player("garbage"))
    by_pieces = {}
    for failure in report.illegal:
        by_pieces.setdefault(failure.position.pieces, set()).add(failure.message.split(":")[0])
    assert len(by_pieces[1]) == 9 and all(message.endswith("is taken by X") for message in by_pieces[1])
    assert by_pieces[2] == {"cell 9 is off the board"}
    assert by_pieces[3] == {"answer None is not a move"}
    assert by_pieces[4] == {"answer '1,1' is not a move"}
    assert by_pieces[5] == {"answer (1.0, 1.0) is not a move"}
    assert by_pieces[6] == {"answer (True, False) is not a move"}
    assert {p.pieces for p in positions_to_grade()} - set(by_pieces) == {0, 7, 8}
    assert report.exceptions == () and report.lost == ()
    assert report.optimal == report.positions - len(report.illegal)
    assert all(f.kind == "illegal" and f.answer for f in report.illegal)


def test_strange_answers_and_boards_stuffed_with_arrays_are_recorded_not_raised():
    def strange(board):
        board[0][0] = np.zeros(2)  # makes comparing boards ambiguous
        pieces = sum(cell is not None for row in board[1:] for cell in row)
        return {0: np.array(4), 1: object(), 2: np.array([[1, 1]])}.get(pieces, np.int64(8))

    report = solver.grade(strange, side="X")
    assert report.positions == TRIED["X"] and report.mutated == report.positions
    assert_buckets_add_up(report)
    messages = {f.message for f in report.illegal}
    assert "answer of type object is not a move: expected (row, col) or a cell 0-8" in messages
    assert any(m.startswith("answer array([[1, 1]]) is not a move") for m in messages)


def test_a_player_that_scribbles_on_its_board_still_gets_a_clean_board_every_call():
    report = solver.grade(player("scribbler"))
    assert report.mutated == report.positions == 4520
    assert report.optimal == report.positions and report.errors == ()


def test_progress_is_called_once_per_position():
    steps = []
    report = solver.grade(player("first_empty"), side="X", progress=steps.append)
    assert steps == [1] * report.positions == [1] * TRIED["X"]


def test_grade_works_on_other_games():
    table = solver.build_table(game="2x3k2")  # in memory: nothing written to the table directory
    report = solver.grade(table.best_move, table=table, side="O")
    assert report.game == solver.parse_game("2x3k2")
    assert report.positions == report.optimal > 0
    assert solver.grade(lambda board: (0, 0), table=table).illegal  # (0, 0) is taken after X's first move


def test_textbook_recursive_minimax_keeps_every_result_but_does_not_always_win_fastest():
    minimax = solver.load_player(f"{PLAYERS / 'textbook_minimax.py'}:minimax")
    started = time.perf_counter()
    report = solver.grade(minimax, side="O")  # O's 2,097 positions: about 8 s; both sides about 20 s
    elapsed = time.perf_counter() - started
    assert report.positions == report.kept == TRIED["O"]
    assert report.lost == () and report.errors == ()
    assert report.optimal == 1930 < report.kept  # utilities 1/0/-1 do not prefer a quick win or a slow loss
    assert_buckets_add_up(report)
    assert report.seconds <= elapsed
    assert report.slowest is not None and report.slowest.pieces == 1  # one X piece: the biggest O tree


# -- loading a player ------------------------------------------------------------------------
def test_load_player_finds_dotted_names_and_sibling_imports(tmp_path):
    (tmp_path / "helper.py").write_text("def centre():\n    return (1, 1)\n")
    (tmp_path / "bot.py").write_text("import helper\nclass Bot:\n    @staticmethod\n    def move(board):\n        return helper.centre()\n")
    assert solver.load_player(f"{tmp_path / 'bot.py'}:Bot.move")(None) == (1, 1)


@pytest.mark.parametrize(
    ("source", "spec", "needle"),
    [
        ("def play(board):\n    return 0\n", "{path}:nope", "no function 'nope'; functions defined there: play"),
        ("x = 3\n", "{path}:x", "'x' is a int, not a function"),
        ("1 / 0\n", "{path}:play", "importing it failed: ZeroDivisionError: division by zero"),
        ("def play(:\n", "{path}:play", "importing it failed: SyntaxError"),
        ("", "{path}", "expected FILE.py:FUNCTION"),
        ("", "{path}.missing:play", "no such file"),
    ],
)
def test_load_player_says_what_went_wrong(tmp_path, source, spec, needle):
    path = tmp_path / "player.py"
    path.write_text(source)
    with pytest.raises(solver.PlayerError) as caught:
        solver.load_player(spec.format(path=path))
    assert needle in str(caught.value)


# -- the command ------------------------------------------------------------------------------
def test_cli_prints_the_counts_and_draws_lost_positions_as_boards():
    result = run("grade", f"{SIMPLE}:first_empty", "--limit", "1")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "positions tried       4,520" in out
    assert "Where the result was thrown away; ! the move played, * the best moves:" in out
    assert "  O to move, D -> L6 (mistake): played 0,1, best 1,1  [code 1]\n    X ! .\n    . * .\n    . . .\n" in out
    assert "more (--limit 0 shows all, --json lists them)" in out


def test_cli_draws_every_lost_position_by_default():
    result = run("grade", f"{SIMPLE}:first_empty", "--side", "O")
    assert result.exit_code == 0, result.output
    report = solver.grade(solver.load_player(f"{SIMPLE}:first_empty"), side="O")
    drawn = [line for line in result.stdout.splitlines() if line.endswith("]") and ("(mistake)" in line or "(blunder)" in line)]
    assert len(report.lost) > 100
    assert [int(line.rsplit("[code ", 1)[1][:-1]) for line in drawn] == [lost.position.code for lost in report.lost]
    assert "more (--limit 0" not in result.stdout


def test_cli_json_has_positions_kept_optimal_lost_codes_and_errors():
    result = run("grade", f"{SIMPLE}:raises_on_full_corners", "--json", "--side", "X")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    report = solver.grade(player("raises_on_full_corners"), side="X")
    assert (data["positions"], data["kept"], data["optimal"]) == (report.positions, report.kept, report.optimal)
    assert data["lost"] == [] and data["side"] == "X"
    assert len(data["errors"]) == len(report.exceptions) > 0
    assert data["errors"][0]["kind"] == "exception" and "ZeroDivisionError" in data["errors"][0]["message"]


def test_cli_lost_lists_the_codes_where_the_result_was_thrown_away():
    data = json.loads(run("grade", f"{SIMPLE}:first_empty", "--json").stdout)
    assert data["lost"] == [item.position.code for item in solver.grade(player("first_empty")).lost]


@pytest.mark.parametrize(("name", "flag"), [("numpy_first_empty", "--numpy"), ("flat_first_empty", "--flat")])
def test_cli_numpy_and_flat_pass_those_board_forms(name, flag):
    data = json.loads(run("grade", f"{SIMPLE}:{name}", flag, "--json").stdout)
    assert data["errors"] == [] and data["positions"] == 4520


def test_cli_symbols_option_reaches_the_player(tmp_path):
    path = tmp_path / "dashes.py"
    path.write_text("import solver\ndef play(board):\n    assert all(c in 'xo-' for row in board for c in row)\n    return solver.best_move(board)\n")
    data = json.loads(run("grade", f"{path}:play", "--symbols", "x,o,-", "--json", "--side", "O").stdout)
    assert data["errors"] == [] and data["optimal"] == TRIED["O"]


def test_cli_keeps_what_the_player_prints_out_of_stdout(tmp_path):
    path = tmp_path / "chatty.py"
    path.write_text("import solver\nprint('loaded')\ndef play(board):\n    print('thinking...')\n    return solver.best_move(board)\n")
    result = run("grade", f"{path}:play", "--json", "--side", "O")
    assert json.loads(result.stdout)["optimal"] == TRIED["O"]
    assert "the player printed 2,098 lines" in result.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["/no/such/file.py:play"], "/no/such/file.py: no such file"),
        ([f"{SIMPLE}:nope"], "no function 'nope'"),
        ([f"{SIMPLE}:perfect", "--symbols", "X,X,None"], "must differ"),
        ([f"{SIMPLE}:perfect", "--numpy", "--flat"], "not both"),
    ],
)
def test_cli_bad_player_or_options_is_one_line_and_exit_status_2(args, needle):
    result = run("grade", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("solve: error: ") and result.stderr.count("\n") == 1
    assert needle in result.stderr
