"""The retrograde build: every reachable board, layer by layer, valued backward.

A layer is every board after a given number of plies (X has ``ceil(p/2)``
pieces, O ``floor(p/2)``). Boards are handled as two bit masks (X's and O's
cells) next to their base-3 code, so the rules become table look-ups over the
``2**cells`` possible masks:

* ``win[mask]``: the mask holds a whole line.
* ``last_ok[mask]``: some piece of the mask, taken away, leaves no line; the
  piece that could have been played last.

**Forward** (which boards are reachable): a board of ply ``p > 0`` is reachable
exactly when its parent, the board before the last move, is reachable and not
over. With the last mover's pieces ``m`` and the other player's ``r``, that is
``not win[r] and (not win[m] or last_ok[m])``: the other player has no line (it
would have ended the game before the last move) and, if the last mover has a
line, one of their pieces completed every line they have. A layer is generated
directly, in one vectorised step, instead of expanding the layer before it
move by move; the tests check the two agree on every board.

**Backward** (scores, see :mod:`solver.score`): layers from the full board down
to the empty one. Finished boards score 0 (draw) or ``-WIN`` (lost); any other
board takes, over its empty cells, the child with the smallest score, which is
already in the dense score array. The best-move mask keeps every cell whose
child reaches that smallest score. Python loops run over plies and cells only,
never over positions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

import numpy as np

from .game import Game
from .score import UNREACHABLE, WIN

Progress = Callable[[int], None]
"""Called with the number of plies (layers) just finished."""


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
    win: np.ndarray  #: bool, the mask holds a line
    last_ok: np.ndarray  #: bool, some piece of the mask leaves no line when removed


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
    win = np.zeros(masks.size, dtype=bool)
    for line in game.line_masks:
        win |= (masks & line) == line
    last_ok = np.zeros(masks.size, dtype=bool)
    for cell in range(game.cells):
        last_ok |= ((masks >> cell) & 1).astype(bool) & ~win[masks & ~(1 << cell)]
    return MaskTables(base3, popcount, win, last_ok)


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
    groups = {}
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


def reachable_layer(game: Game, ply: int) -> Layer:
    """The reachable boards after ``ply`` plies (see the module docstring)."""
    codes, x, o = candidates(game, ply)
    if ply:
        tables = mask_tables(game)
        mover, other = (x, o) if ply % 2 else (o, x)
        keep = ~tables.win[other] & (~tables.win[mover] | tables.last_ok[mover])
        codes, x, o = codes[keep], x[keep], o[keep]
    return Layer(ply, codes, x, o)


def layers(game: Game) -> Iterator[Layer]:
    """The reachable layers from the empty board (ply 0) to the full one."""
    for ply in range(game.cells + 1):
        yield reachable_layer(game, ply)


ENTRY = np.dtype([("score", "i1"), ("ply", "u1"), ("best", "<u2")])
"""One code's entry: 4 bytes, so one memory access answers a look-up.

``score``: for the side to move (:mod:`solver.score`; ``UNREACHABLE`` if no game
reaches the code); ``ply``: pieces on the board; ``best``: bit ``cell`` set for
every best move (0 for finished and unreachable boards).
"""


def build_arrays(game: Game, *, progress: Progress | None = None) -> np.ndarray:
    """Solve a game: the :data:`ENTRY` of every code, indexed by code (``3**cells`` entries)."""
    tables = mask_tables(game)
    entries = np.zeros(game.codes, dtype=ENTRY)
    score = entries["score"]
    score[:] = UNREACHABLE
    for ply in range(game.cells, -1, -1):
        layer = reachable_layer(game, ply)
        entries["ply"][layer.codes] = ply
        over = tables.win[layer.mover] if ply else np.zeros(layer.codes.size, dtype=bool)
        finished = over | (ply == game.cells)
        score[layer.codes[finished]] = np.where(over[finished], -WIN, 0)
        playing = ~finished
        if playing.any():
            _solve_playing(game, ply, layer.codes[playing], layer.x[playing] | layer.o[playing], entries)
        if progress is not None:
            progress(1)
    return entries


def _solve_playing(game: Game, ply: int, codes: np.ndarray, occupied: np.ndarray, entries: np.ndarray) -> None:
    """Score boards that are not over from their children's scores (already known)."""
    score = entries["score"]
    piece = 1 if ply % 2 == 0 else 2
    offset = mask_tables(game).base3 * piece
    empty = game.full_mask & ~occupied
    moves = game.cells - ply
    child_scores = np.empty((moves, codes.size), dtype=np.int8)
    move_bits = np.empty((moves, codes.size), dtype=np.int64)
    for j in range(moves):
        bit = empty & -empty
        empty ^= bit
        move_bits[j] = bit
        child_scores[j] = score[codes + offset[bit]]
    lowest = child_scores.min(axis=0)
    mask = np.zeros(codes.size, dtype=np.int64)
    for j in range(moves):
        mask |= np.where(child_scores[j] == lowest, move_bits[j], 0)
    score[codes] = np.sign(lowest) - lowest
    entries["best"][codes] = mask
