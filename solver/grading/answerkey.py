"""The grader's answer key: the scores it judges by, copied out of the table before the player starts.

A game answered by search (Connect Four, :mod:`solver.store.searched`) has no file: its positions and every
move's result are searched in this process before the player starts, and the key is those answers.

A table file is memory-mapped, and a map shows every later write to the file. A
player that runs as the same user without a sandbox can open the file and rewrite
its scores; blocks already verified are not hashed again, so a grader reading the
map would judge with the new bytes. :class:`AnswerKey` closes that door: before the
player's process starts it copies, block by block, the bytes that hold the score of
every position to be graded and of every move's result there into this process's
own memory, and hashes each **copy** against the file's stored digest
(:meth:`solver.storage.tablefile.BlockGuard.verified_copy`; a compressed block is decoded
into this process's memory and hashed there). Every verdict comes from those copies.
:meth:`AnswerKey.damage` checks the same blocks of the file again afterwards, dense and
compact alike, and whether another file was put in its place, to say whether the table was
changed while the player ran.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from ..errors import TableError
from ..rules.score import UNREACHABLE
from ..tables import CompactTable, DenseTable, Table
from ..tables.position import Position

__all__ = ["AnswerKey"]

_STEP = 1 << 16
"""Positions whose moves are worked out at once (a step's children take ``_STEP * cells * 8`` bytes)."""


class AnswerKey:
    """Private, verified scores of some positions and of every position one move later.

    It answers :meth:`score_of` as a table does, so a :class:`Position` bound to it
    (:attr:`positions`) judges moves (``position.move(cell)``) from the copies alone.

    :param table: the table to copy from (only read here, before the player starts).
    :param positions: the positions to be graded (unfinished).
    """

    def __init__(self, table: Table, positions: Sequence[Position]) -> None:
        self.table = table
        self.game = table.game
        self._blocks: list[int] = []
        self._identity = _identity(getattr(table, "file", None))
        self._codes: np.ndarray | None = None
        """The codes held, sorted; None for a dense table, copied whole and indexed by code."""
        if table.searches:  # searched in this process already (the table keeps each answer): no file a player could touch
            self._scores = np.zeros(0, dtype=np.int8)
            self.positions = tuple(positions)
            return
        parents = np.fromiter((p.code for p in positions), dtype=np.int64, count=len(positions))
        steps = [parents[at : at + _STEP] for at in range(0, parents.size, _STEP)]
        if isinstance(table, DenseTable):
            self._scores = self._copy_dense()
        else:
            found = [parents] + [kids[kids >= 0] for kids in (_children(self.game, step) for step in steps)]
            self._codes = np.unique(np.concatenate(found))
            self._scores = self._copy(self._codes)
        masks = [self._best_masks(step, _children(self.game, step)) for step in steps]
        every = np.concatenate(masks).tolist() if masks else []
        scores = self._lookup(parents).tolist()
        self.positions = tuple(self._bind(p, score, mask) for p, score, mask in zip(positions, scores, every, strict=True))
        """The positions, with scores and best moves from the copies, bound to this key."""

    # -- the copies -------------------------------------------------------------------
    def _copy_dense(self) -> np.ndarray:
        """Every code's int8 score of a dense table (4x4: 43 MB), from copies of its verified blocks."""
        file = getattr(self.table, "file", None)
        if file is None:  # built in this process: its arrays are this process's memory already
            return np.array(cast(DenseTable, self.table).score, dtype=np.int8)
        guard = file.guard("entries")
        out = np.empty(self.game.codes, dtype=np.int8)
        per = 1 << guard.shift
        for block in range(guard.count):
            copy = np.frombuffer(guard.verified_copy(block), dtype=guard.spec.dtype)
            out[block * per : block * per + copy.size] = copy["score"]
            self._blocks.append(block)
        return out

    def _copy(self, codes: np.ndarray) -> np.ndarray:
        """int8 scores of ``codes`` of a compact table, read from copies of its verified blocks (or, in memory, copied)."""
        file = getattr(self.table, "file", None)
        if file is None:  # built in this process: its arrays are this process's memory already
            return np.array(self.table.lookup_codes(codes, check=False).score, dtype=np.int8).reshape(-1)
        items = cast(CompactTable, self.table).indices(codes)
        encoding = file.header.spec("scores").encoding
        if encoding is not None:
            # compressed: every block read is decoded into this process's memory and hashed there (solver.storage.blockarray)
            shift = encoding.block_bytes.bit_length() - 1
            self._blocks = np.unique(items[items >= 0] >> shift).tolist()
            return np.array(self.table.lookup_codes(codes, check=False).score, dtype=np.int8).reshape(-1)
        guard = file.guard("scores")
        out = np.full(codes.size, UNREACHABLE, dtype=np.int8)
        valid = np.flatnonzero(items >= 0)
        blocks = items[valid] >> guard.shift
        order = np.argsort(blocks, kind="stable")
        valid, blocks = valid[order], blocks[order]
        bounds = np.flatnonzero(np.diff(blocks)) + 1
        for part in np.split(np.arange(valid.size), bounds):
            if not part.size:
                continue
            block = int(blocks[part[0]])
            copy = np.frombuffer(guard.verified_copy(block), dtype=guard.spec.dtype)
            here = items[valid[part]] - (block << guard.shift)
            out[valid[part]] = copy[here]
            self._blocks.append(block)
        return out

    def score_of(self, code: int) -> int:
        """The copied score of ``code`` (a graded position or one move after it).

        :raises KeyError: for any other code: the key holds only what the grading needs.
        """
        if self._codes is None:
            if not 0 <= code < self._scores.size:
                raise KeyError(f"code {code} is not in the answer key")
            return int(self._scores[code])
        at = int(np.searchsorted(self._codes, code))
        if at >= self._codes.size or self._codes[at] != code:
            raise KeyError(f"code {code} is not in the answer key")
        return int(self._scores[at])

    def move_scores(self, position: Position) -> tuple[tuple[int, int], ...]:
        """The scores of a bound position's moves, from the copies (:meth:`solver.tables.Table.move_scores` over :meth:`score_of`)."""
        return Table.move_scores(cast(Table, self), position)

    def best_move_at(self, position: Position) -> tuple[int, int] | int:
        """A bound position's best move, from its mask (:meth:`solver.tables.Table.best_move_at`)."""
        return Table.best_move_at(cast(Table, self), position)

    def _lookup(self, codes: np.ndarray) -> np.ndarray:
        if self._codes is None:
            found: np.ndarray = self._scores[codes]
            return found
        at = np.minimum(np.searchsorted(self._codes, codes), self._codes.size - 1)
        return self._scores[at]

    def _best_masks(self, parents: np.ndarray, children: np.ndarray) -> np.ndarray:
        """Each parent's best moves, from the copies: bit ``cell`` set where the move reaches the parent's score."""
        mine = self._lookup(parents).astype(np.int64)
        child = self._lookup(np.maximum(children, 0)).astype(np.int64)
        for_mover = np.sign(child) - child  # solver.rules.score.parent_score, for whole arrays
        best = (children >= 0) & (for_mover == mine[:, None])
        masks: np.ndarray = (best.astype(np.int64) << np.arange(self.game.cells, dtype=np.int64)).sum(axis=1)
        return masks

    def _bind(self, position: Position, score: int, mask: int) -> Position:
        """``position`` with its score and best moves from the copies, bound to this key."""
        if not mask:
            raise TableError(f"{self.table.path or 'table'}: code {position.code} has no move reaching its score: the table is damaged")
        return Position(game=self.game, code=position.code, score=score, best_mask=mask, pieces=position.pieces, table=cast(Table, self))

    # -- what a user of a report may still ask ------------------------------------------------
    def at(self, code: int) -> Position:
        """The table's position of ``code`` (``position.play`` on a report's positions asks the table itself)."""
        return self.table.at(code)

    # -- afterwards -------------------------------------------------------------------
    def damage(self) -> str | None:
        """Check the copied blocks of the file again, and that the file at its path is still the one opened:
        what is damaged now, or None (also for a table in memory)."""
        file = getattr(self.table, "file", None)
        if file is None:
            return None
        name = "entries" if file.header.kind == "dense" else "scores"
        check = file.compressed(name).verify_block if file.header.spec(name).encoding is not None else file.guard(name).verified_copy
        for block in self._blocks:
            try:
                check(block)
            except TableError as error:
                return str(error)
        if _identity(file) != self._identity:
            return f"{file.path}: another file was put in its place, or its size or times changed"
        return None


def _identity(file: Any) -> tuple[int, ...] | None:
    """What tells a file at a path from another or from itself rewritten: device, inode, size, and change time (the
    change time cannot be set back by a process that is not root)."""
    if file is None:
        return None
    try:
        found = os.stat(file.path)
    except OSError:
        return (-1,)
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def _children(game: Any, codes: np.ndarray) -> np.ndarray:
    """The code one move after each of ``codes`` in each cell, shape ``(codes, cells)``; -1 where the cell is no
    move (taken; under gravity, also an empty cell that is not the lowest of its column)."""
    cells = np.arange(game.cells, dtype=np.int64)
    digits = (codes[:, None] // 3**cells) % 3
    piece = np.where((digits != 0).sum(axis=1) % 2 == 0, 1, 2)
    children = codes[:, None] + piece[:, None] * 3**cells
    playable = digits == 0
    occupied = ((digits != 0).astype(np.int64) << cells).sum(axis=1)  # the move rule's moves (gravity: one a column)
    playable &= (game.rules.moves_many(occupied)[:, None] >> cells) & 1 == 1
    return np.where(playable, children, -1)
