"""Counts of compact tables up to symmetry (solver/storage/histograms.py, CompactTable.stats): equal to a brute force
canonicalisation of every reachable board, read from a table file's meta when its build kept them there,
and refused there when malformed."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import golden
import numpy as np
import pytest

import solver.tables.compact as compact_module
from solver import build_table
from solver.contents import stored
from solver.contents.histograms import (
    ALL,
    CANONICAL,
    META_KEY,
    Counts,
    LayerCounts,
    histograms,
    histograms_from_meta,
    histograms_to_meta,
    layer_histograms,
)
from solver.contents.stored import compact_meta, stored_layers
from solver.encoding.layouts import layout
from solver.encoding.symmetry import symmetries
from solver.errors import TableError
from solver.retrograde.sweep import build_layers
from solver.rules.game import Game, parse_game
from solver.rules.score import UNREACHABLE, WIN
from solver.storage.blockarray import BlockArray, write_blocks
from solver.storage.tablefile import open_table, write_table
from solver.tables import CompactTable

_STEP = 1 << 22


def _counts(scores: np.ndarray, *, full: bool) -> Counts:
    """Counts of reachable boards from their scores, written out from the score conventions (solver/rules/score.py)."""
    reachable = scores[scores != UNREACHABLE]
    draws = int(np.count_nonzero(reachable == 0))
    lost_now = int(np.count_nonzero(reachable == -WIN))
    return Counts(reachable.size, int(np.count_nonzero(reachable > 0)), draws, int(np.count_nonzero(reachable < 0)), lost_now + (draws if full else 0))


def _brute_force(game: Game, layers: list[np.ndarray]) -> list[LayerCounts]:
    """Every layer's counts: every reachable board's score, and the scores of the distinct canonical forms
    (solver.encoding.symmetry's smallest image of each reachable code, each marked once at its index: np.unique
    takes 87 s on 20 M codes with numpy 2.4 here, np.sort 3.6 s, the marks less)."""
    index, sym = layout(game), symmetries(game)
    found = []
    for ply, scores in enumerate(layers):
        offset, distinct = index.layer_offsets[ply], np.zeros(len(scores), dtype=bool)
        for start in range(0, len(scores), _STEP):
            part = np.asarray(scores[start : start + _STEP])
            codes = index.codes(offset + start, offset + start + part.size)[0]
            distinct[index.index_of(sym.canonical(codes[part != UNREACHABLE])[0]) - offset] = True
        full = ply == game.cells
        found.append(LayerCounts(ply, _counts(np.asarray(scores), full=full), _counts(np.asarray(scores)[distinct], full=full)))
    return found


def _in_memory_compressed(game: Game, layers: list[np.ndarray]) -> CompactTable:
    """The table as a compressed file holds it (only canonical boards in play keep their score), in memory."""
    out = io.BytesIO()
    written = write_blocks(out, stored_layers(game, layers), level=1)
    return CompactTable(game, BlockArray(out.getbuffer(), written.encoding, written.digest, name=game.name))


@pytest.mark.parametrize("name", ["3x4k3", pytest.param("2x9k4", marks=pytest.mark.slow), pytest.param("3x6k3", marks=pytest.mark.slow)])
def test_counts_up_to_symmetry_equal_a_brute_force_canonicalisation_of_every_reachable_board(name: str, tmp_path: Path) -> None:
    game = parse_game(name)
    layers = build_layers(game, tmp_path, jobs=1).layers()
    expected = _brute_force(game, layers)
    compressed = _in_memory_compressed(game, layers)
    assert not compressed.complete  # answered through canonical boards and the rules, as a file of format 3
    stats = compressed.stats()
    for mine, theirs in zip(stats["layers"], expected, strict=True):
        assert mine == theirs.to_json(), f"{name} layer {theirs.ply}: {mine} != {theirs}"
    assert stats["unique_positions"] == sum(layer.unique.positions for layer in expected)
    assert stats["positions"] == sum(layer.every.positions for layer in expected)  # every orientation, as counted before
    assert CompactTable.from_layers(game, layers).stats() == stats  # every board's score counted as it is
    assert "unique_positions" not in stats["omitted"]


def test_counts_over_every_orientation_are_the_ones_counted_before(tmp_path: Path) -> None:
    # main counted a compressed table from every board's score as a look-up answers it (CompactTable.layer)
    game, layers = _small("4x3k3", tmp_path)
    compressed = _in_memory_compressed(game, layers)
    for ply, counts in enumerate(compressed.layer_counts()):
        assert counts.every == _counts(compressed.layer(ply), full=ply == game.cells), f"{game.name} layer {ply}"


# -- small games: against the dense tables and the published count ---------------------------------
def _small(name: str, directory: Path) -> tuple[Game, list[np.ndarray]]:
    game = parse_game(name)
    return game, [np.array(layer) for layer in build_layers(game, directory, jobs=1).layers()]


def test_dense_tictactoe_keeps_the_published_765_positions_up_to_symmetry_and_compact_counts_the_same(tmp_path: Path) -> None:
    assert build_table().stats()["unique_positions"] == golden.UNIQUE_POSITIONS_3X3 == 765
    game, layers = _small("3x3k3", tmp_path)
    for table in (CompactTable.from_layers(game, layers), _in_memory_compressed(game, layers)):
        stats = table.stats()
        assert stats["unique_positions"] == golden.UNIQUE_POSITIONS_3X3
        finished = dict.fromkeys(("positions", "x_wins", "o_wins", "draws"), 0)
        for layer in stats["layers"]:
            unique = layer["unique"]
            full_draws = unique["draws"] if layer["ply"] == game.cells else 0
            finished["positions"] += unique["finished"]
            finished["draws"] += full_draws
            finished["x_wins" if layer["ply"] % 2 else "o_wins"] += unique["finished"] - full_draws
        assert finished == golden.UNIQUE_TERMINAL_3X3


@pytest.mark.parametrize("name", ["3x4k3", "4x3k3", "2x6k3", "3x5k2"])
def test_compact_counts_equal_the_dense_tables_counts(name: str, tmp_path: Path) -> None:
    game, layers = _small(name, tmp_path)
    dense = build_table(game=name).stats()
    for table in (CompactTable.from_layers(game, layers), _in_memory_compressed(game, layers)):
        mine = table.stats()
        for key in ("positions", "x_wins", "draws", "o_wins", "side_to_move", "terminal", "unique_positions", "start"):
            assert mine[key] == dense[key], f"{name}: {key}"


# -- histograms ---------------------------------------------------------------------------------------
def test_histograms_of_parts_add_up_to_the_whole_and_count_canonical_boards_apart() -> None:
    rng = np.random.default_rng(14)
    scores = rng.choice(np.array([UNREACHABLE, -WIN, -97, 0, 95, 99], dtype=np.int8), 1_000_003)
    canonical = rng.random(scores.size) < 0.2
    whole = histograms(scores, canonical)
    assert (whole == histograms(scores[:400_000], canonical[:400_000]) + histograms(scores[400_000:], canonical[400_000:])).all()
    assert whole[ALL, 95] == np.count_nonzero(scores == 95)
    assert whole[CANONICAL, UNREACHABLE & 255] == np.count_nonzero(canonical & (scores == UNREACHABLE))
    assert whole[ALL].sum() == scores.size and whole[CANONICAL].sum() == canonical.sum()


@pytest.mark.parametrize(
    ("scores", "canonical", "problem"),
    [
        (np.zeros(3, dtype=np.int16), np.zeros(3, dtype=bool), "int8"),
        (np.zeros(3, dtype=np.int8), np.zeros(3, dtype=np.uint8), "bool"),
        (np.zeros(3, dtype=np.int8), np.zeros(2, dtype=bool), "3 scores but 2"),
    ],
)
def test_histograms_refuse_other_types_and_lengths(scores: np.ndarray, canonical: np.ndarray, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        histograms(scores, canonical)


def test_layer_histograms_from_every_board_find_the_canonical_boards_of_solver_symmetry(tmp_path: Path) -> None:
    game, layers = _small("4x4k3", tmp_path)
    index, sym = layout(game), symmetries(game)
    for ply in (0, 5, 8, 16):
        codes = index.codes(index.layer_offsets[ply], index.layer_offsets[ply + 1])[0]
        assert (layer_histograms(game, ply, layers[ply]) == histograms(layers[ply], sym.is_canonical(codes))).all(), ply


# -- the table file's meta ------------------------------------------------------------------------------
def _meta_of(game: Game, layers: list[np.ndarray]) -> dict[str, Any]:
    return histograms_to_meta({ply: layer_histograms(game, ply, layer) for ply, layer in enumerate(layers)})


def test_histograms_survive_the_json_of_a_table_files_meta(tmp_path: Path) -> None:
    game, layers = _small("3x4k3", tmp_path)
    per_layer = {ply: layer_histograms(game, ply, layer) for ply, layer in enumerate(layers)}
    meta = json.loads(json.dumps(histograms_to_meta(per_layer)))
    back = histograms_from_meta(meta, layer_sizes=layout(game).layer_sizes)
    assert sorted(back) == sorted(per_layer)
    for ply, hist in per_layer.items():
        assert back[ply].dtype == np.int64 and (back[ply] == hist).all(), ply
    start = str(build_table(game=game).at(0).score)  # the empty board, alone in its layer
    assert meta["0"] == {"all": {start: 1}, "canonical": {start: 1}}
    assert all(key.lstrip("-").isdigit() for layer in meta.values() for part in layer.values() for key in part)


def _write(path: Path, game: Game, layers: list[np.ndarray], meta: dict[str, Any]) -> CompactTable:
    write_table(path, kind="compact", game=game, meta=meta, arrays={"scores": stored_layers(game, layers)})
    return CompactTable.from_file(open_table(path, game=game))


def test_a_table_file_with_histograms_in_its_meta_is_counted_from_them_without_a_scan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game, layers = _small("3x4k3", tmp_path / "build")
    scanned = CompactTable.from_layers(game, layers).stats()
    table = _write(tmp_path / "3x4k3.ttt", game, layers, {**compact_meta(game), META_KEY: _meta_of(game, layers)})

    def no_scan(*args: object) -> None:
        raise AssertionError("scanned a layer although the file's meta has its histograms")

    monkeypatch.setattr(compact_module, "stored_histograms", no_scan)
    monkeypatch.setattr(compact_module, "scan_layer", no_scan)
    assert table.stats() == scanned
    assert table.file_meta()[META_KEY] == _meta_of(game, layers)  # saved again, the file keeps them


def test_a_table_file_without_histograms_is_counted_by_a_scan(tmp_path: Path) -> None:
    game, layers = _small("3x4k3", tmp_path / "build")
    table = _write(tmp_path / "3x4k3.ttt", game, layers, compact_meta(game))
    assert not table.complete and META_KEY not in table.file.header.meta
    assert table.stats() == CompactTable.from_layers(game, layers).stats()


def test_a_table_file_with_malformed_histograms_is_refused_naming_the_file_and_the_rebuild(tmp_path: Path) -> None:
    game, layers = _small("3x4k3", tmp_path / "build")
    meta = _meta_of(game, layers)
    some_score = next(iter(meta["5"]["all"]))
    meta["5"]["all"][some_score] += 1  # one board counted twice: the layer's total is off
    table = _write(tmp_path / "3x4k3.ttt", game, layers, {**compact_meta(game), META_KEY: meta})
    assert table.at(0).result == "win"  # look-ups do not read the histograms
    with pytest.raises(TableError, match=r"3x4k3\.ttt: meta layer_histograms layer 5 counts .* rebuild it with: solve build --game 3x4k3"):
        table.stats()


def _damaged(change: str) -> tuple[Any, str]:
    """Well-formed histograms of a game of 2 cells (3 layers) with one kind of damage, and what the error says."""
    good: dict[str, Any] = {
        "0": {"all": {"0": 1}, "canonical": {"0": 1}},
        "1": {"all": {"-100": 0, "99": 2}, "canonical": {"99": 1}},
        "2": {"all": {"-128": 1, "0": 1}, "canonical": {"-128": 1, "0": 1}},
    }
    damage: dict[str, tuple[Any, str]] = {
        "not an object": ([good], "is list"),
        "a ply that is no number": ({**good, "x": good["0"]}, "layer named 'x'"),
        "a ply with a leading zero": ({**good, "01": good["1"]}, "layer named '01'"),
        "a missing layer": ({key: good[key] for key in ("0", "1")}, r"missing \[2\]"),
        "an extra layer": ({**good, "3": good["0"]}, r"unexpected \[3\]"),
        "a missing row": ({**good, "1": {"all": good["1"]["all"]}}, "expected an object with keys"),
        "a row that is no object": ({**good, "1": {"all": [2], "canonical": {}}}, "layer 1 all is list"),
        "a score out of range": ({**good, "1": {"all": {"128": 2}, "canonical": {}}}, "score '128'"),
        "a score that is no integer": ({**good, "1": {"all": {"9.5": 2}, "canonical": {}}}, "score '9.5'"),
        "a negative count": ({**good, "1": {"all": {"99": 3, "0": -1}, "canonical": {}}}, "counts int -1"),
        "a count that is a float": ({**good, "1": {"all": {"99": 2.0}, "canonical": {}}}, "counts float 2.0"),
        "a count that is a boolean": ({**good, "0": {"all": {"0": True}, "canonical": {}}}, "counts bool True"),
        "more canonical boards than boards": ({**good, "1": {"all": {"99": 2}, "canonical": {"99": 3}}}, "more canonical boards than boards of score 99"),
        "a layer counting other boards": ({**good, "1": {"all": {"99": 3}, "canonical": {}}}, "layer 1 counts 3 boards, the layer has 2"),
    }
    return damage[change]


@pytest.mark.parametrize(
    "change",
    [
        "not an object",
        "a ply that is no number",
        "a ply with a leading zero",
        "a missing layer",
        "an extra layer",
        "a missing row",
        "a row that is no object",
        "a score out of range",
        "a score that is no integer",
        "a negative count",
        "a count that is a float",
        "a count that is a boolean",
        "more canonical boards than boards",
        "a layer counting other boards",
    ],
)
def test_malformed_histograms_in_meta_are_refused_saying_what_is_wrong(change: str) -> None:
    value, problem = _damaged(change)
    with pytest.raises(ValueError, match=problem):
        histograms_from_meta(value, layer_sizes=layout(Game(1, 2, 2)).layer_sizes)


def test_counts_refuse_histograms_of_another_shape_or_with_more_canonical_boards() -> None:
    with pytest.raises(ValueError, match=r"expected integers of shape \[2, 256\]"):
        LayerCounts.from_histograms(Game(), 0, np.zeros((256,), dtype=np.int64))
    hist = np.zeros((2, 256), dtype=np.int64)
    hist[CANONICAL, 0] = 1
    with pytest.raises(ValueError, match="more canonical boards than boards"):
        LayerCounts.from_histograms(Game(), 0, hist)


def test_the_histograms_a_build_keeps_in_the_meta_are_the_ones_a_scan_counts(tmp_path: Path) -> None:
    # solver.contents.stored writes meta["layer_histograms"] as the build seals each layer; solver.contents.histograms reads it
    game, layers = _small("4x4k3", tmp_path)
    kept = histograms_from_meta(json.loads(json.dumps(stored.layer_histograms(game, layers))), layer_sizes=layout(game).layer_sizes)
    for ply, layer in enumerate(layers):
        assert (kept[ply] == layer_histograms(game, ply, layer)).all(), ply
    assert _meta_of(game, layers) == stored.layer_histograms(game, layers)  # the same JSON, key for key
