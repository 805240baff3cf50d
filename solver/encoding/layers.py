"""The rules as arrays: per-mask tables over all ``2**cells`` masks, and the boards of each ply.

A board is two bit masks (X's and O's cells) next to its base-3 code, so the rules
become look-ups in tables over the masks (``win[mask]``: the mask holds a whole line).
The dense build (:mod:`solver.retrograde.dense`) walks the plies forward with these, and
the counts of a table (:mod:`solver.tables.summary`) are taken over the same layers; nothing
here computes a score.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..rules.game import Game


@dataclass(frozen=True)
class Layer:
    """The reachable boards of one ply: codes and the X and O masks, aligned."""

    ply: int
    codes: np.ndarray
    x: np.ndarray
    o: np.ndarray

    @property
    def mover(self) -> np.ndarray:
        """Masks of the player who moved last (X after an odd ply)."""
        return self.x if self.ply % 2 else self.o


@dataclass(frozen=True)
class MaskTables:
    """Per-mask look-up tables of a game (``2**cells`` entries each)."""

    base3: np.ndarray  #: int64, the code of a mask's cells holding digit 1
    popcount: np.ndarray  #: int8, pieces in the mask


@cache
def mask_tables(game: Game) -> MaskTables:
    """The :class:`MaskTables` of a game (built once per process)."""
    masks = np.arange(1 << game.cells, dtype=np.int64)
    base3 = np.zeros_like(masks)
    popcount = np.zeros(masks.size, dtype=np.int8)
    for cell in range(game.cells):
        bit = (masks >> cell) & 1
        base3 += bit * 3**cell
        popcount += bit.astype(np.int8)
    return MaskTables(base3, popcount)


@cache
def _half_boards(game: Game, low: int, cells: int) -> dict[tuple[int, int], tuple[np.ndarray, ...]]:
    """Every board of ``cells`` cells, grouped by (X count, O count): (codes, x, o)."""
    tables = mask_tables(game)
    span = np.arange(1 << cells, dtype=np.int64)
    x, o = np.meshgrid(span, span, indexing="ij")
    disjoint = (x & o) == 0
    x, o = x[disjoint], o[disjoint]
    codes = tables.base3[x] + 2 * tables.base3[o]
    nx, no = tables.popcount[x], tables.popcount[o]
    groups: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}
    for a in range(cells + 1):
        for b in range(cells + 1 - a):
            pick = (nx == a) & (no == b)
            groups[a, b] = (codes[pick], x[pick], o[pick])
    return groups


def candidates(game: Game, ply: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every board with the piece counts of ``ply`` (codes, x, o), reachable or not.

    The board is split into a low and a high half; each count split is an outer
    sum of the halves' boards. The order is fixed, so builds are deterministic.
    """
    n_x, n_o = (ply + 1) // 2, ply // 2
    low = game.cells // 2
    high = game.cells - low
    low_boards = _half_boards(game, 0, low)
    high_boards = _half_boards(game, low, high)
    shift = 3**low
    parts = []
    for hx in range(min(n_x, high) + 1):
        for ho in range(min(n_o, high - hx) + 1):
            lx, lo = n_x - hx, n_o - ho
            if lx < 0 or lo < 0 or lx + lo > low:
                continue
            hc, hxm, hom = high_boards[hx, ho]
            lc, lxm, lom = low_boards[lx, lo]
            parts.append(
                (
                    (hc[:, None] * shift + lc[None, :]).ravel(),
                    ((hxm[:, None] << low) | lxm[None, :]).ravel(),
                    ((hom[:, None] << low) | lom[None, :]).ravel(),
                )
            )
    return tuple(np.concatenate(arrays) for arrays in zip(*parts, strict=True))  # type: ignore[return-value]


def layer_of(game: Game, ply: int, reachable: np.ndarray) -> Layer:
    """The boards of ``ply`` marked in ``reachable`` (a bool array over all codes)."""
    codes, x, o = candidates(game, ply)
    keep = reachable[codes]
    return Layer(ply, codes[keep].astype(np.uint32), x[keep].astype(np.uint16), o[keep].astype(np.uint16))


def layers(game: Game, reachable: np.ndarray) -> Iterator[Layer]:
    """The layers of the boards marked in ``reachable``, from the empty board to the full one."""
    for ply in range(game.cells + 1):
        yield layer_of(game, ply, reachable)
