"""The table: a solved game on disk and in memory, and looking positions up in it.

**File format** (one file per game, ``<game>.ttt``, e.g. ``3x3k3.ttt``):

=========  ====================================================================
bytes      content
=========  ====================================================================
0-7        magic ``b"SOLVTTT\\n"``
8-11       header length ``H``, unsigned 32-bit little-endian
12-        header: ``H`` bytes of JSON (sorted keys, ASCII), padded with spaces
           so the array starts on a 64-byte boundary
...        ``entries``: ``3**cells`` records of 4 bytes, indexed by code:
           ``best`` (uint16 little-endian, bit ``cell`` set for every best
           move), ``ply`` (uint8, pieces on the board) and ``score`` (int8,
           :mod:`solver.score`)
=========  ====================================================================

The header holds ``format_version``, the ``game`` (rows, cols, k, name), the
``encoding`` and ``score`` conventions in words, the array's dtype, shape and
byte offset, and ``sha256``: the SHA-256 of the array's bytes. Reachable codes
are exactly those whose score is not ``UNREACHABLE``. One record per code means
one memory access per look-up, which is what makes batch look-ups on 4x4 fast.

The header is checked on every open; the checksum on open for small tables
(``verify=None``) and always by :meth:`Table.verify`. Large tables are
memory-mapped, so opening 4x4 takes milliseconds. No pickle is ever read.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import board as _board
from .build import ENTRY, Progress, build_arrays
from .errors import InvalidBoardError, TableError
from .game import Game, parse_game
from .position import Position
from .score import UNREACHABLE, WIN

MAGIC = b"SOLVTTT\n"
FORMAT_VERSION = 1
_ALIGN = 64
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

ENCODING = "cell = row * cols + col; digit 0 empty, 1 X, 2 O; code = sum(digit * 3**cell); X moves first"
SCORE = (
    "score: int8 for the side to move: 100-d win in d plies, 0 draw, -(100-d) loss in d plies, "
    "-128 unreachable; ply: pieces on the board; best: uint16, bit cell set for every best move"
)


def rebuild_command(game: Game, path: Path | str) -> str:
    """The shell command that rebuilds the table file at ``path``."""
    return f"solve build --game {game.name} --output {path}"


@dataclass(frozen=True)
class Scores:
    """The answer of :meth:`Table.lookup_codes`: arrays aligned with the codes asked.

    ==========  ===============================================================
    ``score``   int8, for the side to move (:mod:`solver.score`)
    ``ply``     uint8, pieces on the board (X is to move when even)
    ``best``    uint16, bit ``cell`` set for every best move
    ``value``   int8, for X: 1 X wins, 0 draw, -1 O wins (derived)
    ``plies``   int8, plies to the end under perfect play (derived)
    ==========  ===============================================================
    """

    game: Game
    score: np.ndarray
    ply: np.ndarray
    best: np.ndarray

    @property
    def value(self) -> np.ndarray:
        """The value for X (int8: 1 X wins, 0 draw, -1 O wins)."""
        sign = np.sign(self.score)
        return np.where(self.ply % 2 == 0, sign, -sign).astype(np.int8)

    @property
    def plies(self) -> np.ndarray:
        """Plies to the end under perfect play (int8)."""
        decisive = WIN - np.abs(self.score.astype(np.int16))
        return np.where(self.score == 0, self.game.cells - self.ply.astype(np.int16), decisive).astype(np.int8)


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
    return out, all([part.result() for part in parts])


class Table:
    """A solved game: the score and best moves of every code.

    Get one with :func:`build_table` or :func:`load_table` (or
    :func:`solver.table_for`, which finds, caches or builds it).

    >>> table = build_table()
    >>> table.lookup("X.O/.X./..O").result
    'draw'
    >>> table.lookup(0).value, table.lookup(0).plies
    (0, 9)
    """

    def __init__(self, game: Game, entries: np.ndarray, *, path: Path | None = None) -> None:
        if entries.dtype != ENTRY or entries.shape != (game.codes,):
            raise TableError(f"entries {entries.dtype}{list(entries.shape)} do not fit {game.name}: expected {ENTRY}[{game.codes}]")
        self.game = game
        self.path = path
        self.entries = entries
        self.score: np.ndarray = entries["score"]
        """int8 score of every code, for the side to move (a view of :attr:`entries`)."""
        self.ply: np.ndarray = entries["ply"]
        """uint8 pieces on the board of every code."""
        self.best: np.ndarray = entries["best"]
        """uint16 best-move mask of every code."""
        self._codes = game.codes
        self._words = entries.view("<u4")
        raw = memoryview(entries.view(np.uint8))
        self._score_view = raw.cast("b")
        self._raw = raw

    def __repr__(self) -> str:
        return f"<Table {self.game.name} from {self.path or 'memory'}>"

    # -- looking up -----------------------------------------------------------
    def score_of(self, code: int) -> int:
        """The stored score of a code (``UNREACHABLE`` if no game reaches it)."""
        return self._score_view[4 * code + 3]

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

    def at(self, code: int) -> Position:
        """The :class:`Position` of a code.

        :raises InvalidBoardError: for a code out of range or that no legal game reaches.
        """
        if not 0 <= code < self._codes:
            _board.parse(code, self.game)  # raises, naming the range
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
        if not position.best_mask:
            raise InvalidBoardError(f"the game is over on {position.board}: there is no move to make")
        return position.best_moves[0]

    def lookup_codes(self, codes: np.ndarray | Iterable[int], *, check: bool = True) -> Scores:
        """Scores and best-move masks of many codes at once (vectorised).

        :param codes: an integer array (any shape, or a single int) of base-3 codes.
        :param check: raise for unreachable codes. Codes out of range always
            raise; with ``check=False`` unreachable codes read ``UNREACHABLE``.
        :raises InvalidBoardError: naming the first bad code and its index.
        """
        codes = np.asarray(codes)
        if codes.dtype.kind not in "iu":
            raise InvalidBoardError(f"codes must be integers, found dtype {codes.dtype}")
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
        """SHA-256 of the entries' bytes, as stored in the header."""
        return hashlib.sha256(self._raw).hexdigest()

    def header(self) -> dict[str, Any]:
        """The file header for this table (without its array offsets)."""
        game = self.game
        return {
            "format": "solved-tictactoe table",
            "format_version": FORMAT_VERSION,
            "game": {"rows": game.rows, "cols": game.cols, "k": game.k, "name": game.name},
            "encoding": ENCODING,
            "score": SCORE,
            "sha256": self.sha256,
        }

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the table to ``path`` atomically (a temporary file, then a rename).

        The same table always gives the same bytes. Returns the path written.
        """
        path = Path(path)
        header = self.header()
        header["arrays"] = {"entries": {"dtype": ENTRY.descr, "shape": [self.game.codes], "offset": 0}}
        start = _align(12 + len(_dump(header)) + 16)  # room for the offset's digits
        header["arrays"]["entries"]["offset"] = start
        head = MAGIC + struct.pack("<I", start - 12) + _dump(header).ljust(start - 12).encode("ascii")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(head)
                out.write(self._raw)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    def verify(self) -> list[str]:
        """Prove the table: checksum, then a fresh build compared code by code.

        :returns: the problems found (empty when the table is exact).
        """
        problems = []
        if self.path is not None:
            try:
                stored = read_header(self.path)["sha256"]
            except TableError as error:
                return [str(error)]
            if stored != self.sha256:
                problems.append(f"checksum mismatch: header says {stored}, arrays hash to {self.sha256}")
        fresh = build_arrays(self.game)
        for name in ENTRY.names:
            mine = self.entries[name]
            wrong = np.flatnonzero(mine != fresh[name])
            if wrong.size:
                code = int(wrong[0])
                problems.append(
                    f"{name} differs from a fresh build at {wrong.size} codes, first at code {code} "
                    f"({_board.render(self.game, code)}): stored {mine[code]}, computed {fresh[name][code]}"
                )
        return problems


def _align(offset: int) -> int:
    return -(-offset // _ALIGN) * _ALIGN


def _dump(header: dict[str, Any]) -> str:
    return json.dumps(header, sort_keys=True, separators=(",", ":"))


def build_table(rows: int = 3, cols: int = 3, k: int = 3, *, game: Game | str | None = None, progress: Progress | None = None) -> Table:
    """Solve a game in memory: ``build_table()`` is tic-tac-toe, ``build_table(game="4x4")`` four in a row.

    :param progress: called with 1 after each ply of each pass (:func:`solver.build.build_steps` calls).
    """
    resolved = parse_game(game) if game is not None else Game(rows, cols, k)
    return Table(resolved, build_arrays(resolved, progress=progress))


def read_header(path: str | os.PathLike[str], *, game: Game | None = None) -> dict[str, Any]:
    """Read and check a table file's header (magic, version, game, array sizes).

    :raises TableError: naming the file, what is wrong and the command that rebuilds it.
    """
    path = Path(path)
    expected = game

    def fail(problem: str, found_game: Game | None = None) -> TableError:
        fix = rebuild_command(expected or found_game or _game_from_name(path), path)
        return TableError(f"{path}: {problem}; rebuild it with: {fix}")

    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(12)
            if len(head) >= 8 and head[:8] != MAGIC:
                raise fail("not a solved-tictactoe table (bad magic bytes)")
            if len(head) < 12:
                raise fail(f"truncated ({size} bytes)")
            (length,) = struct.unpack("<I", head[8:])
            raw = handle.read(length)
    except FileNotFoundError:
        raise fail("no such table file") from None
    except IsADirectoryError:
        raise fail("is a directory, not a table file") from None
    except OSError as error:
        raise fail(f"cannot read ({error.strerror})") from None
    if len(raw) < length:
        raise fail(f"truncated ({size} bytes, the header alone needs {12 + length})")
    try:
        header = json.loads(raw.decode("ascii"))
        version = header["format_version"]
        spec = header["game"]
        found = Game(int(spec["rows"]), int(spec["cols"]), int(spec["k"]))
        spec_array = header["arrays"]["entries"]
        dtype = np.dtype([tuple(field) for field in spec_array["dtype"]])
        shape, offset = tuple(spec_array["shape"]), int(spec_array["offset"])
        str(header["sha256"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as error:
        raise fail(f"corrupt header ({type(error).__name__}: {error})") from None
    if version != FORMAT_VERSION:
        raise fail(f"format version {version}, expected {FORMAT_VERSION}", found)
    if expected is not None and found != expected:
        raise fail(f"holds {found.name}, expected {expected.name}")
    if offset != 12 + length:
        raise fail(f"corrupt header (the entries start at byte {offset}, expected {12 + length})", found)
    if (dtype, shape) != (ENTRY, (found.codes,)):
        raise fail(f"entries are {dtype}{list(shape)}, expected {ENTRY}{[found.codes]}", found)
    end = offset + ENTRY.itemsize * found.codes
    if end > size:
        raise fail(f"truncated ({size} bytes, expected {end})", found)
    header["_offset"] = offset
    header["_game"] = found
    return header


def _game_from_name(path: Path) -> Game:
    """The game a table file's name suggests (``4x4k4.ttt``), else tic-tac-toe."""
    try:
        return parse_game(path.stem)
    except ValueError:
        return Game()


def load_table(path: str | os.PathLike[str], *, game: Game | str | None = None, verify: bool | None = None) -> Table:
    """Open a table file (memory-mapped; nothing is unpickled).

    :param game: the game the file must hold (checked against the header).
    :param verify: check the SHA-256 of the arrays; ``None`` (default) checks
        tables of up to 8 MiB, such as 3x3, and trusts the header of larger ones
        (``solve verify`` checks those).
    :raises TableError: for a missing, truncated, corrupt or mismatched file.
    """
    path = Path(path)
    header = read_header(path, game=None if game is None else parse_game(game))
    found: Game = header["_game"]
    entries = np.memmap(path, dtype=ENTRY, mode="r", offset=header["_offset"], shape=(found.codes,))
    table = Table(found, entries, path=path)
    if verify or (verify is None and path.stat().st_size <= _VERIFY_ON_OPEN_BYTES):
        if table.sha256 != header["sha256"]:
            raise TableError(
                f"{path}: checksum mismatch, the arrays are corrupt; rebuild it with: {rebuild_command(found, path)}"
            )
    return table
