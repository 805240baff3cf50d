"""Sealing's compiled pass (solver/retrograde/compiled.py, ``stored_range_counted``, which finds the canonical and read
boards itself) gives the bytes and the histograms of its numpy twins (``solver.contents.stored``'s ``canonical_mask``,
``read_mask`` and ``forward_fill``, ``solver.contents.histograms.histograms``) on any scores and on every range of real
layers; ranges sealed apart and filled in order give the plain stored bytes; a whole sealed build has its shipped
checksum."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from solver.contents.histograms import histograms
from solver.contents.opening import open_table
from solver.contents.stored import canonical_mask, canonical_pieces, fill_before, forward_fill, read_mask, read_scores, stored_layers
from solver.encoding.layouts import layout
from solver.retrograde import sealing
from solver.retrograde.compiled import HISTOGRAM_COPIES, stored_range_counted, uniform_blocks
from solver.retrograde.pieces import SealedPiece, seal_piece
from solver.retrograde.sweep import build_layers
from solver.rules.game import parse_game
from solver.storage.blockarray import codec_of, default_codec, encode_block, repeated_block
from solver.storage.checksums import EXPECTED_COMPACT_ROOTS
from solver.store.make import build_compact


@pytest.mark.parametrize("size", [0, 1, HISTOGRAM_COPIES - 1, HISTOGRAM_COPIES, HISTOGRAM_COPIES + 1, 1000, 65_537])
@pytest.mark.parametrize("before", [-128, 0, 97])
def test_the_compiled_pass_stores_and_counts_every_board_as_its_plain_twins_whatever_the_scores(size: int, before: int) -> None:
    # every int8 score, the extremes included, in runs (as layers hold them) and alone, on boards of a real layer (4x4k4
    # has eight symmetries); sizes that end a round of HISTOGRAM_COPIES boards part-way; the first board read reported
    game = parse_game("4x4k4")
    ply = 8
    start = int(np.random.default_rng(size).integers(0, layout(game).layer_sizes[ply] - size + 1))
    rng = np.random.default_rng([size, before + 128])
    scores = rng.integers(-128, 128, size, dtype=np.int16).astype(np.int8)
    scores[: size // 2] = np.repeat(scores[: size // 2 : 16], 16)[: size // 2]
    stored, found, first = stored_range_counted(scores, canonical_pieces(game, ply, start, start + size), read_scores(game, ply), before)
    canonical = canonical_mask(game, ply, start, start + size)
    keep = read_mask(game, ply, scores, start, canonical)
    assert np.array_equal(stored, forward_fill(scores, keep, before)), f"{size} boards, before {before}: stored bytes differ"
    assert np.array_equal(found, histograms(scores, canonical)), f"{size} boards: histograms differ"
    assert first == (int(np.argmax(keep)) if keep.any() else size)
    assert stored.dtype == np.int8 and found.dtype == np.int64 and found.shape == (2, 256)


@pytest.mark.parametrize("name", ["3x3k3", "3x4k3", "4x4k3-misere", "4x4k4-gravity", "4x5k3-gravity"])
def test_every_range_of_a_built_layer_is_stored_and_counted_from_its_scores_alone_as_the_plain_twins_do(name: str, tmp_path: Path) -> None:
    # the compiled pass finds which boards are canonical (every symmetry of the board: 8 on 3x3, 4 on 3x4, the mirror
    # under gravity) and read (UNREACHABLE and finished boards are not, except under gravity; none on the full layer)
    # board by board: ranges inside a tile, across several tiles, of one board, and whole layers
    game = parse_game(name)
    done = build_layers(game, tmp_path / "build", jobs=1)
    rng = np.random.default_rng(5)
    index = layout(game)
    for ply, scores in enumerate(done.layers()):
        size = index.layer_sizes[ply]
        tiles = [(tile.start, tile.stop) for tile in index.tiles[ply]]
        ranges = [(0, size), *tiles[:2], *[(int(a), int(b)) for a, b in np.sort(rng.integers(0, size + 1, (6, 2)), axis=1)]]
        ranges += [(at, at + 1) for at in rng.integers(0, size, 2)]
        for start, stop in ranges:
            part = np.asarray(scores[start:stop])
            canonical = canonical_mask(game, ply, start, stop)
            keep = read_mask(game, ply, part, start, canonical)
            before = fill_before(game, ply, scores, start)
            stored, found, first = stored_range_counted(part, canonical_pieces(game, ply, start, stop), read_scores(game, ply), before)
            assert np.array_equal(stored, forward_fill(part, keep, before)), f"{name} layer {ply} boards {start}..{stop}"
            assert np.array_equal(found, histograms(part, canonical)), f"{name} layer {ply} boards {start}..{stop}"


def _stored_as_the_plain_twins_store_them(name: str, ply: int, scores: np.ndarray, rng: np.random.Generator, before: int) -> None:
    """The compiled pass on the whole of ``scores`` (layer ``ply`` of game ``name``) and on 8 random ranges of it gives
    the plain twins' stored bytes, histograms and first board read."""
    game = parse_game(name)
    size = scores.size
    for start, stop in [(0, size), *[(int(a), int(b)) for a, b in np.sort(rng.integers(0, size + 1, (8, 2)), axis=1)]]:
        part = scores[start:stop]
        canonical = canonical_mask(game, ply, start, stop)
        keep = read_mask(game, ply, part, start, canonical)
        stored, found, first = stored_range_counted(part, canonical_pieces(game, ply, start, stop), read_scores(game, ply), before)
        assert np.array_equal(stored, forward_fill(part, keep, before)), f"{name} layer {ply} boards {start}..{stop}: stored bytes differ"
        assert np.array_equal(found, histograms(part, canonical)), f"{name} layer {ply} boards {start}..{stop}: histograms differ"
        assert first == (int(np.argmax(keep)) if keep.any() else stop - start)


@pytest.mark.parametrize(("name", "ply"), [("4x4k4", 8), ("4x5k3-gravity", 9)])
@pytest.mark.parametrize("before", [-128, 5])
def test_rows_of_one_score_are_stored_and_counted_whole_as_the_plain_twins_store_them_board_by_board(name: str, ply: int, before: int) -> None:
    # rows all of one score (a row no game reaches: the compiled pass counts it whole) among rows of mixed scores:
    # scores read and not (UNREACHABLE and the finished scores are not read on 4x4k4; everything is under gravity),
    # rows whose first canonical board comes late, ranges that start and stop inside a row
    game = parse_game(name)
    index = layout(game)
    rng = np.random.default_rng([ply, before + 128])
    parts = []
    for tile in index.tiles[ply]:
        rows = (tile.stop - tile.start) // tile.cols
        row_scores = rng.choice(np.array([-128, -128, 0, 3, -5, 127, -127], dtype=np.int8), rows)
        part = np.repeat(row_scores, tile.cols)
        mixed = np.repeat(rng.random(rows) < 0.3, tile.cols)
        part[mixed] = rng.integers(-128, 128, int(mixed.sum()), dtype=np.int16).astype(np.int8)
        parts.append(part)
    scores = np.concatenate(parts)
    uniform_rows = sum(
        1
        for tile in index.tiles[ply]
        for r in range((tile.stop - tile.start) // tile.cols)
        if np.ptp(scores[tile.start + r * tile.cols : tile.start + (r + 1) * tile.cols]) == 0
    )
    assert uniform_rows > 10, "too few rows of one score to exercise the whole-row count"
    _stored_as_the_plain_twins_store_them(name, ply, scores, rng, before)


@pytest.mark.parametrize(("name", "ply"), [("4x4k4", 8), ("4x5k3-gravity", 9)])
@pytest.mark.parametrize("before", [-128, 5])
def test_runs_of_boards_no_game_reaches_are_stored_and_counted_eight_at_a_time_as_the_plain_twins_do_one_by_one(name: str, ply: int, before: int) -> None:
    # rows mostly UNREACHABLE with a few scores among them, as a gravity layer's rows that some game reaches: runs of
    # every length from 1 to 40 at every offset (the compiled pass takes aligned words of eight); UNREACHABLE is read
    # under gravity (a canonical board no game reaches stores it) and not on 4x4k4; the byte before is UNREACHABLE or not
    game = parse_game(name)
    size = layout(game).layer_sizes[ply]
    rng = np.random.default_rng([ply, before + 128, 8])
    runs = rng.integers(1, 41, size)
    gaps = np.cumsum(runs + 1)
    scores = np.full(size, -128, dtype=np.int8)
    at = gaps[gaps < size]
    scores[at] = rng.choice(np.array([0, 3, -5, 127, -127], dtype=np.int8), at.size)
    assert np.mean(scores == -128) > 0.9
    _stored_as_the_plain_twins_store_them(name, ply, scores, rng, before)


def test_blocks_of_one_byte_are_found_and_encoded_once_as_any_block_is_encoded() -> None:
    data = np.full(5 * 64, -128, dtype=np.int8)
    data[64 + 17] = 3  # block 1 differs in one byte
    data[3 * 64 :] = 7  # blocks 3 and 4: another value throughout
    data[4 * 64 + 63] = -7  # block 4's last byte differs
    flags = np.zeros(5, dtype=bool)
    uniform_blocks(data, 0, 64, flags)
    assert flags.tolist() == [True, False, True, True, False]
    shifted = np.zeros(2, dtype=bool)
    uniform_blocks(data, 64 + 18, 64, shifted)  # blocks need not start at 0: bytes 82..145 (past the 3), 146..209 (into the 7s)
    assert shifted.tolist() == [True, False]
    codec = default_codec()
    level = codec_of(codec).default_level
    once = repeated_block(0x80, 64, codec, level)
    assert once == encode_block(bytes([0x80]) * 64, codec, level) and repeated_block(0x80, 64, codec, level) is once


def test_the_board_by_board_pass_refuses_pieces_that_do_not_cover_its_range() -> None:
    game = parse_game("3x4k3")
    scores = np.zeros(layout(game).layer_sizes[4], dtype=np.int8)
    with pytest.raises(ValueError, match=f"cover 10 boards of a range of {scores.size:,}"):
        stored_range_counted(scores, canonical_pieces(game, 4, 0, 10), read_scores(game, 4), 0)
    with pytest.raises(ValueError, match="scores must be int8 and the scores read 256 flags"):
        stored_range_counted(scores, canonical_pieces(game, 4, 0, scores.size), np.ones(255, dtype=bool), 0)


def test_the_scores_read_are_those_of_a_board_in_play() -> None:
    # m,n,k: UNREACHABLE and a finished board's scores are not read, every other is; gravity: every one; the full layer: none
    game = parse_game("3x3k3")
    reads = read_scores(game, 5)
    unread = {score for score in range(-128, 128) if not reads[score & 255]}
    assert unread == {-128, *game.rules.finished_scores(5)} and len(unread) == 2
    assert not read_scores(game, 9).any()
    assert read_scores(parse_game("4x4k4-gravity"), 7).all()


@pytest.mark.parametrize("name", ["4x4k4-gravity", "3x6k3"])
def test_a_table_sealed_with_the_compiled_pass_has_the_shipped_checksum(name: str, tmp_path: Path) -> None:
    path = build_compact(parse_game(name), tmp_path / f"{name}.ttt", jobs=2)
    assert open_table(path).header.root == EXPECTED_COMPACT_ROOTS[name]


@pytest.mark.parametrize("name", ["3x3k3", "3x3k3-misere", "3x4k3", "4x4k4-gravity"])
@pytest.mark.parametrize(("block", "per_segment"), [(64, 3), (512, 1), (4096, 2)])
def test_ranges_sealed_apart_are_filled_in_order_as_one_pass_over_the_layers_stores_them(
    name: str, block: int, per_segment: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # small blocks and segments, so that ranges with no board read come first in a layer, between read ones, and whole
    # layers have none (the full layer); every block decoded equals the plain stored bytes (solver.contents.stored)
    game = parse_game(name)
    layers = build_layers(game, tmp_path / "build", jobs=1).layers()
    monkeypatch.setattr(sealing, "BLOCK", block)
    monkeypatch.setattr(sealing, "SEGMENT_BLOCKS", per_segment)
    codec = sealing.Compression.default()
    pieces = sealing.piece_sealing(codec)
    decode = codec_of(codec.name).decompress
    carry, per_layer = b"", []
    for ply in range(game.cells, -1, -1):
        offset = layout(game).layer_offsets[ply]

        def segments(ranges: list[tuple[int, int]], ply: int = ply, offset: int = offset) -> Iterator[SealedPiece]:
            return (seal_piece(game, ply, layers[ply][start:stop], start, offset, pieces) for start, stop in ranges)

        sealed = sealing.Sealed()
        per_layer.append(b"".join(decode(b.packed, b.size) for b in sealing.seal_layer(game, ply, carry, segments, codec, sealed)))
        carry = sealed.head
    expected = np.concatenate(list(stored_layers(game, layers))).tobytes()
    assert carry + b"".join(reversed(per_layer)) == expected
