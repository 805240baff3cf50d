"""Compact tables: one score byte per legal-count board, best moves found from the children.

A :class:`CompactTable` answers the same questions as :class:`solver.table.Table`
(``at``, ``lookup``, ``get``, ``best_move``, ``lookup_codes``, ``stats``, ``verify``)
for games of up to 25 cells. It stores only the score of every board of
:mod:`solver.index` (int8, :mod:`solver.score`: for the side to move, ``100 - d`` a
win in ``d`` plies, 0 a draw, ``-(100 - d)`` a loss, ``UNREACHABLE`` = -128). A
position's best moves and every move's outcome come from its children's scores
(at most ``cells`` probes), computed only when first asked for
(:attr:`solver.position.Position.best_mask`).

**Trust.** With a ``verify`` hook (the table file's ``verify_items``), no byte is
read before the span of the table holding it was checked once in this process:
spans of :data:`SPAN` boards, checked on first use.

>>> from solver.layered import build_layers
>>> import tempfile
>>> with tempfile.TemporaryDirectory() as directory:
...     table = CompactTable.from_layers("3x3", build_layers("3x3", directory, jobs=1).layers())
>>> p = table.lookup("X.O/.X./..O")
>>> p.result, p.plies, p.best_moves
('draw', 5, ((1, 2),))
>>> table.best_move("XX./OO./...")
(0, 2)
"""

from __future__ import annotations

import os
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from . import board as _board
from .errors import InvalidBoardError, TableError
from .game import Game, parse_game
from .index import SCHEME, SCHEME_VERSION, layout
from .layered import Progress
from .position import Position
from .score import UNREACHABLE, WIN, decode_many
from .table import Lookups
from .tablefile import TableFile

SPAN_BITS = 20
SPAN = 1 << SPAN_BITS
"""Boards per verified span: a span's bytes are checked once, on first use."""
_BATCH = 1 << 16
"""Codes per step of a batch look-up (the temporaries stay in the CPU caches)."""
_THREADS_FROM = 1 << 18
"""Batches of at least this many codes are split over two threads."""

_new = object.__new__
_set_game, _set_code, _set_score, _set_pieces, _set_table = (
    getattr(Position, name).__set__ for name in ("game", "code", "score", "pieces", "table")
)

VerifyItems = Callable[[int, int], None]
"""``verify(start, stop)``: check the stored bytes of boards ``start .. stop - 1``; raise :class:`TableError` if bad."""


def compact_meta(game: Game) -> dict[str, Any]:
    """What a compact table file records about its layout (the ``meta`` of :func:`solver.tablefile.write_table`)."""
    index = layout(game)
    return {
        "index": SCHEME,
        "index_version": SCHEME_VERSION,
        "layer_offsets": list(index.layer_offsets[:-1]),
        "layer_sizes": list(index.layer_sizes),
        "score": "int8 for the side to move: 100-d win in d plies, 0 draw, -(100-d) loss, -128 unreachable",
    }


class CompactScores:
    """The answer of :meth:`CompactTable.lookup_codes`: arrays aligned with the codes asked.

    The same attributes as :class:`solver.table.Scores`; ``ply`` and ``best`` are
    computed when first read (``best`` probes every child: about ``cells`` times the
    cost of the look-up itself).

    ==========  ===============================================================
    ``score``   int8, for the side to move (:mod:`solver.score`)
    ``ply``     uint8, pieces on the board (X is to move when even)
    ``best``    uint32, bit ``cell`` set for every best move (0 when finished)
    ``value``   int8, for X: 1 X wins, 0 draw, -1 O wins
    ``plies``   int8, plies to the end under perfect play
    ==========  ===============================================================
    """

    def __init__(self, table: CompactTable, codes: np.ndarray, indices: np.ndarray, score: np.ndarray) -> None:
        self.game = table.game
        self.score = score
        self._table = table
        self._codes = codes
        self._indices = indices

    @cached_property
    def ply(self) -> np.ndarray:
        """Pieces on the board (uint8)."""
        offsets = np.asarray(self._table.layout.layer_offsets)
        found = np.searchsorted(offsets, self._indices, side="right") - 1
        return np.where(self._indices < 0, 0, found).astype(np.uint8).reshape(self.score.shape)  # illegal counts: 0

    @cached_property
    def best(self) -> np.ndarray:
        """Best-move masks (uint32), from the children's scores."""
        masks = self._table.best_masks(self._codes.reshape(-1), self.ply.reshape(-1), self.score.reshape(-1))
        return masks.reshape(self.score.shape)

    @property
    def value(self) -> np.ndarray:
        """The value for X (int8: 1 X wins, 0 draw, -1 O wins)."""
        sign = np.sign(self.score)
        values: np.ndarray = np.where(self.ply % 2 == 0, sign, -sign).astype(np.int8)
        return values

    @property
    def plies(self) -> np.ndarray:
        """Plies to the end under perfect play (int8)."""
        return decode_many(self.score, self.game.cells - self.ply.astype(np.int16))[1]


class CompactTable(Lookups):
    """A solved game in the compact layout: look-ups answer like :class:`solver.table.Table`'s.

    :param scores: int8, one per board of :func:`solver.index.layout`, all layers
        concatenated (a memory map of the table file, or an array).
    :param verify: checks stored boards ``start .. stop - 1`` (raises :class:`TableError`);
        called once per span of :data:`SPAN` boards before any byte of it is used.
    """

    def __init__(self, game: Game | str, scores: np.ndarray, *, path: Path | None = None, verify: VerifyItems | None = None) -> None:
        self.game = parse_game(game)
        self.layout = layout(self.game)
        if scores.dtype != np.int8 or scores.shape != (self.layout.size,):
            raise TableError(
                f"scores {scores.dtype}{list(scores.shape)} do not fit {self.game.name}: expected int8[{self.layout.size}]"
            )
        self.path = path
        self.scores = scores
        self._view = memoryview(scores.data if isinstance(scores, np.ndarray) else scores).cast("B").cast("b")
        self._codes = self.game.codes
        self._index = self.layout.index_of_code
        self._offsets = self.layout.layer_offsets
        self._powers = tuple(3**cell for cell in range(self.game.cells))
        self._verify = verify
        self.file: TableFile | None = None
        """The open file behind the table (None for a table made in memory)."""
        spans = -(-self.layout.size // SPAN)
        self._checked = bytearray(spans if verify is not None else 0)
        self._all_checked = verify is None
        self._pool: ThreadPoolExecutor | None = None

    @classmethod
    def from_layers(cls, game: Game | str, layers: Sequence[np.ndarray], **options: Any) -> CompactTable:
        """A table from per-layer score arrays (layer 0 first), concatenated in memory (small games, tests)."""
        return cls(game, np.concatenate([np.asarray(layer, dtype=np.int8) for layer in layers]), **options)

    def __repr__(self) -> str:
        return f"<CompactTable {self.game.name} from {self.path or 'memory'}>"

    # -- trust ----------------------------------------------------------------------
    def _check_span(self, index: int) -> None:
        span = index >> SPAN_BITS
        if not self._checked[span]:
            assert self._verify is not None
            self._verify(span << SPAN_BITS, min(self.layout.size, (span + 1) << SPAN_BITS))
            self._checked[span] = 1
            self._all_checked = all(self._checked)

    def verify_blocks(self) -> None:
        """Verify every stored span now rather than on first use (a long-lived server does).

        :raises TableError: at the first damaged block.
        """
        for span in range(len(self._checked)):
            self._check_span(span << SPAN_BITS)
        self._all_checked = True

    @property
    def sha256(self) -> str:
        """The table's checksum: the root SHA-256 of its file (:mod:`solver.tablefile`)."""
        from . import tablefile

        if self.file is not None:
            return self.file.header.root
        header, digests = tablefile.checksums(kind="compact", game=self.game, arrays={"scores": self.scores}, meta=compact_meta(self.game))
        return tablefile.root_of(header, digests)

    def _check_indices(self, indices: np.ndarray) -> None:
        if self._all_checked or not indices.size:
            return
        touched = np.zeros(len(self._checked), dtype=bool)
        touched[indices[indices >= 0] >> SPAN_BITS] = True
        for span in np.flatnonzero(touched).tolist():
            self._check_span(span << SPAN_BITS)

    # -- looking up -------------------------------------------------------------------
    def score_of(self, code: int) -> int:
        """The stored score of a code (``UNREACHABLE`` if no game reaches it or its counts are illegal)."""
        index = self._index(code)
        if index < 0:
            return UNREACHABLE
        if not self._all_checked:
            self._check_span(index)
        score: int = self._view[index]
        return score

    def at(self, code: int) -> Position:
        """The :class:`Position` of a code; its best moves are found when first asked for.

        :raises InvalidBoardError: for a code out of range or that no legal game reaches.
        """
        if not 0 <= code < self._codes:
            _board.parse(code, self.game)  # raises, naming the range
        index = self._index(code)
        if index < 0:
            _board.check_rules(self.game, code)  # raises: impossible piece counts
        if not self._all_checked:
            self._check_span(index)
        score = self._view[index]
        if score == UNREACHABLE:
            _board.check_rules(self.game, code)
            raise TableError(
                f"{self.path or 'table'}: code {code} breaks no rule but is marked unreachable; "
                f"rebuild it with: solve build --game {self.game.name}"
            )
        position = _new(Position)
        _set_game(position, self.game)
        _set_code(position, code)
        _set_score(position, score)
        _set_pieces(position, bisect_right(self._offsets, index) - 1)
        _set_table(position, self)
        return position

    def best_mask_of(self, code: int) -> int:
        """Bit ``cell`` set for every best move of a reachable code (0 when the game is over).

        The moves whose child has the smallest score (:mod:`solver.score`).
        """
        score = self.score_of(code)
        if score == -WIN or score == UNREACHABLE:
            return 0
        empty = []
        rest, x, o = code, 0, 0
        for cell, power in enumerate(self._powers):
            rest, digit = divmod(rest, 3)
            if digit == 0:
                empty.append((cell, power))
            elif digit == 1:
                x += 1
            else:
                o += 1
        if not empty:
            return 0
        piece = 1 if x == o else 2
        lowest, mask = 128, 0
        score_of = self.score_of
        for cell, power in empty:
            child = score_of(code + piece * power)
            if child < lowest:
                lowest, mask = child, 1 << cell
            elif child == lowest:
                mask |= 1 << cell
        return mask

    # -- many at once ---------------------------------------------------------------------
    def indices(self, codes: np.ndarray) -> np.ndarray:
        """The table index of every code (int64, flat); negative for illegal piece counts. Codes must be in range."""
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        out = np.empty(flat.size, dtype=np.int64)
        for a in range(0, flat.size, _BATCH):
            out[a : a + _BATCH] = self.layout.index_of(flat[a : a + _BATCH])
        return out

    def _gather_part(self, codes: np.ndarray, indices: np.ndarray, scores: np.ndarray) -> bool:
        """Indices and scores of one part of a batch, step by step so the temporaries stay in cache;
        whether every code was in range."""
        index_of, table, limit = self.layout.index_of, self.scores, self._codes
        for a in range(0, codes.size, _BATCH):
            step = codes[a : a + _BATCH]
            if step.size and (step.min() < 0 or step.max() >= limit):
                return False
            found = indices[a : a + _BATCH]
            found[:] = index_of(step)
            if found.size and found.min() < 0:  # illegal piece counts: no byte to read
                illegal = found < 0
                scores[a : a + _BATCH] = np.where(illegal, UNREACHABLE, np.take(table, np.where(illegal, 0, found)))
            else:
                np.take(table, found, out=scores[a : a + _BATCH])
        return True

    def lookup_codes(self, codes: np.ndarray | Iterable[int], *, check: bool = True) -> CompactScores:
        """Scores of many codes at once (vectorised); ``ply`` and ``best`` follow when read.

        Large batches are split over two threads (numpy releases the GIL; random reads
        into a large table wait on memory, not on the CPU).

        :param codes: an integer array (any shape, or a single int) of base-3 codes.
        :param check: raise for unreachable codes. Codes out of range always raise;
            with ``check=False`` unreachable codes read ``UNREACHABLE``.
        :raises InvalidBoardError: naming the first bad code and its index.
        """
        codes = np.asarray(codes)
        if codes.dtype.kind not in "iu":
            raise InvalidBoardError(f"codes must be integers, found dtype {codes.dtype}")
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        indices = np.empty(flat.size, dtype=np.int64)
        scores = np.empty(flat.size, dtype=np.int8)
        if flat.size < _THREADS_FROM:
            in_range = self._gather_part(flat, indices, scores)
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(2, thread_name_prefix="solver-compact")
            half = (flat.size // 2 // _BATCH + 1) * _BATCH
            parts = [self._pool.submit(self._gather_part, flat[a:b], indices[a:b], scores[a:b]) for a, b in ((0, half), (half, flat.size))]
            results = [part.result() for part in parts]  # both finish before the arrays are used
            in_range = all(results)
        if not in_range:
            self._explain_bad_code(flat, check)
        self._check_indices(indices)  # before any answer leaves: the bytes read are verified
        if check and flat.size and scores.min() == UNREACHABLE:
            self._explain_bad_code(flat, check)
        return CompactScores(self, flat, indices, scores.reshape(codes.shape))

    def _explain_bad_code(self, codes: np.ndarray, check: bool) -> None:
        for position, code in enumerate(codes.tolist()):
            if not 0 <= code < self._codes:
                raise InvalidBoardError(f"codes[{position}] = {code} is out of range for {self.game.name}: expected 0 to {self._codes - 1}")
            if check and self.score_of(code) == UNREACHABLE:
                reason = _board.rule_violation(self.game, code) or "marked unreachable"
                raise InvalidBoardError(f"codes[{position}] = {code} ({_board.render(self.game, code)}) is not a reachable position: {reason}")
        raise AssertionError("a batch was invalid, but no code in it is")  # pragma: no cover

    def best_masks(self, codes: np.ndarray, ply: np.ndarray, score: np.ndarray) -> np.ndarray:
        """Best-move masks of many boards (uint32, vectorised over boards, a loop over cells)."""
        lowest = np.full(codes.size, 127, dtype=np.int8)
        mask = np.zeros(codes.size, dtype=np.uint32)
        piece = np.where(ply % 2 == 0, 1, 2).astype(np.int64)
        playing = (score != -WIN) & (score != UNREACHABLE)
        for cell, power in enumerate(self._powers):
            empty = playing & ((codes // power) % 3 == 0)
            if not empty.any():
                continue
            child = self.indices(np.where(empty, codes + piece * power, 0))
            self._check_indices(child)
            child_score = np.where(empty, np.take(self.scores, np.maximum(child, 0)), 127).astype(np.int8)
            better = child_score < lowest
            same = (child_score == lowest) & empty
            mask = np.where(better, np.uint32(1 << cell), np.where(same, mask | np.uint32(1 << cell), mask))
            lowest = np.minimum(lowest, child_score)
        return mask

    # -- counts and proofs ---------------------------------------------------------------------
    def layer(self, ply: int) -> np.ndarray:
        """The scores of one layer (a view), in layer index order."""
        start, stop = self.layout.layer_offsets[ply], self.layout.layer_offsets[ply + 1]
        if not self._all_checked:
            for span in range(start >> SPAN_BITS, -(-stop >> SPAN_BITS)):
                self._check_span(span << SPAN_BITS)
        view: np.ndarray = self.scores[start:stop]
        return view

    def stats(self) -> dict[str, Any]:
        """Counts per result, per layer and for the side to move, from one pass over the scores.

        The keys of :mod:`solver.stats` where they can be counted without an array over
        every code; ``unique_positions`` and ``games`` are None (``omitted`` says why), and
        ``layers`` lists each layer's ``ply``, ``positions``, ``wins``, ``draws``, ``losses``
        (for the side to move) and ``finished``.
        """
        totals = dict.fromkeys(("positions", "x_wins", "draws", "o_wins", "wins", "losses"), 0)
        terminal = dict.fromkeys(("positions", "x_wins", "o_wins", "draws"), 0)
        per_layer = []
        for ply in range(self.game.cells + 1):
            counts = np.zeros(256, dtype=np.int64)
            scores = self.layer(ply)
            for start in range(0, scores.size, 1 << 26):
                counts += np.bincount(scores[start : start + (1 << 26)].view(np.uint8), minlength=256)
            by_score = np.roll(counts, 128)  # index s + 128 for score s
            wins = int(by_score[129:].sum())
            losses = int(by_score[1:128].sum())  # -127 .. -1; -128 is unreachable
            draws = int(by_score[128])
            lost_now = int(by_score[128 - WIN])
            positions = wins + draws + losses
            x_to_move = ply % 2 == 0
            totals["positions"] += positions
            totals["wins"] += wins
            totals["losses"] += losses
            totals["draws"] += draws
            totals["x_wins"] += wins if x_to_move else losses
            totals["o_wins"] += losses if x_to_move else wins
            full_draws = draws if ply == self.game.cells else 0
            terminal["positions"] += lost_now + full_draws
            terminal["o_wins" if x_to_move else "x_wins"] += lost_now
            terminal["draws"] += full_draws
            per_layer.append({"ply": ply, "positions": positions, "wins": wins, "draws": draws, "losses": losses,
                              "finished": lost_now + full_draws})
        from .stats import summary

        return {
            **summary(self.game, totals, terminal, self.at(0), unique=None, games=None),
            "omitted": {
                "unique_positions": "needs a canonical form of every position; not counted for compact tables",
                "games": "needs a path count per position (8 bytes each); not counted for compact tables",
            },
            "layers": per_layer,
        }

    def reachable_codes(self) -> np.ndarray:
        """Every reachable code, ascending (int64; only for tables of up to 2**27 boards)."""
        if self.layout.size > 1 << 27:
            raise TableError(f"{self.game.name} has {self.layout.size:,} boards: too many to list every reachable code")
        codes = self.layout.codes(0, self.layout.size)[0]
        found: np.ndarray = np.sort(codes[np.asarray(self.scores) != UNREACHABLE])
        return found

    def verify(self) -> list[str]:
        """Prove the table: every stored span checked (with a ``verify`` hook), then every layer
        re-derived from the stored next layer and compared board by board (a full build's work).

        :returns: the problems found (empty when the table is exact).
        """
        from .layered import check_layers

        problems = []
        try:
            layers = [self.layer(ply) for ply in range(self.game.cells + 1)]
        except TableError as error:
            return [str(error)]
        problems.extend(check_layers(self.game, layers))
        return problems


# -- the file (the format itself lives in solver.tablefile) ------------------------------
def write_compact(path: str | os.PathLike[str], game: Game | str, layers: Sequence[np.ndarray]) -> Path:
    """Write a compact table file from per-layer scores (layer 0 first; memory maps are streamed).

    The file's ``meta`` records the index scheme and the layer offsets (:func:`compact_meta`).
    """
    from .tablefile import write_table

    game = parse_game(game)
    sizes = [len(layer) for layer in layers]
    if sizes != list(layout(game).layer_sizes):
        raise TableError(f"layer sizes {sizes} do not fit {game.name}: expected {list(layout(game).layer_sizes)}")
    parts = [layer for layer in layers if len(layer)]
    return write_table(path, kind="compact", game=game, meta=compact_meta(game), arrays={"scores": parts})


def open_compact(path: str | os.PathLike[str], *, game: Game | str | None = None) -> CompactTable:
    """Open a compact table file: header and layout checked now, score blocks verified on first use.

    :raises TableError: for a missing, damaged or mismatched file, or one written with another index.
    """
    from .tablefile import open_table

    expected = None if game is None else parse_game(game)
    return compact_from_file(open_table(path, game=expected))


def compact_from_file(table_file: TableFile) -> CompactTable:
    """The :class:`CompactTable` of an open table file (layout checked, blocks verified on first use).

    :raises TableError: if the file holds another kind of table, or one written with another index.
    """
    header = table_file.header
    found = header.game
    wanted = compact_meta(found)
    meta = dict(header.meta)
    if header.kind != "compact":
        raise table_file.error(f"holds a {header.kind} table, expected a compact one")
    for key in ("index", "index_version", "layer_offsets", "layer_sizes"):
        if meta.get(key) != wanted[key]:
            raise table_file.error(f"meta {key} is {meta.get(key)!r}, expected {wanted[key]!r} (another index scheme)")
    guard = table_file.guard("scores")
    table = CompactTable(found, table_file.array("scores"), path=table_file.path, verify=guard.ensure_range)
    table.file = table_file
    return table


def build_compact(
    game: Game | str,
    output: str | os.PathLike[str],
    *,
    build_dir: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    progress: Progress | None = None,
    notify: Callable[[str], None] | None = None,
    keep_layers: bool = False,
) -> Path:
    """Solve a game into a compact table file: the layered build (local or on a Dask cluster), then the file.

    A killed build run again with the same ``build_dir`` resumes below its last finished
    layer (``notify`` says so). The disk and memory needed are checked before anything
    is written (:class:`solver.layered.BuildError` gives the figures).

    :param output: the table file to write (atomically).
    :param build_dir: where the layers go while building (default: ``<output>.build``;
        on a cluster, a directory every worker sees at the same path).
    :param jobs: local worker processes (default: every core); ignored with ``scheduler``.
    :param scheduler: a Dask scheduler address (``tcp://host:8786``) or client: build on that cluster.
    :param progress: called after every chunk (:class:`solver.layered.ChunkDone`; the
        total work is :attr:`solver.layered.BuildPlan.work` of :func:`solver.layered.plan_build`).
    :param keep_layers: keep the build directory after the file is written.
    :returns: the path written.
    """
    import shutil

    from .layered import build_layers

    game = parse_game(game)
    output = Path(output)
    directory = Path(build_dir) if build_dir is not None else output.with_name(output.name + ".build")
    file_bytes = layout(game).size
    if scheduler is not None:
        from .cluster import build_on_cluster

        built = build_on_cluster(game, directory, scheduler, progress=progress, notify=notify, extra_disk=file_bytes)
    else:
        built = build_layers(game, directory, jobs=jobs, progress=progress, notify=notify, extra_disk=file_bytes)
    written = write_compact(output, game, built.layers())
    if not keep_layers:
        shutil.rmtree(directory, ignore_errors=True)
    return written
