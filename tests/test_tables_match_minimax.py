"""Every table that a plain recursive minimax can finish is checked against it, position by position.

The reference (tests/reference.py) shares no code with the package: it finds the
reachable boards by playing every move from the empty board, and solves each one
by memoised minimax (fastest win, slowest loss). Here the tables built by
``solver.build_table`` must agree with it on every code: which codes are
reachable, the score, value, result, plies and the exact set of best moves.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest
from reference import LOSS, WIN, Reference, board_of, code, reference

import solver
from solver.encoding.board import render
from solver.rules.score import UNREACHABLE

GAMES = ["2x2k2", "2x3k2", "2x3k3", "3x3k3", "3x3k2", "1x5k3", "2x4k3", "3x4k3", "4x3k3", "2x6k3"]
"""Games the reference solves in seconds (the 12-cell ones have ~112,000-126,000 positions)."""

EDGE_GAMES = ["1x1k1", "2x2k1", "1x4k4", "3x1k2"]
"""Degenerate shapes: one cell, k = 1 (the first move wins), a single row or column."""

MISERE_GAMES = ["3x3k3-misere", "3x4k3-misere", "4x3k3-misere", "2x6k3-misere", "3x3k2-misere", "2x2k2-misere", "1x5k3-misere", "1x1k1-misere"]
"""Misère play (completing a line loses) of games the reference solves in seconds; 4x4k3-misere is in the slow set."""

ARMAGEDDON_GAMES = [
    "3x3k3-armageddon",
    "2x2k2-armageddon",
    "3x4k3-armageddon",
    "2x6k3-armageddon",
    "1x5k3-armageddon",
    "3x3k3-gravity-armageddon",
    "3x4k3-gravity-armageddon",
]
"""Armageddon (a full board is O's win; solver.rules.armageddon), the third scoring, under placement and under gravity."""

RESULT = {WIN: "win", 0: "draw", LOSS: "loss"}
SHOWN = 5
"""How many wrong boards a failure message lists."""


@dataclass(frozen=True)
class Expected:
    """The reference's answer for every reachable board of a game, as arrays aligned with ``codes``."""

    game: solver.Game
    reference: Reference
    boards: list[tuple[int, ...]]
    codes: np.ndarray
    score: np.ndarray
    value: np.ndarray
    result: np.ndarray
    plies: np.ndarray
    best: np.ndarray


@cache
def expected(name: str) -> Expected:
    """Solve every reachable board of ``name`` with the reference (once per process)."""
    ref = reference(name)
    boards = sorted(ref.reachable(), key=code)
    solutions = [ref.solve(board) for board in boards]
    to_move_is_x = np.array([ref.to_move(board) == 1 for board in boards])
    result = np.array([s.result for s in solutions], dtype=np.int64)
    plies = np.array([s.plies for s in solutions], dtype=np.int64)
    # The documented score: 100 - d for a win in d plies, 0 for a draw, -(100 - d) for a loss.
    score = np.where(result == WIN, 100 - plies, np.where(result == LOSS, -(100 - plies), 0))
    return Expected(
        game=solver.parse_game(name),
        reference=ref,
        boards=boards,
        codes=np.array([code(board) for board in boards], dtype=np.int64),
        score=score,
        value=np.where(to_move_is_x, result, -result),
        result=result,
        plies=plies,
        best=np.array([sum(1 << cell for cell in s.best) for s in solutions], dtype=np.int64),
    )


@cache
def built(name: str) -> solver.Table:
    """The package's table of ``name`` (built once per process)."""
    return solver.build_table(game=name)


def _cells(mask: int) -> list[int]:
    return [cell for cell in range(16) if mask >> cell & 1]


def _mismatches(what: str, exp: Expected, wrong: np.ndarray, got: np.ndarray, want: np.ndarray, *, masks: bool = False) -> str:
    """A message naming how many boards are wrong and showing the first few."""
    lines = [f"{exp.game.name}: {what} differs from the recursive minimax on {wrong.size} of {exp.codes.size} positions"]
    for i in wrong[:SHOWN]:
        g, w = (_cells(int(got[i])), _cells(int(want[i]))) if masks else (got[i], want[i])
        lines.append(f"  {render(exp.game, int(exp.codes[i]))} (code {exp.codes[i]}): table {g}, minimax {w}")
    return "\n".join(lines)


def _assert_same(what: str, exp: Expected, got: np.ndarray, want: np.ndarray, *, masks: bool = False) -> None:
    got, want = np.asarray(got).astype(np.int64), np.asarray(want).astype(np.int64)
    wrong = np.flatnonzero(got != want)
    assert wrong.size == 0, _mismatches(what, exp, wrong, got, want, masks=masks)


@pytest.mark.parametrize("name", GAMES + EDGE_GAMES + MISERE_GAMES + ARMAGEDDON_GAMES)
def test_reachable_positions_are_exactly_those_a_forward_enumeration_finds(name: str) -> None:
    exp, table = expected(name), built(name)
    found = set(table.reachable_codes().tolist())
    wanted = set(exp.codes.tolist())
    missing, extra = sorted(wanted - found), sorted(found - wanted)
    assert not missing and not extra, (
        f"{name}: the table marks {len(missing)} reachable boards unreachable, e.g. "
        f"{[render(exp.game, c) for c in missing[:SHOWN]]}, and {len(extra)} unreachable boards reachable, e.g. "
        f"{[render(exp.game, c) for c in extra[:SHOWN]]}"
    )


@pytest.mark.parametrize("name", GAMES + EDGE_GAMES + MISERE_GAMES + ARMAGEDDON_GAMES)
def test_every_other_code_reads_unreachable_with_no_best_move(name: str) -> None:
    exp, table = expected(name), built(name)
    score, best = np.asarray(table.score), np.asarray(table.best)
    assert score.shape == best.shape == (exp.game.codes,)
    others = np.ones(exp.game.codes, dtype=bool)
    others[exp.codes] = False
    bad = np.flatnonzero(others & ((score != UNREACHABLE) | (best != 0)))
    assert bad.size == 0, f"{name}: {bad.size} unreachable codes hold a score or best moves, e.g. " + ", ".join(
        f"{render(exp.game, int(c))} score {score[c]} best {_cells(int(best[c]))}" for c in bad[:SHOWN]
    )


@pytest.mark.parametrize("name", GAMES + EDGE_GAMES + MISERE_GAMES + ARMAGEDDON_GAMES)
def test_every_reachable_position_matches_recursive_minimax(name: str) -> None:
    exp, table = expected(name), built(name)
    got = table.lookup_codes(exp.codes)
    _assert_same("the score", exp, got.score, exp.score)
    _assert_same("the value for X", exp, got.value, exp.value)
    _assert_same("the result for the side to move (sign of the score)", exp, np.sign(got.score), exp.result)
    _assert_same("plies to the end", exp, got.plies, exp.plies)
    _assert_same("the best-move set", exp, got.best, exp.best, masks=True)


@pytest.mark.parametrize("shape", [(6,), (2, 3), (3, 1, 2), (), (0,)], ids=repr)
def test_lookup_codes_answers_an_array_of_any_shape_like_single_lookups(shape: tuple[int, ...]) -> None:
    exp, table = expected("3x3k3"), built("3x3k3")
    codes = np.random.default_rng(5).choice(exp.codes, int(np.prod(shape, dtype=np.int64))).reshape(shape)
    got = table.lookup_codes(codes)
    for field in ("score", "best", "value", "plies"):
        assert np.shape(getattr(got, field)) == shape, f"lookup_codes({shape}-shaped codes).{field} has shape {np.shape(getattr(got, field))}"
    for index in np.ndindex(*shape):
        position = table.lookup(int(codes[index]))
        where = f"codes{list(index)} = {render(exp.game, int(codes[index]))}"
        assert (int(got.score[index]), int(got.best[index])) == (position.score, position.best_mask), where
        assert (int(got.value[index]), int(got.plies[index])) == (position.value, position.plies), where


@pytest.mark.parametrize("bad", [-1, -(3**9), 3**9])
def test_lookup_codes_refuses_codes_out_of_range_even_without_checks(bad: int) -> None:
    # Table.lookup_codes' docstring: codes out of range always raise; check=False only skips reachability.
    # A negative code must not wrap around to another board's answer (-3**9 would read the empty board).
    table = built("3x3k3")
    with pytest.raises(solver.InvalidBoardError, match=rf"codes\[1\] = {bad} is out of range"):
        got = table.lookup_codes(np.array([0, bad]), check=False)
        pytest.fail(f"lookup_codes([0, {bad}], check=False) answered score {got.score.tolist()}, best {got.best.tolist()}")


def _check_position(exp: Expected, table: solver.Table, board: tuple[int, ...], *, moves: bool) -> None:
    """Compare one Position (and, with ``moves``, each of its Moves) with the reference."""
    ref, game = exp.reference, exp.game
    c = code(board)
    shown = f"{game.name} {render(game, c)} (code {c})"
    solution = ref.solve(board)
    position = table.lookup(c)
    winner = ref.winner(board)
    over = ref.is_over(board)
    mover = "XO"[ref.to_move(board) - 1]
    assert position.code == c and position.board == render(game, c), shown
    assert position.result == RESULT[solution.result], f"{shown}: result {position.result}, minimax {RESULT[solution.result]}"
    assert position.value == ref.value(board), f"{shown}: value {position.value}, minimax {ref.value(board)}"
    assert position.plies == solution.plies, f"{shown}: plies {position.plies}, minimax {solution.plies}"
    assert set(position.best_cells) == solution.best, f"{shown}: best {position.best_cells}, minimax {sorted(solution.best)}"
    assert position.best_moves == tuple(divmod(cell, game.cols) for cell in sorted(solution.best)), shown
    assert position.is_over == over, f"{shown}: is_over {position.is_over}, expected {over}"
    assert position.to_move == (None if over else mover), f"{shown}: to_move {position.to_move}"
    won = None if not winner else "XO"[(winner - 1) ^ ref.misere]  # in misère play the line's owner lost
    if not winner and 0 not in board and ref.full_result(1) != 0:  # armageddon: a full board is O's win
        won = "O"
    assert position.winner == won, f"{shown}: winner {position.winner}, minimax {won}"
    assert position.line_completer == (None if not winner else "XO"[winner - 1]), f"{shown}: line completed by {position.line_completer}"
    if not moves:
        return
    outcomes = ref.move_outcomes(board)
    assert [m.cell for m in position.moves] == sorted(outcomes), f"{shown}: moves on cells {[m.cell for m in position.moves]}"
    sign = 1 if mover == "X" else -1
    for move in position.moves:
        result, plies = outcomes[move.cell]
        where = f"{shown}, move at cell {move.cell}"
        assert (move.row, move.col) == divmod(move.cell, game.cols), where
        assert move.result == RESULT[result], f"{where}: result {move.result}, minimax {RESULT[result]}"
        assert move.value == sign * result, f"{where}: value {move.value}, minimax {sign * result}"
        assert move.plies == plies, f"{where}: plies {move.plies}, minimax {plies}"
        assert move.best == (move.cell in solution.best), f"{where}: best {move.best}"


@pytest.mark.parametrize("name", GAMES + EDGE_GAMES + MISERE_GAMES + ARMAGEDDON_GAMES)
def test_sampled_positions_and_their_moves_match_recursive_minimax(name: str) -> None:
    exp, table = expected(name), built(name)
    rng = random.Random(f"positions of {name}")
    sample = exp.boards if len(exp.boards) <= 300 else rng.sample(exp.boards, 300)
    for board in sample:
        _check_position(exp, table, board, moves=True)


def test_every_tictactoe_move_outcome_matches_recursive_minimax() -> None:
    exp, table = expected("3x3k3"), built("3x3k3")
    assert len(exp.boards) == 5478
    for board in exp.boards:
        _check_position(exp, table, board, moves=True)


def test_position_of_a_parsed_board_matches_the_position_of_its_code() -> None:
    exp, table = expected("3x4k3"), built("3x4k3")
    rng = random.Random("parsed 3x4k3 boards")
    for board in rng.sample(exp.boards, 200):
        c = code(board)
        text = render(exp.game, c)
        by_text = table.lookup(text)
        assert (by_text.code, by_text.score, by_text.best_mask) == (c, table.lookup(c).score, table.lookup(c).best_mask), text


def test_reference_finds_boards_backward_exactly_as_it_does_forward() -> None:
    """The reference's two reachability searches agree on every 3x3 code (a check of the checker)."""
    ref = reference("3x3k3")
    forward = ref.reachable()
    backward = {board for board in (board_of(c, 9) for c in range(3**9)) if ref.is_reachable(board)}
    assert forward == backward


@pytest.mark.parametrize("name", [name for name in MISERE_GAMES if name != "1x1k1-misere"])
def test_misere_play_reaches_exactly_the_boards_normal_play_reaches(name: str) -> None:
    """The game still ends at the first line, so the reachable boards are normal play's; only their values differ."""
    normal = name.removesuffix("-misere")
    misere_codes, normal_codes = built(name).reachable_codes(), built(normal).reachable_codes()
    assert np.array_equal(np.sort(misere_codes), np.sort(normal_codes)), f"{name} and {normal} reach different boards"
    assert not np.array_equal(expected(name).score, expected(normal).score), f"{name} scores its boards as {normal} does"


@pytest.mark.slow
def test_every_reachable_position_of_4x4k3_misere_matches_recursive_minimax() -> None:
    """The largest misère game checked whole: 6,036,001 positions, each against the reference."""
    test_every_reachable_position_matches_recursive_minimax("4x4k3-misere")
