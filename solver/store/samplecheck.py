"""A seeded sample check of a table: minutes where a full proof takes a build's hours.

A full proof (:func:`solver.store.make.prove`) re-derives every score from the rules,
a whole build's work. :func:`check_sample` checks a seeded random sample of every
layer instead (layer ``p``: the boards with ``p`` pieces):

1. **The sample.** Per layer, up to ``boards`` distinct *canonical boards in play*
   (:func:`sample_layer`): layer indices drawn uniformly from the layer's index space
   (:mod:`solver.encoding.index`), kept where the rules say the board is reachable and nobody has
   a line yet (:mod:`solver.rules.base`) and the board is its own canonical image
   (:mod:`solver.encoding.symmetry`), so every board checked is a distinct stored byte of a
   compact table (its other images are answered through it). A layer with fewer such
   boards than ``boards`` is checked whole. A dense table is sampled over every board in
   play, canonical or not (it stores each one). Deterministic for a seed: layer ``p``
   draws from ``numpy.random.default_rng([seed, p])``.
2. **Consistency.** Each sampled board's score, read from the table, must equal the
   best of its children's scores *read from the same table*: ``sign(m) - m`` for the
   smallest child score ``m`` (:mod:`solver.rules.score`; a child whose mover made a line is
   ``-100`` and a full child without a line ``0``, by the rules), as the build computes
   it (:mod:`solver.retrograde.sweep`). Vectorised: the children of a whole batch are read
   with one :meth:`~solver.tables.Table.lookup_codes`.
3. **An independent reference.** Up to ``reference`` sampled boards per layer with at
   most ``max_empty`` empty cells are also solved by :func:`solver.retrograde.minimax.negamax_score`
   (a plain recursive negamax from the rules, which shares no code with the tables or the
   build) and must get the same score.

Under a rule whose status does not tell every unreachable board (gravity, where the
order of the moves is the table's to say: :attr:`solver.rules.base.Rules.table_marks_unreached`),
the boards sampled are those the rules call in play, and each one's stored reachability
(``UNREACHABLE`` or a score) is checked first against the rule's exact
:meth:`~solver.rules.base.Rules.violation_of_word`; steps 2 and 3 then check the reachable ones,
whose children are the cells a piece lands on.

A sample is not a proof: a wrong score at a board the sample misses goes unseen. It
finds a damaged or forged block where it reads one (:class:`~solver.errors.TableError`,
as every look-up does), and each wrong score it samples, naming the board.

>>> import tempfile
>>> from solver.retrograde.sweep import build_layers
>>> from solver.rules.game import parse_game
>>> from solver.tables import CompactTable
>>> game = parse_game("3x3k3")
>>> with tempfile.TemporaryDirectory() as directory:
...     table = CompactTable.from_layers(game, build_layers(game, directory, jobs=1).layers())
>>> report = check_sample(table, boards=50, seed=1)
>>> report.ok, report.checked, [layer.boards for layer in report.layers]
(True, 288, [0, 34, 50, 50, 50, 50, 38, 12, 3, 1])
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..encoding.board import render
from ..encoding.coderules import code_rules
from ..encoding.layouts import layout
from ..encoding.symmetry import symmetries
from ..retrograde.minimax import MAX_EMPTY as MAX_EMPTY  # re-exported: the CLI's help names the limit
from ..retrograde.minimax import negamax_score
from ..rules.base import IN_PLAY
from ..rules.game import Game
from ..rules.score import UNREACHABLE
from ..tables import Table
from ..words import count

DEFAULT_BOARDS = 10_000
"""Boards sampled per layer unless told otherwise."""
DEFAULT_REFERENCE = 200
"""Sampled boards per layer (with at most :data:`solver.retrograde.minimax.MAX_EMPTY` empty cells) also solved by the reference minimax."""
ENUMERATE_BOARDS = 1 << 21
"""A layer of at most this many boards is listed whole and sampled without replacement; a larger one is drawn from."""
MAX_DRAWS = 1 << 26
"""The most indices drawn in one layer: a layer whose boards are nearly all finished or unreachable may give fewer than asked."""
_DRAW_STEP = 1 << 22
_BATCH = 1 << 14
"""Sampled boards checked per batch (their children are read with one look-up)."""
_NO_CHILD = 127
"""Stands for a move that is not there: above every real score."""


@dataclass(frozen=True)
class LayerCheck:
    """What the sample check did in one layer (``ply`` pieces on the board)."""

    ply: int
    boards: int
    """Sampled boards checked against their children."""
    reference: int
    """Of those, how many were also solved by the reference minimax."""
    wrong: int
    """Sampled boards found wrong (by their children or by the reference)."""
    seconds: float
    """Wall time of the layer: sampling, reading and checking."""


@dataclass(frozen=True)
class SampleReport:
    """The result of :func:`check_sample`: what was checked, layer by layer, and every problem found."""

    game: str
    seed: int
    boards: int
    """Boards asked for per layer."""
    layers: tuple[LayerCheck, ...]
    problems: tuple[str, ...]
    """One line per problem, naming the layer and the board (empty when the sample is consistent)."""

    @property
    def ok(self) -> bool:
        """Whether no problem was found."""
        return not self.problems

    @property
    def checked(self) -> int:
        """Boards checked in all layers."""
        return sum(layer.boards for layer in self.layers)

    @property
    def seconds(self) -> float:
        """Wall time of the whole check."""
        return sum(layer.seconds for layer in self.layers)


def _playable(game: Game, codes: np.ndarray, canonical: bool) -> np.ndarray:
    """The codes (legal piece counts) that are in play, and canonical if asked."""
    keep = code_rules(game).statuses(codes) == IN_PLAY
    if canonical and keep.any():
        keep[keep] = symmetries(game).is_canonical(codes[keep])
    kept: np.ndarray = codes[keep]
    return kept


def _first_seen(codes: np.ndarray) -> np.ndarray:
    """``codes`` without repeats, each kept where it first occurs."""
    _, first = np.unique(codes, return_index=True)
    kept: np.ndarray = codes[np.sort(first)]
    return kept


def sample_layer(game: Game, ply: int, boards: int, seed: int, *, canonical: bool = True) -> np.ndarray:
    """Up to ``boards`` distinct boards in play of layer ``ply`` (canonical ones unless told), in random order.

    A layer of at most :data:`ENUMERATE_BOARDS` boards is listed whole and shuffled (all its
    boards in play when it has no more than ``boards``); from a larger one, indices are drawn
    uniformly with replacement and the boards in play kept, first occurrence first, until
    ``boards`` are found or :data:`MAX_DRAWS` indices were drawn. Either way every board in
    play of the layer is equally likely to be chosen. Deterministic for ``(seed, ply)``.

    :returns: the codes (int64).
    """
    index = layout(game)
    start, stop = index.layer_offsets[ply], index.layer_offsets[ply + 1]
    if game.rules.all_finished(ply):
        return np.zeros(0, dtype=np.int64)  # the full board: every board is finished
    rng = np.random.default_rng([seed, ply])
    if stop - start <= ENUMERATE_BOARDS:
        every = _playable(game, index.codes(start, stop)[0], canonical)
        chosen: np.ndarray = rng.permutation(every)[:boards]
        return chosen
    found = np.zeros(0, dtype=np.int64)
    draws, step = 0, min(_DRAW_STEP, 4 * boards)
    while found.size < boards and draws < MAX_DRAWS:
        picked = rng.integers(start, stop, step)
        draws += step
        found = _first_seen(np.concatenate([found, _playable(game, index.codes_at(picked), canonical)]))
        rate = max(found.size, 1) / draws
        step = int(min(_DRAW_STEP, MAX_DRAWS - draws, max(1024, 1.25 * (boards - found.size) / rate)))
    return found[:boards]


def expected_scores(table: Table, codes: np.ndarray, ply: int) -> tuple[np.ndarray, np.ndarray]:
    """What the children read from ``table`` say the scores of boards in play of layer ``ply`` are.

    :returns: ``(expected, smallest)``: ``sign(m) - m`` and the smallest child score ``m``
        (int16, one per board; ``m`` is ``UNREACHABLE`` where a child in play reads as unreachable).
    """
    game = table.game
    cells = np.arange(game.cells, dtype=np.int64)
    powers = 3**cells
    empty = (codes[:, None] // powers) % 3 == 0
    occupied = ((~empty).astype(np.int64) << cells).sum(axis=1)  # the move rule's moves: gravity, the lowest empty cell of a column
    empty &= (game.rules.moves_many(occupied)[:, None] >> cells) & 1 == 1
    children = codes[:, None] + (1 if ply % 2 == 0 else 2) * powers
    scores = np.full(children.shape, _NO_CHILD, dtype=np.int16)
    scores[empty] = table.lookup_codes(children[empty], check=False).score
    smallest = scores.min(axis=1)
    return np.sign(smallest) - smallest, smallest


def _consistency_problems(table: Table, ply: int, codes: np.ndarray, stored: np.ndarray, limit: int) -> tuple[np.ndarray, list[str]]:
    """The sampled boards that disagree with their children (codes), and up to ``limit`` lines naming them."""
    expected, smallest = expected_scores(table, codes, ply)
    wrong = np.flatnonzero(stored != expected)
    problems = []
    for at in wrong[:limit].tolist():
        code, best = int(codes[at]), int(smallest[at])
        why = "a child in play reads as unreachable" if best == UNREACHABLE else f"its best child scores {best}"
        problems.append(f"layer {ply}: {render(table.game, code)} (code {code}) stores {int(stored[at])}, but {why}, so it should be {int(expected[at])}")
    return codes[wrong], problems


def _reachability_problems(table: Table, ply: int, codes: np.ndarray, stored: np.ndarray, limit: int) -> tuple[np.ndarray, list[str]]:
    """For a rule whose status does not tell every unreachable board (gravity: :attr:`solver.rules.base.Rules.table_marks_unreached`):
    the sampled boards whose stored reachability the rule's exact :meth:`~solver.rules.base.Rules.violation_of_word` contradicts
    (codes), and up to ``limit`` lines naming them."""
    rules = code_rules(table.game)
    wrong: list[int] = []
    problems: list[str] = []
    for code, score in zip(codes.tolist(), stored.tolist(), strict=True):
        why = rules.violation(code)
        if (why is None) != (score != UNREACHABLE):
            wrong.append(code)
            if len(problems) < limit:
                said = f"no game reaches it ({why})" if why is not None else "a game reaches it"
                problems.append(f"layer {ply}: {render(table.game, code)} (code {code}) stores {score}, but {said}")
    return np.array(wrong, dtype=np.int64), problems


def _reference_problems(table: Table, ply: int, codes: np.ndarray, stored: np.ndarray, max_empty: int) -> tuple[set[int], list[str]]:
    """The sampled boards whose stored score the reference minimax disagrees with, and a line for each."""
    wrong, problems = set(), []
    for code, score in zip(codes.tolist(), stored.tolist(), strict=True):
        solved = negamax_score(table.game, code, max_empty=max_empty)
        if solved != score:
            wrong.add(code)
            problems.append(f"layer {ply}: {render(table.game, code)} (code {code}) stores {score}, but the reference minimax gives {solved}")
    return wrong, problems


def check_layer(
    table: Table, ply: int, codes: np.ndarray, *, reference: int = DEFAULT_REFERENCE, max_empty: int = MAX_EMPTY, limit: int = 5
) -> tuple[LayerCheck, list[str]]:
    """Check sampled boards in play of layer ``ply`` (module docstring, steps 2 and 3).

    :param codes: the boards, e.g. from :func:`sample_layer`; the first ``reference`` of them
        are also solved by the reference minimax if the layer has at most ``max_empty`` empty cells.
    :param limit: list at most this many boards found wrong by their children (the count says how many were).
    :returns: the layer's figures and its problems, one line each.
    """
    started = time.perf_counter()
    stored = np.empty(codes.size, dtype=np.int16)
    wrong: set[int] = set()
    problems: list[str] = []
    for a in range(0, codes.size, _BATCH):
        batch = codes[a : a + _BATCH]
        stored[a : a + _BATCH] = table.lookup_codes(batch, check=False).score
        scores = stored[a : a + _BATCH]
        if table.game.rules.table_marks_unreached:  # boards in play by the rules, some of them unreachable: the table says which
            found, lines = _reachability_problems(table, ply, batch, scores, max(0, limit - len(problems)))
            wrong.update(found.tolist())
            problems += lines
            keep = (scores != UNREACHABLE) & ~np.isin(batch, found)  # a board wrongly marked is reported once
            batch, scores = batch[keep], scores[keep]
        found, lines = _consistency_problems(table, ply, batch, scores, max(0, limit - len(problems)))
        wrong.update(found.tolist())
        problems += lines
    if len(wrong) > len(problems):
        problems.append(f"layer {ply}: {count(len(wrong), 'sampled board')} of {codes.size:,} disagree with their children ({len(problems)} listed)")
    reached = stored != UNREACHABLE  # all of them, where the rules' status is exact
    solved = codes[reached][:reference] if table.game.cells - ply <= max_empty else codes[:0]
    bad, lines = _reference_problems(table, ply, solved, stored[reached][: solved.size], max_empty)
    layer = LayerCheck(ply, int(codes.size), int(solved.size), len(wrong | bad), time.perf_counter() - started)
    return layer, problems + lines


def check_sample(
    table: Table,
    *,
    boards: int = DEFAULT_BOARDS,
    seed: int = 0,
    reference: int = DEFAULT_REFERENCE,
    max_empty: int = MAX_EMPTY,
    on_layer: Callable[[LayerCheck], None] | None = None,
) -> SampleReport:
    """Check a seeded sample of every layer of ``table`` (module docstring), last layer first.

    :param boards: boards in play sampled per layer (canonical ones for a compact table).
    :param seed: the seed (a non-negative integer): the same seed, boards and table give the same sample.
    :param reference: sampled boards per layer also solved by the reference minimax, in layers
        with at most ``max_empty`` empty cells (0: none).
    :param max_empty: the most empty cells of a board given to the reference minimax (at most
        :data:`solver.retrograde.minimax.MAX_EMPTY` keeps it to a fraction of a second a board).
    :param on_layer: called after each layer with its figures (the CLI prints them).
    :raises ValueError: for a negative ``boards``, ``seed`` or ``reference``.
    :raises TableError: if a block of the table file that the sample reads is damaged or forged.
    """
    if min(boards, seed, reference) < 0:
        raise ValueError(f"boards, seed and reference must not be negative: found {boards}, {seed}, {reference}")
    game, layers, problems = table.game, [], []
    canonical = table.kind == "compact"
    for ply in range(game.cells, -1, -1):
        started = time.perf_counter()
        codes = sample_layer(game, ply, boards, seed, canonical=canonical)
        layer, found = check_layer(table, ply, codes, reference=reference, max_empty=max_empty)
        layer = LayerCheck(layer.ply, layer.boards, layer.reference, layer.wrong, time.perf_counter() - started)
        layers.append(layer)
        problems += found
        if on_layer is not None:
            on_layer(layer)
    return SampleReport(game.name, seed, boards, tuple(layers), tuple(problems))
