"""Scores impossible where they are stored: every block verification refuses them.

A block whose hash matches its digest can still hold a forged score when the whole file
was forged (a game without a shipped checksum). Besides the full consistency pass
(:func:`solver.builder.prove`), every block is checked, when first verified, for scores
no position of its layer can have (:func:`solver.score.possible_scores`: a win in more
plies than cells left, a stored 127, a loss before the winner can hold a line).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import cache

import numpy as np

from ..game import Game
from ..score import possible_scores

BlockCheck = Callable[[int, np.ndarray], "str | None"]
"""``check(first_item, items)``: a problem with a verified block's values, or None (:class:`solver.tablefile.BlockGuard`)."""


@cache
def score_mask(game: Game) -> np.ndarray:
    """``mask[ply, score & 0xFF]``: whether a position with ``ply`` pieces can hold ``score`` (bool, ``cells + 1`` x 256)."""
    mask = np.zeros((game.cells + 1, 256), dtype=bool)
    for ply in range(game.cells + 1):
        mask[ply, [score & 0xFF for score in possible_scores(game.cells, game.k, ply)]] = True
    mask.setflags(write=False)
    return mask


def _problem(game: Game, where: str, ply: int, score: int) -> str:
    return f"{where} holds the score {score}, impossible for a {game.name} position with {ply} pieces on the board"


@cache
def pair_mask(game: Game, ply: int) -> np.ndarray:
    """``mask[pair]``: whether both bytes of a 16-bit ``pair`` are scores a position with ``ply`` pieces can hold
    (bool, 65,536: 64 KiB per layer, made when a layer is first checked)."""
    one = score_mask(game)[ply]
    mask: np.ndarray = (one[:, None] & one[None, :]).reshape(-1)
    mask.setflags(write=False)
    return mask


def _all_possible(game: Game, ply: int, values: np.ndarray) -> bool:
    """Whether every byte of ``values`` (uint8, a layer's part of a block) is a score its layer can hold.

    Read two bytes at a time, and only where the pair differs from the one before: a
    pair equal to the one before holds values already checked. A stored block is long
    runs of a few values, so this looks up a few thousand pairs of its 32,768.
    """
    if values.size % 2:
        if not score_mask(game)[ply][values[-1]]:
            return False
        values = values[:-1]
    if not values.size:
        return True
    pairs = values.view(np.uint16)
    changes = np.flatnonzero(pairs[1:] != pairs[:-1])
    mask = pair_mask(game, ply)
    return bool(mask[pairs[0]] and np.take(mask, pairs[changes + 1]).all())


def compact_check(game: Game, offsets: Sequence[int]) -> BlockCheck:
    """The check of a compact table's blocks: board ``i`` is in layer ``ply`` when ``offsets[ply] <= i < offsets[ply + 1]``.

    Every item is checked (:func:`_all_possible`, about 20 µs for a 64 KiB block of 4x5k4);
    the first impossible one is named.
    """
    last = game.cells

    def check(first: int, items: np.ndarray) -> str | None:
        values = items.view(np.uint8)
        stop, ply = first + values.size, bisect_right(offsets, first) - 1
        while ply <= last and offsets[ply] < stop:
            a, b = max(first, offsets[ply]) - first, min(stop, offsets[ply + 1]) - first
            if a < b and not _all_possible(game, ply, values[a:b]):
                return _first_problem(game, first, ply, a, items[a:b])
            ply += 1
        return None

    return check


def _first_problem(game: Game, first: int, ply: int, a: int, part: np.ndarray) -> str:
    """The message for the first impossible score of a layer's part of a block (``part`` starts at item ``a``)."""
    at = first + a + int(np.argmin(score_mask(game)[ply][part.view(np.uint8)]))
    return _problem(game, f"board {at:,} (layer {ply})", ply, int(part[at - first - a]))


def dense_check(game: Game) -> BlockCheck:
    """The check of a dense table's blocks of :data:`solver.tablefile.ENTRY` records (each stores its pieces)."""
    mask = score_mask(game)

    def check(first: int, items: np.ndarray) -> str | None:
        ply, score = items["ply"], items["score"].view(np.uint8)
        if ply.size and int(ply.max()) > game.cells:
            at = int(np.argmax(ply > game.cells))
            return f"code {first + at:,} says {int(ply[at])} pieces, more than the {game.cells} cells of {game.name}"
        ok = mask[ply, score]
        if ok.all():
            return None
        at = int(np.argmin(ok))
        return _problem(game, f"code {first + at:,}", int(ply[at]), int(items["score"][at]))

    return check
