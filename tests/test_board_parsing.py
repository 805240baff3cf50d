"""Every accepted board form gives the right code, and every refusal says exactly what is wrong.

Boards come in the shapes people hold them in (see the notebooks in shared/seeds/ beside the project: the notebooks use
``[[X, None, O], ...]`` with ``X = "X"``, ``[['x', '-', 'o'], ...]``, ``' '`` for empty and
numpy arrays of 1/-1/0). A bad board is always an :class:`solver.InvalidBoardError` (a
``ValueError``) whose message names the symbol, the cell, the sizes or the counts; never an
``IndexError``/``KeyError``/``TypeError`` and never a silent wrong answer.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import solver
import solver.store.locate
from solver.encoding.board import parse, parse_text, render
from solver.rules.game import Game

X_O_DIAG = 13222  # X.O/.X./..O = 1 + 2*3**2 + 3**4 + 2*3**8
X, O, EMPTY = "X", "O", None  # the constants of seeds/000 (an Italian CS50 notebook)


def invalid(board, *fragments, game=None):
    """Assert that looking ``board`` up raises InvalidBoardError whose message contains every fragment."""
    with pytest.raises(solver.InvalidBoardError) as caught:
        solver.lookup(board, game=game)
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} missing from the message {message!r} for board {board!r}"
    assert isinstance(caught.value, ValueError)
    return message


# -- every accepted form ---------------------------------------------------------------------------------

SAME_BOARD = {
    "int code": X_O_DIAG,
    "numpy int64 code": np.int64(X_O_DIAG),
    "numpy uint16 code": np.uint16(X_O_DIAG),
    "flat string": "X.O.X...O",
    "flat string, lower case, mixed empties": "x-o_x. _o",
    "rows with /": "X.O/.X./..O",
    "rows with newlines": "x.o\n.x.\n..o",
    "rows with CRLF and a trailing newline": "X.O\r\n.X.\r\n..O\r\n",
    "rows with spaces for empty": "X O/ X /  O",
    "nested, seeds/000 style (X, None, O)": [[X, EMPTY, O], [EMPTY, X, EMPTY], [EMPTY, EMPTY, O]],
    "nested, seeds/001 style ('x', '-', 'o')": [["x", "-", "o"], ["-", "x", "-"], ["-", "-", "o"]],
    "nested, seeds/002+004 style (' ' empty)": [["x", " ", "o"], [" ", "x", " "], [" ", " ", "o"]],
    "nested, '' and '.' and '_' empty": [["X", "", "O"], [".", "X", "_"], ["", ".", "o"]],
    "nested numbers 1/-1/0": [[1, 0, -1], [0, 1, 0], [0, 0, -1]],
    "nested tuples": (("X", None, "O"), (None, "X", None), (None, None, "O")),
    "rows of numpy arrays": [np.array([1, 0, -1]), np.array([0, 1, 0]), np.array([0, 0, -1])],
    "flat list": ["X", " ", "O", " ", "X", " ", " ", " ", "O"],
    "flat list of numbers": [1, 0, -1, 0, 1, 0, 0, 0, -1],
    "numpy (3, 3) int, seeds/003 style": np.array([[1, 0, -1], [0, 1, 0], [0, 0, -1]]),
    "numpy (3, 3) int8": np.array([[1, 0, -1], [0, 1, 0], [0, 0, -1]], dtype=np.int8),
    "numpy (3, 3) float": np.array([[1.0, 0.0, -1.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]),
    "numpy (9,)": np.array([1, 0, -1, 0, 1, 0, 0, 0, -1]),
    "numpy object array": np.array([["X", None, "O"], [None, "X", None], [None, None, "O"]], dtype=object),
    "numpy string array": np.array([["X", ".", "O"], [".", "X", "."], [".", ".", "O"]]),
}


@pytest.mark.parametrize("form", list(SAME_BOARD))
def test_every_accepted_form_gives_the_same_code_and_position(form):
    board = SAME_BOARD[form]
    assert solver.encode(board) == X_O_DIAG, form
    position = solver.lookup(board)
    assert (position.code, position.board, position.to_move, position.result, position.plies) == (X_O_DIAG, "X.O/.X./..O", "X", "draw", 5), form
    assert solver.best_move(board) == (1, 2), form


def test_seed_notebook_boards_are_read_and_solved():
    # seeds/001 (Spanish notebook): after x(1,1), o(0,0), x(0,1) the notebook prints
    #   valores para cada acción: [[(0, 2), -1], [(1, 0), -1], [(1, 2), -1], [(2, 0), -1], [(2, 1), 0], [(2, 2), -1]]
    # i.e. O must block at (2,1) to draw; every other move loses.
    square = [["o", "x", "-"], ["-", "x", "-"], ["-", "-", "-"]]
    position = solver.lookup(square)
    assert position.to_move == "O" and position.result == "draw" and position.best_moves == ((2, 1),)
    notebook = {(0, 2): -1, (1, 0): -1, (1, 2): -1, (2, 0): -1, (2, 1): 0, (2, 2): -1}
    assert {(m.row, m.col): {"draw": 0, "loss": -1}[m.result] for m in position.moves} == notebook
    # seeds/002 (English notebook): state= [["x","x","o"],[" ","o"," "],[" "," "," "]]; X must block (2,0).
    assert solver.best_move([["x", "x", "o"], [" ", "o", " "], [" ", " ", " "]]) == (2, 0)
    # seeds/000: initial_state() is all EMPTY (None): a draw in 9 plies.
    empty = solver.lookup([[EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY]])
    assert (empty.code, empty.value, empty.plies) == (0, 0, 9)


def test_seed_003_board_is_refused_because_x_won_and_o_moved_on():
    # seeds/003 evaluates np.array([[1,0,-1],[0,1,-1],[-1,0,1]]) as "something that can be evaluated",
    # but X completed the diagonal and O still moved afterwards (3 X, 3 O): no legal game reaches it.
    invalid(np.array([[1, 0, -1], [0, 1, -1], [-1, 0, 1]]), "X has a line", "(0,0),(1,1),(2,2)", "O moved after it")


def test_render_round_trips_every_code():
    game = Game()
    for code in range(0, game.codes, 7):
        assert parse(render(game, code)) == (game, code)
        assert parse(render(game, code, sep="\n")) == (game, code)


# -- a shape never picks a game: only the game named (tic-tac-toe by default) --------------------------------

SHAPED_BOARDS = [
    ([["X", None, None, None]] + [[None] * 4 for _ in range(3)], "4x4k4"),
    (np.zeros((4, 4), dtype=int), "4x4k4"),
    ("X.../..../..../....", "4x4k4"),
    ([["X", None, "O"], [None, None, None]], "2x3k2"),  # a tic-tac-toe board missing a row
    ("X./.O", "2x2k2"),
    (np.zeros((3, 4)), "3x4k3"),
    (np.zeros((2, 8), dtype=int), "2x8k2"),  # once wrote a 172 MB table into the cache
]


@pytest.mark.parametrize("board, name", SHAPED_BOARDS)
def test_a_board_of_another_shape_without_game_is_refused_naming_the_shape_and_game_to_pass(board, name, table_dir):
    rows, cols = name.split("k")[0].split("x")
    message = invalid(board, f"is {rows}x{cols}, expected 3x3 for 3x3k3", f"game='{name}'", f"--game {name}")
    assert not table_dir.exists() or not any(table_dir.iterdir()), f"a table was built for a game nobody named: {message}"


@pytest.mark.parametrize("board, name", SHAPED_BOARDS)
def test_a_shaped_board_is_read_in_the_game_named(board, name):
    game, _ = parse(board, name)
    assert game.name == name


def test_small_shaped_boards_are_solved_in_the_game_named(table_dir):
    position = solver.lookup([["X", None, "O"], [None, None, None]], game="2x3")
    assert position.game.name == "2x3k2" and position.to_move == "X" and position.result == "win"
    assert solver.lookup("X.O/...", game="2x3").code == position.code
    assert (table_dir / "2x3k2.ttt").is_file()
    assert solver.lookup("X./.O", game="2x2").game.name == "2x2k2"
    assert solver.encode("X./.O", game="2x2") == 1 + 2 * 3**3


def test_flat_forms_take_their_game_from_game_argument(table_dir):
    assert solver.lookup("X..O", game="2x2").code == 1 + 2 * 3**3
    assert solver.lookup(np.array([1, 0, 0, -1]), game="2x2k2").code == 1 + 2 * 3**3
    assert solver.lookup(["X", None, None, "O"], game=Game(2, 2, 2)).code == 1 + 2 * 3**3


# -- wrong sizes: found vs expected ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "board, fragments",
    [
        ("X.O", ["3 cells", "expected 9", "3x3k3"]),
        ("X.O.X...O.", ["10 cells", "expected 9"]),
        ("", ["0 cells", "expected 9"]),
        (["X", None, "O"], ["3 cells", "expected 9"]),
        ([], ["0 cells", "expected 9"]),
        (np.zeros(8, dtype=int), ["8 cells", "expected 9"]),
        (np.zeros((2, 2, 2), dtype=int), ["(2, 2, 2)"]),
        ([["X", "O", "."], ["."], [".", ".", "."]], ["different lengths", "3, 1, 3"]),
        ("X.O/.X/..O", ["different lengths", "3, 2, 3"]),
        (np.zeros((5, 6)), ["5x6", "1 to 25 cells"]),
        ([[None] * 26], ["1x26", "1 to 25 cells"]),
    ],
)
def test_wrong_size_names_what_was_found_and_what_was_expected(board, fragments):
    invalid(board, *fragments)


@pytest.mark.parametrize(
    "board",
    ["X.O/.X./..O", [["X", None, "O"], [None, "X", None], [None, None, "O"]], np.zeros((3, 3), dtype=int)],
)
def test_a_shaped_board_of_another_size_than_game_is_refused(board):
    invalid(board, "3x3", "expected 2x2", "2x2k2", game="2x2")


def test_a_flat_board_of_another_size_than_game_is_refused():
    invalid("X.O.X...O", "9 cells", "expected 4", "2x2k2", game="2x2")
    invalid(np.zeros(9, dtype=int), "9 cells", "expected 4", game="2x2")


# -- unknown symbols: which one and where -----------------------------------------------------------------


@pytest.mark.parametrize(
    "board, symbol, row, col",
    [
        ("X.O/.Z./..O", "'Z'", 1, 1),
        ("X.O.X...?", "'?'", 2, 2),
        ("x.o\n.x.\n#.o", "'#'", 2, 0),
        ([["X", None, "O"], [None, "X", "?"], [None, None, "O"]], "'?'", 1, 2),
        ([["X", None, "O"], [None, "X", None], [None, "XX", "O"]], "'XX'", 2, 1),
        ([["X", None, "O"], [None, 2, None], [None, None, "O"]], "2", 1, 1),
        ([["X", None, "O"], [None, True, None], [None, None, "O"]], "True", 1, 1),
        ([["X", 0.5, "O"], [None, "X", None], [None, None, "O"]], "0.5", 0, 1),
        ([["X", None, "O"], [None, "X", None], [None, None, ["O"]]], "['O']", 2, 2),
        (["X", None, "O", None, "X", None, None, "Q", "O"], "'Q'", 2, 1),
        (np.array([[1, 0, -1], [0, 1, 0], [2, 0, -1]]), "2", 2, 0),
        (np.array([[1, 0, -1], [0, 1, 0], [0, 0.5, -1]]), "0.5", 2, 1),
        (np.array([1, 0, -1, 0, 1, 0, 0, 0, np.nan]), "nan", 2, 2),
    ],
)
def test_unknown_symbol_names_the_symbol_and_its_row_and_col(board, symbol, row, col):
    invalid(board, "unknown", symbol, f"row {row}, col {col}")


@pytest.mark.parametrize(
    "board, symbol, row, col",
    [
        ("X.O/.X./..0", "'0'", 2, 2),  # a zero typed for an O: silently read as empty
        ("X.O.X...0", "'0'", 2, 2),
        ("1........", "'1'", 0, 0),  # silently read as X
        ("..2......", "'2'", 0, 2),  # silently read as O
        ("\tXO......", "'\\t'", 0, 0),  # int() strips the tab: the whole board shifts by a cell
        ("XO......\t", "'\\t'", 2, 2),
        ("X.O.X...+", "'+'", 2, 2),  # int() reads a leading sign
        ("X.O/.X./..\u0661", "'\u0661'", 2, 2),  # ARABIC-INDIC DIGIT ONE: int() reads it as 1
    ],
)
def test_digits_signs_and_other_whitespace_in_a_string_are_unknown_symbols(board, symbol, row, col):
    """BUG: board strings are translated to digits and fed to int(s, 3), which also accepts the
    characters 0/1/2, Unicode digits, a sign and surrounding whitespace: these boards are read
    silently as something else instead of being refused."""
    invalid(board, "unknown symbol", symbol, f"row {row}, col {col}")


def test_the_first_unknown_symbol_in_reading_order_is_named_for_every_form():
    """Strings and numpy arrays name the first bad cell; nested and flat sequences must too."""
    invalid("X?O/..!/...", "'?'", "row 0, col 1")
    invalid(np.array([[1, 5, 0], [0, 0, 7], [0, 0, 0]]), "5", "row 0, col 1")
    invalid([["X", "?", "O"], [".", ".", "!"], [".", ".", "."]], "'?'", "row 0, col 1")
    invalid(["X", "?", "O", ".", ".", "!", ".", ".", "."], "'?'", "row 0, col 1")


# -- inputs that are not boards at all -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "board, fragments",
    [
        (True, ["bool"]),
        (False, ["bool"]),
        (np.bool_(True), ["bool"]),
        (13222.0, ["float"]),
        (np.float64(0.0), ["float"]),
        (None, ["the board is None"]),
        (b"X.O.X...O", ["bytes"]),
        ({"X": 0}, ["dict"]),
        ({1, 2}, ["set"]),
        (np.array(13222), ["shape ()"]),
        (np.zeros((3, 3), dtype=bool), ["False"]),
    ],
)
def test_non_boards_are_refused_with_what_was_found(board, fragments):
    invalid(board, *fragments)


def test_bool_is_not_read_as_a_code_of_zero_or_one():
    assert solver.get(False) is None and solver.get(True) is None
    with pytest.raises(solver.InvalidBoardError):
        solver.encode(False)


@pytest.mark.parametrize("code", [-1, -13222, 3**9, 3**9 + 5, 10**30, np.int64(-1), np.int32(3**9), np.uint64(2**63)])
def test_codes_out_of_range_name_the_code_and_the_range(code):
    invalid(code, str(int(code)), "out of range", "3x3k3", "0 to 19682")


def test_code_ranges_follow_the_game(table_dir):
    assert solver.lookup(0, game="2x2").plies == 3  # X wins on its second piece
    invalid(81, "81", "out of range", "2x2k2", "0 to 80", game="2x2")


def test_numpy_integer_codes_are_codes():
    for kind in (np.int8, np.int16, np.int32, np.int64, np.uint16, np.uint32, np.uint64):
        position = solver.lookup(kind(81))  # X in the centre: 1 * 3**4
        assert (position.code, position.board) == (81, ".../.X./..."), kind


# -- boards no legal game reaches ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "board, fragments",
    [
        ("XX./.../...", ["XX./.../...", "impossible piece counts", "2 X and 0 O"]),
        ("O../.../...", ["impossible piece counts", "0 X and 1 O"]),
        ("XXX/XX./OO.", ["impossible piece counts", "5 X and 2 O"]),
        ("XO./.O./...", ["impossible piece counts", "1 X and 2 O"]),
        ("XXX/OOO/...", ["both players have a line", "X at (0,0),(0,1),(0,2)", "O at (1,0),(1,1),(1,2)"]),
        ("XXX/OO./O..", ["X has a line at (0,0),(0,1),(0,2)", "O moved after it", "went on after X won"]),
        ("OOO/XX./XX.", ["O has a line at (0,0),(0,1),(0,2)", "X moved after it", "went on after O won"]),
        ([["x", "o", "x"], ["o", "x", "o"], ["x", " ", "o"]], ["X has a line", "O moved after it"]),
    ],
)
def test_unreachable_boards_say_why(board, fragments):
    invalid(board, "not a reachable position", *fragments)


def test_unreachable_codes_say_why():
    code = solver.encode("XX./.../...")  # encode checks the form only
    assert code == 4
    invalid(code, "XX./.../...", "2 X and 0 O")
    invalid(np.int64(code), "2 X and 0 O")
    assert solver.get(code) is None


def test_a_player_who_kept_playing_after_winning_is_refused(table_dir):
    # 2x3, two in a row: X holds three lines (1,0)-(1,1), (0,1)-(1,1) and (0,1)-(1,0); no single last X
    # move completes all three, so X already had a line before its last move.
    invalid("OXO/XX.", "not a reachable position", "X kept playing after winning", game="2x3")


def _named_lines(message: str, k: int) -> list[set[tuple[int, int]]]:
    coords = [(int(r), int(c)) for r, c in re.findall(r"\((\d+),(\d+)\)", message)]
    return [set(coords[i : i + k]) for i in range(0, len(coords), k)]


@pytest.mark.parametrize("name", ["2x3k2", "3x3k2", "2x4k2"])
def test_lines_named_for_kept_playing_after_winning_have_no_common_cell(name):
    """The lines named when a player 'kept playing after winning' have no cell common to all.

    BUG: the message names the first two lines only, e.g. for 2x3k2
    OXO/XX.: 'X has lines at (1,0),(1,1) and (0,1),(1,1) that share no cell', yet both hold (1,1)
    (it is the third line, (0,1),(1,0), that leaves no common cell)."""
    table = solver.build_table(game=name)
    game = table.game
    checked = 0
    for code in np.flatnonzero(table.score == -128):
        with pytest.raises(solver.InvalidBoardError) as caught:
            table.at(int(code))
        message = str(caught.value)
        if "kept playing after winning" not in message:
            continue
        checked += 1
        lines = _named_lines(message.split("not a reachable position:")[1], game.k)
        assert len(lines) >= 2 and not set.intersection(*lines), message
    assert checked


@pytest.mark.parametrize("name", ["2x2k2", "2x3k2", "3x3k3", "3x3k2"])
def test_every_code_is_either_solved_or_refused_with_a_reason(name):
    """The table marks a code unreachable exactly when a rule explains why (never a TableError)."""
    table = solver.build_table(game=name)
    for code in range(table.game.codes):
        reachable = table.score[code] != -128
        if reachable:
            assert table.at(code).code == code
        else:
            with pytest.raises(solver.InvalidBoardError, match="not a reachable position: .+"):
                table.at(code)


# -- properties --------------------------------------------------------------------------------------------

CELL_CHARS = {"X": 1, "x": 1, "O": 2, "o": 2, ".": 0, "-": 0, "_": 0, " ": 0}


def reference_parse(text: str) -> int | None:
    """The product rule for a flat 9-character string, written out plainly (None = refuse)."""
    if len(text) != 9 or any(ch not in CELL_CHARS for ch in text):
        return None
    return sum(CELL_CHARS[ch] * 3**cell for cell, ch in enumerate(text))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="XxOo.-_ 012+\t\u00a0Zq", min_size=9, max_size=9))
def test_flat_strings_match_the_written_rule(text):
    expected = reference_parse(text)
    if expected is None:
        with pytest.raises(solver.InvalidBoardError, match="unknown symbol"):
            parse(text)
    else:
        assert parse(text) == (Game(), expected)


ANYTHING = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 3**9 + 5)
    | st.floats(allow_nan=True)
    | st.text(max_size=12)
    | st.sampled_from(["X", "o", ".", "-", "", " ", 1, -1, 0]),
    lambda children: st.lists(children, max_size=10) | st.tuples(children, children, children),
    max_leaves=30,
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ANYTHING)
def test_anything_is_solved_or_refused_with_invalid_board_error(board):
    try:
        position = solver.lookup(board, game="3x3")
    except solver.InvalidBoardError as error:
        assert str(error)
    else:
        assert 0 <= position.code < 3**9
    assert solver.get(board, "refused", game="3x3") is not None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from([1, 0, -1, 2, 0.5]), min_size=1, max_size=5), min_size=1, max_size=5))
def test_numpy_arrays_of_any_small_shape_parse_or_refuse(rows):
    try:
        array = np.array(rows)
    except ValueError:  # ragged rows make no array
        return
    try:
        game, code = parse(array)
    except solver.InvalidBoardError as error:
        assert "unknown value" in str(error) or "expected 3x3 for 3x3k3" in str(error), str(error)
    else:
        assert array.shape == (3, 3) and game.name == "3x3k3" and 0 <= code < game.codes


# -- text from the command line and HTTP: parse_text ----------------------------------------------------------


@pytest.mark.parametrize("text, code", [("13222", 13222), (" 13222\n", 13222), ("0", 0), ("-0", 0), ("19682", 19682)])
def test_ascii_digits_are_a_code(text, code):
    assert parse_text(text) == (Game(3, 3, 3), code)


@pytest.mark.parametrize("text", ["X.O/.X./..O", "X . O / . X . / . . O", "X.O/.X./..O\n", "x.o.x...o"])
def test_any_other_text_is_a_board_string_read_as_parse_reads_it(text):
    assert parse_text(text) == parse(text) == (Game(3, 3, 3), X_O_DIAG)


@pytest.mark.parametrize(
    "text, shown", [("-1", "code -1 is"), ("19683", "code 19683 is"), ("1" * 5000, "(5,000 characters)"), ("-" + "9" * 80, "(81 characters)")]
)
def test_a_code_out_of_range_is_refused_without_converting_thousands_of_digits(text, shown):
    with pytest.raises(solver.InvalidBoardError) as raised:
        parse_text(text)
    assert shown in str(raised.value) and "out of range for 3x3k3: expected 0 to 19682" in str(raised.value)


@pytest.mark.parametrize("text", ["000000001", "00013222", "0" * 5000 + "88", "-01", "00"])
def test_digits_with_leading_zeros_are_neither_a_code_nor_a_board(text):
    """``000000001`` is more likely a board typed as cell digits (X in the last cell) than code 1
    (X in the first): it is refused, not read as either."""
    with pytest.raises(solver.InvalidBoardError, match="is not a code: a code has no leading zeros; and a board is written with X, O"):
        parse_text(text)


@pytest.mark.parametrize("text, digit", [("²", "U+00B2"), ("\u0663", "U+0663"), ("1\u0663", "U+0663"), ("８８", "U+FF18"), ("\u0661" * 9, "U+0661")])
def test_digits_other_than_ascii_are_neither_a_code_nor_a_board(text, digit):
    """``int()`` reads Arabic-Indic and full-width digits (``int("\u0663") == 3``) and raises on ``²``:
    none of them is a code, and the message says which character is not 0-9."""
    with pytest.raises(solver.InvalidBoardError) as raised:
        parse_text(text)
    assert "neither a code nor a board" in str(raised.value) and digit in str(raised.value)
    assert "ASCII digits 0-9" in str(raised.value)


def test_the_range_of_a_code_in_text_follows_the_game():
    game = Game(2, 2, 2)
    assert parse_text("80", game) == (game, 80)
    with pytest.raises(solver.InvalidBoardError, match="out of range for 2x2k2: expected 0 to 80"):
        parse_text("81", game)
    with pytest.raises(solver.InvalidBoardError, match="expected 2x2 for 2x2k2"):
        parse_text("X.O/.X./..O", game)
