"""The table: a solved game on disk and in memory, and looking positions up in it.

**File format** (one file per game, ``<game>.ttt``, e.g. ``3x3k3.ttt``):

=========  ====================================================================
bytes      content
=========  ====================================================================
0-7        magic ``b"SOLVTTT\\n"``
8-11       header length ``H``, unsigned 32-bit little-endian
12-        header: ``H`` bytes of JSON (sorted keys, ASCII), padded with spaces
           so the arrays start on a 64-byte boundary
...        ``score``: ``int8[3**cells]``, the score of every code (:mod:`solver.score`)
...        ``best``: ``uint16[3**cells]`` little-endian, best-move masks
=========  ====================================================================

The header holds ``format_version``, the ``game`` (rows, cols, k, name), the
``encoding`` and ``score`` conventions in words, each array's dtype, shape and
byte offset, and ``sha256``: the SHA-256 of the two arrays' bytes in order.
Reachable codes are exactly those whose score is not ``UNREACHABLE``.

The header is checked on every open; the checksum on open for small tables
(``verify=None``) and always by :meth:`Table.verify`. Arrays of large tables
are memory-mapped, so opening 4x4 takes milliseconds. No pickle is ever read.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import board as _board
from .build import Progress, build_arrays
from .errors import InvalidBoardError, TableError
from .game import Game, parse_game
from .position import Position
from .score import UNREACHABLE, WIN

MAGIC = b"SOLVTTT\n"
FORMAT_VERSION = 1
_ALIGN = 64
_new = object.__new__
_set_game, _set_code, _set_score, _set_best, _set_table = (
    getattr(Position, name).__set__ for name in ("game", "code", "score", "best_mask", "table")
)
_VERIFY_ON_OPEN_BYTES = 8 << 20
"""With ``verify=None``, tables up to this size are checksummed on every open."""

ENCODING = "cell = row * cols + col; digit 0 empty, 1 X, 2 O; code = sum(digit * 3**cell); X moves first"
SCORE = (
    "int8 for the side to move: 100-d win in d plies, 0 draw, -(100-d) loss in d plies, "
    "-128 unreachable; best: uint16, bit cell set for every best move"
)


def rebuild_command(game: Game, path: Path | str) -> str:
    """The shell command that rebuilds the table file at ``path``."""
    return f"solve build --game {game.name} --output {path}"


@dataclass(frozen=True)
class Scores:
    """The answer of :meth:`Table.lookup_codes`: arrays aligned with the codes asked.

    ``score`` is ``int8`` for the side to move (:mod:`solver.score`), ``best``
    ``uint16`` best-move masks (bit ``cell``). :attr:`value` and :attr:`plies`
    are derived on demand.
    """

    game: Game
    codes: np.ndarray
    score: np.ndarray
    best: np.ndarray

    @property
    def pieces(self) -> np.ndarray:
        """Pieces on each board (int8)."""
        return _pieces(self.game, self.codes)

    @property
    def value(self) -> np.ndarray:
        """The value for X (int8: 1 X wins, 0 draw, -1 O wins)."""
        sign = np.sign(self.score).astype(np.int8)
        return np.where(self.pieces % 2 == 0, sign, -sign).astype(np.int8)

    @property
    def plies(self) -> np.ndarray:
        """Plies to the end under perfect play (int8)."""
        decisive = (WIN - np.abs(self.score.astype(np.int16))).astype(np.int8)
        return np.where(self.score == 0, self.game.cells - self.pieces, decisive).astype(np.int8)


def _pieces(game: Game, codes: np.ndarray) -> np.ndarray:
    """Number of pieces of each code, from per-half digit-count tables."""
    low = game.cells // 2
    counts = np.zeros(3**low, dtype=np.int8)
    for cell in range(low):
        counts += ((np.arange(3**low) // 3**cell) % 3 != 0).astype(np.int8)
    high_counts = np.zeros(3 ** (game.cells - low), dtype=np.int8)
    for cell in range(game.cells - low):
        high_counts += ((np.arange(high_counts.size) // 3**cell) % 3 != 0).astype(np.int8)
    codes = np.asarray(codes, dtype=np.int64)
    return counts[codes % 3**low] + high_counts[codes // 3**low]


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

    def __init__(self, game: Game, score: np.ndarray, best: np.ndarray, *, path: Path | None = None) -> None:
        if score.shape != (game.codes,) or best.shape != (game.codes,):
            raise TableError(f"arrays of shape {score.shape} and {best.shape} do not fit {game.name}: expected ({game.codes},)")
        self.game = game
        self.path = path
        self._codes = game.codes
        self.score = score
        self.best = best
        self._score_view = memoryview(score).cast("B").cast("b")
        self._best_view = memoryview(best).cast("B").cast("H") if best.dtype.byteorder in "<|=" else None

    def __repr__(self) -> str:
        return f"<Table {self.game.name} from {self.path or 'memory'}>"

    # -- looking up -----------------------------------------------------------
    def score_of(self, code: int) -> int:
        """The stored score of a code (``UNREACHABLE`` if no game reaches it)."""
        return self._score_view[code]

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
        if found != self.game:
            raise InvalidBoardError(f"the board is a {found.name} board, but this table is for {self.game.name}")
        return self.at(code)

    def at(self, code: int) -> Position:
        """The :class:`Position` of a code.

        :raises InvalidBoardError: for a code out of range or that no legal game reaches.
        """
        if not 0 <= code < self._codes:
            _board.parse(code, self.game)  # raises, naming the range
        score = self._score_view[code]
        if score == UNREACHABLE:
            _board.check_rules(self.game, code)
            raise TableError(
                f"{self.path or 'table'}: code {code} breaks no rule but is marked unreachable; "
                f"rebuild it with: {rebuild_command(self.game, self.path or 'PATH')}"
            )
        # make_position, inlined: this is the look-up hot path.
        position = _new(Position)
        _set_game(position, self.game)
        _set_code(position, code)
        _set_score(position, score)
        _set_best(position, self._best_view[code] if self._best_view is not None else int(self.best[code]))
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

        :param codes: an integer array (any shape) of base-3 codes.
        :param check: raise for codes out of range or unreachable. With
            ``check=False`` out-of-range codes raise numpy's ``IndexError`` and
            unreachable ones read ``UNREACHABLE``.
        :raises InvalidBoardError: naming the first bad code and its index.
        """
        codes = np.asarray(codes)
        if codes.dtype.kind not in "iu":
            raise InvalidBoardError(f"codes must be integers, found dtype {codes.dtype}")
        if check and codes.size:
            low, high = codes.min(), codes.max()
            if low < 0 or high >= self.game.codes:
                index = int(np.flatnonzero((codes.reshape(-1) < 0) | (codes.reshape(-1) >= self.game.codes))[0])
                raise InvalidBoardError(
                    f"codes[{index}] = {codes.reshape(-1)[index]} is out of range for {self.game.name}: expected 0 to {self.game.codes - 1}"
                )
        score = self.score[codes]
        if check and score.size:
            unreachable = score == UNREACHABLE
            if unreachable.any():
                index = int(np.argmax(unreachable.reshape(-1)))
                code = int(codes.reshape(-1)[index])
                reason = _board.rule_violation(self.game, code) or "marked unreachable"
                raise InvalidBoardError(f"codes[{index}] = {code} ({_board.render(self.game, code)}) is not a reachable position: {reason}")
        return Scores(self.game, codes, score, self.best[codes])

    def reachable_codes(self) -> np.ndarray:
        """Every reachable code, ascending."""
        return np.flatnonzero(self.score != UNREACHABLE)

    def stats(self) -> dict[str, Any]:
        """Counts over the table (see :func:`solver.stats.table_stats`)."""
        from .stats import table_stats

        return table_stats(self)

    # -- the file ---------------------------------------------------------------
    def _arrays(self) -> list[tuple[str, np.ndarray]]:
        return [("score", np.ascontiguousarray(self.score, dtype=np.int8)), ("best", np.ascontiguousarray(self.best, dtype="<u2"))]

    @property
    def sha256(self) -> str:
        """SHA-256 of the arrays' bytes, as stored in the header."""
        digest = hashlib.sha256()
        for _, array in self._arrays():
            digest.update(memoryview(array).cast("B"))
        return digest.hexdigest()

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
        arrays = self._arrays()
        header = self.header()
        header["arrays"] = {}
        # Two passes: offsets depend on the header's length, which depends on the offsets.
        offset = 0
        for _ in range(2):
            offset = _align(12 + len(_dump(header)) + 16)
            for name, array in arrays:
                header["arrays"][name] = {"dtype": array.dtype.str, "shape": list(array.shape), "offset": offset}
                offset = _align(offset + array.nbytes)
        text = _dump(header)
        start = header["arrays"]["score"]["offset"]
        head = MAGIC + struct.pack("<I", start - 12) + text.ljust(start - 12).encode("ascii")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(head)
                for name, array in arrays:
                    out.write(b"\0" * (header["arrays"][name]["offset"] - out.tell()))
                    out.write(memoryview(array).cast("B"))
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
        score, best = build_arrays(self.game)
        for name, mine, fresh in (("score", self.score, score), ("best", self.best, best)):
            wrong = np.flatnonzero(np.asarray(mine) != fresh)
            if wrong.size:
                code = int(wrong[0])
                problems.append(
                    f"{name} differs from a fresh build at {wrong.size} codes, first at code {code} "
                    f"({_board.render(self.game, code)}): stored {mine[code]}, computed {fresh[code]}"
                )
        return problems


def _align(offset: int) -> int:
    return -(-offset // _ALIGN) * _ALIGN


def _dump(header: dict[str, Any]) -> str:
    return json.dumps(header, sort_keys=True, separators=(",", ":"))


def build_table(rows: int = 3, cols: int = 3, k: int = 3, *, game: Game | str | None = None, progress: Progress | None = None) -> Table:
    """Solve a game in memory: ``build_table()`` is tic-tac-toe, ``build_table(game="4x4")`` four in a row.

    :param progress: called with 1 after each ply's layer (``cells + 1`` calls).
    """
    resolved = parse_game(game) if game is not None else Game(rows, cols, k)
    score, best = build_arrays(resolved, progress=progress)
    return Table(resolved, score, best)


def read_header(path: str | os.PathLike[str], *, game: Game | None = None) -> dict[str, Any]:
    """Read and check a table file's header (magic, version, game, array sizes).

    :raises TableError: naming the file, what is wrong and the command that rebuilds it.
    """
    path = Path(path)
    expected = game

    def fail(problem: str, found_game: Game | None = None) -> TableError:
        fix = rebuild_command(expected or found_game or Game(), path)
        return TableError(f"{path}: {problem}; rebuild it with: {fix}")

    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(12)
            if len(head) < 12 or head[:8] != MAGIC:
                raise fail("not a solved-tictactoe table (bad magic bytes)" if len(head) >= 8 else f"truncated ({size} bytes)")
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
        arrays = header["arrays"]
        layout = {name: (np.dtype(arrays[name]["dtype"]), tuple(arrays[name]["shape"]), int(arrays[name]["offset"])) for name in ("score", "best")}
        str(header["sha256"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as error:
        raise fail(f"corrupt header ({type(error).__name__}: {error})") from None
    if version != FORMAT_VERSION:
        raise fail(f"format version {version}, expected {FORMAT_VERSION}", found)
    if expected is not None and found != expected:
        raise fail(f"holds {found.name}, expected {expected.name}")
    wanted = {"score": (np.dtype(np.int8), (found.codes,)), "best": (np.dtype("<u2"), (found.codes,))}
    for name, (dtype, shape, offset) in layout.items():
        if (dtype, shape) != wanted[name]:
            raise fail(f"array {name} is {dtype}{list(shape)}, expected {wanted[name][0]}{list(wanted[name][1])}", found)
        end = offset + dtype.itemsize * found.codes
        if end > size:
            raise fail(f"truncated ({size} bytes, expected at least {end})", found)
    header["_layout"] = layout
    header["_game"] = found
    return header


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
    arrays = {}
    for name, (dtype, shape, offset) in header["_layout"].items():
        arrays[name] = np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape)
    table = Table(found, arrays["score"], arrays["best"], path=path)
    if verify or (verify is None and path.stat().st_size <= _VERIFY_ON_OPEN_BYTES):
        if table.sha256 != header["sha256"]:
            raise TableError(
                f"{path}: checksum mismatch, the arrays are corrupt; rebuild it with: {rebuild_command(found, path)}"
            )
    return table
