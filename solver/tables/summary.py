"""Counts over a whole table, all derived from its arrays.

======================  =================================================================
key                     meaning
======================  =================================================================
``game``                the game's name, e.g. ``3x3k3``
``positions``           reachable positions, the empty and finished boards included
``x_wins``/``draws``/   positions by their value for X under perfect play
``o_wins``
``side_to_move``        ``wins``/``draws``/``losses`` by ``result`` for the side to move
                        (a finished board counts for the player who would move next)
``terminal``            finished positions: ``positions``, ``x_wins``, ``o_wins``, ``draws``
``unique_positions``    positions up to the board's symmetries (8 square, 4 rectangle)
``games``               complete games (move sequences from the empty board to the end):
                        ``total``, ``x_wins``, ``o_wins``, ``draws``
``start``               the empty board's ``value`` (for X), ``result`` and ``plies``
``layers``              per layer (ply 0 first): ``ply``, ``positions``, ``wins``, ``draws``,
                        ``losses`` (for the side to move), ``finished`` and ``unique`` (the
                        same counts up to symmetry)
======================  =================================================================

A compact table (past 16 cells, :func:`layered_stats`) counts layer by layer from each
layer's histograms (:mod:`solver.contents.histograms`) and adds ``omitted``: why ``games``
is None (it needs a path count per position, 8 bytes each).

The counts come as a :class:`TableStats`, a dict that a notebook draws as a chart of the
outcomes of each ply (:func:`solver.present.charts.outcomes_svg`). The counts by ply alone,
without the symmetric classes and the games, are cheaper: :func:`counts_by_ply`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..contents.histograms import Counts, LayerCounts, histograms
from ..encoding.layers import layers, mask_tables
from ..rules.base import OUTCOMES, Outcome
from ..rules.game import Game
from ..rules.score import UNREACHABLE
from .position import draw_picture

if TYPE_CHECKING:
    from .position import Position


_TERMINAL = (("x_wins", Outcome.X_WON), ("o_wins", Outcome.O_WON), ("draws", Outcome.DRAWN))
"""The terminal counts' names, in the order of :attr:`solver.contents.histograms.LayerCounts.ended`."""


class TableStats(dict[str, Any]):
    """The counts of a table (the keys in the module docstring): a plain dict to code and to JSON,
    that a notebook shows as a table of the totals and a chart of the outcomes of each ply."""

    def by_ply(self) -> list[Counts]:
        """The reachable positions of each ply (ply 0 first) by result for the side to move."""
        fields = ("positions", "wins", "draws", "losses", "finished")
        return [Counts(*(int(layer[name]) for name in fields)) for layer in self["layers"]]

    def _repr_html_(self) -> str | None:
        """The totals and the chart, drawn by the picture registered for them (:mod:`solver.present.notebook`)."""
        return draw_picture("stats html", self)


def counts_by_ply(game: Game, score: np.ndarray) -> list[Counts]:
    """The reachable positions of each ply (ply 0 first) of a dense table, by result for the side
    to move: a pass over the layers with a histogram each, without the symmetric classes and the
    games that :func:`table_stats` also counts (no symmetric images, no path counts).

    :param score: the stored score of every code (int8, ``UNREACHABLE`` where no game reaches it).
    """
    score = np.asarray(score)
    found = []
    for layer in layers(game, score != UNREACHABLE):
        row = np.bincount(score[layer.codes].view(np.uint8), minlength=256)
        found.append(Counts.from_row(row, finished=game.rules.finished_scores(layer.ply)))
    return found


def table_stats(game: Game, score: np.ndarray, start: Position) -> TableStats:
    """The counts described in the module docstring, of a dense table.

    :param score: the stored score of every code (int8, ``UNREACHABLE`` where no game reaches it).
    :param start: the empty board's position.
    """
    tables = mask_tables(game)
    score = np.asarray(score)
    paths = np.zeros(game.codes, dtype=np.int64)
    paths[0] = 1
    totals = dict.fromkeys(("x_wins", "draws", "o_wins", "wins", "losses", "positions", "unique"), 0)
    terminal = dict.fromkeys(("positions", "x_wins", "o_wins", "draws"), 0)
    games = dict.fromkeys(("total", "x_wins", "o_wins", "draws"), 0)
    permuters = _permuters(game)
    per_layer = []
    for layer in layers(game, score != UNREACHABLE):
        codes = layer.codes
        s = score[codes]
        x_to_move = layer.ply % 2 == 0
        totals["positions"] += codes.size
        totals["wins"] += int(np.count_nonzero(s > 0))
        totals["losses"] += int(np.count_nonzero(s < 0))
        totals["draws"] += int(np.count_nonzero(s == 0))
        x_wins = int(np.count_nonzero(s > 0 if x_to_move else s < 0))
        totals["x_wins"] += x_wins
        totals["o_wins"] += codes.size - x_wins - int(np.count_nonzero(s == 0))
        canonical = _canonical(codes, layer.x, layer.o, tables.base3, permuters)
        totals["unique"] += int(np.count_nonzero(canonical))
        per_layer.append(LayerCounts.from_histograms(game, layer.ply, histograms(s, canonical)))

        outcome = game.rules.outcomes_of_scores(s, layer.ply)  # the rule says which boards are over, and who won
        for name, which in _TERMINAL:
            ended = outcome == OUTCOMES.index(which)
            terminal[name] += int(np.count_nonzero(ended))
            games[name] += int(paths[codes[ended]].sum())
        playing = outcome == OUTCOMES.index(Outcome.IN_PLAY)
        terminal["positions"] += codes.size - int(np.count_nonzero(playing))
        parents, occupied = codes[playing], (layer.x | layer.o)[playing]
        piece = 1 if x_to_move else 2
        for cell in range(game.cells):
            free = (occupied >> cell) & 1 == 0
            # One cell at a time: distinct parents give distinct children, so += is exact.
            paths[parents[free] + piece * 3**cell] += paths[parents[free]]
    games["total"] = games["x_wins"] + games["o_wins"] + games["draws"]
    counted = summary(game, totals, terminal, start, unique=totals["unique"], games=games)
    return TableStats(counted, layers=[layer.to_json() for layer in per_layer])


def summary(
    game: Game, totals: dict[str, int], terminal: dict[str, int], start: Position, *, unique: int | None, games: dict[str, int] | None
) -> dict[str, Any]:
    """The counts in the layout of the module docstring, for a dense or a compact table.

    :param totals: ``positions``, ``x_wins``, ``draws``, ``o_wins``, ``wins``, ``losses``.
    :param start: the empty board's position.
    """
    return {
        "game": game.name,
        "positions": totals["positions"],
        "x_wins": totals["x_wins"],
        "draws": totals["draws"],
        "o_wins": totals["o_wins"],
        "side_to_move": {"wins": totals["wins"], "draws": totals["draws"], "losses": totals["losses"]},
        "terminal": terminal,
        "unique_positions": unique,
        "games": games,
        "start": {"value": start.value, "result": start.result, "plies": start.plies},
    }


def layered_stats(game: Game, layers: Sequence[LayerCounts], start: Position) -> TableStats:
    """The counts described in the module docstring, of a compact table, from its layers' counts.

    :param layers: every layer's counts, layer 0 first (:meth:`solver.tables.CompactTable.layer_counts`).
    :param start: the empty board's position.
    """
    totals = dict.fromkeys(("positions", "x_wins", "draws", "o_wins", "wins", "losses"), 0)
    terminal = dict.fromkeys(("positions", "x_wins", "o_wins", "draws"), 0)
    for layer in layers:
        every = layer.every
        x_to_move = layer.ply % 2 == 0
        totals["positions"] += every.positions
        totals["wins"] += every.wins
        totals["losses"] += every.losses
        totals["draws"] += every.draws
        totals["x_wins"] += every.wins if x_to_move else every.losses
        totals["o_wins"] += every.losses if x_to_move else every.wins
        terminal["positions"] += every.finished
        for (name, _), ended in zip(_TERMINAL, layer.ended, strict=True):  # who won each finished board, as the rule says
            terminal[name] += ended
    unique = sum(layer.unique.positions for layer in layers)
    return TableStats(
        summary(game, totals, terminal, start, unique=unique, games=None),
        omitted={"games": "needs a path count per position (8 bytes each), which a compact table does not keep"},
        layers=[layer.to_json() for layer in layers],
    )


def _permuters(game: Game) -> list[list[np.ndarray]]:
    """For each symmetry, byte tables that move a mask's bits: 8 cells per table."""
    out = []
    for perm in game.rules.symmetries[1:]:
        source_of = {src: dst for dst, src in enumerate(perm)}
        chunks = []
        for base in range(0, game.cells, 8):
            byte = np.arange(256, dtype=np.int64)
            table = np.zeros(256, dtype=np.int64)
            for bit in range(min(8, game.cells - base)):
                table |= ((byte >> bit) & 1) << source_of[base + bit]
            chunks.append(table)
        out.append(chunks)
    return out


def _permute(mask: np.ndarray, chunks: list[np.ndarray]) -> np.ndarray:
    out: np.ndarray = chunks[0][mask & 255]
    for index, table in enumerate(chunks[1:], start=1):
        out |= table[(mask >> (8 * index)) & 255]
    return out


def _canonical(codes: np.ndarray, x: np.ndarray, o: np.ndarray, base3: np.ndarray, permuters: list[list[np.ndarray]]) -> np.ndarray:
    """Which boards are the smallest code among their symmetric images."""
    canonical = np.ones(codes.size, dtype=bool)
    for chunks in permuters:
        image = base3[_permute(x, chunks)] + 2 * base3[_permute(o, chunks)]
        canonical &= codes <= image
    return canonical
