"""The m,n,k rule on grids of half-boards: the layered build's vectorised form of the rule.

The layered build (:mod:`solver.retrograde.kernel`) sees a board as a high half-board (a
row of its chunk) and a low half-board (a column). Here a half-board's stones become a
**line set** per player: the lines whose cells in that half all hold the player's stones
(a line with no cell in the half counts), one bit a line, 32 lines a uint32 word. A board
has a line of a player exactly where its two halves' sets share a bit, so the rule for a
whole grid of boards is one outer AND per word (:func:`grid_scores`), exactly
:meth:`solver.rules.base.Rules.violation_of_word`'s rule: unreachable if the side to move has a
line, or the last mover's lines share no cell; else finished, scored by the rule
(:attr:`solver.rules.base.Rules.line_score`: ``-WIN``, or ``+WIN`` in misère play).

Per grid the work is whole-matrix numpy passes with no boolean-mask writes (each costs
about 3 ns a board, the passes here 0.05 to 0.6), in per-thread reused arrays
(:mod:`solver.scratch`).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..rules.game import Game
from ..rules.score import UNREACHABLE
from ..scratch import scratch_array, set_where

_WORD = 32
"""Lines per word of a line set (uint32): a game's lines are numbered as in :attr:`solver.rules.base.Rules.line_masks`."""
RULES_FOLLOW = -1
"""In a grid's rule scores: the board's score follows from its children (no rule decides it)."""


@cache
def _split_lines(game: Game, low_mask: int, shift: int) -> tuple[tuple[int, int, int], ...]:
    """Every line as (full mask, its cells in the low half, its cells in the high half shifted down by ``shift``)."""
    return tuple((line, line & low_mask, (line & ~low_mask) >> shift) for line in game.rules.line_masks)


def _words(game: Game) -> int:
    """How many uint32 words a line set of the game takes."""
    return max(1, -(-len(game.rules.line_masks) // _WORD))


def words(game: Game) -> int:
    """How many uint32 words a line set of the game takes."""
    return max(1, -(-len(game.rules.line_masks) // _WORD))


def half_line_sets(game: Game, stones: np.ndarray, *, high: bool, low_mask: int | None = None, shift: int | None = None) -> np.ndarray:
    """The line sets of many half-boards' stones of one player (``(words, boards)`` uint32, module docstring).

    :param stones: the player's cells in each half-board (the low half's cells from bit 0; the high
        half's shifted down by ``shift``, as :mod:`solver.encoding.index` keeps them).
    :param low_mask: the low half's cells (default: the first ``cells // 2``, and ``shift`` their number;
        a gravity layout's halves are columns, with ``shift`` 0).
    """
    if low_mask is None:
        low_mask = (1 << (game.cells // 2)) - 1
        shift = game.cells // 2
    sets = np.zeros((words(game), stones.size), dtype=np.uint32)
    for number, (_, line_low, line_high) in enumerate(_split_lines(game, low_mask, shift or 0)):
        mask = line_high if high else line_low
        sets[number // _WORD] |= ((stones & mask) == mask).astype(np.uint32) << np.uint32(number % _WORD)
    return sets


@cache
def _common_tables(game: Game) -> np.ndarray:
    """The AND of the cell masks of the lines in each byte of a line set: ``[word, byte, value]``, int32 (-1: no line)."""
    tables = np.full((words(game), 4, 256), -1, dtype=np.int32)
    values = np.arange(256)
    for number, line in enumerate(game.rules.line_masks):
        word, bit = divmod(number, _WORD)
        tables[word, bit // 8, (values >> (bit % 8) & 1) == 1] &= line
    return tables


def _may_meet(rows: np.ndarray, cols: np.ndarray) -> bool:
    """Whether some row's line set and some column's share a bit (else the outer AND is all zero)."""
    return int(np.bitwise_or.reduce(rows)) & int(np.bitwise_or.reduce(cols)) != 0


def grid_scores(game: Game, ply: int, rows: tuple[np.ndarray, np.ndarray], cols: tuple[np.ndarray, np.ndarray], *, shared: bool = True) -> np.ndarray:
    """The rules for every pair of a row's and a column's X and O line sets (``(words, n)`` each): int8, scratch.

    ``UNREACHABLE`` if the side to move has a line, or the last mover's lines share no cell; the
    rule's line score if the last mover has a line; else :data:`RULES_FOLLOW` (module docstring).

    :param shared: whether to look for lines that share no cell. Without (gravity, whose build finds
        the boards a game reaches forward, and a reached board's lines all hold its last move), a board
        whose last mover has a line takes the line score.
    """
    x_moved_last = ply % 2 == 1
    mover, to_move = ((rows[0], cols[0]), (rows[1], cols[1])) if x_moved_last else ((rows[1], cols[1]), (rows[0], cols[0]))
    shape = (rows[0].shape[1], cols[0].shape[1])
    unreachable, won, flag = scratch_array("unreachable", shape, bool), scratch_array("won", shape, bool), scratch_array("flag", shape, bool)
    unreachable.fill(False)
    won.fill(False)
    mover_sets: list[tuple[int, np.ndarray]] = []
    for word in range(words(game)):
        high, low = to_move[0][word], to_move[1][word]
        if _may_meet(high, low):
            sets = np.bitwise_and(high[:, None], low[None, :], out=scratch_array("sets", shape, np.uint32))
            unreachable |= np.not_equal(sets, 0, out=flag)
        high, low = mover[0][word], mover[1][word]
        if _may_meet(high, low):
            lines = np.bitwise_and(high[:, None], low[None, :], out=scratch_array(f"lines{word}", shape, np.uint32))
            won |= np.not_equal(lines, 0, out=flag)
            mover_sets.append((word, lines))
    if mover_sets and shared:
        _mark_unshared(game, mover_sets, won, unreachable)
    rules = scratch_array("rule table", shape, np.int8)
    rules.fill(RULES_FOLLOW)
    set_where(rules, won, game.rules.line_score)  # -WIN, or +WIN in misère play
    set_where(rules, unreachable, UNREACHABLE)
    return rules


def _mark_unshared(game: Game, mover_sets: list[tuple[int, np.ndarray]], won: np.ndarray, unreachable: np.ndarray) -> None:
    """Mark unreachable the boards whose last mover has lines that share no cell (only boards with a line are looked at)."""
    at = np.flatnonzero(won)
    if len(mover_sets) == 1:  # one word: a single line always shares its cells
        word, lines = mover_sets[0]
        sets = lines.reshape(-1)[at]
        several = (sets & (sets - np.uint32(1))) != 0
        at, picked = at[several], [(word, sets[several])]
    else:
        picked = [(word, lines.reshape(-1)[at]) for word, lines in mover_sets]
    tables = _common_tables(game)
    common = np.full(at.size, -1, dtype=np.int32)
    for word, sets in picked:
        for byte in range(-(-min(_WORD, len(game.rules.line_masks) - word * _WORD) // 8)):
            common &= tables[word, byte][(sets >> np.uint32(8 * byte)) & np.uint32(255)]
    unreachable.reshape(-1)[at[common == 0]] = True
