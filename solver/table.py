"""The table: a solved game, and looking positions up in it.

A dense :class:`Table` holds one 4-byte entry per base-3 code (games of up to
16 cells): one memory access answers a look-up. How it is stored on disk is
:mod:`solver.tablefile`'s business; a table opened from a file answers only from
bytes verified in this process (each 64 KiB block is hashed the first time a
look-up touches it), so a damaged file raises :class:`TableError` instead of
answering wrongly. No pickle is ever read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import board as _board
from . import tablefile
from .build import Progress, build_arrays
from .errors import InvalidBoardError, TableError
from .game import Game, parse_game
from .position import Position
from .score import UNREACHABLE, decode_many
from .tablefile import ENTRY, BlockGuard, TableFile, rebuild_command
from .words import count

_new = object.__new__
_set_game, _set_code, _set_score, _set_best, _set_pieces, _set_table = (
    getattr(Position, name).__set__ for name in ("game", "code", "score", "best_mask", "pieces", "table")
)
_FIRST_REACHABLE_WORD = (UNREACHABLE + 1) << 24
"""As int32, every entry whose score (the top byte) is not UNREACHABLE is at least this."""
_THREADS_FROM = 1 << 20
"""Batches of at least this many codes are gathered by two threads."""
_VERIFY_ON_OPEN_BYTES = 8 << 20
"""With ``verify=None``, tables up to this size are checksummed on every open."""

@dataclass(frozen=True)
class Scores:
    """The answer of :meth:`Table.lookup_codes`: arrays aligned with the codes asked.

    ==========  ===============================================================
    ``score``   int8, for the side to move (:mod:`solver.score`)
    ``ply``     uint8, pieces on the board (X is to move when even)
    ``best``    uint16, bit ``cell`` set for every best move
    ``value``   int8, for X: 1 X wins, 0 draw, -1 O wins (derived)
    ``plies``   int8, plies to the end under perfect play (derived)
    ``reachable``  bool, False for a code no game reaches (only with ``check=False``;
                its ``value`` and ``plies`` then mean nothing)
    ==========  ===============================================================
    """

    game: Game
    score: np.ndarray
    ply: np.ndarray
    best: np.ndarray

    @property
    def reachable(self) -> np.ndarray:
        """bool: whether a legal game reaches each code (always all True when looked up with ``check=True``)."""
        return np.asarray(self.score != UNREACHABLE)

    @property
    def value(self) -> np.ndarray:
        """The value for X (int8: 1 X wins, 0 draw, -1 O wins)."""
        sign = np.sign(self.score)
        return np.asarray(np.where(self.ply % 2 == 0, sign, -sign), dtype=np.int8)

    @property
    def plies(self) -> np.ndarray:
        """Plies to the end under perfect play (int8)."""
        return decode_many(self.score, self.game.cells - self.ply.astype(np.int16))[1]


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


class Lookups:
    """What every kind of table answers from its ``at(code)``: :meth:`lookup`, :meth:`get`, :meth:`best_move`."""

    game: Game

    def at(self, code: int) -> Position:  # pragma: no cover - every table defines it
        raise NotImplementedError

    def lookup(self, board: _board.Board, *, game: Game | str | None = None) -> Position:
        """Solve one position.

        :param board: any form :func:`solver.board.parse` accepts.
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

    def best_move(self, board: _board.Board, *, game: Game | str | None = None) -> tuple[int, int]:
        """One best move as ``(row, col)``: the first in cell order (deterministic).

        :raises InvalidBoardError: for an invalid board or a finished game.
        """
        position = self.lookup(board, game=game)
        mask = position.best_mask
        if not mask:
            raise InvalidBoardError(f"the game is over on {position.board}: there is no move to make")
        return self.game.coords((mask & -mask).bit_length() - 1)


class Table(Lookups):
    """A solved game: the score and best moves of every code.

    Get one with :func:`build_table` or :func:`load_table` (or
    :func:`solver.table_for`, which finds, caches or builds it).

    >>> table = build_table()
    >>> table.lookup("X.O/.X./..O").result
    'draw'
    >>> table.lookup(0).value, table.lookup(0).plies
    (0, 9)
    """

    def __init__(self, game: Game, entries: np.ndarray, *, path: Path | None = None, file: TableFile | None = None) -> None:
        if entries.dtype != ENTRY or entries.shape != (game.codes,):
            raise TableError(f"entries {entries.dtype}{list(entries.shape)} do not fit {game.name}: expected {ENTRY}[{game.codes}]")
        self.game = game
        self.path = path
        self.file = file
        """The open file behind the table (None for a table built in memory)."""
        self._entries = entries
        self._codes = game.codes
        self._words = entries.view("<u4")
        raw = entries.view(np.uint8).data
        self._score_view = raw.cast("b")
        self._raw = raw
        self._guard: BlockGuard | None = None if file is None else file.guard("entries")
        self._verified = bytearray(b"\x01") if self._guard is None else self._guard.flags
        self._shift = 62 if self._guard is None else self._guard.shift
        self._pending = self._guard is not None and not self._guard.done
        """Whether some block is not verified yet (once all are, a look-up skips the check)."""

    @property
    def entries(self) -> np.ndarray:
        """Every code's :data:`~solver.tablefile.ENTRY`, indexed by code (the whole table is verified first)."""
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
        return f"<Table {self.game.name} from {self.path or 'memory'}>"

    # -- looking up -----------------------------------------------------------
    def score_of(self, code: int) -> int:
        """The stored score of a code (``UNREACHABLE`` if no game reaches it), from verified bytes."""
        if self._pending and not self._verified[code >> self._shift]:
            self._verify_block_of(code)
        return self._score_view[4 * code + 3]

    def at(self, code: int) -> Position:
        """The :class:`Position` of a code.

        :raises InvalidBoardError: for a code out of range or that no legal game reaches.
        """
        if not 0 <= code < self._codes:
            _board.parse(code, self.game)  # raises, naming the range
        if self._pending and not self._verified[code >> self._shift]:
            self._verify_block_of(code)  # raises TableError for a damaged block
        at = 4 * code
        score = self._score_view[at + 3]
        if score == UNREACHABLE:
            _board.check_rules(self.game, code)
            raise TableError(
                f"{self.path or 'table'}: code {code} breaks no rule but is marked unreachable; "
                f"rebuild it with: {rebuild_command(self.game, self.path or 'PATH')}"
            )
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
        """Scores and best-move masks of many codes at once (vectorised).

        :param codes: an integer array (any shape, or a single int) of base-3 codes.
        :param check: raise for unreachable codes. Codes out of range always
            raise. With ``check=False`` an unreachable code is answered too:
            :attr:`Scores.reachable` is False for it, its ``score`` is
            ``UNREACHABLE`` (-128), ``ply`` and ``best`` are 0, and the derived
            ``value`` (-1) and ``plies`` (-28) mean nothing.
        :raises InvalidBoardError: naming the first bad code and its index.
        :raises TableError: if a block of the table file that the codes touch is damaged.
        """
        codes = np.asarray(codes)
        if codes.dtype.kind not in "iu":
            raise InvalidBoardError(f"codes must be integers, found dtype {codes.dtype}")
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

    def _explain_bad_code(self, codes: np.ndarray, check: bool) -> None:
        """Raise for the first code of a batch that is out of range (or, with ``check``, unreachable)."""
        for index, code in enumerate(codes.tolist()):
            if not 0 <= code < self._codes:
                raise InvalidBoardError(f"codes[{index}] = {code} is out of range for {self.game.name}: expected 0 to {self._codes - 1}")
            if check and self._score_view[4 * code + 3] == UNREACHABLE:
                reason = _board.rule_violation(self.game, code) or "marked unreachable"
                raise InvalidBoardError(f"codes[{index}] = {code} ({_board.render(self.game, code)}) is not a reachable position: {reason}")
        raise AssertionError("a batch was invalid, but no code in it is")  # pragma: no cover

    def reachable_codes(self) -> np.ndarray:
        """Every reachable code, ascending."""
        return np.flatnonzero(self.score != UNREACHABLE)

    def stats(self) -> dict[str, Any]:
        """Counts over the table (see :func:`solver.stats.table_stats`)."""
        from .stats import table_stats

        return table_stats(self)

    # -- the file ---------------------------------------------------------------
    @property
    def sha256(self) -> str:
        """The table's checksum: the root SHA-256 of its file (:mod:`solver.tablefile`).

        The same for a table built in memory and the file it is saved to.
        """
        if self.file is not None:
            return self.file.header.root
        header, digests = tablefile.checksums(kind="dense", game=self.game, arrays={"entries": self._entries})
        return tablefile.root_of(header, digests)

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

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the table to ``path`` atomically (:func:`solver.tablefile.write_table`).

        The same table always gives the same bytes. Returns the path written.

        :raises TableError: if the target is not a regular file, or the directory
            cannot be written, or the disk is full.
        """
        return tablefile.write_table(path, kind="dense", game=self.game, arrays={"entries": self.entries})

    def verify(self) -> list[str]:
        """Prove the table: every block against its checksum, then a fresh build compared code by code.

        :returns: the problems found (empty when the table is exact).
        """
        problems = [] if self.file is None else self.file.problems()
        fresh = build_arrays(self.game)
        for name, computed in zip(fresh._fields, fresh, strict=True):
            mine = self._entries[name]
            wrong = np.flatnonzero(mine != computed)
            if wrong.size:
                code = int(wrong[0])
                problems.append(
                    f"{name} differs from a fresh build at {count(int(wrong.size), 'code')}, first at code {code} "
                    f"({_board.render(self.game, code)}): stored {mine[code]}, computed {computed[code]}"
                )
        return problems


def build_table(rows: int = 3, cols: int = 3, k: int = 3, *, game: Game | str | None = None, progress: Progress | None = None) -> Table:
    """Solve a game in memory: ``build_table()`` is tic-tac-toe, ``build_table(game="4x4")`` four in a row.

    :param progress: called with 1 after each ply of each pass (:func:`solver.build.build_steps` calls).
    """
    resolved = parse_game(game) if game is not None else Game(rows, cols, k)
    return Table(resolved, tablefile.dense_entries(*build_arrays(resolved, progress=progress)))


def load_table(
    path: str | os.PathLike[str], *, game: Game | str | None = None, verify: bool | None = None, follow_symlinks: bool = True
) -> Table:
    """Open a dense table file (memory-mapped; nothing is unpickled).

    The header, the layout and the table's checksum (against the one the package
    expects for the game) are checked at once; the entries block by block on first
    use, so every answer comes from verified bytes.

    :param game: the game the file must hold (checked against the header).
    :param verify: hash every block now; ``None`` (default) does so for tables of
        up to 8 MiB, such as 3x3, and leaves larger ones to first use.
    :param follow_symlinks: with False, a symbolic link at ``path`` is refused.
    :raises TableError: for a missing, truncated, corrupt, forged or mismatched file.
    """
    opened = tablefile.open_table(path, game=None if game is None else parse_game(game), follow_symlinks=follow_symlinks)
    return table_from_file(opened, verify=verify)


def table_from_file(opened: TableFile, *, verify: bool | None = None) -> Table:
    """The :class:`Table` of an open dense table file (see :func:`load_table` for ``verify``).

    :raises TableError: if the file holds another kind of table, or (with ``verify``) a damaged block.
    """
    if opened.header.kind != "dense":
        raise opened.error(f"holds a {opened.header.kind} table, expected a dense one")
    if verify or (verify is None and opened.header.end <= _VERIFY_ON_OPEN_BYTES):
        opened.verify_all()
    return Table(opened.header.game, opened.array("entries"), path=opened.path, file=opened)
