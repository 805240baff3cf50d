"""The dense table: one 4-byte entry per base-3 code, so a look-up is one memory access.

A :class:`DenseTable` holds games of up to 16 cells (:data:`solver.rules.game.DENSE_MAX_CELLS`):
each code's :data:`~solver.storage.tablefile.ENTRY` (score, pieces, best-move mask), indexed by
the code itself. How it is stored on disk is :mod:`solver.storage.tablefile`'s business; a
table opened from a file answers only from bytes verified in this process (each
64 KiB block is hashed the first time a look-up touches it), so a damaged file raises
:class:`TableError` instead of answering wrongly. No pickle is ever read.

It answers only: building one is :mod:`solver.store.make`'s (:func:`solver.build_table`),
opening one :mod:`solver.store.locate`'s (:func:`solver.load_table`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import ClassVar

import numpy as np

from ..contents.histograms import Counts
from ..contents.opening import game_of
from ..contents.plausible import dense_check
from ..errors import TableError
from ..rules.game import Game
from ..rules.score import UNREACHABLE
from ..storage import tablefile, trust
from ..storage.tablefile import ENTRY, BlockGuard, TableFile
from .base import Kind, Prover, Table
from .position import POSITION_SETTERS, Position
from .scores import Scores
from .summary import TableStats

_new = object.__new__
_set_game, _set_code, _set_score, _set_best, _set_pieces, _set_table, _ = POSITION_SETTERS  # scored is left unset: read when asked
_FIRST_REACHABLE_WORD = (UNREACHABLE + 1) << 24
"""As int32, every entry whose score (the top byte) is not UNREACHABLE is at least this."""
_THREADS_FROM = 1 << 20
"""Batches of at least this many codes are gathered by two threads."""
VERIFY_ON_OPEN_BYTES = 8 << 20
"""With ``verify=None``, tables up to this size are checksummed on every open."""

_pool: ThreadPoolExecutor | None = None


def _gather_part(words: np.ndarray, codes: np.ndarray, out: np.ndarray, check: bool) -> bool:
    """Gather one part of a batch into ``out``; whether every code was in range (and, with ``check``, reachable)."""
    if codes.size and codes.min() < 0:
        return False
    try:
        np.take(words, codes, out=out)  # raises for codes past the end: no second scan needed
    except IndexError:
        return False
    return not check or not out.size or out.view("<i4").min() >= _FIRST_REACHABLE_WORD


def _gather(words: np.ndarray, codes: np.ndarray, check: bool) -> tuple[np.ndarray, bool]:
    """``words[codes]`` (flattened) and whether every code was in range and reachable.

    Large batches are split over two threads: numpy releases the GIL while it
    gathers, and random look-ups into a large table wait on memory, not on the CPU.
    """
    global _pool
    flat = codes.reshape(-1)
    out = np.empty(flat.size, dtype=words.dtype)
    if flat.size < _THREADS_FROM or (os.cpu_count() or 1) < 2:
        return out, _gather_part(words, flat, out, check)
    if _pool is None:
        _pool = ThreadPoolExecutor(2, thread_name_prefix="solver-gather")
    half = flat.size // 2
    parts = [_pool.submit(_gather_part, words, flat[a:b], out[a:b], check) for a, b in ((0, half), (half, flat.size))]
    return out, all([part.result() for part in parts])  # noqa: C419 - wait for both parts, not just the first False


class DenseTable(Table):
    """A solved game of up to 16 cells: the score, pieces and best moves of every code.

    >>> from solver.store.make import build_table
    >>> table = build_table()
    >>> table.lookup("X.O/.X./..O").result
    'draw'
    >>> table.lookup(0).value, table.lookup(0).plies
    (0, 9)
    """

    kind: ClassVar[Kind] = "dense"
    lists_positions: ClassVar[bool] = True
    stores_best_moves: ClassVar[bool] = True

    def __init__(self, game: Game, entries: np.ndarray, *, path: Path | None = None, file: TableFile | None = None, prove: Prover | None = None) -> None:
        if entries.dtype != ENTRY or entries.shape != (game.codes,):
            raise TableError(f"entries {entries.dtype}{list(entries.shape)} do not fit {game.name}: expected {ENTRY}[{game.codes}]")
        self.game = game
        self.path = path
        self.file = file
        self.prove = prove
        self._codes = game.codes
        self._answer_from(entries, None if file is None else file.guard("entries"))

    def _answer_from(self, entries: np.ndarray, guard: BlockGuard | None) -> None:
        """Answer from ``entries`` from now on, each block verified by ``guard`` on first use (None: all verified)."""
        self._entries = entries
        self._words = entries.view("<u4")
        raw = entries.view(np.uint8).data
        self._score_view = raw.cast("b")
        self._raw = raw
        self._guard = guard
        self._verified = bytearray(b"\x01") if guard is None else guard.verified.flags
        """The file's record of which blocks passed (:class:`solver.storage.integrity.Verified`), read, not copied."""
        self._shift = 62 if guard is None else guard.shift
        self._pending = guard is not None and not guard.done
        """``not verified.done``, remembered after each block is verified (a look-up of a table whose blocks all
        passed skips the flags: a boolean costs less than an index, on the hot path)."""

    @classmethod
    def from_file(cls, opened: TableFile, *, verify: bool | None = None, prove: Prover | None = None) -> DenseTable:
        """The table of an open dense table file.

        :param verify: hash every block now; ``None`` does so for files of up to
            :data:`VERIFY_ON_OPEN_BYTES` (such as 3x3) and leaves larger ones to first use.
        :raises TableError: if the file holds another kind of table, or (with ``verify``) a damaged block.
        """
        if opened.header.kind != "dense":
            raise opened.error(f"holds a {opened.header.kind} table, expected a dense one")
        game = game_of(opened.header.game)
        opened.declare_values(dense_check(game) if trust.checks_values(game, "dense") else None)  # the stage's values check
        if verify or (verify is None and opened.header.end <= VERIFY_ON_OPEN_BYTES):
            opened.verify_all()
        return cls(game, opened.array("entries"), path=opened.path, file=opened, prove=prove)

    @property
    def entries(self) -> np.ndarray:
        """Every code's :data:`~solver.storage.tablefile.ENTRY`, indexed by code (the whole table is verified first)."""
        if self._guard is not None:
            self._guard.ensure_all()
        return self._entries

    @property
    def score(self) -> np.ndarray:
        """int8 score of every code, for the side to move (verified, a view of :attr:`entries`)."""
        return self.entries["score"]

    @property
    def ply(self) -> np.ndarray:
        """uint8 pieces on the board of every code (verified)."""
        return self.entries["ply"]

    @property
    def best(self) -> np.ndarray:
        """uint16 best-move mask of every code (verified)."""
        return self.entries["best"]

    def __repr__(self) -> str:
        return f"<DenseTable {self.game.name} from {self.path or 'memory'}>"

    # -- looking up -----------------------------------------------------------
    def score_of(self, code: int) -> int:
        """The stored score of a code (``UNREACHABLE`` if no game reaches it), from verified bytes."""
        if self._pending and not self._verified[code >> self._shift]:
            self._verify_block_of(code)
        return self._score_view[4 * code + 3]

    def best_mask_of(self, code: int) -> int:
        """The stored best-move mask of a code (0 when the game is over or the code unreachable), from verified bytes."""
        if self._pending and not self._verified[code >> self._shift]:
            self._verify_block_of(code)
        raw = self._raw
        return raw[4 * code] | raw[4 * code + 1] << 8

    def at(self, code: int) -> Position:
        """The :class:`Position` of a code.

        :raises InvalidBoardError: for a code out of range or that no legal game reaches.
        """
        if not 0 <= code < self._codes:
            self._refuse(code)
        if self._pending and not self._verified[code >> self._shift]:
            self._verify_block_of(code)  # raises TableError for a damaged block
        at = 4 * code
        score = self._score_view[at + 3]
        if score == UNREACHABLE:
            self._refuse(code)
        raw = self._raw
        # make the Position without the frozen __init__: this is the look-up hot path.
        position = _new(Position)
        _set_game(position, self.game)
        _set_code(position, code)
        _set_score(position, score)
        _set_best(position, raw[at] | raw[at + 1] << 8)
        _set_pieces(position, raw[at + 2])
        _set_table(position, self)
        return position

    def lookup_codes(self, codes: np.ndarray | Iterable[int], *, check: bool = True) -> Scores:
        """Scores, pieces and best-move masks of many codes at once (see :meth:`Table.lookup_codes`)."""
        codes = self._integer_codes(codes)
        if self._guard is not None and not self._guard.done:
            self._guard.ensure_items(codes.reshape(-1))
            self._pending = not self._guard.done
        words, valid = _gather(self._words, codes, check)
        if not valid:
            self._explain_bad_code(codes.reshape(-1), check)
        shape = codes.shape
        return Scores(
            self.game,
            words.view(np.int8)[3::4].reshape(shape),
            words.view(np.uint8)[2::4].reshape(shape),
            words.view("<u2")[0::2].reshape(shape),
        )

    def reachable_codes(self) -> np.ndarray:
        """Every reachable code, ascending."""
        return np.flatnonzero(self.score != UNREACHABLE)

    def stats(self) -> TableStats:
        """Counts over the table (see :func:`solver.tables.summary.table_stats`)."""
        from .summary import table_stats

        return table_stats(self.game, self.score, self.at(0))

    def ply_counts(self) -> list[Counts]:
        """The positions of each ply by result for the side to move (:func:`solver.tables.summary.counts_by_ply`)."""
        from .summary import counts_by_ply

        return counts_by_ply(self.game, self.score)

    # -- trust ------------------------------------------------------------------
    def _verify_block_of(self, code: int) -> None:
        guard = self._guard
        assert guard is not None
        guard.ensure(code)
        self._pending = not guard.done

    def verify_blocks(self) -> None:
        """Verify every block of the table's file now rather than on first use (a long-lived server does).

        :raises TableError: at the first damaged block.
        """
        if self._guard is not None:
            self._guard.ensure_all()
            self._pending = False

    @property
    def reads_memory_map(self) -> bool:
        """Whether look-ups read the file's memory map (until :meth:`load_into_memory`)."""
        return isinstance(self._entries, np.memmap)

    def load_into_memory(self) -> DenseTable:
        """Copy the table into this process's memory now (4 bytes per code: 172 MB for 4x4k4), every block checked.

        The file is read with ``pread`` and each block hashed after it was copied
        (:meth:`solver.storage.tablefile.BlockGuard.verified_array`), so from then on no write to
        the file, and no truncation, reaches a look-up. A table in memory already is left as it is.
        Returns the table.

        :raises TableError: at the first block that cannot be read or does not match.
        """
        if self._guard is not None and self.reads_memory_map:
            self._answer_from(self._guard.verified_array(), None)
        return self

    def file_arrays(self) -> Mapping[str, tablefile.ArrayParts]:
        """``entries``: every code's :data:`~solver.storage.tablefile.ENTRY` (verified)."""
        return {"entries": self.entries}

    def stored_entries(self) -> np.ndarray:
        """The entries as stored, **not verified** (for a proof that reports every damaged block itself)."""
        return self._entries
