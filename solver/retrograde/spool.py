"""The worker's side of the layered build: a task solves chunks and writes them into the layer's partial file.

A chunk is written at its own offset of ``layer-PP.i8.partial`` (its span: :meth:`solver.retrograde.builddir.BuildDir.spans`;
a gravity build's layers keep the boards reached alone, :mod:`solver.retrograde.sparse`, always raw), a sparse file of the layer's size: **raw** when the
disk has room for the whole layer beside its child (the sweep decides, layer by layer: :mod:`solver.retrograde.sweep`),
so the partial file becomes the layer itself, or else **spooled** compressed (zstd or zlib at level 1,
:func:`spool_bytes`), so only the compressed chunks take disk, to be decoded (:func:`unspool`) when the layer is
finished. The sweep journals each chunk's digest and length.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..encoding.layouts import layout
from ..rules.game import parse_game
from ..storage.blockarray import new_file_codec
from .builddir import BuildDir
from .chunks import Chunk, chunk_digest
from .kernel import solve_chunk
from .pieces import PieceSealing, SealedPiece, seal_piece
from .reachfile import write_at

ChunkResult = tuple[int, int, str, int, SealedPiece | None]
"""What a worker reports for a chunk: its first index in the layer, its boards, its digest
(:func:`solver.retrograde.chunks.chunk_digest` of its bytes in the layer's file), the bytes it takes in the layer's
partial file (its span when written raw: :meth:`solver.retrograde.builddir.BuildDir.spans`; fewer when spooled
compressed: :func:`spool_bytes`) and the chunk sealed for the table where the build seals the layer as it is
solved (:mod:`solver.retrograde.pieces`; else None)."""


def run_chunks(
    directory: str, game_name: str, ply: int, todo: Sequence[Chunk], *, raw: bool = False, flush: bool = False, sealing: PieceSealing | None = None
) -> list[ChunkResult]:
    """Solve chunks of layer ``ply`` of the build in ``directory`` and write them into its partial file.

    Runs in a worker (a local process or a Dask worker), so the game travels by its
    name (the task's arguments are sent to the worker): it memory-maps layer
    ``ply + 1`` read-only (:meth:`solver.retrograde.builddir.BuildDir.scores`) and opens the partial file of layer ``ply`` (both without
    following links, :meth:`solver.retrograde.builddir.BuildDir.open`), and writes each chunk at the
    chunk's own offset (its span). Returns, per chunk, its first index, its boards, its digest
    (:func:`solver.retrograde.chunks.chunk_digest`), how many bytes it takes in the partial file (for the layer's
    journal) and, with ``sealing``, the chunk sealed for the table while its scores are in memory
    (:func:`solver.retrograde.pieces.seal_piece`).

    :param raw: write the scores as they are (the partial file becomes the layer), not spooled (:func:`spool_bytes`).
    :param flush: write the chunks to the file before returning (for a shared file
        system seen by other machines; on one machine the page cache is shared).
    """
    game = parse_game(game_name)
    build = BuildDir(Path(directory), game)
    # opened per task, not kept: a map kept by a worker would hold the child's disk after it retires
    child = None if ply == game.cells else build.scores(ply + 1)
    spans = build.spans(ply)
    fd = build.open(build.partial_path(ply), os.O_WRONLY)
    offset = layout(game).layer_offsets[ply]
    done: list[ChunkResult] = []
    try:
        for chunk in todo:
            reached = build.reached(ply, chunk.start, chunk.stop) if game.build_walks_forward else None
            scores = solve_chunk(game, chunk, child, reached)
            kept = _kept(scores, reached) if reached is not None and build.sparse else scores
            data = kept.data if raw or build.sparse else spool_bytes(scores)
            write_at(fd, data, spans[chunk.start][0])
            piece = None if sealing is None else seal_piece(game, ply, scores, chunk.start, offset, sealing)
            done.append((chunk.start, chunk.boards, chunk_digest(kept.data), len(data), piece))
        if flush:
            os.fsync(fd)
    finally:
        os.close(fd)
    return done


def _kept(scores: np.ndarray, reached: np.ndarray) -> np.ndarray:
    """What a sparse layer keeps of a chunk: the scores of its boards reached alone, in order (compiled:
    :func:`solver.retrograde.compiled.reached_scores`, a third of ``np.compress``'s time)."""
    from .compiled import reached_scores  # numba, loaded by the first chunk a gravity build keeps (not by a look-up)

    return reached_scores(scores, reached)


SPOOL_LEVEL = 1
"""The compression level of the layer being solved: the fastest (it is read once, when the layer is finished)."""


def spool_bytes(scores: np.ndarray) -> bytes:
    """A chunk's scores as they are spooled: compressed (the default codec of :mod:`solver.storage.blockarray`, at
    :data:`SPOOL_LEVEL`) when that is shorter, else raw; so they always fit in the chunk's own bytes."""
    packed = new_file_codec().compress(scores.data, SPOOL_LEVEL)
    return packed if len(packed) < scores.size else scores.tobytes()


def unspool(data: bytes, boards: int) -> bytes | None:
    """The scores of a spooled chunk of ``boards`` boards (:func:`spool_bytes`), or None if they cannot be decoded."""
    if len(data) == boards:
        return data
    try:
        return new_file_codec().decompress(data, boards)
    except ValueError:
        return None
