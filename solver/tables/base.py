"""The table interface: what every kind of solved-game table answers.

Two kinds implement :class:`Table`:

===========  ==================================  ===========================================
``kind``     class                               what it stores
===========  ==================================  ===========================================
``dense``    :class:`solver.tables.DenseTable`   one 4-byte entry per base-3 code (games of up
                                                 to 16 cells): score, pieces and best-move
                                                 mask; a look-up is one memory access
``compact``  :class:`solver.tables.CompactTable` one score byte per legal-count board (up to
                                                 25 cells, :mod:`solver.encoding.index`); best moves
                                                 are found from the children when asked for
===========  ==================================  ===========================================

Every kind answers a position (:meth:`Table.at`, :meth:`Table.lookup`, :meth:`Table.get`,
:meth:`Table.best_move`, :meth:`Table.score_of`, :meth:`Table.best_mask_of`), a batch
(:meth:`Table.lookup_codes`, one answer type: :class:`solver.tables.Scores`), and proves
or describes itself (:meth:`Table.verify_blocks`, :meth:`Table.verify`,
:attr:`Table.sha256`, :meth:`Table.stats`, :meth:`Table.reachable_codes`). What a kind
can do is asked of the table (:attr:`Table.kind`, :attr:`Table.lists_positions`,
:attr:`Table.stores_best_moves`), never inferred from the game's cell count.

**Why an abstract base class and not a Protocol.** The kinds share code, not only a
shape: ``lookup``, ``get`` and ``best_move`` are written once over ``at``, and so are the
refusal of a bad code, the explanation of a bad batch, the checksum of a table in
memory, ``save`` and ``verify``. An ABC holds that shared code, and a kind that misses a
method fails when it is made, not at its first call. Nothing outside this package
implements a table, so structural typing would buy nothing.

**Trust and proof.** A table opened from a file answers only from bytes verified in
this process (each block hashed when first used; :meth:`Table.verify_blocks` does them
all now). :meth:`Table.verify` goes further and re-derives every score from the rules;
that is a build, so the table does not do it itself: it calls the ``prove`` function it
was given when it was opened or built (:func:`solver.store.make.prove`), and the look-up
classes import no build code.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal, NoReturn

import numpy as np

from ..contents.histograms import Counts
from ..encoding import board as _board
from ..encoding.drops import move_string_code
from ..encoding.layouts import layout
from ..errors import InvalidBoardError, TableError
from ..rules.game import Game
from ..rules.score import UNREACHABLE, parent_score
from ..storage import tablefile
from ..storage.tablefile import TableFile, rebuild_command
from .position import Position
from .scores import Scores
from .summary import TableStats

Kind = Literal["dense", "compact", "search"]
"""``dense`` and ``compact`` are table files; ``search`` answers by search (:mod:`solver.store.searched`)."""

Prover = Callable[["Table"], list[str]]
"""Proves a whole table: every stored block checked, every score re-derived from the
rules; returns the problems found (empty when exact). :func:`solver.store.make.prove`."""


class Table(ABC):
    """A solved game: the answer for every position, dense or compact (module docstring).

    Get one with :func:`solver.table_for` (finds, opens or builds it),
    :func:`solver.load_table` (a file) or :func:`solver.build_table` (in memory).

    >>> import solver
    >>> table = solver.table_for()
    >>> table.kind, table.lookup("X.O/.X./..O").result, table.best_move("XX./OO./...")
    ('dense', 'draw', (0, 2))
    """

    kind: ClassVar[Kind]
    """``"dense"`` or ``"compact"``: the layout of the table and of its file."""
    lists_positions: ClassVar[bool]
    """Whether :meth:`reachable_codes` can list every reachable code of any game this kind
    holds (dense: yes; compact: only up to 2**27 boards, so callers sample instead)."""
    stores_best_moves: ClassVar[bool]
    """Whether best-move masks are stored (dense) or found from the children when asked (compact)."""
    searches: ClassVar[bool] = False
    """Whether a look-up searches (a game no table holds: :mod:`solver.store.searched`): it may then take long,
    and :meth:`bounded` gives it a time budget and a progress hook."""

    @property
    def book_depth(self) -> int | None:
        """The deepest ply a book answers at once (every position with at most that many pieces), None without a
        book: a table answers every ply alike; a search table (:mod:`solver.store.searched`) may have one."""
        return None

    game: Game
    path: Path | None
    """The file the table was opened from (None for a table in memory)."""
    file: TableFile | None
    """The open file behind the table (None for a table in memory)."""
    prove: Prover | None
    """What :meth:`verify` calls to re-derive the table (given by the store or the builder)."""

    def bounded(self, budget: float | None = None, progress: Callable[[int, float], None] | None = None) -> Table:
        """This table with a time budget (seconds a look-up may search) and a progress hook (called with the
        nodes searched and the seconds elapsed). A table that reads its answers needs neither: itself."""
        return self

    # -- one position ----------------------------------------------------------------
    @abstractmethod
    def at(self, code: int) -> Position:
        """The :class:`Position` of a code.

        :raises InvalidBoardError: for a code out of range or that no legal game reaches.
        :raises TableError: if the stored bytes that answer it are damaged.
        """

    @abstractmethod
    def score_of(self, code: int) -> int:
        """The stored score of a code, for the side to move (``UNREACHABLE`` if no game reaches it)."""

    @abstractmethod
    def best_mask_of(self, code: int) -> int:
        """Bit ``cell`` set for every best move of a reachable code (0 when the game is over)."""

    def best_mask_at(self, position: Position) -> int:
        """:meth:`best_mask_of` a position this table looked up (a kind may use what the look-up found)."""
        return self.best_mask_of(position.code)

    def best_move_at(self, position: Position) -> tuple[int, int] | int:
        """:attr:`Position.best_move` of a position in play that this table looked up: the first best move in
        cell order as ``(row, col)``, or under gravity the lowest-numbered best column."""
        if self.game.rules.move.writes_columns:
            return position.best_columns[0]
        mask = position.best_mask
        return self.game.coords((mask & -mask).bit_length() - 1)

    def move_scores(self, position: Position) -> tuple[tuple[int, int], ...]:
        """``(cell, score for the mover)`` of every legal move of a position this table looked up, in cell
        order (empty when the game is over): its children read once (:attr:`Position.move_scores` keeps them)."""
        if position.is_over:
            return ()
        piece = 1 if position.pieces % 2 == 0 else 2
        code, playable, score_of = position.code, position.playable, self.score_of
        return tuple((cell, parent_score(score_of(code + piece * 3**cell))) for cell in range(self.game.cells) if playable >> cell & 1)

    def at_moves(self, moves: str) -> Position:
        """The :class:`Position` a move string reaches (columns from 1, first move first: ``"4453"``), for a gravity game.

        :raises InvalidBoardError: as :func:`solver.encoding.drops.move_string_code`, naming the move that cannot be played.
        """
        return self.at(move_string_code(moves, self.game))

    def lookup(self, board: _board.Board, *, game: Game | str | None = None) -> Position:
        """Solve one position.

        :param board: any form :func:`solver.encoding.board.parse` accepts.
        :param game: defaults to this table's game.
        :raises InvalidBoardError: if the board is malformed, belongs to another
            game, or cannot be reached in a legal game (the message says why).
        """
        if type(board) is int and game is None:
            return self.at(board)
        found, code = _board.parse(board, game or self.game)
        if found is not self.game and found != self.game:
            raise InvalidBoardError(f"the board is a {found.name} board, but this table is for {self.game.name}")
        return self.at(code)

    def get(self, board: _board.Board, default: Any = None, *, game: Game | str | None = None) -> Position | Any:
        """Like :meth:`lookup`, but returns ``default`` for a board that is invalid."""
        try:
            return self.lookup(board, game=game)
        except InvalidBoardError:
            return default

    def best_move(self, board: _board.Board, *, game: Game | str | None = None) -> tuple[int, int] | int:
        """One best move as ``(row, col)``: the first in cell order (deterministic). Under gravity a move is
        a column: the lowest-numbered best column, an ``int``.

        :raises InvalidBoardError: for an invalid board or a finished game.
        """
        return self.lookup(board, game=game).best_move

    def _refuse(self, code: int) -> NoReturn:
        """Raise for a code that :meth:`at` cannot answer: out of range, breaking a rule, or
        breaking none yet stored as unreachable (then the table is wrong: rebuild it)."""
        if not 0 <= code < self.game.codes:
            _board.parse(code, self.game)  # raises, naming the range
        _board.check_rules(self.game, code)  # raises, naming the rule
        raise TableError(f"{self.path or 'table'}: code {code} breaks no rule but is marked unreachable; rebuild it with: {self.rebuild_command}")

    @property
    def rebuild_command(self) -> str:
        """The shell command that rebuilds this table (:func:`solver.storage.tablefile.rebuild_command`)."""
        return rebuild_command(self.game.name, self.path or "PATH")

    # -- many positions ------------------------------------------------------------------
    @abstractmethod
    def lookup_codes(self, codes: np.ndarray | Iterable[int], *, check: bool = True) -> Scores:
        """Scores, pieces and best moves of many codes at once (vectorised).

        :param codes: an integer array (any shape, or a single int) of base-3 codes.
        :param check: raise for unreachable codes. Codes out of range always
            raise. With ``check=False`` an unreachable code is answered too:
            :attr:`Scores.reachable` is False for it, its ``score`` is
            ``UNREACHABLE`` (-128), ``ply`` and ``best`` are 0, and the derived
            ``value`` and ``plies`` mean nothing.
        :raises InvalidBoardError: naming the first bad code and its index.
        :raises TableError: if a block of the table file that the codes touch is damaged.
        """

    def _explain_bad_code(self, codes: np.ndarray, check: bool) -> NoReturn:
        """Raise for the first code of a batch that is out of range (or, with ``check``, unreachable)."""
        last = self.game.codes - 1
        for index, code in enumerate(codes.tolist()):
            if not 0 <= code <= last:
                raise InvalidBoardError(f"codes[{index}] = {code} is out of range for {self.game.name}: expected 0 to {last}")
            if check and self.score_of(code) == UNREACHABLE:
                reason = _board.rule_violation(self.game, code) or "marked unreachable"
                raise InvalidBoardError(f"codes[{index}] = {code} ({_board.render(self.game, code)}) is not a reachable position: {reason}")
        raise AssertionError("a batch was invalid, but no code in it is")  # pragma: no cover

    def _integer_codes(self, codes: np.ndarray | Iterable[int]) -> np.ndarray:
        """``codes`` as an array, refused unless it is a rectangular array of integers that fit int64
        (a uint64 code of 2**63 or more is named as the number it is, not wrapped to a negative one)."""
        try:
            found = np.asarray(codes)
        except (ValueError, TypeError, RecursionError) as error:
            raise InvalidBoardError(f"codes must be a rectangular array of integers: {str(error)[:120]}") from None
        if found.dtype.kind not in "iu":
            raise InvalidBoardError(f"codes must be integers, found dtype {found.dtype}")
        if found.dtype.kind == "u" and found.dtype.itemsize == 8 and found.size and found.max() > np.iinfo(np.int64).max:
            flat = found.reshape(-1)
            at = int(np.argmax(flat > np.iinfo(np.int64).max))
            raise InvalidBoardError(f"codes[{at}] = {int(flat[at])} is out of range for {self.game.name}: expected 0 to {self.game.codes - 1}")
        return found

    @abstractmethod
    def reachable_codes(self) -> np.ndarray:
        """Every reachable code, ascending (see :attr:`lists_positions`).

        :raises TableError: if the kind cannot list them for this game.
        """

    @abstractmethod
    def stats(self) -> TableStats:
        """Counts over the table (the keys of :mod:`solver.tables.summary`)."""

    def kept_position_count(self) -> int | None:
        """The table's positions (every reachable board of every ply) when the file keeps their counts, so that
        reading them costs no scan; None otherwise (:meth:`stats` counts them)."""
        return None

    def ply_counts(self) -> list[Counts]:
        """The reachable positions of each ply (ply 0 first) by result for the side to move: the
        ``layers`` of :meth:`stats`, which a kind may count more cheaply (a dense table does)."""
        return self.stats().by_ply()

    # -- trust ---------------------------------------------------------------------------
    @abstractmethod
    def verify_blocks(self) -> None:
        """Verify every stored block now rather than on first use (a long-lived server does).

        :raises TableError: at the first damaged block.
        """

    @property
    @abstractmethod
    def reads_memory_map(self) -> bool:
        """Whether look-ups read the table's file through a memory map: a write to the file then reaches
        them, and a truncation ends the process (SIGBUS) at the next read past the new end.
        :meth:`load_into_memory` ends it; a long-lived server does so."""

    @abstractmethod
    def load_into_memory(self) -> Table:
        """Hold the whole table in this process's memory now, every block checked; returns the table.

        :raises TableError: at the first damaged block.
        """

    def verify(self) -> list[str]:
        """Prove the table: every block against its checksum, then every score re-derived
        from the rules and compared (a full build's work, done by the table's ``prove``).

        :returns: the problems found (empty when the table is exact).
        :raises TableError: for a table made without a prover (open it with
            :func:`solver.load_table` or :func:`solver.table_for`, or build it with
            :mod:`solver.store.make`).
        """
        if self.prove is None:
            raise TableError(f"{self!r} was made without a prover: verify it with solver.store.make.prove(table)")
        return self.prove(self)

    @property
    def sha256(self) -> str:
        """The table's checksum: the root SHA-256 of its file (:mod:`solver.storage.tablefile`).

        The same for a table in memory and the file it is saved to.
        """
        if self.file is not None:
            return self.file.header.root
        header, digests = tablefile.checksums(kind=self.kind, game=self.game, arrays=self.file_arrays(), meta=self.file_meta(), boards=self.file_boards())
        return tablefile.root_of(header, digests)

    # -- the file ------------------------------------------------------------------------
    @abstractmethod
    def file_arrays(self) -> Mapping[str, tablefile.ArrayParts]:
        """The arrays the table's file holds (verified first), by name."""

    def file_meta(self) -> Mapping[str, Any]:
        """What the table's file records in its header's ``meta`` (nothing by default)."""
        return {}

    def file_boards(self) -> int | None:
        """The number of boards a compact table's file holds (its layout's size), which the file's writer checks its
        scores against; None for the other kinds."""
        return layout(self.game).size if self.kind == "compact" else None

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the table to ``path`` atomically (:func:`solver.storage.tablefile.write_table`).

        The same table always gives the same bytes. Returns the path written.

        :raises TableError: if the target is not a regular file, or the directory
            cannot be written, or the disk is full.
        """
        return tablefile.write_table(path, kind=self.kind, game=self.game, arrays=self.file_arrays(), meta=self.file_meta(), boards=self.file_boards())
