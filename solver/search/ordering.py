"""Move ordering: the moves most likely to be best are searched first, so that a cut-off comes early.

Pons' ``MoveSorter``: a move's rank is the number of cells where its mover would then complete a
line (:func:`solver.search.bitboard.move_score`, the threats it makes); on a tie the column nearer
the centre comes first (the columns are offered centre first and the sort is stable). The moves of
the position with ``n`` pieces are written to row ``n`` of a scratch array (``cols`` moves, then
their ranks: :func:`scratch`), so a search allocates nothing per node.
"""

from __future__ import annotations

import numpy as np

from .bitboard import G_COLMASK, G_COLS, G_ORDER, ZERO, move_score
from .kernel import kernel


def scratch(rows: int, cols: int) -> np.ndarray:
    """The scratch array of one search: a row for each number of pieces, the moves then their ranks."""
    return np.zeros((rows * cols + 1, 2 * cols), dtype=np.uint64)


@kernel
def order_moves(pos: np.uint64, mask: np.uint64, moves: np.uint64, geo: np.ndarray, out: np.ndarray, row: np.int64) -> np.int64:
    """Write ``moves`` (a bit each, one a column) to ``out[row]``, best first; return how many there are."""
    cols = np.int64(geo[G_COLS])
    count = 0
    for slot in range(cols):
        move = moves & geo[G_COLMASK + np.int64(geo[G_ORDER + slot])]
        if move == ZERO:
            continue
        rank = move_score(pos, mask, move, geo)
        at = count
        while at > 0 and out[row, cols + at - 1] < rank:
            out[row, cols + at] = out[row, cols + at - 1]
            out[row, at] = out[row, at - 1]
            at -= 1
        out[row, cols + at] = rank
        out[row, at] = move
        count += 1
    return np.int64(count)
