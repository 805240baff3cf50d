"""Compact tables: one score byte per legal-count board, best moves found from the children.

A :class:`CompactTable` answers the questions of every table (:class:`solver.tables.Table`:
``at``, ``lookup``, ``get``, ``best_move``, ``lookup_codes``, ``stats``, ``verify``)
for games of up to 25 cells. It stores only the score of every board of
:mod:`solver.encoding.index` (int8, :mod:`solver.rules.score`: for the side to move, ``100 - d`` a
win in ``d`` plies, 0 a draw, ``-(100 - d)`` a loss, ``UNREACHABLE`` = -128). A
position's best moves and every move's outcome come from its children's scores
(at most ``cells`` probes), computed only when first asked for
(:attr:`solver.tables.position.Position.best_mask`).

**Trust.** A table read from a file answers only from blocks that passed their stage
(:mod:`solver.storage.integrity`): a compressed file's blocks whenever they are decoded, a plain
file's (``guard``, :class:`solver.storage.tablefile.BlockGuard`) once, on first use; which
blocks passed is the file's record (:class:`solver.storage.integrity.Verified`), not the table's.

It answers only: building one is :mod:`solver.store.make`'s (the layered build of
:mod:`solver.retrograde.sweep`), opening one :mod:`solver.store.locate`'s.

>>> import tempfile
>>> from solver.retrograde.sweep import build_layers
>>> from solver.rules.game import Game
>>> with tempfile.TemporaryDirectory() as directory:
...     table = CompactTable.from_layers(Game(), build_layers(Game(), directory, jobs=1).layers())
>>> p = table.lookup("X.O/.X./..O")
>>> p.result, p.plies, p.best_moves
('draw', 5, ((1, 2),))
>>> table.best_move("XX./OO./...")
(0, 2)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np

from ..contents.histograms import META_KEY, LayerCounts, histograms_from_meta, stored_histograms
from ..contents.histograms import layer_histograms as scan_layer
from ..contents.opening import game_of
from ..contents.plausible import compact_check
from ..contents.stored import compact_meta, layer_histograms, stored_layers
from ..encoding.coderules import code_rules, digit_fields
from ..encoding.layouts import layout
from ..encoding.symmetry import symmetries
from ..errors import InvalidValueError, TableError
from ..rules.base import IN_PLAY
from ..rules.game import Game
from ..rules.score import UNREACHABLE
from ..storage import tablefile, trust
from ..storage.blockarray import BlockArray
from ..storage.tablefile import BlockGuard, TableFile
from .base import Kind, Prover, Table
from .children import Children, best_of, plan
from .position import POSITION_SETTERS, Position
from .scores import Scores
from .summary import TableStats

_BATCH = 1 << 16
"""Codes per step of a batch look-up (the temporaries stay in the CPU caches)."""
_THREADS_FROM = 1 << 18
"""Batches of at least this many codes are split over threads (one part per this many codes)."""
_BEST_THREADS_FROM = 1 << 14
"""Best moves of at least this many positions are split over threads (a position costs about as much as its children's look-ups)."""
_BEST_ROUND = 1 << 20
"""Positions whose children a compressed table reads at once (:meth:`CompactTable.best_masks`): their
indices take 8 bytes a child and the read about 15 more (4x5k4: about 10 children a position,
250 MB for a round); a larger batch is read round by round, each round decoding the blocks it touches once."""
_BEST_STEP = 1 << 14
"""Positions per step of a batch's best moves (``cells`` children each: the temporaries stay in the CPU caches)."""
_WORKERS = max(1, min(8, os.cpu_count() or 1))
"""Threads a large batch is split over: the cores, up to 8."""
KEEP_FOR_BEST = True
"""Whether a batch look-up of at most :data:`_BEST_ROUND` codes keeps its codes' board words for their best
moves (``Scores.best``) until ``.best`` is read (8 bytes a code, 8 MB for a batch of 1 M): ``.best`` then
computes none again. False (or a larger batch) computes them again when ``.best`` is read
(``scripts/bench.py --batch`` measures both)."""
KEEP_IMAGES = False
"""With :data:`KEEP_FOR_BEST`, whether the images under each symmetry but the identity are kept too (up to 20
cells: 4 bytes a code each, 12 on a rectangle, 28 on a square; :attr:`solver.encoding.symmetry.Symmetries.keeps_images`).
Off: measured on 2x9k4 (100,000 codes, CPU time, a loaded machine), keeping them made the look-up about
1 ms slower (its images written to memory rather than one buffer in cache) and ``.best`` no faster, since
``.best`` computes images only for the positions whose children it reads."""

_new = object.__new__
_set_game, _set_code, _set_score, _, _set_pieces, _set_table, _ = POSITION_SETTERS  # best_mask and scored are left unset: asked for when read

_FILL_STEP = 1 << 22


class _Kept:
    """What a batch look-up computed of its codes and keeps for their best moves (:data:`KEEP_FOR_BEST`), step
    by step (:data:`_BATCH` codes): the arrays the look-up made, kept rather than copied; joined when ``.best`` is read."""

    def __init__(self, size: int, *, images: bool) -> None:
        self.images = images
        """Whether the images are kept (:attr:`solver.encoding.symmetry.Symmetries.keeps_images`)."""
        self.steps: list[tuple[np.ndarray, np.ndarray | None] | None] = [None] * -(-size // _BATCH)

    def joined(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The board words (int64, :meth:`solver.encoding.coderules.CodeRules.words`) and the images (uint32, ``(count - 1, codes)``, or None) of every code."""
        steps = [step for step in self.steps if step is not None]
        words = np.concatenate([words for words, _ in steps])
        images = [images for _, images in steps if images is not None]
        return words, np.concatenate(images, axis=1) if self.images else None


_T = TypeVar("_T")
_Words = tuple[np.ndarray | None, np.ndarray | None]
"""A batch's board words and images, where its look-up kept them (:meth:`CompactTable.best_masks`)."""


class CompactTable(Table):
    """A solved game in the compact layout (module docstring).

    :param scores: int8, one per board of :func:`solver.encoding.layouts.layout`, all layers
        concatenated: an array holding every board's score (a build's layers, or a
        plain file of earlier releases), or the :class:`~solver.storage.blockarray.BlockArray`
        of a compressed file, whose bytes are read only at canonical boards in play.
    :param guard: passes the blocks of a plain file's array through their stage before any byte of
        them is read (None: the scores are trusted as they are: a build's, or decoded and checked).
    :param prove: what :meth:`verify` calls (:data:`solver.tables.base.Prover`).
    """

    kind: ClassVar[Kind] = "compact"
    lists_positions: ClassVar[bool] = False
    stores_best_moves: ClassVar[bool] = False

    def __init__(
        self,
        game: Game,
        scores: np.ndarray | BlockArray,
        *,
        path: Path | None = None,
        guard: BlockGuard | None = None,
        file: TableFile | None = None,
        prove: Prover | None = None,
    ) -> None:
        self.game = game
        self.layout = layout(self.game)
        if isinstance(scores, BlockArray):
            if len(scores) != self.layout.size:
                raise TableError(f"scores of {len(scores):,} boards do not fit {self.game.name}: expected {self.layout.size:,}")
        elif scores.dtype != np.int8 or scores.shape != (self.layout.size,):
            raise TableError(f"scores {scores.dtype}{list(scores.shape)} do not fit {self.game.name}: expected int8[{self.layout.size}]")
        self.path = path
        self.file = file
        self.prove = prove
        self._codes = self.game.codes
        self._index = self.layout.index_of_code
        self._sym = symmetries(self.game)
        self._rules = self.game.rules
        self._coded = code_rules(self.game)
        """The rule asked of codes (:mod:`solver.encoding.coderules`): codes read as the rule's board words."""
        self._status_scores = np.array(self._rules.status_scores, dtype=np.int8)
        """The score the rule gives each status (:attr:`solver.rules.base.Rules.status_scores`)."""
        self._reads = np.array(self._rules.table_reads, dtype=bool)
        """Whether a look-up reads the stored byte of a board of each status (:attr:`solver.rules.base.Rules.table_reads`)."""
        self._pool: ThreadPoolExecutor | None = None
        self._last_word = (-1, 0)
        """The code :meth:`at` last answered and its board word (:meth:`solver.encoding.coderules.CodeRules.word_of`)."""
        self._guard = guard
        self._blocks: BlockArray | None = None
        self.complete = not isinstance(scores, BlockArray)
        """Whether every board's score is stored (else only canonical boards in play are read)."""
        self._answer_from(scores)

    def _answer_from(self, scores: np.ndarray | BlockArray) -> None:
        """Read from ``scores`` from now on."""
        self.scores = scores
        if isinstance(scores, BlockArray):
            self._blocks = scores
            self._read: Callable[[int], int] = scores.__getitem__
            self._guard = None  # the block array passes every block it decodes through the stage
            return
        self._blocks = None
        view = memoryview(scores.data if isinstance(scores, np.ndarray) else scores).cast("B").cast("b")
        self._read = view.__getitem__

    @classmethod
    def from_layers(cls, game: Game, layers: Sequence[np.ndarray], **options: Any) -> CompactTable:
        """A table from per-layer score arrays (layer 0 first), concatenated in memory (small games, tests)."""
        return cls(game, np.concatenate([np.asarray(layer, dtype=np.int8) for layer in layers]), **options)

    @classmethod
    def from_file(cls, table_file: TableFile, *, prove: Prover | None = None) -> CompactTable:
        """The table of an open compact table file (layout checked now, blocks verified on first use).

        Every block is checked against its digest when first read; the scores in it are also
        checked against what its layers can hold (:func:`~solver.contents.plausible.compact_check`)
        unless the file's checksum ships with the package (:attr:`TableFile.pinned`: then the
        digests prove the bytes are those of the checked build).

        :raises TableError: if the file holds another kind of table, or one written with another index.
        """
        header = table_file.header
        if header.kind != "compact":  # before the layout: a book's game (Connect Four) has none
            raise table_file.error(f"holds a {header.kind} table, expected a compact one")
        game = game_of(header.game)
        wanted = compact_meta(game)
        meta = dict(header.meta)
        for key in ("index", "index_version", "layer_offsets", "layer_sizes"):
            if meta.get(key) != wanted[key]:
                raise table_file.error(f"meta {key} is {meta.get(key)!r}, expected {wanted[key]!r} (another index scheme)")
        table_file.declare_values(compact_check(game, layout(game).layer_offsets) if trust.checks_values(game, "compact") else None)
        if header.spec("scores").encoding is not None:
            return cls(game, table_file.compressed("scores"), path=table_file.path, file=table_file, prove=prove)
        return cls(game, table_file.array("scores"), path=table_file.path, guard=table_file.guard("scores"), file=table_file, prove=prove)

    def __repr__(self) -> str:
        return f"<CompactTable {self.game.name} from {self.path or 'memory'}>"

    def load_into_memory(self, *, threads: int | None = None) -> CompactTable:
        """Decode the whole table into memory now (one byte per board: 741 MB for 4x5k4), every block checked.

        This is how a user asks for the in-memory mode: ``solver.table_for("4x5k4").load_into_memory()``
        (or ``solver.store.locate.open_compact(path).load_into_memory()``). Batch look-ups
        (:meth:`lookup_codes`, and ``solver.lookup_codes(codes, game="4x5k4")``, which uses
        the same table) then run at memory speed instead of decoding blocks; single look-ups
        no longer decode either. The blocks are decoded by ``threads`` threads (default: the
        cores, up to 8; :meth:`solver.storage.blockarray.BlockArray.decode_all`). A plain file of
        earlier releases is copied instead, each block checked in the copy
        (:meth:`solver.storage.tablefile.BlockGuard.verified_array`). A table that is in
        memory already is left as it is. Returns the table.

        :raises TableError: at the first damaged block.
        """
        if self._blocks is not None:
            self._answer_from(self._blocks.decode_all(threads=threads))
        elif self.reads_memory_map and self.file is not None:  # a plain file: copied, each block checked in the copy
            self._answer_from(self.file.guard("scores").verified_array())
            self._guard = None
        return self

    @property
    def reads_memory_map(self) -> bool:
        """Whether look-ups read the file's memory map: a plain file of earlier releases (a compressed
        one's blocks are read with ``pread``), until :meth:`load_into_memory`."""
        return self._blocks is None and isinstance(self.scores, np.memmap)

    # -- trust ----------------------------------------------------------------------
    def verify_blocks(self) -> None:
        """Verify every stored block now rather than on first use (a long-lived server does).

        :raises TableError: at the first damaged block.
        """
        if self._blocks is not None:
            problems = self._blocks.problems()
            if problems:
                raise TableError(problems[0])
        elif self._guard is not None:
            self._guard.ensure_all()

    def _stored(self, index: int) -> int:
        """The stored byte at ``index`` (from a block that passed its stage)."""
        guard = self._guard
        if guard is not None and not guard.verified.flags[index >> guard.shift]:
            guard.verify_block(index >> guard.shift)
        return self._read(index)

    def _stored_items(self, indices: list[int]) -> list[int]:
        """The stored bytes at a few indices (plain ints, checked; one position's children)."""
        if self._blocks is not None:
            return self._blocks.items(indices)
        return [self._stored(index) for index in indices]

    def _take(self, indices: np.ndarray) -> np.ndarray:
        """The stored bytes at many indices in range (int8, checked)."""
        if self._blocks is not None:
            return self._blocks.take(indices)
        if self._guard is not None:
            self._guard.ensure_items(indices[indices >= 0])
        assert isinstance(self.scores, np.ndarray)
        return np.take(self.scores, indices)

    # -- looking up -------------------------------------------------------------------
    def score_of(self, code: int) -> int:
        """The score of a code (``UNREACHABLE`` if no game reaches it or its counts are illegal).

        Finished and unreachable boards are scored by the rules (:mod:`solver.rules.base`), the
        others read at their canonical board (:mod:`solver.encoding.symmetry`).
        """
        status = self._coded.status_of(code)  # impossible piece counts: INVALID, scored UNREACHABLE
        if not self._reads[status]:
            return self._rules.status_scores[status]
        return self._stored(self._index(self._sym.canonical_code_of(code)))

    def at(self, code: int) -> Position:
        """The :class:`Position` of a code; its best moves are found when first asked for.

        :raises InvalidBoardError: for a code out of range or that no legal game reaches.
        """
        if not 0 <= code < self._codes:
            self._refuse(code)
        word = self._coded.word_of(code)
        status, pieces = self._rules.judge_word(word)  # impossible piece counts: INVALID
        self._last_word = (code, word)  # what a question about this position asks next: its moves (thread-safe: one tuple)
        if self._reads[status]:
            score = self._stored(self._index(self._sym.canonical_code_of(code)))
        else:
            score = self._rules.status_scores[status]
        if score == UNREACHABLE:
            self._refuse(code)
        position = _new(Position)
        _set_game(position, self.game)
        _set_code(position, code)
        _set_score(position, score)
        _set_pieces(position, pieces)
        _set_table(position, self)
        return position

    def best_mask_at(self, position: Position) -> int:
        """:meth:`best_mask_of` a position this table looked up: its status and reachability are known, and
        the children read here are kept as its :attr:`~Position.move_scores` (:attr:`Position.moves` reads none again)."""
        if position.is_over:
            return 0
        _, _, empty, completing = self._moves_of(position)
        settled = self._rules.settled_moves(completing, empty, position.pieces)
        if settled:
            return settled
        scored = position.move_scores
        best = max(score for _, score in scored)
        return sum(1 << cell for cell, score in scored if score == best)

    def best_move_at(self, position: Position) -> tuple[int, int] | int:
        """:attr:`Position.best_move`: the first move (in cell order; under gravity, in column order) whose
        score for the mover is the position's score; children are read one by one until it is found."""
        _, _, empty, completing = self._moves_of(position)
        rules = self._rules
        settled = rules.settled_moves(completing, empty, position.pieces)  # every one of them best: no child read
        if settled:
            return rules.move.written(rules.move.in_move_order(cell for cell in range(self.game.cells) if settled >> cell & 1)[0])
        cells = rules.move.in_move_order(cell for cell in range(self.game.cells) if empty >> cell & 1)
        piece, wanted = 1 if position.pieces % 2 == 0 else 2, position.score
        ruled = rules.ruled_child_scores(completing, empty, position.pieces)
        children = self._sym.canonical_child_codes(position.code, piece, cells)
        for cell, child_code in zip(cells, children, strict=True):
            child = ruled[cell] if cell in ruled else self._stored(self._index(child_code))
            if (child > 0) - (child < 0) - child == wanted:  # parent_score: the move keeps the position's score
                return rules.move.written(cell)
        raise TableError(f"{self.path or 'table'}: code {position.code} has no move reaching its score; rebuild it with: {self.rebuild_command}")

    def _moves_of(self, position: Position) -> tuple[int, int, int, int]:
        """X's cells, O's cells, the cells the side to move may play and those of them that complete a line."""
        code, word = self._last_word
        if code != position.code:
            word = self._coded.word_of(position.code)
        x, o = self._rules.split(word)
        empty = self._rules.moves(x, o)  # the empty cells; under gravity the lowest of each column
        return x, o, empty, self._rules.winning_cells(o if position.pieces % 2 else x, empty)

    def move_scores(self, position: Position) -> tuple[tuple[int, int], ...]:
        """``(cell, score for the mover)`` of every legal move (:meth:`Table.move_scores`), the children read at once.

        Where the rules tell every board's status, a move that completes a line or fills the board is scored by
        them and only the others are read; else (gravity) every child is read, at its canonical board.
        """
        if position.is_over:
            return ()
        _, _, empty, completing = self._moves_of(position)
        cells = [cell for cell in range(self.game.cells) if empty >> cell & 1]
        ruled = self._rules.ruled_child_scores(completing, empty, position.pieces)
        read = [cell for cell in cells if cell not in ruled]
        piece = 1 if position.pieces % 2 == 0 else 2
        found = dict(zip(read, self._stored_items(list(map(self._index, self._sym.canonical_child_codes(position.code, piece, read)))), strict=True))
        found.update(ruled)
        return tuple((cell, (child > 0) - (child < 0) - child) for cell in cells for child in [found[cell]])  # parent_score

    def best_mask_of(self, code: int) -> int:
        """Bit ``cell`` set for every best move of a reachable code (0 when the game is over or no game reaches it).

        The moves whose child has the smallest score (:mod:`solver.rules.score`): those the rule settles
        without a child read (:meth:`solver.rules.base.Rules.settled_moves`: the moves that complete a line
        where that wins, or where every move does; the last empty cell); else the other children are read at their canonical boards
        (:meth:`solver.encoding.symmetry.Symmetries.canonical_child_codes`). Plain ints throughout:
        a position has at most ``cells`` children, too few for numpy's per-call cost.
        """
        if not 0 <= code < self._codes:
            return 0
        word = self._coded.word_of(code)
        status, pieces = self._rules.judge_word(word)  # illegal piece counts: INVALID
        if status != IN_PLAY or (self._rules.table_marks_unreached and self.score_of(code) == UNREACHABLE):
            return 0
        x, o = self._rules.split(word)
        piece, mover = (1, x) if pieces % 2 == 0 else (2, o)
        empty = self._rules.moves(x, o)  # the empty cells; under gravity the lowest of each column
        completing = self._rules.winning_cells(mover, empty)
        settled = self._rules.settled_moves(completing, empty, pieces)
        if settled:
            return settled
        others = empty & ~completing
        cells = [cell for cell in range(self.game.cells) if others >> cell & 1]
        children = self._stored_items(list(map(self._index, self._sym.canonical_child_codes(code, piece, cells))))
        lowest = min(children)
        return sum(1 << cell for cell, child in zip(cells, children, strict=True) if child == lowest)

    # -- many at once ---------------------------------------------------------------------
    def indices(self, codes: np.ndarray) -> np.ndarray:
        """The table index of every code (int64, flat); negative for illegal piece counts. Codes must be in range."""
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        out = np.empty(flat.size, dtype=np.int64)
        for a in range(0, flat.size, _BATCH):
            out[a : a + _BATCH] = self.layout.index_of(flat[a : a + _BATCH])
        return out

    def _classify(self, codes: np.ndarray, kept: _Kept | None = None, start: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For codes in range: the index of each code's canonical board, whether it is read there
        (:attr:`solver.rules.base.Rules.table_reads`), the score the rules give the others (int8), the
        pieces on each board (uint8, 0 for illegal counts), and whether the rules put it in play.
        The rules and the symmetries share the codes' digit fields; the board words and the images
        go into ``kept`` if given (for the batch's best moves: ``codes`` are its step at ``start``)."""
        patterns = digit_fields(codes, self._sym.moduli)
        words = self._coded.words(codes, patterns)
        status, pieces = self._rules.classify_words(words)
        images = np.empty((self._sym.count - 1, codes.size), dtype=np.uint32) if kept is not None and kept.images else None
        canonical = self._sym.canonical_codes(codes, patterns, images)
        if kept is not None:
            kept.steps[start // _BATCH] = (words, images)
        return self.layout.index_of(canonical), np.take(self._reads, status), np.take(self._status_scores, status), pieces, status == IN_PLAY

    def scores_of(self, codes: np.ndarray) -> np.ndarray:
        """The score of many codes in range (int8, flat), as :meth:`score_of` gives them.

        :raises IndexError: for a code out of range.
        """
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        scores = np.empty(flat.size, dtype=np.int8)
        if not self._gather(flat, np.empty(flat.size, dtype=np.uint8), scores, np.empty(flat.size, dtype=bool)):
            raise IndexError(f"codes must be in 0..{self._codes - 1}")
        return scores

    def _in_parts(self, size: int, per_part: int, work: Callable[[int, int], _T]) -> list[_T]:
        """``work(a, b)`` over parts of ``0 .. size - 1`` of at least ``per_part`` items, on up to
        :data:`_WORKERS` threads (numpy, the codecs and the hashes release the GIL); every part
        finishes before the results are returned, in order."""
        parts = min(_WORKERS, -(-size // per_part))
        if parts <= 1:
            return [work(0, size)]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(_WORKERS, thread_name_prefix="solver-compact")
        step = -(-size // parts // _BATCH) * _BATCH
        futures = [self._pool.submit(work, a, min(size, a + step)) for a in range(0, size, step)]
        return [future.result() for future in futures]

    def _gather(self, codes: np.ndarray, pieces: np.ndarray, scores: np.ndarray, playing: np.ndarray, kept: _Kept | None = None) -> bool:
        """Pieces, scores and whether the rules put each code in play (``playing``), for a batch in
        parts over threads when it is large; whether every code was in range.

        In memory, each step is read right after it is classified (the temporaries stay in
        cache); from blocks, the canonical boards of the whole batch are read at once, after
        every part is classified, so that each block is decoded once (on one thread per core:
        :meth:`solver.storage.blockarray.BlockArray.take`). The words and images go into ``kept`` if given.
        """
        read = None if self._blocks is None else np.empty(codes.size, dtype=np.int64)

        def part(a: int, b: int) -> bool:
            return self._gather_part(codes[a:b], pieces[a:b], scores[a:b], playing[a:b], None if read is None else read[a:b], kept, a)

        if not all(self._in_parts(codes.size, _THREADS_FROM, part)):
            return False
        if read is not None:
            chosen = np.flatnonzero(read >= 0)
            scores[chosen] = self._take(read[chosen])
        return True

    def _gather_part(
        self, codes: np.ndarray, pieces: np.ndarray, scores: np.ndarray, playing: np.ndarray, read: np.ndarray | None, kept: _Kept | None, start: int
    ) -> bool:
        """One part of :meth:`_gather`, classified step by step: the scores read (in memory) or the
        rules' scores and the indices to read (``read``, from blocks: -1 where none is); whether every code was in range."""
        limit = self._codes
        for a in range(0, codes.size, _BATCH):
            step = codes[a : a + _BATCH]
            if step.size and (step.min() < 0 or step.max() >= limit):
                return False
            index, reads, ruled, pieces[a : a + _BATCH], playing[a : a + _BATCH] = self._classify(step, kept, start + a)
            if read is None:  # board 0 (the empty board) is read where nothing is: one pass fewer than a filter
                scores[a : a + _BATCH] = np.where(reads, self._take(np.where(reads, index, 0)), ruled)
            else:
                read[a : a + _BATCH], scores[a : a + _BATCH] = np.where(reads, index, -1), ruled
        return True

    def lookup_codes(self, codes: np.ndarray | Iterable[int], *, check: bool = True) -> Scores:
        """Scores of many codes at once (see :meth:`Table.lookup_codes`); ``best`` follows when read.

        Each code is answered through the rules and its canonical board, vectorised, in
        steps of :data:`_BATCH` codes; batches of :data:`_THREADS_FROM` codes or more are
        split over up to :data:`_WORKERS` threads (numpy releases the GIL). A compressed
        table decodes each block the batch touches once, on one thread per core; a batch
        that touches most blocks runs faster after :meth:`load_into_memory`, e.g.
        ``solver.table_for("4x5k4").load_into_memory()`` (``solver.lookup_codes(codes,
        game="4x5k4")`` then answers from memory too: it uses the same table).

        ``best``, when first read, is :meth:`best_masks` of the batch: vectorised, every child
        of the batch read at once, from the board words the look-up computed (kept until
        then: :data:`KEEP_FOR_BEST`).
        """
        codes = self._integer_codes(codes)
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        pieces = np.empty(flat.size, dtype=np.uint8)
        scores = np.empty(flat.size, dtype=np.int8)
        playing = np.empty(flat.size, dtype=bool)
        kept = [_Kept(flat.size, images=KEEP_IMAGES and self._sym.keeps_images) if KEEP_FOR_BEST and flat.size <= _BEST_ROUND else None]
        if not self._gather(flat, pieces, scores, playing, kept[0]):
            self._explain_bad_code(flat, check)
        if check and flat.size and scores.min() == UNREACHABLE:
            self._explain_bad_code(flat, check)
        score = scores.reshape(codes.shape)
        on_board = pieces.reshape(codes.shape)

        def best() -> np.ndarray:
            found, kept[0] = kept[0], None  # let go once used
            words, images = (None, None) if found is None else found.joined()
            return self.best_masks(flat, pieces, playing & (scores != UNREACHABLE), words=words, images=images).reshape(score.shape)

        return Scores(self.game, score, on_board, best)

    def best_masks(
        self, codes: np.ndarray, pieces: np.ndarray, playing: np.ndarray, *, words: np.ndarray | None = None, images: np.ndarray | None = None
    ) -> np.ndarray:
        """Best-move masks of many codes (the rule's :attr:`~solver.rules.base.Rules.mask_type`, flat), each
        :meth:`best_mask_of` the code, vectorised.

        :param codes: codes in range (int64, flat).
        :param pieces: the pieces on each board (uint8), as a batch look-up found them.
        :param playing: where the rules put the code in play and a game reaches it (bool); 0 elsewhere.
        :param words: the codes' board words as their look-up computed them (:meth:`solver.encoding.coderules.CodeRules.words`;
            else computed again).
        :param images: likewise their images under symmetries ``1 ..`` (uint32, ``(count - 1, codes)``:
            :meth:`solver.encoding.symmetry.Symmetries.canonical_codes`).

        The positions are split over threads (:mod:`solver.tables.children`: the winning moves,
        else the children read at their canonical boards). In memory, each step's children are
        read as they are found; from blocks, the children of up to :data:`_BEST_ROUND` positions
        are read at once, so that each block they touch is decoded once (a batch of more
        positions reads them round by round, to bound the memory).
        """
        out = np.zeros(codes.size, dtype=self._rules.mask_type)
        todo = np.flatnonzero(playing)
        for a in range(0, todo.size, _BEST_ROUND):
            self._best_round(codes, pieces, todo[a : a + _BEST_ROUND], out, (words, images))
        return out

    def _best_round(self, codes: np.ndarray, pieces: np.ndarray, todo: np.ndarray, out: np.ndarray, kept: _Words) -> None:
        """:meth:`best_masks` of the codes at ``todo`` (at most :data:`_BEST_ROUND`), into ``out``."""
        in_memory = self._blocks is None

        def part(a: int, b: int) -> list[tuple[np.ndarray, Children]]:
            return self._best_part(codes, pieces, todo[a:b], out, kept, read_now=in_memory)

        pending = [item for found in self._in_parts(todo.size, _BEST_THREADS_FROM, part) for item in found]
        if pending:  # from blocks: every child of the round read at once, each block decoded once
            scores = self._take(np.concatenate([children.index for _, children in pending]))
            ends = np.cumsum([children.index.size for _, children in pending]).tolist()
            for (rows, children), start, end in zip(pending, [0, *ends], ends, strict=False):
                out[rows] = best_of(children, scores[start:end])

    def _best_part(
        self, codes: np.ndarray, pieces: np.ndarray, todo: np.ndarray, out: np.ndarray, kept: _Words, *, read_now: bool
    ) -> list[tuple[np.ndarray, Children]]:
        """:meth:`best_masks` of the codes at ``todo``, step by step, into ``out``; with ``read_now``
        the children are read at once, else they are returned (with the rows of ``out`` they answer)."""
        pending = []
        for a in range(0, todo.size, _BEST_STEP):
            rows = todo[a : a + _BEST_STEP]
            words, images = kept
            out[rows], found = plan(self.game, codes[rows], pieces[rows], None if words is None else words[rows], images, rows)
            for children in found:
                if read_now:
                    out[rows[children.rows]] = best_of(children, self._take(children.index))
                else:
                    pending.append((rows[children.rows], children))
        return pending

    # -- counts and proofs ---------------------------------------------------------------------
    def layer(self, ply: int, *, out: np.ndarray | None = None) -> np.ndarray:
        """The scores of one layer, in layer index order (every board's, as :meth:`score_of` gives them).

        A view of the stored array when it holds every board (``out`` unused); else answered board by board
        through the rules and the canonical boards (vectorised: a full pass costs about a
        build's sweep, what :meth:`verify` and :meth:`stats` need), into ``out`` when given (int8, the layer's
        size: an array on disk for a layer too big for memory) or a new array.
        """
        start, stop = self.layout.layer_offsets[ply], self.layout.layer_offsets[ply + 1]
        if self.complete:
            assert isinstance(self.scores, np.ndarray)
            if self._guard is not None:
                self._guard.ensure_range(start, stop)
            view: np.ndarray = self.scores[start:stop]
            return view
        if out is None:
            out = np.empty(stop - start, dtype=np.int8)
        elif out.dtype != np.int8 or out.shape != (stop - start,):
            raise InvalidValueError(f"out must be int8[{stop - start}] for layer {ply} of {self.game.name}, not {out.dtype}{list(out.shape)}")
        for a in range(start, stop, _FILL_STEP):
            b = min(stop, a + _FILL_STEP)
            codes = self.layout.codes(a, b)[0]
            out[a - start : b - start] = self.scores_of(codes)
        return out

    def kept_position_count(self) -> int | None:
        """The positions of every layer, from the histograms the build kept in the file's meta (None without them)."""
        if self.file is None or META_KEY not in self.file.header.meta:
            return None
        return sum(LayerCounts.from_histograms(self.game, ply, found).every.positions for ply, found in enumerate(self.histograms()))

    def histograms(self, *, from_meta: bool = True) -> list[np.ndarray]:
        """Every layer's histograms (:mod:`solver.contents.histograms`: every board's score, the canonical boards').

        Read from the file's meta when its build kept them there (``meta["layer_histograms"]``),
        else counted in one pass over each layer: a table holding every board's score is
        counted as it is, a compressed one at its canonical boards only (what a look-up
        reads, :func:`solver.contents.histograms.stored_histograms`; ``scripts/bench.py --compact`` prints
        its speed).

        :param from_meta: with False, counted by the pass even when the meta has them.
        :raises TableError: if the file's histograms are malformed (naming the file and the rebuild command).
        """
        if from_meta and self.file is not None and META_KEY in self.file.header.meta:
            try:
                found = histograms_from_meta(self.file.header.meta[META_KEY], layer_sizes=self.layout.layer_sizes)
            except ValueError as error:
                raise self.file.error(f"meta {error}") from None
            return [found[ply] for ply in range(self.game.cells + 1)]
        if self.complete:
            return [scan_layer(self.game, ply, self.layer(ply)) for ply in range(self.game.cells + 1)]
        return [stored_histograms(self.game, ply, self._stored_reader(ply)) for ply in range(self.game.cells + 1)]

    def _stored_reader(self, ply: int) -> Callable[[int, int], np.ndarray]:
        """``read(start, stop)``: the stored bytes of boards ``start .. stop - 1`` of layer ``ply`` (checked)."""
        offset = self.layout.layer_offsets[ply]

        def read(start: int, stop: int) -> np.ndarray:
            if self._blocks is not None:
                return self._blocks.read(offset + start, offset + stop)
            assert isinstance(self.scores, np.ndarray)
            if self._guard is not None:
                self._guard.ensure_range(offset + start, offset + stop)
            part: np.ndarray = self.scores[offset + start : offset + stop]
            return part

        return read

    def layer_counts(self) -> list[LayerCounts]:
        """Every layer's counts, of every reachable board and up to symmetry (:meth:`histograms`)."""
        return [LayerCounts.from_histograms(self.game, ply, hist) for ply, hist in enumerate(self.histograms())]

    def stats(self) -> TableStats:
        """Counts per result, per layer, for the side to move and up to symmetry (:func:`solver.tables.summary.layered_stats`).

        ``games`` is None (``omitted`` says why); ``layers`` lists each layer's counts
        (:meth:`solver.contents.histograms.LayerCounts.to_json`).
        """
        from .summary import layered_stats

        return layered_stats(self.game, self.layer_counts(), self.at(0))

    def reachable_codes(self) -> np.ndarray:
        """Every reachable code, ascending (int64; only for tables of up to 2**27 boards)."""
        if self.layout.size > 1 << 27:
            raise TableError(f"{self.game.name} has {self.layout.size:,} boards: too many to list every reachable code")
        codes = self.layout.codes(0, self.layout.size)[0]
        scores = np.concatenate([self.layer(ply) for ply in range(self.game.cells + 1)])
        found: np.ndarray = np.sort(codes[scores != UNREACHABLE])
        return found

    def file_arrays(self) -> Mapping[str, tablefile.ArrayParts]:
        """``scores``: the stored bytes of every board, all layers (verified; :func:`stored_layers`)."""
        self.verify_blocks()
        if self._blocks is not None:
            return {"scores": self._blocks.decode_all()}
        if not self.complete:  # decoded into memory: the stored bytes already
            assert isinstance(self.scores, np.ndarray)
            return {"scores": self.scores}
        return {"scores": list(stored_layers(self.game, [self.layer(ply) for ply in range(self.game.cells + 1)]))}

    def file_meta(self) -> Mapping[str, Any]:
        """The index scheme, the layer offsets (:func:`solver.contents.stored.compact_meta`) and each layer's histograms
        (:func:`solver.contents.stored.layer_histograms`): the file's own, for a table read from a file."""
        if self.file is not None and "layer_histograms" in self.file.header.meta:
            return self.file.header.meta
        return {**compact_meta(self.game), "layer_histograms": layer_histograms(self.game, [self.layer(ply) for ply in range(self.game.cells + 1)])}
