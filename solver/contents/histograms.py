"""Per-layer counts of a compact table, from two histograms of its scores: every board, and up to symmetry.

A layer's **histograms** (:func:`histograms`) are an int64 array of shape ``(2, 256)``:
row :data:`ALL` counts every board of the layer by its score (the int8 score of
:mod:`solver.rules.score` viewed as uint8, so score ``s`` is bin ``s & 255``), row
:data:`CANONICAL` counts only the **canonical** boards (the smallest code among the
board's images, :mod:`solver.encoding.symmetry`): each class of boards equal up to the board's
symmetries once. The scores are the layered build's: ``UNREACHABLE`` (-128) for a board
no game reaches, the rule's :attr:`~solver.rules.base.Rules.line_score` for a finished board
with a line (``-WIN`` lost for the side to move; ``+WIN`` won, in misère play), 0 for a full
board drawn. :class:`LayerCounts` reads the counts off them.

A build that has each layer's scores and canonical mask at hand computes the histograms
there and keeps them in the table file's meta, under :data:`META_KEY`
(:func:`histograms_to_meta`, read back and checked by :func:`histograms_from_meta`), so
that ``solve stats`` reads them instead of scanning the table. Without them, a table
scans each layer once: :func:`layer_histograms` from every board's score,
:func:`stored_histograms` from the bytes of a compressed table, which hold a true score
only at canonical boards in play (:mod:`solver.tables.compact`).

>>> scores = np.array([0, 97, -100, -128, 97], dtype=np.int8)
>>> canonical = np.array([True, True, False, False, False])
>>> hist = histograms(scores, canonical)
>>> int(hist[ALL, 97]), int(hist[CANONICAL, 97]), int(hist[ALL, -128 & 255])
(2, 1, 1)
>>> counts = LayerCounts.from_histograms(Game(), 3, hist)
>>> counts.every
Counts(positions=4, wins=2, draws=1, losses=1, finished=1)
>>> counts.unique
Counts(positions=2, wins=1, draws=1, losses=0, finished=0)
>>> meta = {META_KEY: histograms_to_meta({3: hist})}
>>> meta[META_KEY]["3"]["canonical"]
{'0': 1, '97': 1}
>>> bool((histograms_from_meta(meta[META_KEY])[3] == hist).all())
True
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..encoding.index import Tile
from ..encoding.layouts import layout
from ..encoding.symmetry import symmetries
from ..rules.base import OUTCOMES, Outcome
from ..rules.game import Game

ALL = 0
"""Row of a layer's histograms that counts every board."""
CANONICAL = 1
"""Row that counts the canonical boards only (one per class of symmetric boards)."""
PARTS = ("all", "canonical")
"""The names of the two rows in the table file's meta."""
META_KEY = "layer_histograms"
"""The key of a compact table file's meta that holds every layer's histograms (:func:`histograms_to_meta`)."""
SHAPE = (2, 256)
"""The shape of one layer's histograms."""
_STEP_BOARDS = 1 << 18
_BIN_SCORES = np.arange(256, dtype=np.uint8).view(np.int8)
"""The score each histogram bin counts (bin ``s & 255``)."""
"""Boards per step: the temporaries of a step stay in the CPU caches (measured fastest here)."""


# -- histograms ------------------------------------------------------------------------------------
def histograms(scores: np.ndarray, canonical: np.ndarray) -> np.ndarray:
    """The histograms of one layer's boards (or of a part of it: they add up), int64, shape ``(2, 256)``.

    :param scores: the raw int8 score of every board (``UNREACHABLE``, ``-WIN`` and 0 for the
        boards the rules score, as the layered build writes them).
    :param canonical: bool, same length: whether each board is canonical.
    :returns: row :data:`ALL` the bincount of every score viewed as uint8, row :data:`CANONICAL`
        the bincount over the canonical boards.
    :raises ValueError: for other types or lengths.
    """
    scores, canonical = np.asarray(scores), np.asarray(canonical)
    if scores.dtype != np.int8 or canonical.dtype != np.bool_:
        raise ValueError(f"scores must be int8 and canonical bool, found {scores.dtype} and {canonical.dtype}")
    if scores.size != canonical.size:
        raise ValueError(f"{scores.size:,} scores but {canonical.size:,} canonical flags")
    flat, mask = scores.reshape(-1).view(np.uint8), canonical.reshape(-1).view(np.uint8)
    both = np.zeros(512, dtype=np.int64)  # bin score | canonical << 8: both rows in one bincount
    for a in range(0, flat.size, _STEP_BOARDS):
        key = flat[a : a + _STEP_BOARDS].astype(np.uint16)
        key |= mask[a : a + _STEP_BOARDS].astype(np.uint16) << 8
        both += np.bincount(key, minlength=512)
    return np.stack([both[:256] + both[256:], both[256:]])


def _by_score(row: np.ndarray) -> np.ndarray:
    """A histogram row indexed by ``score + 128`` (-128 first)."""
    return np.roll(np.asarray(row, dtype=np.int64), 128)


# -- counts ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Counts:
    """Reachable boards of one layer, by their ``result`` for the side to move.

    ``finished``: those where the game is over, as the rule says of their scores (a line completed: lost
    for the side to move, or won in misère play; a full board: drawn, or O's win under armageddon); they
    count among ``losses``, ``wins`` or ``draws`` too.
    """

    positions: int
    wins: int
    draws: int
    losses: int
    finished: int

    @classmethod
    def from_row(cls, row: np.ndarray, *, finished: Collection[int]) -> Counts:
        """The counts of one histogram row; ``finished``: the scores the rule gives a finished board of the layer
        (:meth:`solver.rules.base.Rules.finished_scores`)."""
        by_score = _by_score(row)
        wins = int(by_score[129:].sum())
        losses = int(by_score[1:128].sum())  # -127 .. -1; -128 is unreachable
        draws = int(by_score[128])
        return cls(wins + draws + losses, wins, draws, losses, int(sum(by_score[128 + score] for score in finished)))


@dataclass(frozen=True)
class LayerCounts:
    """The counts of one layer (``ply`` pieces on the board): every reachable board, and up to symmetry.

    ``every`` counts each reachable board; ``unique`` counts the canonical reachable ones,
    each class of boards equal under the board's symmetries once.
    """

    ply: int
    every: Counts
    unique: Counts
    ended: tuple[int, int, int] = field(default=(0, 0, 0), compare=False)
    """The finished boards of ``every`` that X won, that O won and that are drawn, as the rule says of their scores
    (:meth:`solver.rules.base.Rules.outcomes_of_scores`); the terminal counts of ``solve stats``."""

    @classmethod
    def from_histograms(cls, game: Game, ply: int, hist: np.ndarray) -> LayerCounts:
        """The counts of layer ``ply`` of ``game`` from its histograms (:func:`histograms`).

        :raises ValueError: if ``hist`` is not a ``(2, 256)`` array of counts with no more
            canonical boards than boards of any score.
        """
        hist = np.asarray(hist)
        if hist.shape != SHAPE or not np.issubdtype(hist.dtype, np.integer):
            raise ValueError(f"layer {ply}'s histograms are {hist.dtype}{list(hist.shape)}, expected integers of shape {list(SHAPE)}")
        if (hist < 0).any() or (hist[CANONICAL] > hist[ALL]).any():
            raise ValueError(f"layer {ply}'s histograms have a negative count or more canonical boards than boards")
        finished = game.rules.finished_scores(ply)
        outcome = game.rules.outcomes_of_scores(_BIN_SCORES, ply)
        ended = tuple(int(hist[ALL][outcome == OUTCOMES.index(which)].sum()) for which in (Outcome.X_WON, Outcome.O_WON, Outcome.DRAWN))
        return cls(ply, Counts.from_row(hist[ALL], finished=finished), Counts.from_row(hist[CANONICAL], finished=finished), (ended[0], ended[1], ended[2]))

    def to_json(self) -> dict[str, Any]:
        """``ply``, the counts of ``every`` and ``unique`` (the counts up to symmetry) as a dict."""
        return {"ply": self.ply, **asdict(self.every), "unique": asdict(self.unique)}


# -- the table file's meta ---------------------------------------------------------------------------
def histograms_to_meta(per_layer: Mapping[int, np.ndarray]) -> dict[str, dict[str, dict[str, int]]]:
    """What a table file keeps under ``meta[META_KEY]``: per layer, the non-zero counts of each row.

    ``{"<ply>": {"all": {"<score>": count, ...}, "canonical": {...}}}``, plies and scores
    ascending (scores signed, ``"-128"`` the unreachable boards): the same histograms give
    the same JSON.
    """
    out: dict[str, dict[str, dict[str, int]]] = {}
    for ply in sorted(per_layer):
        hist = np.asarray(per_layer[ply])
        if hist.shape != SHAPE:
            raise ValueError(f"layer {ply}'s histograms have shape {list(hist.shape)}, expected {list(SHAPE)}")
        out[str(ply)] = {part: {str(score - 128): int(n) for score, n in enumerate(_by_score(hist[row]).tolist()) if n} for row, part in enumerate(PARTS)}
    return out


def histograms_from_meta(value: Any, *, layer_sizes: Sequence[int] | None = None) -> dict[int, np.ndarray]:
    """The histograms of every layer from ``meta[META_KEY]`` (:func:`histograms_to_meta`), checked.

    :param layer_sizes: when given, the boards of each layer (:attr:`solver.encoding.index.Layout.layer_sizes`):
        there must be one entry per layer, each counting every board of its layer once.
    :raises ValueError: naming the layer, row or score that is malformed.
    """
    if not isinstance(value, dict):
        raise ValueError(f"{META_KEY} is {_kind(value)}, expected an object of layers")
    out = {_ply(key): _layer(key, entry) for key, entry in value.items()}
    if layer_sizes is not None:
        if set(out) != set(range(len(layer_sizes))):
            missing, extra = sorted(set(range(len(layer_sizes))) - set(out)), sorted(set(out) - set(range(len(layer_sizes))))
            raise ValueError(f"{META_KEY} has layers {sorted(out)}: missing {missing}, unexpected {extra}")
        for ply, size in enumerate(layer_sizes):
            if int(out[ply][ALL].sum()) != size:
                raise ValueError(f"{META_KEY} layer {ply} counts {int(out[ply][ALL].sum()):,} boards, the layer has {size:,}")
    return out


def _kind(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"[:80]


def _ply(key: Any) -> int:
    if not isinstance(key, str) or not key.isdigit() or str(int(key)) != key:
        raise ValueError(f"{META_KEY} has a layer named {key!r}, expected a ply such as '0' or '12'")
    return int(key)


def _layer(key: str, entry: Any) -> np.ndarray:
    where = f"{META_KEY} layer {key}"
    if not isinstance(entry, dict) or set(entry) != set(PARTS):
        found = sorted(map(str, entry)) if isinstance(entry, dict) else _kind(entry)
        raise ValueError(f"{where} is {found}, expected an object with keys {list(PARTS)}")
    hist = np.zeros(SHAPE, dtype=np.int64)
    for row, part in enumerate(PARTS):
        counts = entry[part]
        if not isinstance(counts, dict):
            raise ValueError(f"{where} {part} is {_kind(counts)}, expected an object of score: count")
        for score, n in counts.items():
            if not isinstance(score, str) or not score.lstrip("-").isdigit() or not -128 <= int(score) <= 127 or str(int(score)) != score:
                raise ValueError(f"{where} {part} has a score {score!r}, expected an integer from -128 to 127")
            if type(n) is not int or not 0 <= n < 1 << 63:
                raise ValueError(f"{where} {part} score {score} counts {_kind(n)}, expected a non-negative integer")
            hist[row, int(score) & 255] = n
    if (hist[CANONICAL] > hist[ALL]).any():
        score = int(np.flatnonzero(hist[CANONICAL] > hist[ALL])[0])
        raise ValueError(f"{where} counts more canonical boards than boards of score {score - 256 if score > 127 else score}")
    return hist


# -- scanning a layer ------------------------------------------------------------------------------
class _Grid:
    """One tile of a layer (high half-boards by low half-boards, :mod:`solver.encoding.index`): which boards
    are canonical, how many symmetries fix each, and the boards' words (:mod:`solver.rules.base`)."""

    def __init__(self, game: Game, tile: Tile) -> None:
        index, sym = layout(game), symmetries(game)
        gh, gl = index.high.group(tile.hx, tile.ho), index.low.group(tile.lx, tile.lo)
        rows = index.high.codes[gh] * index.radix
        cols = index.low.codes[gl]
        self.tile, self.count = tile, sym.count
        # a board high + low is canonical when high - image(high) <= image(low) - low for every symmetry
        # (an image is digit-wise linear, Symmetries.is_canonical_grid), fixed by s when they are equal
        self.row_gap = [rows - sym.image(rows, s) for s in range(1, sym.count)]
        self.col_gap = [sym.image(cols, s) - cols for s in range(1, sym.count)]
        self.may_fix = np.zeros(rows.size, dtype=bool)
        """Rows holding a board that some symmetry but the identity maps to itself (few: no other needs a look)."""
        for row_gap, col_gap in zip(self.row_gap, self.col_gap, strict=True):
            self.may_fix |= np.isin(row_gap, col_gap)
        shift, rules = index.shift, game.rules
        self.high_words = rules.join_many(index.high.x[gh].astype(np.int64) << shift, index.high.o[gh].astype(np.int64) << shift)
        self.low_words = rules.join_many(index.low.x[gl], index.low.o[gl])

        self.step = min(tile.rows, max(1, _STEP_BOARDS // max(1, tile.cols)))
        """Rows per step: about :data:`_STEP_BOARDS` boards."""
        self._row_of = np.repeat(np.arange(self.step, dtype=np.intp), tile.cols)
        self._col_of = np.tile(np.arange(tile.cols, dtype=np.intp), self.step)

    def steps(self) -> list[tuple[int, int]]:
        """Row ranges of :attr:`step` rows covering the tile."""
        return [(r, min(self.tile.rows, r + self.step)) for r in range(0, self.tile.rows, self.step)]

    def canonical(self, r0: int, r1: int) -> np.ndarray:
        """Whether each board of rows ``r0 .. r1 - 1`` is canonical (bool, flat, in index order)."""
        keep = np.ones((r1 - r0, self.tile.cols), dtype=bool)
        for row_gap, col_gap in zip(self.row_gap, self.col_gap, strict=True):
            keep &= row_gap[r0:r1, None] <= col_gap[None, :]
        return keep.reshape(-1)

    def row_col(self, r0: int, found: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The row and column of boards at positions ``found`` of a step from row ``r0`` (no division)."""
        return self._row_of[found] + r0, self._col_of[found]

    def fixed(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """How many symmetries (the identity included) map each board ``(row, col)`` to itself (intp)."""
        fixed = np.ones(rows.size, dtype=np.intp)
        some = np.flatnonzero(self.may_fix[rows])
        if some.size:
            rows, cols = rows[some], cols[some]
            for row_gap, col_gap in zip(self.row_gap, self.col_gap, strict=True):
                fixed[some] += row_gap[rows] == col_gap[cols]
        return fixed


def layer_histograms(game: Game, ply: int, scores: np.ndarray) -> np.ndarray:
    """The histograms of layer ``ply`` from every board's score (int8, layer index order; read part by part)."""
    out = np.zeros(SHAPE, dtype=np.int64)
    for tile in layout(game).tiles[ply]:
        grid = _Grid(game, tile)
        for r0, r1 in grid.steps():
            part = np.asarray(scores[tile.start + r0 * tile.cols : tile.start + r1 * tile.cols])
            out += histograms(part, grid.canonical(r0, r1))
    return out


def stored_histograms(game: Game, ply: int, read: Callable[[int, int], np.ndarray]) -> np.ndarray:
    """The histograms of layer ``ply`` from stored bytes true only at canonical boards in play.

    Every board has the score of its canonical board (the rules and the table answer a
    board through it), so each canonical board counts once in row :data:`CANONICAL` and
    once per board of its class (``count / boards fixed``, orbit and stabiliser) in
    row :data:`ALL`. Its score is the stored byte when it is in play, else the rules'
    (:attr:`solver.rules.base.Rules.status_scores`); no other board is looked at.

    :param read: ``read(start, stop)``: the stored bytes of the layer's boards ``start .. stop - 1``
        (layer-local indices, int8).
    """
    rules, count = game.rules, symmetries(game).count
    status_scores = np.array(rules.status_scores, dtype=np.int8)
    reads = np.array(rules.table_reads, dtype=bool)
    by_fixed = np.zeros(256 * (count + 1), dtype=np.int64)  # bin score | boards fixed << 8
    for tile in layout(game).tiles[ply]:
        grid = _Grid(game, tile)
        for r0, r1 in grid.steps():
            found = np.flatnonzero(grid.canonical(r0, r1))
            stored = read(tile.start + r0 * tile.cols, tile.start + r1 * tile.cols)[found]
            rows, cols = grid.row_col(r0, found)
            status = rules.statuses_of_words(grid.high_words[rows] | grid.low_words[cols])
            score = np.where(reads[status], stored, status_scores[status]).view(np.uint8)
            by_fixed += np.bincount(score | grid.fixed(rows, cols) << 8, minlength=by_fixed.size)
    per_fixed = by_fixed.reshape(count + 1, 256)
    sizes = np.array([count // fixed if fixed else 0 for fixed in range(count + 1)], dtype=np.int64)
    return np.stack([sizes @ per_fixed, per_fixed.sum(axis=0)])
