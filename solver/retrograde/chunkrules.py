"""What the rules of the game say of every board of a chunk: unreachable, finished (the last mover completed a line), or to be solved.

The rule itself is the game's (:mod:`solver.retrograde.halves`: line sets of half-boards, combined
by one outer AND); this module feeds it the chunk's half-boards from the index, grouped into
classes so that the rule runs once per pair of classes, and spreads the answer to the boards.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..encoding.index import Tile
from ..encoding.layouts import layout
from ..rules.game import Game
from ..scratch import scratch_array
from .chunks import Chunk
from .halves import RULES_FOLLOW as RULES_FOLLOW  # re-exported for the kernel
from .halves import grid_scores, half_line_sets


def _half_lines(game: Game, high: bool, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """X's and O's line sets in one half, for every half-board of a group (``a`` X, ``b`` O), in rank order.

    Each is ``(words, boards)`` uint32 (line ``i`` is bit ``i % 32`` of word ``i // 32``): the
    lines whose cells in this half all hold the player's stones (a line with no cell here
    counts). A board has a line of a player exactly where its two half-boards' sets share a bit.
    """
    index = layout(game)
    part = index.high if high else index.low
    group = part.group(a, b)
    split = {"low_mask": index.low_mask, "shift": index.shift}
    return half_line_sets(game, part.x[group], high=high, **split), half_line_sets(game, part.o[group], high=high, **split)


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


RuleParts = tuple[np.ndarray, np.ndarray, np.ndarray]
"""What the rules say of a chunk's boards, before it is spread to them (:func:`rule_parts`): ``table, row_of,
column_of``; board ``(i, j)`` of the chunk reads ``table[row_of[i], column_of[j]]``."""


def rule_scores(game: Game, chunk: Chunk, tile: Tile) -> np.ndarray:
    """What the rules say of every board of a chunk (int8, rows x cols): ``UNREACHABLE``, the rule's
    line score (the last mover completed a line), or :data:`RULES_FOLLOW`.

    :func:`rule_parts` spread to the boards by a row gather (a copy per row) and a column gather (numpy; the build's
    hooks spread them compiled: :func:`solver.retrograde.compiled.spread_rules`).
    """
    table, row_of, column_of = rule_parts(game, chunk, tile)
    spread = np.take(table, row_of, axis=0, out=scratch_array("spread", (row_of.size, table.shape[1]), np.int8), mode="clip")
    return np.take(spread, column_of, axis=1, out=scratch_array("rules", (row_of.size, column_of.size), np.int8), mode="clip")


def rule_parts(game: Game, chunk: Chunk, tile: Tile) -> RuleParts:
    """What the rules say of every board of a chunk (:data:`RuleParts`): a table of ``UNREACHABLE``, the rule's line
    score or :data:`RULES_FOLLOW` (int8, a working array of this thread: read it before the next chunk's), and where
    each row and each column of the chunk reads it (intp).

    The rules are applied once per pair of a high-half class and a low-half class present in
    the chunk (:func:`_line_classes`); where classes do not save at least half the work, to every
    board directly (the table is the chunk's boards, read in place).
    """
    r0, r1 = chunk.row_start, chunk.row_stop
    row_class, high_x, high_o = _line_classes(game, True, tile.hx, tile.ho)
    col_class, low_x, low_o = _line_classes(game, False, tile.lx, tile.lo)
    rows = row_class[r0:r1]
    shape = (r1 - r0, tile.cols)
    present = np.zeros(high_x.shape[1], dtype=np.intp)
    present[rows] = 1
    used = np.flatnonzero(present)
    shared = not game.rules.table_marks_unreached  # gravity: which boards a game reaches is found forward (solver.retrograde.gravity)
    if 2 * used.size * low_x.shape[1] > shape[0] * shape[1]:
        table = grid_scores(game, chunk.ply, (high_x[:, rows], high_o[:, rows]), (low_x[:, col_class], low_o[:, col_class]), shared=shared)
        return table, np.arange(shape[0], dtype=np.intp), np.arange(shape[1], dtype=np.intp)
    table = grid_scores(game, chunk.ply, (high_x[:, used], high_o[:, used]), (low_x, low_o), shared=shared)
    present[used] = np.arange(used.size)  # now: a present class's row in the table
    return table, present[rows], col_class


DropRuleParts = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.int8]
"""What the compiled rules of a gravity chunk read (:func:`solver.retrograde.compiled.line_rules`'s arguments but
``out``): the last mover's and the side to move's line sets of the high half's classes, each row's class, the last
mover's and the side to move's line sets of each column's low half-board, and the rule's line score."""


def drop_rule_parts(game: Game, chunk: Chunk, tile: Tile) -> DropRuleParts:
    """What :func:`rule_scores` of a chunk of a game whose build finds the boards reached forward (gravity: no check of
    lines that share no cell, :func:`solver.retrograde.halves.grid_scores`) reads, for a compiled pass over the boards
    (:data:`DropRuleParts`; :func:`solver.retrograde.gravity.drop_rule_scores`), which ANDs each board's two halves'
    line sets word by word: the class grids take whole-matrix numpy passes a word and a player instead (32 % of a
    6x6k4-gravity sweep worker's time, sampled at layer 35)."""
    assert game.rules.table_marks_unreached, f"{game.name}'s rules tell every board no game reaches (lines that share no cell): use rule_parts"
    row_class, high_x, high_o = _line_classes(game, True, tile.hx, tile.ho)
    low_x, low_o = _column_sets(game, tile.lx, tile.lo)
    rows = row_class[chunk.row_start : chunk.row_stop]
    if chunk.ply % 2 == 1:  # X moved last
        return high_x, high_o, rows, low_x, low_o, np.int8(game.rules.line_score)
    return high_o, high_x, rows, low_o, low_x, np.int8(game.rules.line_score)


@lru_cache(maxsize=1024)
def _column_sets(game: Game, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """X's and O's line sets of every low half-board of a group (``a`` X, ``b`` O), a column each (``(words,
    boards)`` uint32, contiguous: :func:`_line_classes` read through each board's class once)."""
    col_class, low_x, low_o = _line_classes(game, False, a, b)
    return np.ascontiguousarray(low_x[:, col_class]), np.ascontiguousarray(low_o[:, col_class])
