"""The retrograde build: every reachable board, layer by layer, valued backward.

A layer is every board after a given number of plies (X has ``ceil(p/2)``
pieces, O ``floor(p/2)``). Boards are handled as two bit masks (X's and O's
cells) next to their base-3 code, so the rules become look-ups in tables over
the ``2**cells`` possible masks (``win[mask]``: the mask holds a whole line).

**Forward** (:func:`forward`): from the empty board, ply by ply. Every board of
the layer that is not over is expanded, one empty cell at a time, and its
children are marked in a dense array over all codes; the next layer is the
marked boards among those with the next ply's piece counts. So a board is
reachable exactly when a legal game leads to it.

**Backward** (:func:`build_arrays`): layers from the full board down to the
empty one. Finished boards score 0 (draw) or the rule's line score (``-WIN``: lost; ``+WIN`` in misère play); any other board
takes, over its moves (its empty cells; under gravity the lowest empty cell of each column), the child with the smallest score, which is already
in the dense score array (see :mod:`solver.rules.score`). The best-move mask keeps
every cell whose child reaches that smallest score.

Python loops run over plies and cells only, never over positions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np

from ..encoding.layers import Layer, layer_of, mask_tables
from ..rules.game import Game
from ..rules.score import UNREACHABLE

Progress = Callable[[int], None]
"""Called with the number of plies (layers) just finished."""


def _playing(game: Game, layer: Layer) -> np.ndarray:
    """Which boards of a layer are not over: no line for the last mover, an empty cell left."""
    if layer.ply == game.cells:
        return np.zeros(layer.codes.size, dtype=bool)
    if layer.ply == 0:
        return np.ones(layer.codes.size, dtype=bool)
    return np.asarray(~game.rules.completes_line(layer.mover))


def _children(game: Game, ply: int, codes: np.ndarray, occupied: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """For the j-th move of every board, j = 0, 1, ... (in cell order): (the cell's bit, the child's code).

    Under gravity boards have different numbers of moves: a board with fewer than ``j + 1``
    has bit 0 there, and its own code as the "child" (:func:`_solve_playing` ignores it).
    """
    offset = mask_tables(game).base3 * (1 if ply % 2 == 0 else 2)
    moves = game.rules.moves_many(occupied)
    while moves.size and moves.any():
        bit = moves & -moves
        moves ^= bit
        yield bit, codes + offset[bit]


def forward(game: Game, *, progress: Progress | None = None) -> list[Layer]:
    """Every reachable board, ply by ply from the empty board (see the module docstring)."""
    reached = np.zeros(game.codes, dtype=bool)
    reached[0] = True
    found = []
    for ply in range(game.cells + 1):
        layer = layer_of(game, ply, reached)
        found.append(layer)
        playing = _playing(game, layer)
        for _, child in _children(game, ply, layer.codes[playing], (layer.x | layer.o)[playing]):
            reached[child] = True
        if progress is not None:
            progress(1)
    return found


def build_steps(game: Game) -> int:
    """How many times :func:`build_arrays` calls its progress callback: each ply, forward and backward."""
    return 2 * (game.cells + 1)


class Solution(NamedTuple):
    """A solved game as three arrays indexed by code (``3**cells`` entries each).

    ``score``: int8 for the side to move (:mod:`solver.rules.score`; ``UNREACHABLE`` if no
    game reaches the code); ``ply``: uint8 pieces on the board; ``best``: uint16,
    bit ``cell`` set for every best move (0 for finished and unreachable boards).
    How they are stored is :mod:`solver.storage.tablefile`'s business.
    """

    score: np.ndarray
    ply: np.ndarray
    best: np.ndarray


def build_arrays(game: Game, *, progress: Progress | None = None) -> Solution:
    """Solve a game: the score, ply and best-move mask of every code (:class:`Solution`).

    :param progress: called with 1 after each ply of each pass (:func:`build_steps` calls).
    """
    found = forward(game, progress=progress)
    solution = Solution(np.full(game.codes, UNREACHABLE, dtype=np.int8), np.zeros(game.codes, dtype=np.uint8), np.zeros(game.codes, dtype=np.uint16))
    score = solution.score
    while found:
        layer = found.pop()  # the full board first; each layer is freed once scored
        solution.ply[layer.codes] = layer.ply
        playing = _playing(game, layer)
        over = ~playing
        line = game.rules.completes_line(layer.mover[over]) if layer.ply else np.zeros(0, dtype=bool)
        score[layer.codes[over]] = np.where(line, game.rules.line_score, game.rules.full_score)  # full: a draw (armageddon: O's win)
        if playing.any():
            _solve_playing(game, layer.ply, layer.codes[playing], (layer.x | layer.o)[playing], solution)
        if progress is not None:
            progress(1)
    return solution


def _solve_playing(game: Game, ply: int, codes: np.ndarray, occupied: np.ndarray, solution: Solution) -> None:
    """Score boards that are not over from their children's scores (already known)."""
    score = solution.score
    child_scores, move_bits = [], []
    for bit, child in _children(game, ply, codes, occupied):
        move_bits.append(bit.astype(np.uint16))
        child_scores.append(np.where(bit != 0, score[child], np.int8(127)))  # no j-th move: never the smallest
    grid = np.stack(child_scores)
    lowest = grid.min(axis=0)
    mask = np.zeros(codes.size, dtype=np.uint16)
    for bits, scores in zip(move_bits, grid, strict=True):
        mask |= np.where(scores == lowest, bits, 0)
    score[codes] = np.sign(lowest) - lowest
    solution.best[codes] = mask
