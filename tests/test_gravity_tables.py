"""The gravity tables (Connect Four's family) checked against the independent reference of tests/reference.py.

The reference shares no code with the package: its minimax plays every landing cell from the empty
board, its breadth-first :func:`reachable_counts` counts the boards per ply with bit masks, and its
backward :meth:`Reference.is_reachable` unplays the top pieces. Here the package's tables must agree:

1. every reachable position of the small gravity games, normal and misère, from the dense table and
   from a compact (layered) build of the same game: result, plies, best moves (cells), the outcome
   of each landing cell; the reachable codes; every other code refused; a position's moves are
   its landing cells only, and a cell no piece can reach is refused as a move;
2. the positions per ply a table counts (``stats()``, ``ply_counts()``, ``solve stats``) against
   :func:`reachable_counts`, up to 4x5k4-gravity (3,945,711 positions);
3. random reachable positions of bigger boards, with at most 12 empty cells, against the minimax;
4. the rule's :meth:`violation` and :meth:`classify` against :meth:`Reference.is_reachable` on every
   board with legal piece counts of the 9- and 12-cell games;
5. a batch look-up of a compact gravity table, from its compressed file and from memory, against
   one look-up at a time;
6. the left-right mirror: same result and plies, mirrored best moves.

Failure messages show the boards as ``X.O/.X./..O`` (top row first), with their codes.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from reference import LOSS, WIN, Board, Reference, board_of, code, reachable_counts, reference, show

import solver
from solver.cli import main
from solver.contents.histograms import LayerCounts
from solver.encoding.coderules import code_rules
from solver.errors import InvalidBoardError, InvalidMoveError
from solver.retrograde.sweep import build_layers
from solver.rules.base import DRAWN, IN_PLAY, INVALID, LINE
from solver.rules.game import parse_game
from solver.rules.score import UNREACHABLE
from solver.store.locate import open_compact
from solver.store.make import build_compact, prove
from solver.tables import CompactTable, Table

slow = pytest.mark.slow

SMALL = ["2x2k2", "3x3k3", "3x4k3", "4x3k3", "2x5k3"]
"""Gravity shapes of up to 12 cells: the reference solves them whole in a fraction of a second (3x4k3-gravity: 7,157 positions).
The 16-cell ones (41,750 positions on 4x4k3-gravity, 161,029 on 4x4k4-gravity: 2 and 8 s of minimax) are in the slow set."""

SMALL_GAMES = [f"{shape}-gravity{rule}" for shape in SMALL for rule in ("", "-misere")] + [
    pytest.param(name, marks=slow) for name in ("4x4k3-gravity", "4x4k3-gravity-misere", "4x4k4-gravity")
]
"""Every reachable position of these is compared with the reference (misère play up to 4x4k3: 4x4k4-gravity-misere's
161,029 positions would cost another 8 s of minimax)."""

KINDS = ["dense", "compact"]
"""A game of up to 16 cells has a dense table; the compact one is the layered build of the same game."""

EVERY_CODE_UP_TO = 12
"""Games of at most this many cells have every code (3**12 = 531,441) looked up in a batch; bigger ones a sample."""

ALONE_UP_TO = 9
"""Games of at most this many cells have every position looked up one at a time (with its moves); bigger ones :data:`ALONE`."""

ALONE = 400
"""Positions (or unreachable boards) looked up one at a time on the games past :data:`ALONE_UP_TO` cells."""

SHOWN = 5
"""Boards a failure message lists."""

RESULT = {WIN: "win", 0: "draw", LOSS: "loss"}
"""The reference's result (for the side to move, or for a move's mover) in the package's words."""


# -- the reference's answers -----------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """The reference's answer for every reachable board of a game, as arrays aligned with ``codes`` (ascending)."""

    ref: Reference
    boards: list[Board]
    codes: np.ndarray
    result: np.ndarray
    plies: np.ndarray
    best: np.ndarray
    score: np.ndarray

    def shown(self, code_: int) -> str:
        return shown(self.ref, code_)


def solved(ref: Reference, boards: list[Board]) -> Expected:
    """The reference's answers for ``boards`` (reachable boards of its game)."""
    solutions = [ref.solve(board) for board in boards]
    result = np.array([s.result for s in solutions], dtype=np.int64)
    plies = np.array([s.plies for s in solutions], dtype=np.int64)
    return Expected(
        ref=ref,
        boards=boards,
        codes=np.array([code(board) for board in boards], dtype=np.int64),
        result=result,
        plies=plies,
        best=np.array([sum(1 << cell for cell in s.best) for s in solutions], dtype=np.int64),
        # The documented score (solver/rules/score.py): 100 - d for a win in d plies, 0 a draw, -(100 - d) a loss.
        score=np.where(result == WIN, 100 - plies, np.where(result == LOSS, plies - 100, 0)),
    )


@cache
def expected(name: str) -> Expected:
    """Solve every reachable board of ``name`` with the reference, in code order (once per process)."""
    ref = reference(name)
    return solved(ref, sorted(ref.reachable(), key=code))


def shown(ref: Reference, code_: int) -> str:
    """A board as the failure messages show it: ``X.../.O../....`` and its code."""
    return f"{show(board_of(int(code_), ref.cells), ref.cols)} (code {int(code_)})"


def cells_of(mask: int) -> list[int]:
    return [cell for cell in range(int(mask).bit_length()) if int(mask) >> cell & 1]


def assert_same(what: str, ref: Reference, codes: np.ndarray, got: np.ndarray, want: np.ndarray, *, masks: bool = False) -> None:
    """``got`` equals ``want`` at every code, else a message naming how many differ and showing the first boards."""
    got, want = np.asarray(got).astype(np.int64).reshape(-1), np.asarray(want).astype(np.int64).reshape(-1)
    wrong = np.flatnonzero(got != want)
    if wrong.size:
        lines = [f"{ref.name}: {what} differs from the reference on {wrong.size} of {got.size} positions"]
        for i in wrong[:SHOWN]:
            g, w = (cells_of(got[i]), cells_of(want[i])) if masks else (got[i], want[i])
            lines.append(f"  {shown(ref, codes[i])}: table {g}, reference {w}")
        raise AssertionError("\n".join(lines))


def mirror_codes(codes: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The codes of the left-right mirrors of boards (digit ``r * cols + c`` goes to ``r * cols + cols - 1 - c``)."""
    cells = rows * cols
    powers = 3 ** np.arange(cells, dtype=np.int64)
    digits = np.asarray(codes, dtype=np.int64)[:, None] // powers % 3
    source = [row * cols + cols - 1 - col for row in range(rows) for col in range(cols)]
    mirrored: np.ndarray = digits[:, source] @ powers
    return mirrored


def mirror_masks(masks: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Cell masks (bit ``cell``) mirrored left to right."""
    masks = np.asarray(masks, dtype=np.int64)
    out = np.zeros_like(masks)
    for row in range(rows):
        for col in range(cols):
            out |= (masks >> (row * cols + col) & 1) << (row * cols + cols - 1 - col)
    return out


@cache
def settled_codes(rows: int, cols: int) -> np.ndarray:
    """The codes, ascending, of every board with legal piece counts (X's = O's or O's + 1) whose pieces all rest
    on the bottom row or on a piece: each column's stacks combined (31**4 = 923,521 boards on 4x4 before the counts)."""
    codes, surplus = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)  # surplus: X's pieces less O's
    for col in range(cols):
        stacks = [stack for height in range(rows + 1) for stack in itertools.product((1, 2), repeat=height)]
        part = np.array([sum(piece * 3 ** ((rows - 1 - height) * cols + col) for height, piece in enumerate(stack)) for stack in stacks], dtype=np.int64)
        more = np.array([stack.count(1) - stack.count(2) for stack in stacks], dtype=np.int64)
        codes, surplus = (codes[:, None] + part).reshape(-1), (surplus[:, None] + more).reshape(-1)
    return np.sort(codes[(surplus == 0) | (surplus == 1)])


# -- the tables --------------------------------------------------------------------------------


@cache
def dense(name: str) -> Table:
    """The package's dense table of ``name``, built in memory (once per process)."""
    table = solver.build_table(game=name)
    assert table.kind == "dense", f"{name} was expected to get a dense table"
    return table


@pytest.fixture(scope="module")
def layered(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], CompactTable]:
    """The compact table of a game from the layered build, every layer held in memory (built once per module)."""
    built: dict[str, CompactTable] = {}

    def build(name: str) -> CompactTable:
        if name not in built:
            game = parse_game(name)
            layers = build_layers(game, tmp_path_factory.mktemp(name) / "build", jobs=1).layers()
            built[name] = CompactTable.from_layers(game, [np.array(layer) for layer in layers], prove=prove)
        return built[name]

    return build


@pytest.fixture(scope="module")
def table_of(layered: Callable[[str], CompactTable]) -> Callable[[str, str], Table]:
    """``table_of(name, kind)``: the dense table or the layered build's compact table of a game."""
    return lambda name, kind: dense(name) if kind == "dense" else layered(name)


@pytest.fixture(scope="module")
def compact_file(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """``compact_file(name)``: the compact table file of a game, written by ``build_compact`` (compressed, the layers'
    counts in its header, recorded as trusted) into a directory of its own, as ``<dir>/<game>.ttt`` (built once per module)."""
    built: dict[str, Path] = {}

    def build(name: str) -> Path:
        if name not in built:
            directory = tmp_path_factory.mktemp(f"{name}-file")
            built[name] = build_compact(parse_game(name), directory / f"{name}.ttt", jobs=1)
        return built[name]

    return build


def opened(path: Path) -> CompactTable:
    """A fresh table of a compact file: its blocks decoded as look-ups touch them."""
    table = open_compact(path)
    assert isinstance(table, CompactTable)
    return table


# -- 1. every position of the small boards ------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", SMALL_GAMES)
def test_every_reachable_gravity_position_has_the_minimaxs_result_plies_and_best_cells(name: str, kind: str, table_of: Callable[[str, str], Table]) -> None:
    exp, table = expected(name), table_of(name, kind)
    got = table.lookup_codes(exp.codes)
    assert_same(f"the result ({kind} table)", exp.ref, exp.codes, np.sign(got.score), exp.result)
    assert_same(f"the plies to the end ({kind} table)", exp.ref, exp.codes, got.plies, exp.plies)
    assert_same(f"the best cells ({kind} table)", exp.ref, exp.codes, got.best, exp.best, masks=True)
    assert_same(f"the score ({kind} table)", exp.ref, exp.codes, got.score, exp.score)


def check_position(exp: Expected, table: Table, index: int) -> None:
    """One position looked up alone, and each of its moves, against the reference."""
    ref, board, c = exp.ref, exp.boards[index], int(exp.codes[index])
    where = f"{ref.name} {exp.shown(c)}"
    position = table.lookup(c)
    result = RESULT[int(exp.result[index])]
    assert (position.result, position.plies) == (result, exp.plies[index]), (
        f"{where}: {position.result} in {position.plies}, reference {result} in {exp.plies[index]}"
    )
    assert set(position.best_cells) == set(cells_of(exp.best[index])), f"{where}: best cells {position.best_cells}, reference {cells_of(exp.best[index])}"
    assert position.best_moves == tuple(divmod(cell, ref.cols) for cell in cells_of(exp.best[index])), f"{where}: best moves {position.best_moves}"
    assert position.is_over == ref.is_over(board), f"{where}: is_over {position.is_over}"
    line = ref.winner(board)  # 1 or 2: who holds a line (only the last mover can)
    winner = None if not line else "XO"[(line - 1) ^ ref.misere]  # in misère play the line's owner lost
    assert (position.winner, position.line_completer) == (winner, "XO"[line - 1] if line else None), (
        f"{where}: winner {position.winner}, line by {position.line_completer}; reference {winner}"
    )
    assert position.to_move == (None if ref.is_over(board) else "XO"[ref.to_move(board) - 1]), f"{where}: to move {position.to_move}"
    # Each landing cell's move.
    moves = {move.cell: move for move in position.moves}
    for cell, (mover_result, plies) in ref.move_outcomes(board).items():
        want = RESULT[mover_result]
        assert cell in moves, f"{where}: no move on the landing cell {cell}"
        move = moves[cell]
        assert (move.result, move.plies) == (want, plies), f"{where}, move on cell {cell}: {move.result} in {move.plies}, reference {want} in {plies}"
        assert move.best == (cell in cells_of(exp.best[index])), f"{where}, move on cell {cell}: best {move.best}"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", SMALL_GAMES)
def test_gravity_positions_looked_up_one_at_a_time_and_their_moves_match_the_minimax(name: str, kind: str, table_of: Callable[[str, str], Table]) -> None:
    exp, table = expected(name), table_of(name, kind)
    indices = range(len(exp.boards))
    if exp.ref.cells > ALONE_UP_TO:
        indices = sorted(random.Random(name).sample(indices, ALONE))
    for index in indices:
        check_position(exp, table, index)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["3x3k3-gravity", "3x3k3-gravity-misere"])
def test_the_moves_of_a_gravity_position_are_only_its_landing_cells(name: str, kind: str, table_of: Callable[[str, str], Table]) -> None:
    exp, table = expected(name), table_of(name, kind)
    wrong = []
    for board, c in zip(exp.boards, exp.codes.tolist(), strict=True):
        listed = sorted(move.cell for move in table.lookup(c).moves)
        if listed != sorted(exp.ref.move_outcomes(board)):
            wrong.append(f"{shown(exp.ref, c)}: moves on cells {listed}, landing cells {sorted(exp.ref.move_outcomes(board))}")
    assert not wrong, f"{name} ({kind}): {len(wrong)} of {len(exp.boards)} positions list other moves:\n  " + "\n  ".join(wrong[:SHOWN])


@pytest.mark.parametrize("kind", KINDS)
def test_a_move_on_a_cell_no_piece_can_reach_is_refused(kind: str, table_of: Callable[[str, str], Table]) -> None:
    # On the empty 3x3 board only the bottom row (cells 6, 7, 8) takes a piece: cell (0,0) would float.
    position = table_of("3x3k3-gravity", kind).lookup(0)
    try:
        move = position.move((0, 0))
    except InvalidMoveError as error:
        assert "lands on (2,0)" in str(error), str(error)
        return
    raise AssertionError(f"{shown(reference('3x3k3-gravity'), 0)}: the move on cell 0 was answered: {move.result} in {move.plies} plies (score {move.score})")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", SMALL_GAMES)
def test_a_gravity_table_reaches_exactly_the_boards_the_minimax_reaches(name: str, kind: str, table_of: Callable[[str, str], Table]) -> None:
    exp, table = expected(name), table_of(name, kind)
    found, wanted = set(table.reachable_codes().tolist()), set(exp.codes.tolist())
    missing, extra = sorted(wanted - found), sorted(found - wanted)
    assert not missing and not extra, (
        f"{name} ({kind}): {len(missing)} reachable boards missing, e.g. {[exp.shown(c) for c in missing[:SHOWN]]}; "
        f"{len(extra)} unreachable boards listed, e.g. {[exp.shown(c) for c in extra[:SHOWN]]}"
    )


def codes_to_check(exp: Expected) -> np.ndarray:
    """Every code of a small game; on a bigger one 100,000 random settled boards with legal counts and 100,000 random codes."""
    cells = exp.ref.cells
    if cells <= EVERY_CODE_UP_TO:
        return np.arange(3**cells, dtype=np.int64)
    rng = np.random.default_rng(7)
    return np.union1d(rng.choice(settled_codes(exp.ref.rows, exp.ref.cols), 100_000), rng.integers(0, 3**cells, 100_000))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", SMALL_GAMES)
def test_every_board_no_game_reaches_reads_unreachable_in_a_batch_and_is_refused_alone(name: str, kind: str, table_of: Callable[[str, str], Table]) -> None:
    exp, table = expected(name), table_of(name, kind)
    codes = codes_to_check(exp)
    got = table.lookup_codes(codes, check=False)
    want = np.isin(codes, exp.codes)
    assert_same(f"whether the board is reachable ({kind} table)", exp.ref, codes, got.reachable, want)
    assert (got.score[~want] == UNREACHABLE).all(), f"{name} ({kind}): an unreachable board holds a score"
    # And alone: some of those codes (any reason: counts, a floating piece, lines, the order) refused one at a time.
    answered = []
    for c in np.random.default_rng(9).choice(codes[~want], 200).tolist():
        try:
            position = table.lookup(c)
        except InvalidBoardError:
            continue
        answered.append(f"{shown(exp.ref, c)}: {position.result} in {position.plies}")
    assert not answered, f"{name} ({kind}): unreachable boards answered: {answered[:SHOWN]}"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", SMALL_GAMES)
def test_a_settled_gravity_board_no_game_reaches_is_refused_by_a_lookup(name: str, kind: str, table_of: Callable[[str, str], Table]) -> None:
    """The boards the rules cannot tell at a glance: no piece floats and the counts are legal, but no order of
    moves stacks them, or a line ended the game before (the table's byte says so, the rule's search explains it)."""
    exp, table = expected(name), table_of(name, kind)
    unreached = np.setdiff1d(settled_codes(exp.ref.rows, exp.ref.cols), exp.codes)
    if exp.ref.cells > EVERY_CODE_UP_TO:
        unreached = np.random.default_rng(8).choice(unreached, ALONE, replace=False)
    assert unreached.size, f"{name}: every settled board is reachable, nothing to refuse"
    answered = []
    for c in unreached.tolist():
        try:
            position = table.lookup(c)
        except InvalidBoardError:
            continue
        answered.append(f"{shown(exp.ref, c)}: {position.result} in {position.plies}")
    assert not answered, f"{name} ({kind}): {len(answered)} of {unreached.size} unreachable settled boards answered: {answered[:SHOWN]}"
    with pytest.raises(InvalidBoardError, match=r"codes\[1\]"):
        table.lookup_codes([0, int(unreached[0])])


# -- 2. positions per ply -----------------------------------------------------------------------


def enumerated(rows: int, cols: int, k: int) -> list[int]:
    """The reference's breadth-first count of the reachable boards per ply, 0 to rows * cols."""
    counts = reachable_counts(rows, cols, k, gravity=True)
    return counts + [0] * (rows * cols + 1 - len(counts))


COUNTED = ["3x3k3-gravity", "3x4k3-gravity-misere", "4x3k3-gravity", "2x5k3-gravity", "4x4k4-gravity"]
"""Small games whose tables count their positions per ply (misère play reaches the boards of normal play)."""


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", COUNTED)
def test_a_gravity_table_counts_the_positions_per_ply_the_forward_enumeration_finds(name: str, kind: str, table_of: Callable[[str, str], Table]) -> None:
    ref, table = reference(name), table_of(name, kind)
    wanted = enumerated(ref.rows, ref.cols, ref.k)
    stats = table.stats()
    assert [layer["positions"] for layer in stats["layers"]] == wanted, f"{name} ({kind}): stats() per ply"
    assert [counts.positions for counts in table.ply_counts()] == wanted, f"{name} ({kind}): ply_counts()"
    assert stats["positions"] == sum(wanted), f"{name} ({kind}): {stats['positions']} positions, the enumeration finds {sum(wanted)}"


BIG_COUNTS = {"5x4k4-gravity": 1_706_255, "4x5k4-gravity": 3_945_711}
"""Positions of the two 20-cell Connect Four boards (5 rows of 4, 4 rows of 5), as the reference's enumeration counts them."""


@pytest.mark.parametrize("name", ["5x4k4-gravity", pytest.param("4x5k4-gravity", marks=slow)])
def test_a_compact_gravity_file_counts_the_positions_per_layer_the_forward_enumeration_finds(name: str, compact_file: Callable[[str], Path]) -> None:
    ref, path = reference(name), compact_file(name)
    wanted = enumerated(ref.rows, ref.cols, ref.k)
    assert sum(wanted) == BIG_COUNTS[name]
    table = opened(path)
    from_header = [layer["positions"] for layer in table.stats()["layers"]]
    recounted = [LayerCounts.from_histograms(table.game, ply, hist).every.positions for ply, hist in enumerate(table.histograms(from_meta=False))]
    assert from_header == wanted, f"{name}: the file's header counts {from_header}, the enumeration {wanted}"
    assert recounted == wanted, f"{name}: the file's blocks count {recounted}, the enumeration {wanted}"
    result = CliRunner().invoke(main, ["stats", "--game", name, "--table-dir", str(path.parent), "--json"])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    said = json.loads(result.stdout)
    assert [layer["positions"] for layer in said["layers"]] == wanted and said["positions"] == BIG_COUNTS[name], f"{name}: solve stats"


# -- 3. sampled positions of the bigger boards ----------------------------------------------------

SAMPLED = 150
"""Random positions per bigger game."""

MOST_EMPTY = 12
"""A sampled position has at most this many empty cells (fewer when its game ended sooner), so the minimax is quick."""


def random_positions(ref: Reference, seed: str, count: int) -> list[Board]:
    """``count`` distinct reachable boards from random games: each stops at a random number of empty cells
    (0 to :data:`MOST_EMPTY`) or at its end."""
    rng = random.Random(seed)
    found: dict[Board, None] = {}
    while len(found) < count:
        board, stop = ref.empty, rng.randint(0, MOST_EMPTY)
        while not ref.is_over(board) and board.count(0) > stop:
            board = ref.play(board, rng.choice(ref.moves(board)))
        if board.count(0) <= MOST_EMPTY:
            found[board] = None
    return list(found)


@pytest.mark.parametrize(
    "name",
    [
        "5x4k4-gravity",
        "5x4k4-gravity-misere",
        pytest.param("4x5k4-gravity", marks=slow),
        pytest.param("5x5k4-gravity", marks=slow),
    ],
)
def test_random_positions_of_bigger_gravity_boards_match_the_minimax(name: str, compact_file: Callable[[str], Path]) -> None:
    ref = reference(name)
    boards = random_positions(ref, name, SAMPLED)
    exp = solved(ref, boards)
    table = opened(compact_file(name))
    for index in range(len(boards)):
        check_position(exp, table, index)
    got = table.lookup_codes(exp.codes)
    assert_same("the result (batch)", ref, exp.codes, np.sign(got.score), exp.result)
    assert_same("the plies (batch)", ref, exp.codes, got.plies, exp.plies)
    assert_same("the best cells (batch)", ref, exp.codes, got.best, exp.best, masks=True)
    assert_same("the score (batch)", ref, exp.codes, got.score, exp.score)


# -- 4. the rule's violation and classify ---------------------------------------------------------

RULED = ["3x3k3-gravity", "3x4k3-gravity", "4x3k3-gravity", "3x3k3-gravity-misere"]
"""Games small enough to judge every board with legal piece counts (3**12 = 531,441 codes on 12 cells)."""


@cache
def legal_counts(name: str) -> tuple[np.ndarray, list[Board]]:
    """Every code of ``name`` (ascending) with X's pieces = O's or O's + 1, and its board."""
    cells = reference(name).cells
    boards = [board for board in itertools.product((0, 1, 2), repeat=cells) if board.count(1) - board.count(2) in (0, 1)]
    boards = [board[::-1] for board in boards]  # product varies the last digit fastest: reversed, cell 0 is the low digit
    boards.sort(key=code)
    return np.array([code(board) for board in boards], dtype=np.int64), boards


@pytest.mark.parametrize("name", RULED)
def test_the_rule_finds_no_violation_exactly_on_the_boards_a_game_reaches(name: str) -> None:
    ref, rules = reference(name), code_rules(parse_game(name))
    codes, boards = legal_counts(name)
    wrong = []
    for c, board in zip(codes.tolist(), boards, strict=True):
        reason = rules.violation(c)
        if (reason is None) != ref.is_reachable(board):
            wrong.append(f"{shown(ref, c)}: violation {reason!r}, reference {'reachable' if ref.is_reachable(board) else 'unreachable'}")
    assert not wrong, f"{name}: the rule and the reference disagree on {len(wrong)} of {len(boards)} boards:\n  " + "\n  ".join(wrong[:SHOWN])


@pytest.mark.parametrize("name", RULED)
def test_classify_never_calls_a_reachable_board_invalid_and_calls_line_exactly_the_finished_ones_with_a_line(name: str) -> None:
    ref, rules = reference(name), code_rules(parse_game(name))
    codes, boards = legal_counts(name)
    status, pieces = rules.classify(codes)
    wrong = []
    for c, board, found, count in zip(codes.tolist(), boards, status.tolist(), pieces.tolist(), strict=True):
        if not ref.is_reachable(board):
            continue
        want = LINE if ref.winner(board) else DRAWN if 0 not in board else IN_PLAY
        if found != want or (found != INVALID and count != ref.cells - board.count(0)):
            wrong.append(f"{shown(ref, c)}: status {found} with {count} pieces, expected {want}")
    assert not wrong, f"{name}: classify misjudges {len(wrong)} reachable boards (0 in play, 1 line, 2 drawn, 3 invalid):\n  " + "\n  ".join(wrong[:SHOWN])


@pytest.mark.parametrize("name", RULED)
def test_the_one_board_judge_agrees_with_the_batch_classify_on_every_board(name: str) -> None:
    ref, rules = reference(name), code_rules(parse_game(name))
    codes, _ = legal_counts(name)
    status, _ = rules.classify(codes)
    wrong = [
        f"{shown(ref, c)}: judge {rules.judge(c)[0]}, classify {s}" for c, s in zip(codes.tolist(), status.tolist(), strict=True) if rules.judge(c)[0] != s
    ]
    assert not wrong, f"{name}: {len(wrong)} boards differ:\n  " + "\n  ".join(wrong[:SHOWN])


# -- 5. batch look-ups --------------------------------------------------------------------------

BATCH = 1200
"""Reachable codes of a compact gravity table looked up in one batch and one at a time."""


def batch_codes(exp_codes: np.ndarray, seed: int) -> np.ndarray:
    """A sample of reachable codes, the empty board first, in no particular order (repeats included)."""
    rng = np.random.default_rng(seed)
    picked = rng.choice(exp_codes, BATCH)
    return np.concatenate([[0], picked, picked[:10]])


def assert_batch_as_alone(name: str, table: Table, codes: np.ndarray) -> None:
    ref = reference(name)
    batch = table.lookup_codes(codes)
    alone = [table.lookup(int(c)) for c in codes]
    for column, want in (
        ("score", [p.score for p in alone]),
        ("ply", [p.pieces for p in alone]),
        ("best", [p.best_mask for p in alone]),
        ("value", [p.value for p in alone]),
        ("plies", [p.plies for p in alone]),
    ):
        assert_same(f"the batch's {column} against one look-up at a time", ref, codes, getattr(batch, column), np.array(want), masks=column == "best")


@pytest.mark.parametrize("way", ["compressed file", "in memory"])
@pytest.mark.parametrize("name", ["4x4k4-gravity-misere", "5x4k4-gravity", pytest.param("4x5k4-gravity", marks=slow)])
def test_a_batch_lookup_of_a_compact_gravity_table_answers_as_one_lookup_at_a_time(name: str, way: str, compact_file: Callable[[str], Path]) -> None:
    table = opened(compact_file(name))
    if way == "in memory":
        table = table.load_into_memory()
    reachable = table.reachable_codes()
    some = np.random.default_rng(10).choice(reachable, 20_000)
    finished = some[np.isin(table.lookup_codes(some).score, [-100, 100])]  # a line on the board: no best move
    assert finished.size, f"{name}: no finished board found"
    codes = np.concatenate([batch_codes(reachable, 11), finished[:200]])
    assert_batch_as_alone(name, opened(compact_file(name)) if way == "compressed file" else table, codes)


def test_the_packages_batch_function_answers_a_gravity_game_from_its_compact_table(
    compact_file: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "5x4k4-gravity"
    path = compact_file(name)
    monkeypatch.setenv("SOLVED_TICTACTOE_DIR", str(path.parent))
    solver.forget()
    try:
        codes = batch_codes(opened(path).reachable_codes(), 12)
        got = solver.lookup_codes(codes, game=name)
        want = opened(path).lookup_codes(codes)
        for column in ("score", "best", "plies", "value"):
            assert_same(f"solver.lookup_codes' {column}", reference(name), codes, getattr(got, column), getattr(want, column), masks=column == "best")
    finally:
        solver.forget()


def test_a_batch_holding_a_settled_board_no_game_reaches_is_refused_naming_it(compact_file: Callable[[str], Path]) -> None:
    # O on the bottom of the first column and X on it: the counts are legal and nothing floats, but X moves first.
    ref = reference("5x4k4-gravity")
    board = (0,) * 12 + (1, 0, 0, 0) + (2, 0, 0, 0)
    assert not ref.is_reachable(board) and ref.settled(board)
    for table in (opened(compact_file(ref.name)), opened(compact_file(ref.name)).load_into_memory()):
        with pytest.raises(InvalidBoardError, match=r"codes\[1\].*no order of moves"):
            table.lookup_codes([0, code(board)])
        got = table.lookup_codes([0, code(board)], check=False)
        assert got.reachable.tolist() == [True, False] and int(got.score[1]) == UNREACHABLE, f"{shown(ref, code(board))} answered {got.score.tolist()}"


# -- 6. the mirror -----------------------------------------------------------------------------


def assert_mirror_agrees(name: str, table: Table, codes: np.ndarray) -> None:
    ref = reference(name)
    mirrored = mirror_codes(codes, ref.rows, ref.cols)
    here, there = table.lookup_codes(codes), table.lookup_codes(mirrored)
    assert_same("the mirror's score (result and plies)", ref, codes, there.score, here.score)
    assert_same("the mirror's plies", ref, codes, there.plies, here.plies)
    assert_same("the mirror's best cells, mirrored back", ref, codes, mirror_masks(there.best, ref.rows, ref.cols), here.best, masks=True)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["3x4k3-gravity", "4x3k3-gravity-misere", "4x4k4-gravity"])
def test_a_gravity_board_and_its_mirror_have_the_same_result_and_plies_and_mirrored_best_moves(
    name: str, kind: str, table_of: Callable[[str, str], Table]
) -> None:
    table = table_of(name, kind)
    assert_mirror_agrees(name, table, table.reachable_codes())


def test_a_compact_gravity_files_mirrors_agree_too(compact_file: Callable[[str], Path]) -> None:
    name = "5x4k4-gravity"
    table = opened(compact_file(name))
    assert_mirror_agrees(name, table, batch_codes(table.reachable_codes(), 13))


def test_the_mirror_helpers_mirror_a_known_board() -> None:
    # ..../..../X..O on 3x4: its mirror is ..../..../O..X; the best-cell mask of cell 8 becomes cell 11.
    board = (0,) * 8 + (1, 0, 0, 2)
    assert mirror_codes(np.array([code(board)]), 3, 4).tolist() == [code((0,) * 8 + (2, 0, 0, 1))]
    assert mirror_masks(np.array([1 << 8 | 1 << 1]), 3, 4).tolist() == [1 << 11 | 1 << 2]


@pytest.mark.parametrize(("rows", "cols"), [(2, 2), (3, 3), (2, 5)])
def test_the_settled_boards_helper_lists_exactly_the_reference_settled_boards_with_legal_counts(rows: int, cols: int) -> None:
    ref = Reference(rows, cols, 3, gravity=True)
    boards = itertools.product((0, 1, 2), repeat=rows * cols)
    wanted = sorted(code(board) for board in boards if ref.settled(board) and board.count(1) - board.count(2) in (0, 1))
    assert settled_codes(rows, cols).tolist() == wanted
