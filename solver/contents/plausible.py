"""Scores impossible where they are stored: every block verification refuses them.

A block whose hash matches its digest can still hold a forged score when the whole file
was forged (a game without a shipped checksum). Besides the full consistency pass
(:func:`solver.store.make.prove`), every block of such a table is checked, when first
verified, for scores no position of its layer can have (:meth:`solver.rules.base.Rules.possible_scores`:
a win in more plies than cells left, a stored 127, a loss before the winner can hold a
line). A table whose checksum ships skips it (:attr:`solver.storage.tablefile.TableFile.pinned`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import cache

import numpy as np

from ..encoding.layouts import layout
from ..rules.game import Game

BlockCheck = Callable[[int, np.ndarray], "str | None"]
"""``check(first_item, items)``: a problem with a verified block's values, or None (:class:`solver.storage.tablefile.BlockGuard`)."""
CompactCheck = Callable[[int, "np.ndarray | bytes"], "str | None"]
"""A :data:`BlockCheck` that also takes the items as the bytes of int8 values (a decoded block of
:class:`solver.storage.blockarray.BlockArray`, checked without a copy)."""


@cache
def score_mask(game: Game) -> np.ndarray:
    """``mask[ply, score & 0xFF]``: whether a position with ``ply`` pieces can hold ``score`` (bool, ``cells + 1`` x 256)."""
    mask = np.zeros((game.cells + 1, 256), dtype=bool)
    for ply in range(game.cells + 1):
        mask[ply, [score & 0xFF for score in game.rules.possible_scores(ply)]] = True
    mask.setflags(write=False)
    return mask


def _problem(game: Game, where: str, ply: int, score: int) -> str:
    return f"{where} holds the score {score}, impossible for a {game.name} position with {ply} pieces on the board"


@cache
def possible_bytes(game: Game, ply: int) -> bytes:
    """The bytes (``score & 0xFF``) of every score a position with ``ply`` pieces can hold, ascending."""
    return bytes(np.flatnonzero(score_mask(game)[ply]).tolist())


def _all_possible(values: bytes, possible: bytes) -> bool:
    """Whether every byte of ``values`` (a layer's part of a block) is one of ``possible``.

    :meth:`bytes.translate` deletes the possible bytes in one C pass over the part (a
    table look-up a byte, no numpy call: about 20 µs for a 64 KiB block of 5x5k4, whatever
    its runs); a part holding only possible scores leaves nothing.
    """
    return not values.translate(None, possible)


def compact_check(game: Game, offsets: Sequence[int]) -> CompactCheck:
    """The check of a compact table's blocks: board ``i`` is in layer ``ply`` when ``offsets[ply] <= i < offsets[ply + 1]``.

    Every item is checked (:func:`_all_possible`, about 20 µs for a 64 KiB block);
    the first impossible one is named. The items are an int8 array or the bytes of one
    (a decoded block, read as it is: no copy when it lies in one layer).
    """
    last = game.cells
    possible = [possible_bytes(game, ply) for ply in range(last + 1)]

    def check(first: int, items: np.ndarray | bytes) -> str | None:
        data = items if isinstance(items, bytes) else items.tobytes()
        stop, ply = first + len(data), bisect_right(offsets, first) - 1
        while ply <= last and offsets[ply] < stop:
            a, b = max(first, offsets[ply]) - first, min(stop, offsets[ply + 1]) - first
            part = data if b - a == len(data) else data[a:b]
            if a < b and not _all_possible(part, possible[ply]):
                return _first_problem(game, first, ply, a, np.frombuffer(part, dtype=np.int8))
            ply += 1
        return None

    return check


def _first_problem(game: Game, first: int, ply: int, a: int, part: np.ndarray) -> str:
    """The message for the first impossible score of a layer's part of a block (``part`` starts at item ``a``)."""
    at = first + a + int(np.argmin(score_mask(game)[ply][part.view(np.uint8)]))
    return _problem(game, f"board {at:,} (layer {ply})", ply, int(part[at - first - a]))


def value_check(game: Game, kind: str) -> CompactCheck:
    """The check of a table's stored values for a file of ``kind`` (``"dense"`` or ``"compact"``):
    :func:`dense_check` or :func:`compact_check` (what :meth:`solver.storage.tablefile.TableFile.problems` is given)."""
    if kind == "dense":
        return dense_check(game)  # type: ignore[return-value]
    return compact_check(game, layout(game).layer_offsets)


def dense_check(game: Game) -> BlockCheck:
    """The check of a dense table's blocks of :data:`solver.storage.tablefile.ENTRY` records (each stores its pieces)."""
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
