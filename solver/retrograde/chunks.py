"""The chunks of a layer: the units of work of the layered build, and how much work each layer is.

A chunk is whole rows of one tile of the index (:mod:`solver.encoding.index`; a row is
one high half-board with every low half-board of its group), about :data:`CHUNK_BOARDS`
boards: a worker solves it in bounded memory (:mod:`solver.retrograde.kernel`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..encoding.layouts import layout
from ..rules.game import Game

CHUNK_BOARDS = 1 << 22
"""Boards per chunk (at least one row): bounds a worker's working memory to about 130 MiB."""


@dataclass(frozen=True)
class Chunk:
    """Rows ``row_start .. row_stop - 1`` of tile ``tile`` of layer ``ply``: layer-local indices ``start .. stop - 1``."""

    ply: int
    tile: int
    row_start: int
    row_stop: int
    start: int
    stop: int

    @property
    def boards(self) -> int:
        """How many boards the chunk holds."""
        return self.stop - self.start


@dataclass(frozen=True)
class ChunkDone:
    """Reported to the progress callback after every chunk: its layer, boards and work units.

    A chunk's work is its boards plus :data:`CHUNK_COST`: measured on 3x6k3, a board
    costs about the same in every big layer (45 to 57 ns on one core, whatever its
    empty cells), and a chunk has a fixed cost of about a millisecond. So the fraction
    of :attr:`BuildPlan.work` done is a fair guide to the time left.
    """

    ply: int
    boards: int
    work: int
    forward: bool = False
    """Whether this was the forward pass that finds which boards a game reaches (gravity,
    :mod:`solver.retrograde.gravity`: it costs about what solving them does, and counts in the work alike)."""


Progress = Callable[[ChunkDone], None]
"""Called in the client process after each chunk is written."""


def chunk_digest(scores: bytes | memoryview) -> str:
    """The digest of a chunk's scores (one byte a board): their SHA-256, in hex."""
    return hashlib.sha256(scores).hexdigest()


def layer_digest(digests: Iterable[str]) -> str:
    """The digest of a layer: the SHA-256 of its chunks' digests (:func:`chunk_digest`, as 32 bytes each) in index
    order. So a layer whose chunks were written raw by the workers needs no pass over its bytes to be recorded, and
    it is the same however many workers wrote them, in whatever order."""
    whole = hashlib.sha256()
    for digest in digests:
        whole.update(bytes.fromhex(digest))
    return whole.hexdigest()


def chunks(game: Game, ply: int, *, boards: int | None = None) -> list[Chunk]:
    """The chunks of a layer, in index order: whole rows of one tile, about ``boards`` boards each
    (default :data:`CHUNK_BOARDS`)."""
    boards = boards or CHUNK_BOARDS
    found = []
    for number, tile in enumerate(layout(game).tiles[ply]):
        rows = max(1, boards // tile.cols)
        for first in range(0, tile.rows, rows):
            last = min(tile.rows, first + rows)
            found.append(Chunk(ply, number, first, last, tile.start + first * tile.cols, tile.start + last * tile.cols))
    return found


CHUNK_COST = 20_000
"""A chunk's fixed cost in work units (boards): about a millisecond."""


def layer_work(game: Game, ply: int) -> int:
    """Work units of a layer: its boards plus :data:`CHUNK_COST` per chunk (see :class:`ChunkDone`)."""
    return layout(game).layer_sizes[ply] + CHUNK_COST * len(chunks(game, ply))
