"""Every bad input seen in use is one clear line: an InvalidBoardError or
InvalidGameError (a ``ValueError``) in Python, one ``solve: error:`` line and exit status 2 on
the command line. Never a traceback, a TypeError, a RecursionError or a wrong reading.

Each test here failed before the fix it names.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import solver
import solver.store.locate
from solver import build_table
from solver.cli import main
from solver.rules.game import Game


def run(runner: CliRunner, *args: str, input: str | None = None):
    return runner.invoke(main, list(args), input=input)


def one_error_line(result, *fragments: str, code: int = 2) -> str:
    """The single ``solve: error:`` line of a failed command, checked to hold every fragment."""
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("solve: error: "), lines
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} missing from {lines[0]!r}"
    return lines[0]


def refused(call, *fragments: str, error: type[Exception] = solver.InvalidBoardError) -> str:
    with pytest.raises(error) as caught:
        call()
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} missing from {message!r}"
    assert len(message) < 400, f"message of {len(message)} characters: {message[:200]!r}..."
    return message


def nested(depth: int) -> list:
    board: list = []
    for _ in range(depth):
        board = [board]
    return board


# -- unicode digits, huge numbers -------------------------------------------------------------------


def test_solve_lookup_of_a_unicode_digit_is_a_board_error_not_a_traceback(runner):
    one_error_line(run(runner, "lookup", "²"), "'²'", "U+00B2", "neither a code nor a board", "ASCII digits 0-9")


def test_solve_lookup_of_a_5000_digit_code_says_out_of_range(runner):
    line = one_error_line(run(runner, "lookup", "1" * 5000), "out of range for 3x3k3", "expected 0 to 19682")
    assert len(line) < 300


def test_a_5000_digit_code_is_refused_and_get_returns_its_default():
    refused(lambda: solver.lookup(10**5000), "out of range", "5,001 digits", "0 to 19682")
    refused(lambda: solver.encode(-(10**5000)), "out of range")
    assert solver.get(10**5000, "default") == "default"
    assert solver.get(np.int64(-5), "default") == "default"


def test_a_5000_digit_game_name_is_one_short_game_error(runner):
    refused(lambda: solver.lookup(0, game="1" * 5000 + "x3"), "malformed game name", "5,002 characters", error=solver.InvalidGameError)
    one_error_line(run(runner, "lookup", "0", "--game", "3x" + "3" * 5000), "malformed game name")


# -- deep nesting --------------------------------------------------------------------------------------


@pytest.mark.parametrize("board", [nested(200_000), [nested(200_000)] * 9, [[nested(200_000)] * 3] * 3])
def test_boards_nested_200000_deep_are_refused_without_recursion_error(board):
    refused(lambda: solver.lookup(board))
    assert solver.get(board, "default") == "default"


def test_a_batch_nested_200000_deep_is_refused_without_recursion_error():
    refused(lambda: solver.encode_boards(nested(200_000)), "cannot make an array of boards")


# -- numpy masked arrays and np.bool_ -------------------------------------------------------------------


def test_a_masked_array_with_a_masked_cell_is_refused_not_read_as_empty():
    board = np.ma.masked_array([[1, 0, -1], [0, 1, 0], [0, -1, 0]], mask=[[0, 0, 0], [0, 0, 0], [0, 0, 1]])
    refused(lambda: solver.lookup(board), "masked cell at row 2, col 2", "filled(0)")
    refused(lambda: solver.encode_boards(board), "masked entry at [2, 2]")
    unmasked = np.ma.masked_array([[1, 0, -1], [0, 1, 0], [0, -1, 0]], mask=False)
    assert solver.lookup(unmasked).board == "X.O/.X./.O."


@pytest.mark.parametrize("true", [True, np.True_], ids=["bool", "np.bool_"])
def test_bool_cells_are_refused_whether_python_or_numpy(true):
    board = [true, 0, 0, 0, 0, 0, 0, 0, 0]
    refused(lambda: solver.lookup(board), "unknown symbol", "row 0, col 0")
    refused(lambda: solver.lookup([board[:3], board[3:6], board[6:]]), "unknown symbol", "row 0, col 0")
    refused(lambda: solver.lookup(np.array(board, dtype=object)), "unknown symbol", "row 0, col 0")
    refused(lambda: solver.lookup(np.array(board, dtype=bool)), "unknown symbol")


# -- games ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [(True, 3, 3), (3, 3.0, 3), (3, 3, "3"), (3, 3, None)])
def test_game_sizes_must_be_ints(args):
    refused(lambda: Game(*args), "must be an int, found", error=solver.InvalidGameError)


def test_numpy_int_game_sizes_make_the_same_game():
    game = Game(np.int64(3), np.int32(3), np.int8(3))
    assert game == Game() and hash(game) == hash(Game()) and type(game.rows) is int


# -- the command line ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("board", ["---/---/---", "-x-/-o-/---", "---------", "- - - / - x - / - - -"])
def test_solve_lookup_reads_boards_that_start_with_a_dash(runner, board):
    result = run(runner, "lookup", board, "--json")
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert solver.lookup(board).code == json.loads(result.stdout)["code"]


def test_options_still_work_around_a_board_that_starts_with_a_dash(runner):
    result = run(runner, "lookup", "--game", "3x3", "---/-X-/---", "-q")
    assert result.exit_code == 0 and "code 81 (3x3k3)" in result.stdout, result.stderr
    assert "No such option" in run(runner, "lookup", "---/---/---", "--jsno").stderr


def test_solve_analyze_reads_a_negative_move_as_off_the_board(runner):
    one_error_line(run(runner, "analyze", "4", "-1"), "ply 2: move '-1' is off the board")


def test_a_million_character_board_is_not_echoed_whole(runner):
    board = "X" * 1_000_000
    message = refused(lambda: solver.lookup(board), "1,000,000 characters", "expected 9")
    assert "..." in message
    line = one_error_line(run(runner, "lookup", board), "1,000,000 characters")
    assert len(line) < 300
    rows = "/".join(["X.."] * 300_000)
    refused(lambda: solver.lookup(rows), "300000x3")


def test_the_cli_error_quotes_the_board_with_its_spaces(runner):
    one_error_line(run(runner, "lookup", "X    O"), "board string 'X    O' has 6 cells")


def test_solve_verify_checks_the_table_holds_the_game_given(runner, tmp_path):
    path = build_table(game="2x2").save(tmp_path / "t.ttt")
    one_error_line(run(runner, "verify", "--table", str(path), "--game", "3x3"), str(path), "3x3k3", "2x2k2", code=1)
    result = run(runner, "verify", "--table", str(path), "--game", "2x2")
    assert result.exit_code == 0 and "OK (2x2k2" in result.stdout, result.stderr
    result = run(runner, "verify", "--table", str(path))  # no --game: the file says which game it holds
    assert result.exit_code == 0 and "OK (2x2k2" in result.stdout, result.stderr


# -- analyze and play in Python ------------------------------------------------------------------------------


@pytest.mark.parametrize("moves", [4, None, 4.5, "408", b"408"])
def test_analyze_of_something_that_is_no_sequence_of_moves_is_a_board_error(moves):
    refused(lambda: solver.analyze(moves), "moves must be a sequence of moves", "[4, 0, 8]")


class _FailsToIterate:
    def __iter__(self):
        raise RuntimeError("no")


def _fails_after_one():
    yield 4
    raise KeyError("gone")


@pytest.mark.parametrize(
    "moves",
    [np.array(88), np.array(4.5), np.float64(4), _FailsToIterate(), _fails_after_one(), bytearray(b"40"), memoryview(b"40"), type, Ellipsis],
    ids=["0-d int array", "0-d float array", "numpy float", "__iter__ raises", "iteration raises", "bytearray", "memoryview", "a class", "Ellipsis"],
)
def test_analyze_of_any_object_that_is_no_sequence_of_moves_is_a_board_error(moves):
    """A 0-d array claims to be iterable and is not; an iteration that raises is the caller's bad input too."""
    message = refused(lambda: solver.analyze(moves), "moves must be a sequence of moves")
    assert type(moves).__name__ in message


@pytest.mark.parametrize("move", [4.0, True, np.True_, None, "1,1,1", (1, 1, 1), (1.0, 1)])
def test_position_play_of_an_unreadable_move_is_a_board_error(move):
    refused(lambda: solver.lookup(0).play(move), "cannot read move")


# -- boards as students print them ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "board",
    [
        "X O X / O X O / . . .",
        "X O X/O X O/. . .",
        "x o x\no x o\n. . .",
        "x o x \r\no x o \r\n. . . \r\n",
        ["X O X", "O X O", ". . ."],
        "X O X O X O . . .",
    ],
)
def test_boards_with_cells_separated_by_single_spaces_are_read(board, runner):
    assert solver.lookup(board).board == "XOX/OXO/..."
    if isinstance(board, str):
        result = run(runner, "lookup", board, "--json")
        assert result.exit_code == 0 and '"board": "XOX/OXO/..."' in result.stdout, result.stderr


def test_spaces_stay_empty_cells_when_the_board_fits_one_character_per_cell():
    assert solver.lookup("X O/O X/X O").board == "X.O/O.X/X.O"
    assert solver.lookup("X O/ X /  O").board == "X.O/.X./..O"


def test_a_spaced_board_of_another_size_names_its_shape():
    refused(lambda: solver.lookup("X . . . / . . . . / . . . . / . . . ."), "is 4x4, expected 3x3", "game='4x4k4'")


def test_solve_play_and_analyze_accept_the_form_solve_lookup_prints(runner):
    result = run(runner, "analyze", "(1,1)", "(0,0)", "[2, 2]", "0,2", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["moves"] == [4, 0, 8, 2]
    result = run(runner, "play", "--seed", "1", input="(1,1)\n(0,0)\n" + "0\n1\n2\n3\n5\n6\n7\n8\n" * 2)
    assert result.exit_code == 0, result.stderr
    assert "cannot read move" not in result.stdout and "off the board" not in result.stdout
    after_first = result.stdout.split("your move> ", 1)[1]
    assert after_first.splitlines()[1:4] == [". . .", ". X .", ". . ."], result.stdout


def test_a_move_of_three_numbers_is_unreadable_not_off_the_board(runner):
    one_error_line(run(runner, "analyze", "4", "1,1,1"), "ply 2: cannot read move '1,1,1'")
    refused(lambda: solver.analyze([4, "1,1,1"]), "ply 2: cannot read move '1,1,1'")


# -- unusual arrays and numbers as boards and codes -----------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_a_numpy_matrix_board_is_read_as_the_array_it_holds():
    assert solver.lookup(np.matrix([[0, 0, 0], [0, 0, 0], [0, 0, 0]])).code == 0
    assert solver.lookup(np.matrix([[1, 0, -1], [0, 1, 0], [0, 0, -1]])).code == solver.encode("X.O/.X./..O")
    with pytest.raises(solver.InvalidBoardError, match="unknown value 5 at row 0, col 0"):
        solver.lookup(np.matrix([[5, 0, 0], [0, 0, 0], [0, 0, 0]]))


def test_a_ragged_batch_of_codes_is_one_invalid_board_error():
    with pytest.raises(solver.InvalidBoardError, match="codes must be a rectangular array of integers"):
        solver.lookup_codes([[0], [0, 0]])


@pytest.mark.parametrize("kind", ["dense", "compact"])
def test_a_uint64_code_of_2_to_the_63_or_more_is_named_as_the_number_it_is(kind, tmp_path):
    from solver.retrograde.sweep import build_layers
    from solver.tables import CompactTable

    game = Game()
    table = build_table() if kind == "dense" else CompactTable.from_layers(game, build_layers(game, tmp_path / "b", jobs=1).layers())
    codes = np.array([0, 2**63 + 5], dtype=np.uint64)
    with pytest.raises(solver.InvalidBoardError) as caught:
        table.lookup_codes(codes)
    assert str(caught.value) == "codes[1] = 9223372036854775813 is out of range for 3x3k3: expected 0 to 19682"
    assert table.lookup_codes(np.array([0, 13222], dtype=np.uint64)).score.tolist() == [0, table.lookup(13222).score]
