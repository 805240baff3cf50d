"""The proof of a compact table: every board's score recomputed from its stored children, layer by layer."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..encoding.board import render
from ..encoding.layouts import layout
from ..rules.game import Game
from ..storage.spill import Spill
from ..words import count
from .chunks import Chunk, chunks
from .gravity import unpack
from .kernel import reach_layers, reach_name, solve_chunk
from .sparse import SparseLayer

Layer = Callable[[int], "np.ndarray | SparseLayer"]
"""``layer(ply)``: the stored int8 scores of one layer, in layer index order (an array in memory or on disk, or a
build's sparse layer read dense: :mod:`solver.retrograde.sparse`)."""


def check_layers(
    game: Game,
    layer: Layer,
    *,
    limit: int = 5,
    plies: Iterable[int] | None = None,
    progress: Callable[[int], None] | None = None,
    spill: Spill | None = None,
    on_layer: Callable[[int, np.ndarray], None] | None = None,
    reached: Callable[[int, int, int], np.ndarray] | None = None,
) -> list[str]:
    """Parent/child consistency of a table, layer by layer from the full board down (vectorised).

    Every board's stored score is recomputed from the *stored* scores of its
    children (and the reachability rule; under gravity, which boards a game reaches is found
    again forward from the empty board, :mod:`solver.retrograde.gravity`) and compared. Together with the full
    layer (which has no children) this proves the table by induction, without a
    second table in memory. Two layers are held at a time (a layer and its child, each asked once when the plies
    follow each other), so ``layer`` may hand out arrays on disk and let each go when the next but one is asked.

    :param layer: ``layer(ply)``, the stored scores of a layer (:data:`Layer`).
    :param plies: check only these layers, each against its stored children (default: every layer).
    :param progress: called with a chunk's boards once they are checked (``solve verify``'s progress).
    :param spill: where the forward pass's bits of the boards reached go (memory or disk by their size); default:
        memory.
    :param on_layer: called with each layer checked and its scores (a proof counts them).
    :param reached: ``reached(ply, start, stop)``, which boards a game reaches (bool), as a build kept them
        (:meth:`solver.retrograde.builddir.BuildDir.reached`, each file checked by its SHA-256 before the build goes
        on), instead of the forward pass found again (gravity).
    :returns: up to ``limit`` problems, each naming the board (empty when consistent).
    """
    sizes = layout(game).layer_sizes
    wanted = sorted(set(range(game.cells + 1) if plies is None else plies), reverse=True)
    reach = {} if reached is not None else reach_layers(game, jobs=os.cpu_count() or 1, plies=set(wanted), spill=spill)  # gravity: found again, forward
    problems: list[str] = []
    above_ply, above = -1, None  # the layer checked last: the child of the next when the plies follow each other
    for ply in wanted:
        stored = layer(ply)
        child = None if ply == game.cells else above if above_ply == ply + 1 else layer(ply + 1)
        for at, array in ((ply, stored), (ply + 1, child)):
            if array is not None and len(array) != sizes[at]:
                return [f"layer {at} holds {len(array):,} boards, not the {sizes[at]:,} of {game.name}"]
        flags = reach.pop(ply, None)
        kept = None if reached is None else lambda start, stop, ply=ply: reached(ply, start, stop)
        problems += _check_layer(game, ply, stored, child, flags, limit - len(problems), progress, kept)
        if spill is not None:
            spill.release(reach_name(ply))  # its disk freed as the walk goes down
        if len(problems) >= limit:
            return problems
        if on_layer is not None:
            on_layer(ply, stored if isinstance(stored, np.ndarray) else stored[0 : len(stored)])
        above_ply, above, child = ply, stored, None  # the child let go before the next layer is asked for
    return problems


def _check_layer(
    game: Game,
    ply: int,
    stored_layer: np.ndarray | SparseLayer,
    child: np.ndarray | SparseLayer | None,
    reach: np.ndarray | None,
    limit: int,
    progress: Callable[[int], None] | None,
    kept: Callable[[int, int], np.ndarray] | None = None,
) -> list[str]:
    """One layer's boards against their children, its chunks on every core (threads: the kernel holds no GIL),
    taken in order: up to ``limit`` problems, the same on any number of cores."""
    index = layout(game)
    problems: list[str] = []

    def one(chunk: Chunk) -> tuple[Chunk, int, int, int, int]:
        """The chunk, its boards that disagree, the first of them (layer-local) and its stored and expected scores."""
        stored = np.asarray(stored_layer[chunk.start : chunk.stop])
        flags = kept(chunk.start, chunk.stop) if kept is not None else unpack(reach, chunk.start, chunk.stop) if reach is not None else None
        expected = solve_chunk(game, chunk, child, flags)
        wrong = np.flatnonzero(stored != expected)
        if not wrong.size:
            return chunk, 0, 0, 0, 0
        first = int(wrong[0])
        return chunk, int(wrong.size), chunk.start + first, int(stored[first]), int(expected[first])

    with ThreadPoolExecutor(os.cpu_count() or 1, thread_name_prefix="solver-proof") as pool:
        for chunk, wrong, first, stored, expected in pool.map(one, chunks(game, ply)):
            if wrong:
                code = index.code_of_index(index.layer_offsets[ply] + first)
                disagree = "disagrees with its" if wrong == 1 else "disagree with their"
                problems.append(
                    f"layer {ply}: {count(wrong, 'board')} {disagree} children, first {render(game, code)} (code {code}): stored {stored}, expected {expected}"
                )
                if len(problems) >= limit:
                    pool.shutdown(cancel_futures=True)
                    return problems
            if progress is not None:
                progress(chunk.boards)
    return problems
