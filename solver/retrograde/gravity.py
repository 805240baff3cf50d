"""The drop rule's kernel hook: which boards a game reaches (forward), and a chunk's scores (backward).

The build calls it through :mod:`solver.retrograde.kernel`, the one entry, for a game whose move rule is
:class:`solver.rules.gravity.Drop` (a piece drops; reachability needs a forward pass).

A gravity layout (:mod:`solver.encoding.columns`) has the tiles of every layout, and a move
changes one column: a drop in the low half keeps a tile's row, one in the high half its
column, as :mod:`solver.retrograde.placement` relies on. Two things differ from the placement kernel:

* **Moves per half-board differ** (a full column has none), so each column of a half is
  one gather, and a half-board with no move there reads a pad: ``+127`` for the smallest
  child (never the smallest), 0 for "a parent reaches it" (never true).
* **Reachability is not a closed form** (:mod:`solver.rules.gravity`: the order of the
  moves matters), so it is found **forward**, layer by layer from the empty board
  (:func:`reach_layers`): a board of layer ``p`` is reached when lifting the top piece of
  some column, of the last mover's colour, leaves a board of layer ``p - 1`` that is reached
  and in play (no line; the rules of :mod:`solver.retrograde.chunkrules` say which). The
  backward pass (:func:`solve_chunk`) then marks every board not reached ``UNREACHABLE``.

Both passes are compiled (:func:`solve_chunk`: :func:`solver.retrograde.compiled.best_of_children`;
:func:`reach_chunk`: :func:`solver.retrograde.compiled.lifted_bits`), with their numpy passes kept as their plain twins
(:func:`plain_chunk`, :func:`plain_reach_chunk`: the same bytes, checked by the tests). Both run over the same chunks
as the m,n,k build. The forward pass holds bits, never a byte a board: the layer before's boards reached and in play,
read by the kernel a byte of bits at a time (each board in play sets the boards its drops reach, the same boards
as the plain twin's lifts), and the layer it finds, whose chunks set their bits one by one (a chunk
need not start on a byte: :func:`put_bits`). In a build (:func:`write_reach`) the boards reached go to the build
directory's ``reach-PP.zbits``, a compressed frame a chunk (:mod:`solver.retrograde.reachfile`), before the sweep
starts, and the boards in play go to files of their own, the layer before's mapped (:class:`PlayingFiles`):
4x8k4-gravity's pass reads at most 2.15 GB of bits (:func:`solver.retrograde.plan.reach_bytes`), where bytes took 51 GB.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np

from ..encoding.columns import ColumnHalf, ColumnLayout
from ..encoding.index import Tile
from ..encoding.layouts import layout
from ..rules.game import Game
from ..rules.score import UNREACHABLE
from ..scratch import scratch_array
from ..storage.blockarray import new_file_codec
from .builddir import BuildDir
from .chunkrules import RULES_FOLLOW, drop_rule_parts, rule_scores
from .chunks import Chunk, ChunkDone, Progress, chunks, layer_work
from .reachfile import FrameWriter, write_at
from .sparse import ChildScores, as_child

if TYPE_CHECKING:
    from .compiled import Children  # the compiled kernel loads numba: imported where a chunk is scored

_PAD_SMALLEST = np.int8(127)
"""What a missing move reads as in the backward pass: above every score, so never the smallest child."""


def _layout(game: Game) -> ColumnLayout:
    index = layout(game)
    assert isinstance(index, ColumnLayout), f"{game.name} is not a gravity game"
    return index


def _columns_of(part: ColumnHalf, keys: np.ndarray) -> tuple[list[np.ndarray], list[np.int64]]:
    """Per column of the half: the state of each half-board's column and the key's place value of that column."""
    states: list[np.ndarray] = []
    places: list[np.int64] = []
    rest = keys
    for j in range(part.columns):
        quotient = rest // part.radix
        states.append(rest - quotient * part.radix)
        places.append(np.int64(part.radix**j))
        rest = quotient
    return states, places


def _height_colours(state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A column state's height and colours (bit ``j``: the piece at height ``j`` is X)."""
    height = (np.log2(state + 1)).astype(np.int64)  # exact: state + 1 lies in [2**h, 2**(h+1))
    height -= (1 << height) > state + 1  # guard the float rounding either way
    height += (1 << (height + 1)) <= state + 1
    return height, state - ((1 << height) - 1)


Move = Callable[[np.ndarray, np.ndarray, int], tuple[np.ndarray, np.ndarray]]
"""What a move does to a column: ``(where it can, the new state)`` from the column's heights, colours and rows."""


def _targets(game: Game, high: bool, a: int, b: int, move: Move) -> np.ndarray:
    """Per column of a half, the rank of each half-board of a group (``a`` X, ``b`` O) after ``move`` in that column
    (``(columns, boards)`` intp, -1 where the move cannot be made there)."""
    part = _layout(game).high if high else _layout(game).low
    assert isinstance(part, ColumnHalf)
    keys = part.states[part.group(a, b)]
    out = np.full((part.columns, keys.size), -1, dtype=np.intp)
    for j, (state, place) in enumerate(zip(*_columns_of(part, keys), strict=True)):
        can, new = move(*_height_colours(state), part.rows)
        out[j, can] = (part.packed[(keys + (new - state) * place)[can]] >> 10).astype(np.intp)
    return out


@lru_cache(maxsize=1024)
def drop_targets(game: Game, high: bool, a: int, b: int, piece: int) -> np.ndarray:
    """The children of every half-board of a group (``a`` X, ``b`` O) by a drop of ``piece`` (1 X, 2 O) in each of its
    columns: ``(columns, boards)`` intp, the child's rank in its group, or -1 where the column is full."""

    def drop(height: np.ndarray, colours: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
        return height < rows, (1 << (height + 1)) - 1 + (colours | ((piece == 1) << height))

    return _targets(game, high, a, b, drop)


@lru_cache(maxsize=1024)
def lift_targets(game: Game, high: bool, a: int, b: int, piece: int) -> np.ndarray:
    """The parents of every half-board of a group by lifting the top piece of each column where it is ``piece``:
    ``(columns, boards)`` intp, the parent's rank in its group, or -1 where that column's top is not ``piece``."""

    def lift(height: np.ndarray, colours: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
        top = np.maximum(height - 1, 0)
        is_x = (colours >> top) & 1 == 1
        return (height > 0) & (is_x == (piece == 1)), (1 << top) - 1 + (colours & ~(1 << top))

    return _targets(game, high, a, b, lift)


def _tile(game: Game, ply: int, hx: int, ho: int) -> Tile:
    tile = layout(game).tile_of(ply, hx, ho)
    assert tile is not None, f"layer {ply} of {game.name} has no tile with {hx} X and {ho} O in the high half"
    return tile


def _gather(
    source: np.ndarray, targets: np.ndarray, axis: int, pad: np.int8 | np.uint8, out: np.ndarray, combine: Callable[..., np.ndarray], first: bool
) -> bool:
    """Combine ``np.take(source, targets, axis)`` into ``out`` (the pad where a target is -1); whether ``out`` is now set."""
    missing = targets < 0
    gathered = scratch_array(f"gathered {axis}", out.shape, out.dtype.type)
    np.take(source, np.where(missing, 0, targets), axis=axis, out=gathered, mode="clip")
    if missing.any():
        if axis == 0:
            gathered[missing] = pad
        else:
            gathered[:, missing] = pad
    if first:
        np.copyto(out, gathered)
    else:
        combine(out, gathered, out=out)
    return True


def _over_moves(
    game: Game,
    chunk: Chunk,
    tile: Tile,
    layer: np.ndarray,
    *,
    other_ply: int,
    step: int,
    piece: int,
    targets: Callable[[Game, bool, int, int, int], np.ndarray],
    pad: np.int8 | np.uint8,
    combine: Callable[..., np.ndarray],
    out: np.ndarray,
) -> bool:
    """Combine over every move (``step = +1``: drops into layer ``ply + 1``) or every lift (``step = -1``: into
    ``ply - 1``) of a chunk's boards the other layer's values (``layer``, layer-local order); whether any was read."""
    r0, r1 = chunk.row_start, chunk.row_stop
    first = True
    dx, do = (step, 0) if piece == 1 else (0, step)
    low = [columns for columns in targets(game, False, tile.lx, tile.lo, piece) if columns.max(initial=-1) >= 0]
    if low:  # a move in the low half: same row of the other tile, another column
        other = _tile(game, other_ply, tile.hx, tile.ho)
        panel = layer[other.start : other.stop].reshape(other.rows, other.cols)[r0:r1]
        for columns in low:
            first = not _gather(panel, columns, 1, pad, out, combine, first) and first
    high = [rows[r0:r1] for rows in targets(game, True, tile.hx, tile.ho, piece) if rows[r0:r1].max(initial=-1) >= 0]
    if high:  # a move in the high half: same column of the other tile, another row
        other = _tile(game, other_ply, tile.hx + dx, tile.ho + do)
        rows_of = layer[other.start : other.stop].reshape(other.rows, other.cols)
        for rows in high:
            first = not _gather(rows_of, rows, 0, pad, out, combine, first) and first
    return not first


def solve_chunk(game: Game, chunk: Chunk, child_layer: np.ndarray | ChildScores | None, reached: np.ndarray | None) -> np.ndarray:
    """The scores of one chunk of a gravity layer (int8, flat, index order), from the next layer's scores (an array,
    or a sparse layer: :mod:`solver.retrograde.sparse`) and which of the chunk's boards a game reaches (``reached``:
    bool, flat, from :func:`reach_layers`), by the compiled kernel (:func:`solver.retrograde.compiled.best_of_children`).
    A chunk no game reaches reads no child, nor does a row of it none reaches the rows of children only it has."""
    assert reached is not None, "a gravity chunk is solved knowing which of its boards a game reaches"
    if not reached.any():
        return np.full(chunk.boards, UNREACHABLE, dtype=np.int8)
    if chunk.ply == game.cells:  # no children: the rules and the full board's score
        return plain_chunk(game, chunk, None, reached)
    assert child_layer is not None
    tile = layout(game).tiles[chunk.ply][chunk.tile]
    from .compiled import score_chunk  # numba, loaded by the first chunk a build scores (not by a look-up)

    rows_reached = np.asarray(reached.reshape(chunk.row_stop - chunk.row_start, tile.cols).any(axis=1))
    children = _drop_children(game, chunk, tile, as_child(child_layer), rows_reached)
    return score_chunk(children, drop_rule_scores(game, chunk, tile, rows_reached), reached, rows_reached)


def drop_rule_scores(game: Game, chunk: Chunk, tile: Tile, live: np.ndarray | None = None) -> np.ndarray:
    """What the rules say of every board of a chunk (:func:`solver.retrograde.chunkrules.rule_scores`'s bytes, int8,
    chunk rows x tile columns, a working array of this thread), by the compiled pass over its boards
    (:func:`solver.retrograde.compiled.line_rules` of :func:`solver.retrograde.chunkrules.drop_rule_parts`): 0.3 to
    0.5 ns a board against 7 to 18 for the class grids spread, on 6x6k4-gravity's layers 20, 30 and 34.

    :param live: the rows whose boards are ruled (bool, a row each; None: every row); the others hold what was left
        in the working array (their boards no game reaches, and nobody reads).
    """
    from .compiled import NOT_MARKED, line_rules  # numba, loaded by the first chunk a build walks or scores (not by a look-up)

    out = scratch_array("drop rules", (chunk.row_stop - chunk.row_start, tile.cols), np.int8)
    line_rules(*drop_rule_parts(game, chunk, tile), NOT_MARKED if live is None else live, out)
    return out


def _drop_children(game: Game, chunk: Chunk, tile: Tile, child_layer: ChildScores, rows_reached: np.ndarray) -> Children:
    """Where a chunk's children lie, as :func:`solver.retrograde.compiled.best_of_children` takes them: the child
    panel of the drops in the low half and each drop's columns, the child tile of the drops in the high half (or its
    rows read, :meth:`solver.retrograde.sparse.ChildScores.rows_of`) and each drop's rows (-1 where the column is full,
    or where no board of the chunk's row is reached: its scores are not read; empty where no board of the chunk can
    drop in that half)."""
    r0, r1 = chunk.row_start, chunk.row_stop
    piece = 1 if chunk.ply % 2 == 0 else 2
    columns = drop_targets(game, False, tile.lx, tile.lo, piece)
    across = np.empty((r1 - r0, 0), dtype=np.int8)
    if columns.max(initial=-1) >= 0:
        child = _tile(game, chunk.ply + 1, tile.hx, tile.ho)
        across = child_layer.panel(child.start, child.cols, r0, r1, rows_reached)
    else:
        columns = columns[:0]
    rows = np.where(rows_reached, drop_targets(game, True, tile.hx, tile.ho, piece)[:, r0:r1], -1)
    below = np.empty((0, tile.cols), dtype=np.int8)
    if rows.max(initial=-1) >= 0:
        hx, ho = (tile.hx + 1, tile.ho) if piece == 1 else (tile.hx, tile.ho + 1)
        child = _tile(game, chunk.ply + 1, hx, ho)
        below, rows = child_layer.rows_of(child.start, child.cols, child.rows, rows)
    else:
        rows = rows[:0]
    return across, columns, below, np.ascontiguousarray(rows, dtype=np.intp)


def plain_chunk(game: Game, chunk: Chunk, child_layer: np.ndarray | ChildScores | None, reached: np.ndarray | None) -> np.ndarray:
    """:func:`solve_chunk` by numpy passes: the compiled kernel's plain twin (the same bytes; a sparse child is made
    dense whole, for the tests)."""
    assert reached is not None, "a gravity chunk is solved knowing which of its boards a game reaches"
    index = layout(game)
    tile = index.tiles[chunk.ply][chunk.tile]
    shape = (chunk.row_stop - chunk.row_start, tile.cols)
    rules = rule_scores(game, chunk, tile)
    scores = scratch_array("gravity scores", shape, np.int8)
    if chunk.ply == game.cells:
        scores.fill(game.rules.full_score)  # full, no line: a draw (armageddon: O's win)
    else:
        assert child_layer is not None
        if not isinstance(child_layer, np.ndarray):
            child_layer = child_layer.panel(0, 1, 0, len(child_layer)).reshape(-1)
        smallest = scratch_array("gravity smallest", shape, np.int8)
        piece = 1 if chunk.ply % 2 == 0 else 2
        kwargs = {"other_ply": chunk.ply + 1, "step": 1, "piece": piece, "targets": drop_targets, "pad": _PAD_SMALLEST}
        if not _over_moves(game, chunk, tile, child_layer, combine=np.minimum, out=smallest, **kwargs):  # type: ignore[arg-type]
            smallest.fill(_PAD_SMALLEST)  # no board of the chunk has a move: all full, ruled below
        np.sign(smallest, out=scores)
        np.subtract(scores, smallest, out=scores)
    decided = rules != RULES_FOLLOW
    np.copyto(scores, rules, where=decided)
    out = scores.reshape(-1).copy()
    out[~reached] = UNREACHABLE
    return out


def reach_chunk(game: Game, chunk: Chunk, parent_playing: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Which boards of a chunk a game reaches, and which of those are in play (bool each, flat, index order), by the
    compiled kernel (:func:`solver.retrograde.compiled.lifted_bits`).

    :param parent_playing: layer ``ply - 1``'s boards reached and in play, one bit a board in layer-local order
        (:func:`pack`; None for layer 0, the empty board).
    """
    tile = layout(game).tiles[chunk.ply][chunk.tile]
    shape = (chunk.row_stop - chunk.row_start, tile.cols)
    from .compiled import TOP_BIT, lifted_bits  # numba, loaded by the first chunk a build walks (not by a look-up)

    if chunk.ply == 0:
        return _in_play(game, chunk, tile, np.ones(shape, dtype=np.uint8), drop_rule_scores(game, chunk, tile))
    assert parent_playing is not None

    reached = np.empty(shape, dtype=np.uint8)
    live = np.empty(shape[0], dtype=bool)
    low_first, low_width, drops, high_first, rows = _lifts(game, chunk, tile)
    lifted_bits(parent_playing, low_first, low_width, drops, high_first, rows, TOP_BIT, reached, live)
    return _in_play(game, chunk, tile, reached, None if chunk.ply == game.cells else drop_rule_scores(game, chunk, tile, live))


def _lifts(game: Game, chunk: Chunk, tile: Tile) -> tuple[int, int, np.ndarray, int, np.ndarray]:
    """Where a chunk's parents lie in the layer before, as :func:`solver.retrograde.compiled.lifted_bits` takes them:
    the bit of the chunk's first row in the parent panel of the lifts in the low half, that panel's width and the
    drops of its columns (:func:`drop_targets` of the panel's group: the column of the chunk's tile each parent's drop
    reaches, -1 where the column is full); the first bit of the parent tile of the lifts in the high half and each such
    lift's rows (-1 where that column's top is not the last mover's); each empty where no board of the chunk has
    such a lift."""
    r0, r1 = chunk.row_start, chunk.row_stop
    piece = 1 if chunk.ply % 2 == 1 else 2  # the last mover's pieces are lifted
    lx, lo = (tile.lx - 1, tile.lo) if piece == 1 else (tile.lx, tile.lo - 1)
    parent = layout(game).tile_of(chunk.ply - 1, tile.hx, tile.ho) if min(lx, lo) >= 0 else None
    drops = np.empty((0, 0), dtype=np.intp)
    low_first, low_width = 0, 0
    if parent is not None:
        drops = drop_targets(game, False, lx, lo, piece)
        if drops.max(initial=-1) >= 0:
            low_first, low_width = parent.start + r0 * parent.cols, parent.cols
        else:
            drops = drops[:0]
    rows = np.ascontiguousarray(lift_targets(game, True, tile.hx, tile.ho, piece)[:, r0:r1])
    high_first = 0
    if rows.max(initial=-1) >= 0:
        hx, ho = (tile.hx - 1, tile.ho) if piece == 1 else (tile.hx, tile.ho - 1)
        high_first = _tile(game, chunk.ply - 1, hx, ho).start
    else:
        rows = rows[:0]
    return low_first, low_width, drops, high_first, rows


def _in_play(game: Game, chunk: Chunk, tile: Tile, reached: np.ndarray, rules: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """A chunk's boards reached (``reached``: 0 or 1, chunk rows x tile columns) and those of them in play, each bool
    and flat: in play where the rules (:func:`solver.retrograde.chunkrules.rule_scores`, as ``reached``; None on the
    full board) decide nothing (no line; never on the full board)."""
    flat = reached.reshape(-1).view(bool)
    if chunk.ply == game.cells or rules is None:
        return flat, np.zeros(flat.size, dtype=bool)
    return flat, flat & (rules.reshape(-1) == RULES_FOLLOW)


def plain_reach_chunk(game: Game, chunk: Chunk, parent_playing: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`reach_chunk` by numpy passes over a byte a board: its plain twin (the same boards, checked by the tests).

    :param parent_playing: layer ``ply - 1``'s boards reached and in play (uint8 0 or 1, a byte a board,
        layer-local order; None for layer 0, the empty board).
    """
    tile = layout(game).tiles[chunk.ply][chunk.tile]
    shape = (chunk.row_stop - chunk.row_start, tile.cols)
    reached = np.ones(shape, dtype=np.uint8) if chunk.ply == 0 else np.zeros(shape, dtype=np.uint8)
    if chunk.ply > 0:
        assert parent_playing is not None
        piece = 1 if chunk.ply % 2 == 1 else 2  # the last mover's pieces are lifted
        kwargs = {"other_ply": chunk.ply - 1, "step": -1, "piece": piece, "targets": lift_targets, "pad": np.uint8(0)}
        _over_moves(game, chunk, tile, parent_playing, combine=np.maximum, out=reached, **kwargs)  # type: ignore[arg-type]
    return _in_play(game, chunk, tile, reached, None if chunk.ply == game.cells else rule_scores(game, chunk, tile))


def reach_layers(game: Game, *, jobs: int = 1) -> Iterator[tuple[int, np.ndarray]]:
    """Which boards of each layer a game reaches, layer 0 first: ``(ply, packed bits)`` (:func:`pack`), each layer
    from the one before (module docstring), its chunks on ``jobs`` threads (the kernel and numpy release the GIL).

    Only bits are held: the layer before's boards in play, and the layer found's boards reached and in play (a
    caller that keeps a layer yielded holds it too). A build writes the boards reached to its file instead
    (:func:`write_reach`)."""
    sizes = layout(game).layer_sizes
    for ply, reached in _walk(game, jobs, lambda ply: LayerBits(sizes[ply])):
        yield ply, reached.bits
        del reached  # the next layer is found without this one


def count_reached(game: Game, *, jobs: int = 1, plies: int | None = None, playing: Playing | None = None) -> Iterator[tuple[int, int]]:
    """How many boards of each layer a game reaches, layer 0 first (up to layer ``plies``, default every layer):
    ``(ply, boards)``, by the forward pass (:func:`reach_layers`) keeping no layer's boards reached, only the bits of
    the boards in play of the layer it finds and of the one before (in memory, or where ``playing`` keeps them:
    :class:`PlayingFiles`). ``scripts/check_reach_counts.py`` holds them to the published counts."""
    for ply, counted in _walk(game, jobs, lambda ply: _Counted(), playing):
        yield ply, counted.boards
        if plies is not None and ply >= plies:
            return


class _Counted:
    """A layer's boards reached, counted and not kept (:func:`count_reached`)."""

    def __init__(self) -> None:
        self.boards = 0
        self._shared = threading.Lock()

    def put(self, start: int, flags: np.ndarray) -> None:
        """Count the chunk's boards reached (``flags``: bool)."""
        found = int(np.count_nonzero(flags))
        with self._shared:
            self.boards += found


class Bits(Protocol):
    """Where a layer's bits of the boards reached go, chunk by chunk (from the pass's threads)."""

    def put(self, start: int, flags: np.ndarray) -> None:
        """Set bits ``start ..`` of the layer from ``flags`` (bool): a chunk's boards."""


class LayerBits:
    """A layer's packed bits in memory (:func:`pack`; :func:`put_bits`)."""

    def __init__(self, boards: int) -> None:
        self.bits = np.zeros(-(-boards // 8), dtype=np.uint8)
        self._shared = threading.Lock()

    def put(self, start: int, flags: np.ndarray) -> None:
        """Set bits ``start ..`` from ``flags`` (bool)."""
        put_bits(self.bits, start, flags, self._shared)


Reached = TypeVar("Reached", bound=Bits)


def _walk(game: Game, jobs: int, reached_of: Callable[[int], Reached], playing: Playing | None = None) -> Iterator[tuple[int, Reached]]:
    """The forward pass, layer 0 first: each layer's boards reached set in ``reached_of(ply)``, once every chunk is;
    each layer's boards in play kept by ``playing`` (default: in memory, :class:`PlayingInMemory`) while the next
    layer is found from them."""
    keep = playing or PlayingInMemory(layout(game).layer_sizes)
    parent: np.ndarray | None = None
    with ThreadPoolExecutor(max(1, jobs), thread_name_prefix="solver-reach") as pool:
        for ply in range(game.cells + 1):
            reached = reached_of(ply)
            _reach_layer(game, ply, parent, reached, keep.sink(ply), pool)
            parent = keep.done(ply)  # the layer before's bits, read no more, dropped
            yield ply, reached
            del reached


def _reach_layer(game: Game, ply: int, parent: np.ndarray | None, reached: Bits, playing: Bits, pool: ThreadPoolExecutor) -> None:
    """Layer ``ply``'s boards reached (set in ``reached``) and in play (set in ``playing``), chunk by chunk, from the
    bits of the layer before's boards in play (``parent``: :func:`pack`; None for layer 0)."""

    def one(chunk: Chunk) -> None:
        found, live = reach_chunk(game, chunk, parent)
        reached.put(chunk.start, found)
        playing.put(chunk.start, live)

    list(pool.map(one, chunks(game, ply)))


class Playing(Protocol):
    """Where the forward pass keeps a layer's bits of the boards in play, read as the next layer is found."""

    def sink(self, ply: int) -> Bits:
        """Where the chunks of layer ``ply`` put their boards in play."""

    def done(self, ply: int) -> np.ndarray:
        """Layer ``ply``'s bits of the boards in play (:func:`pack`), once every chunk is put (the layer before's are
        read no more)."""


class PlayingInMemory:
    """A layer's bits of the boards in play held in memory (:class:`LayerBits`): proofs, counts and tests."""

    def __init__(self, sizes: tuple[int, ...]) -> None:
        self._sizes = sizes
        self._bits: LayerBits | None = None

    def sink(self, ply: int) -> Bits:
        """A new layer's bits, all 0."""
        self._bits = LayerBits(self._sizes[ply])
        return self._bits

    def done(self, ply: int) -> np.ndarray:
        """The layer's bits."""
        assert self._bits is not None
        bits, self._bits = self._bits.bits, None
        return bits


class PlayingFiles:
    """A layer's bits of the boards in play written to a file of the build directory chunk by chunk
    (:class:`FileBits`; :meth:`solver.retrograde.builddir.BuildDir.playing_path`), then mapped read-only while the
    next layer is found; the file of the layer before is deleted then. So the pass holds no layer's bits in memory of
    its own: the map's pages are the kernel's to keep while memory is free (6x6k4-gravity's layers 31 and 32 take
    9.5 GB of bits each; held in memory, the pass peaked at 18.9 GB). :meth:`close` deletes the last ones."""

    def __init__(self, build: BuildDir) -> None:
        self._build = build
        self._sizes = layout(build.game).layer_sizes
        self._open: tuple[int, FileBits] | None = None

    def sink(self, ply: int) -> Bits:
        """A new, all-0 file for layer ``ply``'s bits."""
        fd = self._build.create(self._build.playing_path(ply))
        os.ftruncate(fd, -(-self._sizes[ply] // 8))
        self._open = (fd, FileBits(fd))
        return self._open[1]

    def done(self, ply: int) -> np.ndarray:
        """The layer's file completed and mapped read-only; the layer before's deleted."""
        assert self._open is not None
        fd, bits = self._open
        self._open = None
        try:
            bits.close()
        finally:
            os.close(fd)
        if ply:
            self._build.playing_path(ply - 1).unlink(missing_ok=True)
        return np.asarray(self._build.map(self._build.playing_path(ply), -(-self._sizes[ply] // 8))).view(np.uint8)

    def close(self) -> None:
        """Delete every layer's file (an open one too)."""
        if self._open is not None:
            os.close(self._open[0])
            self._open = None
        for ply in range(len(self._sizes)):
            self._build.playing_path(ply).unlink(missing_ok=True)


class FileBits:
    """A layer's packed bits written to a file (a descriptor, the bytes 0 before): each chunk's own bytes at once, the
    first and last, which it may share with the chunks beside it, ORed here and written by :meth:`close`."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._edges: dict[int, int] = {}
        self._shared = threading.Lock()

    def put(self, start: int, flags: np.ndarray) -> None:
        """Set bits ``start ..`` from ``flags`` (bool)."""
        data = _aligned_bits(start, flags)
        if not data.size:
            return
        first, last = start // 8, start // 8 + data.size - 1
        with self._shared:
            for at, value in ((first, data[0]), (last, data[-1])):
                self._edges[at] = self._edges.get(at, 0) | int(value)
        if data.size > 2:
            write_at(self._fd, data[1:-1].tobytes(), first + 1)

    def close(self) -> None:
        """Write the bytes chunks share (once every chunk is put)."""
        for at, value in sorted(self._edges.items()):
            write_at(self._fd, bytes([value]), at)


def _aligned_bits(start: int, flags: np.ndarray) -> np.ndarray:
    """``flags`` packed from bit ``start % 8`` of their first byte (the bits before it 0): packed, then shifted a byte
    at a time."""
    lead = start % 8
    packed = np.packbits(flags)
    if not lead:
        return packed
    out = np.zeros(-(-(lead + flags.size) // 8), dtype=np.uint8)
    out[: packed.size] = packed >> lead
    carried = min(packed.size, out.size - 1)
    out[1 : 1 + carried] |= packed[:carried] << (8 - lead)
    return out


def put_bits(packed: np.ndarray, start: int, flags: np.ndarray, shared: threading.Lock) -> None:
    """Set bits ``start ..`` of a packed layer (:func:`pack`, all 0 before) from ``flags`` (bool), as a chunk does.

    A chunk need not start or stop on a byte: its first and last bytes, which it may share with the chunks beside it
    (on other threads), are ORed in holding ``shared``; the bytes between are the chunk's alone."""
    if not flags.size:
        return
    data = _aligned_bits(start, flags)
    first, last = start // 8, start // 8 + data.size - 1
    with shared:
        packed[first] |= data[0]
        packed[last] |= data[-1]
    packed[first + 1 : last] = data[1:-1]


READ_BACK = 1 << 26
"""Bytes of a layer's reach bits read back at a time to hash them (64 MiB)."""


def write_reach(build: BuildDir, *, jobs: int = 1, progress: Progress | None = None) -> None:
    """Find which boards of every layer a game reaches (the forward pass) and keep them in the build directory, a file
    a layer (:meth:`solver.retrograde.builddir.BuildDir.reach_path`, recorded once every layer's is complete), unless
    they are there already.

    Each chunk's bits are compressed as it is found and written in chunk order (:class:`solver.retrograde.reachfile.FrameWriter`:
    a frame a chunk), so the files take a fraction of a bit a board (:data:`solver.retrograde.plan.REACH_AT_MOST`);
    the bits of the boards in play go to files of a bit a board, the layer before's mapped (:class:`PlayingFiles`,
    :func:`solver.retrograde.plan.reach_bytes`).

    :param progress: called after each layer (:class:`solver.retrograde.chunks.ChunkDone`, ``forward`` set).
    """
    if build.has_reach():
        return
    build.forget_reach()
    sizes = layout(build.game).layer_sizes
    digests: list[str] = []
    opened: dict[int, int] = {}

    def reached_of(ply: int) -> FrameWriter:
        opened[ply] = fd = build.create(_partial(build.reach_path(ply)))
        return FrameWriter(fd, new_file_codec(), [chunk.start for chunk in chunks(build.game, ply)], sizes[ply])

    playing = PlayingFiles(build)
    try:
        for ply, reached in _walk(build.game, jobs, reached_of, playing):
            reached.close()
            digests.append(_kept(build.reach_path(ply), opened.pop(ply)))
            if progress is not None:
                progress(ChunkDone(ply, sizes[ply], layer_work(build.game, ply), forward=True))
    finally:
        for fd in opened.values():
            os.close(fd)
        playing.close()
    build.record_reach(digests)


def _partial(path: Path) -> Path:
    """Where a file is written before it is complete: ``<path>.partial`` beside it."""
    return path.with_name(path.name + ".partial")


def _kept(path: Path, fd: int) -> str:
    """The SHA-256 of the complete file open at ``fd`` (written as :func:`_partial` of ``path``), read back, flushed to
    disk and moved to ``path``; ``fd`` is closed."""
    digest = hashlib.sha256()
    try:
        size = os.fstat(fd).st_size
        for at in range(0, size, READ_BACK):
            digest.update(os.pread(fd, min(READ_BACK, size - at), at))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(_partial(path), path)
    return digest.hexdigest()


def pack(reached: np.ndarray) -> np.ndarray:
    """One bit a board (``np.packbits``, big-endian within a byte)."""
    return np.packbits(reached)


def unpack(bits: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Boards ``start .. stop - 1`` of a packed layer (bool)."""
    first = start // 8
    part = np.unpackbits(np.asarray(bits[first : -(-stop // 8)]))
    return part[start - 8 * first : stop - 8 * first].astype(bool)
