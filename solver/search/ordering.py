"""Move ordering: the children most likely to be best are searched first, so that a cut-off comes early.

Pons' ``MoveSorter``: a move's rank is the number of cells where its mover would then complete a
line (the threats it makes: :func:`solver.search.negamax.settle` counts them as it judges the child,
since the opponent's non-losing moves need them); on a tie the column nearer the centre comes first
(the children come centre first and the sort is stable). A node's children are written to row ``n``
(its pieces) of a scratch array (:data:`SCRATCH_FIELDS` fields of ``cols`` slots: :func:`scratch`),
so a search allocates nothing per node.
"""

from __future__ import annotations

import numpy as np

from .bitboard import G_COLS
from .kernel import kernel

F_MOVE, F_RANK, F_POS, F_MASK, F_MPOS, F_MMASK, F_KEY, F_STORED, F_SIGN, F_ORDER = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
"""The fields of a search node's row of scratch (:func:`scratch`), ``cols`` slots each: for each
child left to search, the move, its rank, the position its forced moves lead to (its words and its mirror's), that
position's canonical key and its table byte plus one (0: not read, :data:`solver.search.negamax.NOT_PROBED`), and 1 when
that position's side to move is the child's, 0 when it is the node's own; then the children's order (indices into the
others)."""

SCRATCH_FIELDS = F_ORDER + 1
"""How many fields a scratch row holds."""


def scratch(rows: int, cols: int) -> np.ndarray:
    """The scratch array of one search: a row for each number of pieces, :data:`SCRATCH_FIELDS` fields of ``cols`` slots."""
    return np.zeros((rows * cols + 1, SCRATCH_FIELDS * cols), dtype=np.uint64)


@kernel
def order_children(geo: np.ndarray, out: np.ndarray, r: np.int64, count: np.int64) -> None:
    """Order the first ``count`` children of row ``r`` of ``out`` best first: their indices go to the row's order field
    (:data:`F_ORDER`), by each one's rank (:data:`F_RANK`, the threats its move makes), the earlier child first on a tie
    (the children come centre first)."""
    cols = np.int64(geo[G_COLS])
    for i in range(count):
        rank = out[r, F_RANK * cols + i]
        at = i
        while at > 0 and out[r, F_RANK * cols + np.int64(out[r, F_ORDER * cols + at - 1])] < rank:
            out[r, F_ORDER * cols + at] = out[r, F_ORDER * cols + at - 1]
            at -= 1
        out[r, F_ORDER * cols + at] = i
