"""Sealing's compiled pass (solver/retrograde/compiled.py, ``stored_and_counted``) gives the bytes and the histograms
of its numpy twins (``solver.contents.stored.forward_fill``, ``solver.contents.histograms.histograms``): on any
scores and masks, on every range of a real layer, and through a whole sealed build (its shipped checksum)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver.contents.histograms import histograms
from solver.contents.opening import open_table
from solver.contents.stored import canonical_mask, fill_before, forward_fill, read_mask
from solver.encoding.layouts import layout
from solver.retrograde.compiled import HISTOGRAM_COPIES, stored_and_counted
from solver.retrograde.sweep import build_layers
from solver.rules.game import parse_game
from solver.storage.checksums import EXPECTED_COMPACT_ROOTS
from solver.store.make import build_compact


@pytest.mark.parametrize("size", [0, 1, HISTOGRAM_COPIES - 1, HISTOGRAM_COPIES, HISTOGRAM_COPIES + 1, 1000, 65_537])
@pytest.mark.parametrize("before", [-128, 0, 97])
def test_the_compiled_pass_stores_and_counts_every_board_as_its_plain_twins_whatever_the_scores(size: int, before: int) -> None:
    # every int8 score, the extremes included, in runs (as layers hold them) and alone; sizes that end a round of
    # HISTOGRAM_COPIES boards part-way; read boards a subset of the canonical ones (m,n,k) and not (any masks)
    rng = np.random.default_rng([size, before + 128])
    scores = rng.integers(-128, 128, size, dtype=np.int16).astype(np.int8)
    scores[: size // 2] = np.repeat(scores[: size // 2 : 16], 16)[: size // 2]
    canonical = rng.random(size) < 0.5
    for keep in (canonical & (rng.random(size) < 0.7), rng.random(size) < 0.1, np.zeros(size, dtype=bool)):
        stored, found = stored_and_counted(scores, keep, canonical, before)
        assert np.array_equal(stored, forward_fill(scores, keep, before)), f"{size} boards, before {before}: stored bytes differ"
        assert np.array_equal(found, histograms(scores, canonical)), f"{size} boards: histograms differ"
        assert stored.dtype == np.int8 and found.dtype == np.int64 and found.shape == (2, 256)


def test_the_compiled_pass_refuses_masks_of_another_length_or_type() -> None:
    scores = np.zeros(8, dtype=np.int8)
    with pytest.raises(ValueError, match="8 scores, 7 read flags and 8 canonical flags"):
        stored_and_counted(scores, np.zeros(7, dtype=bool), np.zeros(8, dtype=bool), 0)
    with pytest.raises(ValueError, match="scores must be int8 and the masks bool, found int16"):
        stored_and_counted(scores.astype(np.int16), np.zeros(8, dtype=bool), np.zeros(8, dtype=bool), 0)


@pytest.mark.parametrize("name", ["3x4k3", "4x4k4-gravity"])
def test_every_range_of_a_built_layer_is_stored_and_counted_as_the_plain_twins_do(name: str, tmp_path: Path) -> None:
    # a real layer's scores, read from a memory map (read-only), in ranges that start and stop anywhere
    game = parse_game(name)
    done = build_layers(game, tmp_path / "build", jobs=1)
    rng = np.random.default_rng(3)
    for ply, scores in enumerate(done.layers()):
        size = layout(game).layer_sizes[ply]
        ranges = [(0, size)] + [(int(a), int(b)) for a, b in np.sort(rng.integers(0, size + 1, (4, 2)), axis=1)]
        for start, stop in ranges:
            part = np.asarray(scores[start:stop])
            canonical = canonical_mask(game, ply, start, stop)
            keep = read_mask(game, ply, part, start, canonical)
            before = fill_before(game, ply, scores, start)
            stored, found = stored_and_counted(part, keep, canonical, before)
            assert np.array_equal(stored, forward_fill(part, keep, before)), f"{name} layer {ply} boards {start}..{stop}"
            assert np.array_equal(found, histograms(part, canonical)), f"{name} layer {ply} boards {start}..{stop}"


@pytest.mark.parametrize("name", ["4x4k4-gravity", "3x6k3"])
def test_a_table_sealed_with_the_compiled_pass_has_the_shipped_checksum(name: str, tmp_path: Path) -> None:
    path = build_compact(parse_game(name), tmp_path / f"{name}.ttt", jobs=2)
    assert open_table(path).header.root == EXPECTED_COMPACT_ROOTS[name]
