"""The proof of a compact table: every board's score recomputed from its stored children, layer by layer."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from ..encoding.board import render
from ..encoding.layouts import layout
from ..rules.game import Game
from ..words import count
from .chunks import chunks
from .gravity import unpack
from .kernel import reach_layers, solve_chunk


def check_layers(
    game: Game, layers: Sequence[np.ndarray], *, limit: int = 5, plies: Iterable[int] | None = None, progress: Callable[[int], None] | None = None
) -> list[str]:
    """Parent/child consistency of a whole table, layer by layer (vectorised).

    Every board's stored score is recomputed from the *stored* scores of its
    children (and the reachability rule; under gravity, which boards a game reaches is found
    again forward from the empty board, :mod:`solver.retrograde.gravity`) and compared. Together with the full
    layer (which has no children) this proves the table by induction, without a
    second table in memory.

    :param layers: every layer's int8 scores, layer 0 first.
    :param plies: check only these layers, each against its stored children (default: every layer).
    :param progress: called with a chunk's boards once they are checked (``solve verify``'s progress).
    :returns: up to ``limit`` problems, each naming the board (empty when consistent).
    """
    index = layout(game)
    problems: list[str] = []
    if [len(layer) for layer in layers] != list(index.layer_sizes):
        return [f"layer sizes {[len(layer) for layer in layers]} do not fit {game.name}: expected {list(index.layer_sizes)}"]
    wanted = set(range(game.cells + 1) if plies is None else plies)
    reach = reach_layers(game, jobs=os.cpu_count() or 1, plies=wanted)  # with a forward pass (gravity): found again, forward
    for ply in sorted(wanted, reverse=True):
        child = None if ply == game.cells else layers[ply + 1]
        for chunk in chunks(game, ply):
            stored = np.asarray(layers[ply][chunk.start : chunk.stop])
            reached = unpack(reach[ply], chunk.start, chunk.stop) if reach else None
            wrong = np.flatnonzero(stored != solve_chunk(game, chunk, child, reached))
            if wrong.size:
                at = index.layer_offsets[ply] + chunk.start + int(wrong[0])
                code = index.code_of_index(at)
                expected = solve_chunk(game, chunk, child, reached)[int(wrong[0])]
                disagree = "disagrees with its" if wrong.size == 1 else "disagree with their"
                problems.append(
                    f"layer {ply}: {count(int(wrong.size), 'board')} {disagree} children, first {render(game, code)} "
                    f"(code {code}): stored {int(stored[wrong[0]])}, expected {int(expected)}"
                )
                if len(problems) >= limit:
                    return problems
            if progress is not None:
                progress(chunk.boards)
    return problems
