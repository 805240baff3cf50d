"""solver.grade and `solve grade`: a move function judged on every position where it moves."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from reference import board_of, reference

import solver
from solver.cli import main
from solver.grading.grader import answer_cell, board_maker, parse_symbols, positions_to_grade

PLAYERS = Path(__file__).parent / "players"
SIMPLE = PLAYERS / "simple_players.py"
HOSTILE = PLAYERS / "hostile_players.py"
SHAPES = PLAYERS / "call_shapes.py"
PERFECT = PLAYERS / "perfect.py"
"""The module the test players import beside them: each graded file is alone, so every grading gives it (``--support``)."""
RANK = {"loss": 0, "draw": 1, "win": 2}
REF = reference("3x3k3")
PIECE = {0: None, 1: "X", 2: "O"}


def reference_boards(side: str = "both") -> list[tuple[int, ...]]:
    """Every reachable unfinished board of the independent reference solver, where ``side`` moves."""
    wanted = {"both": (1, 2), "X": (1,), "O": (2,)}[side]
    return [b for b in REF.reachable() if not REF.is_over(b) and REF.to_move(b) in wanted]


# Reachable unfinished tic-tac-toe positions, by side to move, counted by the reference solver.
TRIED = {side: len(reference_boards(side)) for side in ("both", "X", "O")}


def reference_figures(answers) -> dict[str, int]:
    """kept, optimal, lost, mistakes and blunders of ``(code, cell)`` answers, judged by the reference solver."""
    figures = Counter(kept=0, optimal=0, lost=0, mistakes=0, blunders=0)
    for code, cell in answers:
        board = board_of(code, 9)
        before = REF.solve(board).result
        after, _ = REF.move_outcomes(board)[cell]
        figures["optimal"] += cell in REF.solve(board).best
        if after >= before:
            figures["kept"] += 1
        else:
            figures["lost"] += 1
            figures["blunders" if before - after == 2 else "mistakes"] += 1
    return dict(figures)


def reference_answers(move_fn, side: str = "both") -> list[tuple[int, int]]:
    """What ``move_fn`` plays on every reference board (as lists of rows of 'X', 'O', None), as (code, cell)."""
    found = []
    for board in reference_boards(side):
        rows = [[PIECE[board[r * 3 + c]] for c in range(3)] for r in range(3)]
        row, col = move_fn(rows)
        found.append((sum(d * 3**i for i, d in enumerate(board)), row * 3 + col))
    return found


def report_figures(report: solver.GradeReport) -> dict[str, int]:
    return {"kept": report.kept, "optimal": report.optimal, "lost": len(report.lost), "mistakes": report.mistakes, "blunders": report.blunders}


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
    assert Counter(map(repr, seen)) == Counter(repr([list(p.cells[r * 3 : r * 3 + 3]) for r in range(3)]) for p in expected)
    assert seen[:3] != [[list(p.cells[r * 3 : r * 3 + 3]) for r in range(3)] for p in expected[:3]]  # a shuffled order


def test_calls_come_in_a_shuffled_order_so_the_cost_per_call_does_not_fall_along_the_bar():
    order = []
    solver.grade(lambda board: order.append(sum(c is not None for row in board for c in row)) or solver.best_move(board))
    tenth = len(order) // 10
    first, last = sum(order[:tenth]) / tenth, sum(order[-tenth:]) / tenth
    assert abs(first - last) < 0.5  # sorted by plies, the first tenth would average under 3 pieces, the last over 6


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
    [
        ((0, 0), "cell (0, 0) is taken by X"),
        (9, "cell 9 is off the board"),
        ((3, 1), "(3, 1) is off the board"),
        (None, "answer None is not a move"),
        ("centre", "answer 'centre' is not a move"),
        ((1.0, 1.0), "answer (1.0, 1.0) is not a move"),
        (True, "answer True is not a move"),
        ((1, 1, 1), "is not a move"),
        ("0,0", "cell (0, 0) is taken by X"),
    ],
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
    # the figures docs/grading.md shows, as the independent reference solver judges the same moves
    assert report_figures(report) == reference_figures(reference_answers(player("first_empty")))


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
    assert by_pieces[4] == {"answer 'centre' is not a move"}
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
    assert "answer of type object is not a move: expected a cell 0-8 or row,col with row 0-2 and col 0-2" in messages
    assert any(m.startswith("answer array([[1, 1]]) is not a move") for m in messages)


def test_a_player_that_scribbles_on_its_board_still_gets_a_clean_board_every_call():
    report = solver.grade(player("scribbler"))
    assert report.mutated == report.positions == 4520
    assert report.optimal == report.positions and report.errors == ()


def test_progress_is_called_once_per_position():
    steps = []
    report = solver.grade(player("first_empty"), side="X", progress=steps.append)
    assert steps == [0] + [1] * report.positions == [0] + [1] * TRIED["X"]


def test_grade_works_on_other_games():
    table = solver.build_table(game="2x3k2")  # in memory: nothing written to the table directory
    report = solver.grade(table.best_move, table=table, side="O")
    assert report.game == solver.parse_game("2x3k2")
    assert report.positions == report.optimal > 0
    assert solver.grade(lambda board: (0, 0), table=table).illegal  # (0, 0) is taken after X's first move


def test_textbook_recursive_minimax_keeps_every_result_but_does_not_always_win_fastest():
    started = time.perf_counter()
    report = solver.grade(f"{PLAYERS / 'textbook_minimax.py'}:minimax", side="O")  # O's 2,097 positions: about 8 s
    elapsed = time.perf_counter() - started
    assert report.positions == report.kept == TRIED["O"]
    assert report.lost == () and report.errors == ()
    assert report.optimal < report.kept  # utilities 1/0/-1 do not prefer a quick win or a slow loss
    assert report_figures(report) == reference_figures(report.answers)
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
        ("def play(:\n", "{path}:play", "importing it failed: SyntaxError: invalid syntax (player.py, line 1)"),
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
    assert "<frozen" not in str(caught.value) and "importlib" not in str(caught.value), "Python's import machinery is no place of the player's"


@pytest.mark.parametrize("spec", ["{path}", ":play", "{path}:"])
def test_solve_grade_of_a_player_named_without_its_file_or_function_says_the_form_with_the_name_given(tmp_path, spec):
    """The name is checked before the player's folder or sandbox is made: the message quotes what the user typed
    (not ``.``, which a missing file part made of it, nor the file's path inside the sandbox)."""
    path = tmp_path / "player.py"
    path.write_text("def play(board):\n    return 0\n")
    given = spec.format(path=path)
    result = run("grade", given)
    assert result.exit_code == 2, result.output
    assert result.stderr == f"solve: error: cannot read player {given!r}: expected FILE.py:FUNCTION, e.g. player.py:minimax\n"


# -- the command ------------------------------------------------------------------------------
def test_cli_prints_the_counts_and_draws_lost_positions_as_boards():
    result = run("grade", f"{SIMPLE}:first_empty", "--support", str(PERFECT), "--limit", "1")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "positions tried       4,520" in out
    assert "Where the result was thrown away; ! the move played, * the best moves:" in out
    assert "  O to move, D -> L6 (mistake): played 0,1, best 1,1  [code 1]\n    X ! .\n    . * .\n    . . .\n" in out
    assert "more (--limit 0 shows all, --json lists them)" in out


def test_cli_shows_the_first_20_of_each_section_by_default_and_says_how_many_more():
    result = run("grade", f"{SIMPLE}:first_empty", "--support", str(PERFECT), "-q")
    assert result.exit_code == 0, result.output
    report = solver.grade(player("first_empty"))
    out = result.stdout
    drawn = [int(line.rsplit("[code ", 1)[1][:-1]) for line in out.splitlines() if line.endswith("]")]
    lost, slower = [item.position.code for item in report.lost], [item.position.code for item in report.slower]
    assert len(lost) > 20 and len(slower) > 20
    assert drawn == lost[:20] + slower[:20]
    assert f"  ... and {len(lost) - 20:,} more (--limit 0 shows all, --json lists them)\n" in out
    assert f"  ... and {len(slower) - 20:,} more (--limit 0 shows all, --json lists them)\n" in out
    assert len(out.splitlines()) < 200  # was 9,024 lines when every board was drawn


def test_cli_limit_0_draws_every_lost_position():
    result = run("grade", f"{SIMPLE}:first_empty", "--support", str(PERFECT), "--side", "O", "--limit", "0")
    assert result.exit_code == 0, result.output
    report = solver.grade(solver.load_player(f"{SIMPLE}:first_empty"), side="O")
    drawn = [line for line in result.stdout.splitlines() if line.endswith("]") and ("(mistake)" in line or "(blunder)" in line)]
    assert len(report.lost) > 100
    assert [int(line.rsplit("[code ", 1)[1][:-1]) for line in drawn] == [lost.position.code for lost in report.lost]
    assert "more (--limit 0" not in result.stdout


def test_error_kinds_left_out_are_counted_in_the_singular_or_plural():
    from dataclasses import replace

    from solver.present.report import describe_report

    report = solver.grade(player("raises_on_full_corners"), side="X")
    first = report.exceptions[0]
    kinds = [replace(first, message=f"ValueError: kind {n}") for n in (1, 1, 2, 3, 3, 3)]
    two = describe_report(replace(report, exceptions=tuple(kinds[:3])), "p.py:f", limit=1)
    assert "  ... and 1 more kind (1 call; --limit 0 shows all, --json lists them)" in two
    three = describe_report(replace(report, exceptions=tuple(kinds)), "p.py:f", limit=1)
    assert "  ... and 2 more kinds (3 calls; --limit 0 shows all, --json lists them)" in three
    assert "      3 x ValueError: kind 3" in three  # the biggest group is the one shown


def test_report_counts_one_mistake_in_the_singular():
    from dataclasses import replace

    from solver.present.report import describe_report

    report = solver.grade(player("first_empty"), side="O")
    mistake = next(item for item in report.lost if item.verdict == "mistake")
    text = describe_report(replace(report, lost=(mistake,)), "p.py:f")
    assert "threw the result away     1  (1 mistake, 0 blunders)" in text


def test_cli_json_has_positions_kept_optimal_lost_codes_and_errors():
    result = run("grade", f"{SIMPLE}:raises_on_full_corners", "--support", str(PERFECT), "--json", "--side", "X")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    report = solver.grade(player("raises_on_full_corners"), side="X")
    assert (data["positions"], data["kept"], data["optimal"]) == (report.positions, report.kept, report.optimal)
    assert data["lost"] == [] and data["side"] == "X"
    assert len(data["errors"]) == len(report.exceptions) > 0
    assert data["errors"][0]["kind"] == "exception" and "ZeroDivisionError" in data["errors"][0]["message"]


def test_cli_lost_lists_the_codes_where_the_result_was_thrown_away():
    data = json.loads(run("grade", f"{SIMPLE}:first_empty", "--support", str(PERFECT), "--json").stdout)
    assert data["lost"] == [item.position.code for item in solver.grade(player("first_empty")).lost]


@pytest.mark.parametrize(("name", "flag"), [("numpy_first_empty", "--numpy"), ("flat_first_empty", "--flat")])
def test_cli_numpy_and_flat_pass_those_board_forms(name, flag):
    data = json.loads(run("grade", f"{SIMPLE}:{name}", "--support", str(PERFECT), flag, "--json").stdout)
    assert data["errors"] == [] and data["positions"] == 4520


def beside_perfect(path: Path, body: str) -> Path:
    """A player file whose best moves come from ``tests/players/perfect.py``, given beside it (the sandbox gives no ``solver``)."""
    path.write_text("from perfect import best_move\n" + body)
    return path


def test_cli_symbols_option_reaches_the_player(tmp_path):
    path = beside_perfect(tmp_path / "dashes.py", "def play(board):\n    assert all(c in 'xo-' for row in board for c in row)\n    return best_move(board)\n")
    data = json.loads(run("grade", f"{path}:play", "--support", str(PERFECT), "--symbols", "x,o,-", "--json", "--side", "O").stdout)
    assert data["errors"] == [] and data["optimal"] == TRIED["O"]


def test_cli_keeps_what_the_player_prints_out_of_stdout(tmp_path):
    path = beside_perfect(tmp_path / "chatty.py", "print('loaded')\ndef play(board):\n    print('thinking...')\n    return best_move(board)\n")
    result = run("grade", f"{path}:play", "--support", str(PERFECT), "--json", "--side", "O")
    assert json.loads(result.stdout)["optimal"] == TRIED["O"]
    assert "the player printed 2,098 lines" in result.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["/no/such/file.py:play"], "/no/such/file.py: no such file"),
        ([f"{SIMPLE}:nope", "--support", str(PERFECT)], "no function 'nope'"),
        ([f"{SIMPLE}:perfect", "--support", str(PERFECT), "--symbols", "X,X,None"], "must differ"),
        ([f"{SIMPLE}:perfect", "--support", str(PERFECT), "--numpy", "--flat"], "not both"),
    ],
)
def test_cli_bad_player_or_options_is_one_line_and_exit_status_2(args, needle):
    result = run("grade", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("solve: error: ") and result.stderr.count("\n") == 1
    assert needle in result.stderr


# -- isolation: the player runs in its own process --------------------------------------------
def hostile(name: str, **options) -> solver.GradeReport:
    return solver.grade(f"{HOSTILE}:{name}", support=options.pop("support", [PERFECT]), **options)


def assert_only_the_centre_position_failed(report: solver.GradeReport, kind: str) -> None:
    assert report.complete and report.positions == TRIED["both"]
    failed = {(f.kind, f.position.board) for f in report.errors}
    assert failed == {(kind, ".../.X./...")}
    assert report.optimal == report.kept == report.positions - 1


def test_an_isolated_player_is_graded_like_the_same_function_in_process():
    isolated = solver.grade(f"{SIMPLE}:first_empty", support=[PERFECT])
    assert isolated == solver.grade(player("first_empty"))
    assert report_figures(isolated) == reference_figures(reference_answers(player("first_empty")))


def test_a_sleeping_player_is_timed_out_on_that_position_and_grading_goes_on():
    started = time.perf_counter()
    report = hostile("sleeps", timeout=0.5)
    assert_only_the_centre_position_failed(report, "timeout")
    assert report.timeouts[0].message == "timed out: no answer within 0.5 s"
    assert time.perf_counter() - started < 15


def test_a_player_that_ignores_the_alarm_is_killed_and_restarted():
    report = hostile("ignores_the_alarm", timeout=0.5)
    assert_only_the_centre_position_failed(report, "timeout")


@pytest.mark.parametrize(
    ("name", "message"), [("kills_itself", "the player's process was killed by SIGKILL"), ("calls_sys_exit", "SystemExit: 0 (hostile_players.py, line ")]
)
def test_a_player_that_ends_its_process_costs_that_position_only(name, message):
    report = hostile(name)
    kind = "crash" if name == "kills_itself" else "exception"
    assert_only_the_centre_position_failed(report, kind)
    assert report.errors[0].message.startswith(message)


def test_processes_a_player_forks_are_killed_with_it(tmp_path):
    pid_file = tmp_path / "sleeper.pid"
    settings = tmp_path / "hostile_settings.json"  # a player's environment is a fixed one: its settings come beside it
    settings.write_text(json.dumps({"pid_file": str(pid_file)}))
    report = hostile("forks_a_sleeper", timeout=1, sandbox="none", support=[PERFECT, settings])  # in the sandbox: tests/test_containment.py
    assert_only_the_centre_position_failed(report, "timeout")
    sleeper = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _running(sleeper):
        time.sleep(0.05)
    assert not _running(sleeper), "a process started by the player outlived the grading"


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a killed child not yet reaped by its (dead) parent is a zombie
        return stat.read().split(")")[-1].split()[0] != "Z"


def test_os_exit_is_counted_as_a_crash_and_grading_goes_on():
    report = hostile("exits")
    assert report.complete and report.positions == TRIED["both"]
    assert {f.position.board for f in report.crashes} == {"XOX/.../...", ".../.../XOX"}
    assert {f.message for f in report.crashes} == {"the player's process exited with status 3 (os._exit?)"}
    assert report.optimal == report.positions - 2


def test_memory_is_capped_in_the_players_process():
    report = hostile("eats_memory", memory_mb=1024)
    assert_only_the_centre_position_failed(report, "exception")
    assert report.exceptions[0].message.startswith("MemoryError")


def test_a_player_that_dies_on_every_call_stops_the_grading_with_a_reason():
    report = hostile("always_exits")
    assert not report.complete and report.positions == 5 == len(report.crashes)
    assert report.stopped == "stopped after the player's process died on 5 calls in a row"


def test_a_player_rewriting_the_graders_verdict_functions_is_still_graded_correctly():
    report = hostile("fools_the_grader")
    first_empty = reference_figures(reference_answers(player("first_empty")))
    assert report_figures(report) == first_empty and first_empty["lost"] > 1000


def test_an_input_loop_at_import_is_one_clear_error_not_a_hang():
    started = time.perf_counter()
    with pytest.raises(solver.PlayerError, match="reads standard input at import .*remove the interactive loop"):
        solver.grade(f"{PLAYERS / 'input_loop.py'}:ai", support=[PERFECT])
    assert time.perf_counter() - started < 10


def test_the_total_time_limit_reports_what_was_graded():
    report = hostile("sleeps", timeout=5, total_timeout=1.5, side="O")
    assert not report.complete and 0 < report.positions < report.planned == TRIED["O"]
    assert report.stopped.startswith("stopped at the total time limit")
    assert report.positions == report.kept + len(report.lost) + len(report.errors)


# -- the report survives the clock; a player that hangs --------
@pytest.mark.parametrize("mode", ["auto", "none"])
def test_the_total_time_limit_during_the_import_ends_in_the_report_marked_incomplete(tmp_path, mode):
    path = tmp_path / "slow_import.py"
    path.write_text("import time\ntime.sleep(60)\ndef play(board):\n    return 0\n")
    started = time.perf_counter()
    result = run("grade", f"{path}:play", "--json", "-q", "--total-timeout", "2", "--sandbox", mode)
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["complete"] is False and data["positions"] == 0 and data["planned"] == TRIED["both"]
    assert data["stopped"] == "stopped: the total time limit of 2 s ran out while the player's file was being imported"
    assert "took more than" not in result.stderr and f"grading {data['stopped']}: graded 0 of 4,520 positions" in result.stderr
    assert time.perf_counter() - started < 20


def test_the_total_time_limit_during_a_restart_ends_in_the_report_so_far(tmp_path):
    marker = tmp_path / "imported-once"
    path = tmp_path / "crashes_then_loads_slowly.py"
    path.write_text(
        f"import os, time\nif os.path.exists({str(marker)!r}):\n    time.sleep(60)  # every import after the first\n"
        f"open({str(marker)!r}, 'w').close()\ndef play(board):\n    os._exit(1)\n"
    )
    result = run("grade", f"{path}:play", "--json", "-q", "--total-timeout", "6", "--sandbox", "none")  # the marker needs a shared /tmp
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["positions"] == 1 and data["crashes"] == 1 and not data["complete"]
    assert data["stopped"] == "stopped: the total time limit of 6 s ran out while the player's process was being restarted"


def test_a_player_that_times_out_on_three_calls_in_a_row_is_stopped_without_waiting_for_the_total_time():
    started = time.perf_counter()
    report = hostile("sleeps_always", timeout=0.5, total_timeout=600)
    assert not report.complete and report.positions == 3 == len(report.timeouts)
    assert report.stopped == "stopped after the player timed out on 3 calls in a row (--timeout 0.5 s each)"
    assert time.perf_counter() - started < 30


@pytest.mark.parametrize("isolated", [True, False], ids=["file", "function"])
def test_every_option_a_function_of_another_shape_needs_is_named_at_once(isolated):
    # seed 002 took three runs, one hint each: --turn max, then --returns value-move, then --symbols
    spec = f"{PLAYERS / 'seed002_minimax.py'}:MINIMAX"
    with pytest.raises(solver.PlayerError) as caught:
        solver.grade(spec if isolated else solver.load_player(spec))
    message = str(caught.value)
    assert "\n" not in message and message.startswith("on the first 20 positions graded, TypeError: MINIMAX() missing 1 required positional")
    assert message.count("grade it") == 1 and "grade it with --turn max --returns value-move --symbols 'x,o, ' (tried on 5 of them: 5 of 5" in message


def test_answers_cross_as_plain_data_only(tmp_path):
    path = tmp_path / "lies.py"
    path.write_text(
        "class Cell(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\ndef play(board):\n    return [Cell(0), Cell(0)]\n"
    )
    report = solver.grade(f"{path}:play", side="X")
    # the subclass arrives as the plain int 0: (0, 0) is legal only while the corner is empty
    assert report.illegal and all(f.message.startswith("cell (0, 0) is taken") for f in report.illegal)


# -- options instead of wrappers ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("with_symbol", {"turn": "symbol"}),
        ("with_symbol", {"turn": "symbol", "symbols": ("x", "o", "-")}),
        ("with_is_max", {"turn": "max"}),
        ("value_and_move", {"returns": "value-move"}),
        ("flat_cell", {}),
        ("Bot.move", {}),
    ],
)
def test_call_shapes_are_graded_with_options(name, options):
    if options.get("symbols"):  # the mover's symbol is the one given by symbols: check it reaches the function

        def lower_case(board, me):
            assert me == "o"
            return solver.best_move([[{"x": "X", "o": "O", "-": None}[c] for c in row] for row in board])

        report = solver.grade(lambda board, me: lower_case(board, me), side="O", **options)
    else:
        report = solver.grade(f"{SHAPES}:{name}", side="O", support=[PERFECT], **options)
    assert report.errors == () and report.optimal == report.positions == TRIED["O"]


def test_a_class_that_needs_arguments_is_refused_with_the_reason():
    with pytest.raises(solver.PlayerError, match=r"cannot build NeedsArguments\(\) with no arguments"):
        solver.load_player(f"{SHAPES}:NeedsArguments.move")


# -- one line for a known mismatch -------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "options", "needle"),
    [
        (f"{PLAYERS / 'seed004_minimax.py'}:get_best_move", {}, "(no move)"),
        (f"{SHAPES}:value_and_move", {}, "--returns value-move"),
        (f"{SHAPES}:with_is_max", {}, "--turn max"),
        (f"{SIMPLE}:first_empty", {"turn": "max"}, "grade it without --turn"),
    ],
)
def test_a_known_mismatch_is_one_line_naming_the_option(spec, options, needle):
    with pytest.raises(solver.PlayerError) as caught:
        solver.grade(spec, support=[PERFECT], **options)
    message = str(caught.value)
    assert needle in message and "\n" not in message and message.startswith("on the first 20 positions graded")
    assert "playerproc" not in message and "grading.py" not in message


def test_an_o_only_player_graded_on_both_sides_gets_a_hint_that_does_not_invite_grading_o_alone():
    result = run("grade", f"{PLAYERS / 'seed004_minimax.py'}:get_best_move", "--symbols", "X,O, ", "--limit", "1", "-q", "--total-timeout", "5")
    assert result.exit_code in (0, 1), result.output  # 1: stopped at the time limit, on a sample of both sides
    hints = [line for line in result.stdout.splitlines() if line.startswith("hint: ")]
    assert len(hints) == 1 and "it may play as O whatever the board says (how is it told whose turn it is?" in hints[0]
    assert hints[0].endswith("graded with --side O it would be graded only on the side it plays well")
    assert "grade it with --side O" not in hints[0]


# -- the seed notebooks, graded as they were written -------------------------------------------
def test_seed_000_minimax_is_graded_as_written():
    # the same algorithm as textbook_minimax.py, graded in full above: here a sample of 6 s shows the shape works
    report = solver.grade(f"{PLAYERS / 'seed000_minimax.py'}:minimax", total_timeout=6)
    assert report.errors == () and report.positions > 200
    assert report_figures(report) == reference_figures(report.answers)
    assert report.kept == report.positions


def test_seed_002_minimax_is_graded_with_turn_max_and_returns_value_move():
    # its cost is 4 s on the empty board and 15 s for all 4,520 positions: samples of a few seconds
    result = run(
        "grade",
        f"{PLAYERS / 'seed002_minimax.py'}:MINIMAX",
        "--symbols",
        "x,o, ",
        "--turn",
        "max",
        "--returns",
        "value-move",
        "--json",
        "-q",
        "--total-timeout",
        "3",
    )
    data = json.loads(result.stdout)
    assert data["errors"] == [] and data["positions"] > 100 and data["hints"] == []
    assert result.exit_code == (0 if data["complete"] else 1)
    report = solver.grade(f"{PLAYERS / 'seed002_minimax.py'}:MINIMAX", symbols=("x", "o", " "), turn="max", returns="value-move", total_timeout=6)
    assert report.errors == () and report.positions > 200
    assert report_figures(report) == reference_figures(report.answers)


def test_seed_004_minimax_is_graded_as_o_with_its_symbols():
    report = solver.grade(f"{PLAYERS / 'seed004_minimax.py'}:get_best_move", symbols=("X", "O", " "), side="O")
    assert report.errors == () and report.kept == report.positions == TRIED["O"]
    assert report_figures(report) == reference_figures(report.answers)
    assert report.mutated == 0  # it puts back what it changes


GRADING_PAGE = Path(__file__).resolve().parent.parent / "docs" / "grading.md"


@pytest.mark.parametrize(
    ("name", "options"), [("seed001_adapter.py", {"symbols": ("x", "o", "-"), "turn": "symbol"}), ("seed003_adapter.py", {"array": True, "turn": "symbol"})]
)
def test_the_grading_pages_adapters_for_seeds_001_and_003_work(name, options):
    source = (PLAYERS / name).read_text()
    adapter = source[source.index("def move(board, me):") :]
    assert adapter in GRADING_PAGE.read_text()  # docs/grading.md shows exactly these lines
    support = [PLAYERS / "tictactoe.py"] if name == "seed003_adapter.py" else []  # the course's module it imports
    report = solver.grade(f"{PLAYERS / name}:move", total_timeout=4, timeout=2, support=support, **options)  # slow players: a sample of positions
    assert report.positions > 50
    answered = report.answers
    assert len(answered) + len(report.timeouts) == report.positions and not report.exceptions and not report.illegal
    if name == "seed001_adapter.py":  # an exact minimax: it keeps every result
        assert reference_figures(answered)["kept"] == len(answered) == report.kept
    else:  # its get_score never reports a win to minimax(), so every move scores 0 and it plays the first empty cell
        assert all(cell == board_of(code, 9).index(0) for code, cell in answered)


# -- Ctrl-C and the progress bar ---------------------------------------------------------------
SLOW_PLAYER = "import time\nfrom perfect import best_move\ndef play(board):\n    time.sleep(0.01)\n    return best_move(board)\n"


@pytest.fixture
def sigint_handled():
    """SIGINT raises KeyboardInterrupt in this process and in the graders it starts, whatever this process inherited.

    A shell starts ``command &`` with SIGINT ignored, an ignored signal stays ignored across
    ``exec``, and Python then installs no handler: a grader started from such a test run would
    never see the test's Ctrl-C and would grade all 4,520 positions.
    """
    inherited = signal.getsignal(signal.SIGINT)
    if inherited == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a Python handler is reset to the default by exec
    yield
    if inherited == signal.SIG_IGN:
        signal.signal(signal.SIGINT, inherited)


def start_grading(player: Path, cwd: Path, mark: str = "") -> subprocess.Popen[str]:
    """``solve grade FILE:play -q`` in its own process, its stdout and stderr read by the test."""
    return subprocess.Popen(
        [sys.executable, "-m", "solver.cli", "grade", f"{player}:play", "--support", str(PERFECT), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(Path(solver.__file__).parent.parent), "GRADE_TEST_MARK": mark},
    )


def test_ctrl_c_prints_the_partial_report_and_exits_non_zero(tmp_path, sigint_handled):
    path = tmp_path / "slow.py"
    path.write_text(SLOW_PLAYER)
    process = start_grading(path, tmp_path)
    wait_for_the_players_process(process.pid)
    time.sleep(1.5)  # some calls answered (a fixed 3 s from the start was too short on a loaded machine)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "Incomplete: graded " in out and " of 4,520 positions (taken in a shuffled order): grading interrupted (Ctrl-C).\n" in out
    graded = int(out.split("Incomplete: graded ")[1].split(" of")[0].replace(",", ""))
    assert 0 < graded < 4520 and f"positions tried       {graded:,}" in out.replace("positions tried   ", "positions tried   ")
    assert "solve: grading interrupted (Ctrl-C): graded" in err


def descendants(pid: int) -> list[int]:
    """The processes ``pid`` started, and theirs, now (the player's process has an environment of its own, unmarked)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            parents.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def wait_for_the_players_process(grader: int, seconds: float = 60) -> None:
    """Wait until the grader ``grader`` has started the player's process (``python -m solver.grading.player``)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for pid in descendants(grader):
            try:
                if b"solver.grading.player" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return
            except OSError:
                continue
        time.sleep(0.05)


def marked_processes(mark: str, family: list[int] = ()) -> list[int]:
    """The live processes (zombies left out) whose environment holds ``GRADE_TEST_MARK=mark`` (a grader and what it started
    with its environment), and those of ``family`` still running (the grader's descendants seen before its Ctrl-C)."""
    found = [pid for pid in family if _running_quietly(pid)]
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            marked = f"GRADE_TEST_MARK={mark}".encode() in (entry / "environ").read_bytes().split(b"\0")
            if marked and _running(int(entry.name)):
                found.append(int(entry.name))
        except OSError:
            continue  # gone meanwhile
    return found


def _running_quietly(pid: int) -> bool:
    try:
        return _running(pid)
    except OSError:
        return False


def wait_until_gone(mark: str, seconds: float = 10, family: list[int] = ()) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := marked_processes(mark, family)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_ctrl_c_at_any_moment_ends_the_grading_and_leaves_no_process_behind(tmp_path, sigint_handled):
    path = tmp_path / "slow.py"
    path.write_text(SLOW_PLAYER)
    # from Python's start-up, through the table and the sandbox check, the player's start, to the calls
    named = 0  # the moments the grading itself said it was interrupted
    for delay in (0.05, 0.3, 0.6, 1.0, 1.5, 2.5):
        mark = f"{os.getpid()}-{time.monotonic_ns()}"
        process = start_grading(path, tmp_path, mark)
        time.sleep(delay)
        family = descendants(process.pid)
        process.send_signal(signal.SIGINT)
        try:
            out, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            raise AssertionError(f"Ctrl-C {delay} s after the start did not end the grading within 30 s: {err}") from None
        assert wait_until_gone(mark, family=family) == [], f"a process outlived the grader interrupted at {delay} s"
        if not out and "solve:" not in err:
            # Ctrl-C before `solve grade` runs: in Python's start-up (killed before Python sets its handler, or a traceback
            # from an import; numpy turns it into an ImportError), or as click reads the command line ("Aborted!", status 1)
            assert process.returncode == -signal.SIGINT or "Traceback" in err or err.strip() == "Aborted!", (delay, process.returncode, err)
            assert process.returncode != 0
            continue
        assert process.returncode == 130, (delay, process.returncode, err)
        if err.strip() == "solve: interrupted (Ctrl-C)" and not out:
            continue  # while `solve` loads the grade command's module (imported when the command is asked for): the group's line
        assert "solve: grading interrupted (Ctrl-C)" in err, (delay, err)
        named += 1
        if "before the first position" not in err:
            assert "Incomplete: graded " in out and "grading interrupted (Ctrl-C)." in out, (delay, out)
    assert named >= 3, "the grading itself was interrupted at fewer than three of the six moments"


class PopenInterrupted(subprocess.Popen):
    """A Popen hit by Ctrl-C after the fork, before it returns: the moment the grader holds no handle on the child yet."""

    pids: list[int] = []

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.pids.append(self.pid)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.5)


def interrupted(**options) -> solver.GradingInterrupted:
    """The GradingInterrupted of grading the first-empty-cell player (a plain KeyboardInterrupt fails the test, not the run)."""
    with pytest.raises(KeyboardInterrupt) as caught:
        solver.grade(f"{SIMPLE}:first_empty", sandbox="none", support=[PERFECT], **options)
    assert isinstance(caught.value, solver.GradingInterrupted), f"a bare {type(caught.value).__name__} left grade()"
    return caught.value


@pytest.mark.usefixtures("sigint_handled")
def test_ctrl_c_while_the_players_process_starts_kills_it(monkeypatch):
    import solver.grading.player

    PopenInterrupted.pids = []
    monkeypatch.setattr(solver.grading.player.subprocess, "Popen", PopenInterrupted)
    report = interrupted(sample=20).report
    monkeypatch.undo()
    assert report.stopped == "interrupted (Ctrl-C)" and report.positions == 0
    [child] = PopenInterrupted.pids
    assert not _running(child), "the player's process started as Ctrl-C came outlived the grading"


@pytest.mark.usefixtures("sigint_handled")
def test_ctrl_c_while_the_players_process_is_stopped_still_kills_it_and_reports(monkeypatch):
    import solver.grading.player

    kill_group = solver.grading.player._kill_group
    killed: list[int] = []

    def interrupted_kill(process):
        if not killed:
            killed.append(process.pid)
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C as the grading ends, before the kill
            time.sleep(0.5)
        kill_group(process)

    monkeypatch.setattr(solver.grading.player, "_kill_group", interrupted_kill)
    report = interrupted(sample=20).report
    assert report.stopped == "interrupted (Ctrl-C)" and report.positions == 20
    assert not _running(killed[0]), "the player's process outlived the grading"


@pytest.mark.usefixtures("sigint_handled")
def test_ctrl_c_before_the_player_starts_reports_nothing_graded(monkeypatch):
    import solver.grading.grader

    answer_key = solver.grading.grader.AnswerKey

    def interrupted_key(*args):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.5)
        return answer_key(*args)

    monkeypatch.setattr(solver.grading.grader, "AnswerKey", interrupted_key)
    report = interrupted().report
    assert report.stopped == "interrupted (Ctrl-C)" and report.positions == 0 < report.planned == TRIED["both"]


def test_progress_bar_estimate_is_within_a_sane_factor_of_the_real_time_left():
    import click

    # A textbook minimax's cost per call falls steeply with the pieces on the board; model it.
    cost = {p.code: 9 ** (9 - p.pieces) / 9**5 for p in positions_to_grade()}
    bar = click.progressbar(length=TRIED["both"])
    spent: list[float] = []
    solver.grade(lambda board: spent.append(cost[solver.encode(board)]) or solver.best_move(board))
    total = sum(spent)
    done = 0.0
    for i, seconds in enumerate(spent, start=1):
        done += seconds
        bar.pos = i
        if i in (200, 1000, 2500):
            bar.start, bar.avg = 0.0, [done / i]  # click's estimate: time per step so far x steps left
            assert 1 / 3 < bar.eta / (total - done) < 3, (i, bar.eta, total - done)
    # in plies order (the old order) the same estimate was off by orders of magnitude
    ordered = [cost[p.code] for p in positions_to_grade()]
    early = sum(ordered[:200]) / 200 * (len(ordered) - 200)
    assert early / (sum(ordered) - sum(ordered[:200])) > 30


# -- the report's repr -------------------------------------------------------------------------
def test_report_repr_is_one_line_with_the_game_the_counts_and_the_errors():
    report = solver.grade(player("first_empty"))
    assert repr(report) == (
        "<GradeReport 3x3k3, X and O to move: 4,520 positions, 2,651 kept (58.7%), 2,267 optimal, 1,869 thrown away (852 mistakes, 1,017 blunders), no errors>"
    )
    failing = solver.grade(player("raises_on_full_corners"), side="X")
    assert repr(failing).endswith(f", 0 thrown away, {len(failing.exceptions)} exceptions>")
    assert "\n" not in repr(report) + repr(failing)


def test_report_repr_says_when_grading_stopped_early():
    from dataclasses import replace

    report = replace(solver.grade(solver.best_move, side="O"), positions=120, kept=120, optimal=120, stopped="interrupted (Ctrl-C)")
    assert repr(report) == (
        "<GradeReport 3x3k3, O to move: incomplete: interrupted (Ctrl-C), 120 of 2,097 positions, 120 kept (100.0%), 120 optimal, 0 thrown away, no errors>"
    )
