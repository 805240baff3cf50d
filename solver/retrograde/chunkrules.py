"""What the rules of the game say of every board of a chunk: unreachable, lost (the last mover has a line), or to be solved.

This is the m,n,k rule written for the chunk kernel (:mod:`solver.retrograde.kernel`),
per-half line sets combined by one outer AND, exactly
:func:`solver.encoding.board.rule_violation`'s rule. It is kept apart so that it can move into
:mod:`solver.rules` as it is.
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np

from ..encoding.index import Block, layout
from ..rules.game import Game
from ..rules.score import UNREACHABLE
from .chunks import Chunk
from .scratch import _scratch, _set_where

_WORD = 32
"""Lines per word of a line set (uint32): a game's lines are numbered as in :attr:`Game.line_masks`."""


@cache
def _split_lines(game: Game) -> tuple[tuple[int, int, int], ...]:
    """Every line as (full mask, low-half mask, high-half mask shifted down)."""
    low = game.cells // 2
    return tuple((line, line & ((1 << low) - 1), line >> low) for line in game.rules.line_masks)


def _words(game: Game) -> int:
    """How many uint32 words a line set of the game takes."""
    return max(1, -(-len(game.rules.line_masks) // _WORD))


def _half_lines(game: Game, high: bool, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """X's and O's line sets in one half, for every half-board of a group (``a`` X, ``b`` O), in rank order.

    Each is ``(words, boards)`` uint32 (line ``i`` is bit ``i % 32`` of word ``i // 32``): the
    lines whose cells in this half all hold the player's stones (a line with no cell here
    counts). A board has a line of a player exactly where its two half-boards' sets share a bit.
    """
    index = layout(game)
    part = index.high if high else index.low
    group = part.group(a, b)
    found = []
    for stones in (part.x[group], part.o[group]):
        sets = np.zeros((_words(game), stones.size), dtype=np.uint32)
        for number, (_, line_low, line_high) in enumerate(_split_lines(game)):
            mask = line_high if high else line_low
            sets[number // _WORD] |= ((stones & mask) == mask).astype(np.uint32) << np.uint32(number % _WORD)
        found.append(sets)
    return found[0], found[1]


@lru_cache(maxsize=1024)
def _line_classes(game: Game, high: bool, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The half-boards of a group sorted into classes by their X and O line sets (:func:`_half_lines`).

    Returns the class of each half-board (intp, in rank order), and X's and O's line sets of
    each class (``(words, classes)`` uint32). The rules see a board only through its two
    half-boards' classes: a group of 4x5k4's 4200 half-boards has 211 classes, 5x5k4's
    biggest (90,090) 3,921.
    """
    x_sets, o_sets = _half_lines(game, high, a, b)
    classes, of_board = np.unique(np.concatenate([x_sets, o_sets]).T, axis=0, return_inverse=True)
    words = x_sets.shape[0]
    return of_board.reshape(-1).astype(np.intp), np.ascontiguousarray(classes[:, :words].T), np.ascontiguousarray(classes[:, words:].T)


@cache
def _common_tables(game: Game) -> np.ndarray:
    """The AND of the cell masks of the lines in each byte of a line set: ``[word, byte, value]``, int32 (-1: no line)."""
    tables = np.full((_words(game), 4, 256), -1, dtype=np.int32)
    values = np.arange(256)
    for number, line in enumerate(game.rules.line_masks):
        word, bit = divmod(number, _WORD)
        tables[word, bit // 8, (values >> (bit % 8) & 1) == 1] &= line
    return tables


def _may_meet(rows: np.ndarray, cols: np.ndarray) -> bool:
    """Whether some row's line set and some column's share a bit (else the outer AND is all zero)."""
    return int(np.bitwise_or.reduce(rows)) & int(np.bitwise_or.reduce(cols)) != 0


RULES_FOLLOW = -1
"""In a chunk's rule scores: the board's score follows from its children (no rule decides it)."""


def _rule_scores(game: Game, chunk: Chunk, block: Block) -> np.ndarray:
    """What the rules say of every board of a chunk (int8, rows x cols): ``UNREACHABLE``, ``-WIN``
    (the last mover has a line), or :data:`RULES_FOLLOW`.

    The rules are applied once per pair of a high-half class and a low-half class present in
    the chunk (:func:`_line_classes`) and spread to the boards by a row gather (a copy per
    row) and a column gather; where classes do not save at least half the work, to every
    board directly.
    """
    r0, r1 = chunk.row_start, chunk.row_stop
    row_class, high_x, high_o = _line_classes(game, True, block.hx, block.ho)
    col_class, low_x, low_o = _line_classes(game, False, block.lx, block.lo)
    rows = row_class[r0:r1]
    shape = (r1 - r0, block.cols)
    present = np.zeros(high_x.shape[1], dtype=np.intp)
    present[rows] = 1
    used = np.flatnonzero(present)
    if 2 * used.size * low_x.shape[1] > shape[0] * shape[1]:
        return _apply_rules(game, chunk.ply, (high_x[:, rows], high_o[:, rows]), (low_x[:, col_class], low_o[:, col_class]))
    table = _apply_rules(game, chunk.ply, (high_x[:, used], high_o[:, used]), (low_x, low_o))
    present[used] = np.arange(used.size)  # now: a present class's row in the table
    spread = np.take(table, present[rows], axis=0, out=_scratch("spread", (shape[0], table.shape[1]), np.int8), mode="clip")
    return np.take(spread, col_class, axis=1, out=_scratch("rules", shape, np.int8), mode="clip")


def _apply_rules(game: Game, ply: int, rows: tuple[np.ndarray, np.ndarray], cols: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """The rules for every pair of a row's and a column's X and O line sets (``(words, n)`` each): int8, scratch.

    Exactly :func:`solver.encoding.board.rule_violation`'s rule: unreachable if the side to move has a
    line, or the last mover's lines share no cell; else ``-WIN`` if the last mover has a line.
    """
    x_moved_last = ply % 2 == 1
    mover, to_move = ((rows[0], cols[0]), (rows[1], cols[1])) if x_moved_last else ((rows[1], cols[1]), (rows[0], cols[0]))
    shape = (rows[0].shape[1], cols[0].shape[1])
    unreachable, won, flag = _scratch("unreachable", shape, bool), _scratch("won", shape, bool), _scratch("flag", shape, bool)
    unreachable.fill(False)
    won.fill(False)
    mover_sets: list[tuple[int, np.ndarray]] = []
    for word in range(_words(game)):
        high, low = to_move[0][word], to_move[1][word]
        if _may_meet(high, low):
            sets = np.bitwise_and(high[:, None], low[None, :], out=_scratch("sets", shape, np.uint32))
            unreachable |= np.not_equal(sets, 0, out=flag)
        high, low = mover[0][word], mover[1][word]
        if _may_meet(high, low):
            lines = np.bitwise_and(high[:, None], low[None, :], out=_scratch(f"lines{word}", shape, np.uint32))
            won |= np.not_equal(lines, 0, out=flag)
            mover_sets.append((word, lines))
    if mover_sets:
        _mark_unshared(game, mover_sets, won, unreachable)
    rules = _scratch("rule table", shape, np.int8)
    rules.fill(RULES_FOLLOW)
    _set_where(rules, won, game.rules.line_score)  # -WIN, or +WIN in misère play
    _set_where(rules, unreachable, UNREACHABLE)
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
