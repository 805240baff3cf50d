"""A gravity build keeps its layers sparse (a byte a board reached) and reads them dense again, exactly."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from forgery import forge_finished_layer

import solver.storage.trust
from solver.encoding.layouts import layout
from solver.errors import BuildError, TableError
from solver.retrograde import chunks as chunks_module
from solver.retrograde import gravity, plan, proof, sparse
from solver.retrograde.builddir import BuildDir
from solver.retrograde.chunks import ChunkDone, chunks
from solver.retrograde.compiled import TOP_BIT, densify_rows, reached_scores
from solver.retrograde.plan import _allocated, layer_file_bytes, plan_build
from solver.retrograde.reachfile import FrameWriter, read_index
from solver.retrograde.sealing import Compression, release
from solver.retrograde.sparse import COUNT_SHIFT, DenseLayer, SparseLayer, block_counts, expand
from solver.retrograde.sweep import build_layers
from solver.rules.game import parse_game
from solver.storage.blockarray import new_file_codec
from solver.store.make import build_compact

UNREACHABLE = -128  # as the package stores a board no game reaches


def _random_layer(rng: np.random.Generator, boards: int, density: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flags in runs (as a tile's boards are), scores of the boards reached, and the layer made dense by numpy."""
    runs = np.repeat(rng.random(-(-boards // 37)) < density, 37)[:boards]
    flags = runs & (rng.random(boards) < 0.8)
    scores = rng.integers(-100, 100, int(flags.sum())).astype(np.int8)
    dense = np.full(boards, UNREACHABLE, dtype=np.int8)
    dense[flags] = scores
    return flags, scores, dense


def _plain_counts(flags: np.ndarray) -> np.ndarray:
    """The boards reached before every ``2 ** COUNT_SHIFT``-th board, and all of them, by a running sum."""
    step = 1 << COUNT_SHIFT
    before = np.concatenate([[0], np.cumsum(flags)])
    return np.array([before[min(at, flags.size)] for at in range(0, flags.size + step, step)][: -(-flags.size // step) + 1], dtype=np.int64)


def _densify(bits: np.ndarray, counts: np.ndarray, scores: np.ndarray, starts: np.ndarray, out: np.ndarray) -> None:
    """The compiled kernel with the words it counts by."""
    densify_rows(bits, bits[: bits.size // 8 * 8].view(np.uint64), counts, scores, starts, TOP_BIT, out)


@pytest.mark.parametrize("density", [0.0, 0.05, 0.5, 1.0])
def test_rows_made_dense_are_the_layers_rows_wherever_they_start(density: float) -> None:
    rng = np.random.default_rng(int(density * 100))
    boards = 3 * (1 << COUNT_SHIFT) + 1234
    flags, scores, dense = _random_layer(rng, boards, density)
    bits = np.packbits(flags)
    counts = _plain_counts(flags)
    assert np.array_equal(block_counts(bits, boards), counts), "the counts every 4,096 boards"
    for width in (1, 7, 8, 64, 999):
        starts = rng.integers(0, boards - width, 50).astype(np.int64)
        starts[:3] = [0, boards - width, (1 << COUNT_SHIFT) - 1]
        starts[3:8] = (1 << COUNT_SHIFT) - 3 + width * np.arange(5)  # rows one after the other: the count carried on
        out = np.zeros((starts.size, width), dtype=np.int8)
        _densify(bits, counts, scores, starts, out)
        wanted = np.stack([dense[start : start + width] for start in starts])
        assert np.array_equal(out, wanted), f"rows {width} wide"


def test_counts_found_a_piece_a_thread_are_the_counts_found_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(4)
    boards = 9 * (1 << COUNT_SHIFT) + 77
    flags = _random_layer(rng, boards, 0.3)[0]
    monkeypatch.setattr(sparse, "COUNT_PIECE", 2)  # five pieces of two counts (the last of one)
    assert np.array_equal(block_counts(np.packbits(flags), boards, threads=3), _plain_counts(flags))


@pytest.mark.parametrize("density", [0.0, 0.05, 0.5, 1.0])
def test_the_scores_a_sparse_layer_keeps_of_a_chunk_are_those_of_its_boards_reached_in_order(density: float) -> None:
    rng = np.random.default_rng(int(density * 100) + 1)
    for boards in (0, 5, 8, 1001, 65_539):
        flags, _, dense = _random_layer(rng, boards, density)
        kept = reached_scores(dense, flags)
        assert kept.dtype == np.int8 and np.array_equal(kept, dense[flags]), f"{boards} boards"


def test_a_row_not_asked_for_is_left_as_it_was() -> None:
    rng = np.random.default_rng(3)
    flags, scores, dense = _random_layer(rng, 5000, 0.5)
    out = np.full((3, 10), 77, dtype=np.int8)
    _densify(np.packbits(flags), _plain_counts(flags), scores, np.array([10, -1, 4000], dtype=np.int64), out)
    assert np.array_equal(out[0], dense[10:20]) and np.array_equal(out[2], dense[4000:4010])
    assert (out[1] == 77).all()


def test_a_sparse_layer_gives_the_dense_layers_ranges_panels_and_rows() -> None:
    rng = np.random.default_rng(5)
    boards, width = 120 * 50, 50
    flags, scores, dense = _random_layer(rng, boards, 0.3)
    layer = SparseLayer(scores, np.packbits(flags), _plain_counts(flags), boards)
    plain = DenseLayer(dense)
    assert len(layer) == len(plain) == boards
    assert np.array_equal(layer[17:4321], dense[17:4321]) and np.array_equal(layer[0:boards], dense)
    assert np.array_equal(layer.panel(50, width, 3, 40), plain.panel(50, width, 3, 40))
    rows = np.array([[5, -1, 5, 30], [0, 2, -1, 117]])
    tile, renumbered = layer.rows_of(50, width, 119, rows)
    whole, same = plain.rows_of(50, width, 119, rows)
    assert np.array_equal(same, rows) and tile.shape == (5, width), "each row named once"
    for move in range(rows.shape[0]):
        for at in range(rows.shape[1]):
            if rows[move, at] < 0:
                assert renumbered[move, at] == -1
            else:
                assert np.array_equal(tile[renumbered[move, at]], whole[rows[move, at]])


@pytest.mark.parametrize("threads", [1, 2, 3, 7])
def test_a_layers_bits_laid_out_from_its_reach_file_are_its_bits_where_chunks_share_a_byte(threads: int, tmp_path: Path) -> None:
    # frames of a board or two too, several in a byte: the byte a run of frames starts in is shared with the run before
    rng = np.random.default_rng(11)
    boards = 20_011
    flags = _random_layer(rng, boards, 0.4)[0]
    flags[:40] = True
    cuts = sorted({0, 1, 3, 5, 6, 9, *map(int, rng.integers(1, boards, 60))})
    path = tmp_path / "reach.zbits"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        writer = FrameWriter(fd, new_file_codec(), cuts, boards)
        for first, last in reversed(list(zip(cuts, [*cuts[1:], boards], strict=True))):
            writer.put(first, flags[first:last])
        writer.close()
        bits = np.zeros(-(-boards // 8), dtype=np.uint8)
        expand(fd, read_index(fd), new_file_codec(), bits, threads=threads)
    finally:
        os.close(fd)
    assert sum(1 for cut in cuts if cut % 8) > 40, "most frames start inside a byte"
    assert np.array_equal(bits, np.packbits(flags))


@pytest.mark.parametrize("name", ["4x4k4-gravity", "3x4k3-gravity"])
def test_a_sparse_layers_file_holds_the_scores_of_the_boards_reached_alone_in_order(name: str, tmp_path: Path) -> None:
    game = parse_game(name)
    result = build_layers(game, tmp_path / "build", jobs=1)
    build = BuildDir(result.path, game)
    dense = result.layers()
    for ply, size in enumerate(layout(game).layer_sizes):
        reached = build.reached(ply, 0, size)
        stored = np.fromfile(build.layer_path(ply), dtype=np.int8)
        assert np.array_equal(stored, dense[ply][reached]), f"layer {ply}"
        assert (dense[ply][~reached] == UNREACHABLE).all()
        assert build.layer_bytes(ply) == stored.size == int(reached.sum())
    slots = sum(layout(game).layer_sizes)
    assert sum(os.path.getsize(build.layer_path(ply)) for ply in range(game.cells + 1)) < slots, "fewer bytes than boards"


def test_a_sparse_layer_cut_short_keeps_its_journaled_chunks_even_those_no_game_reaches(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(chunks_module, "CHUNK_BOARDS", 64)  # many chunks, some of them out of reach
    game = parse_game("4x4k4-gravity")
    build = BuildDir(tmp_path / "build", game)
    layer_chunks = chunks(game, 14)
    solved: list[int] = []

    def stop_in_layer_14(done: ChunkDone) -> None:
        if not done.forward and done.ply == 14:
            solved.append(done.boards)
            if len(solved) == len(layer_chunks) // 2:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_layers(game, build.path, jobs=1, progress=stop_in_layer_14)
    empty = [span for span in build.spans(14).values() if span[1] == 0]
    assert empty, "some chunk of layer 14 holds no board reached"
    journaled = build.journal_path(14).read_text().splitlines()
    assert any(line.endswith(" 0") for line in journaled), "a chunk of no board reached is journaled with no byte"
    said: list[str] = []
    resumed = build_layers(game, build.path, jobs=1, notify=said.append)
    kept = [int(found[1]) for line in said if (found := re.match(rf"layer 14: ([0-9]+) of its {len(layer_chunks)} chunks were finished before", line))]
    assert kept == [len(journaled)] and len(layer_chunks) // 2 <= kept[0] < len(layer_chunks), said
    assert resumed.sha256 == build_layers(game, tmp_path / "fresh", jobs=1).sha256


def test_a_damaged_sparse_layer_is_found_by_its_digest_and_solved_again(tmp_path: Path) -> None:
    game = parse_game("3x4k3-gravity")
    first = build_layers(game, tmp_path / "build", jobs=1)
    build = BuildDir(first.path, game)
    path = build.layer_path(4)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))
    assert 4 not in build.finished(check=True) and 5 in build.finished(check=True)
    again = build_layers(game, build.path, jobs=1)
    assert again.solved == (4, 3, 2, 1, 0) and again.sha256 == first.sha256


def test_a_sparse_layer_whose_bits_were_not_made_is_refused_naming_the_file(tmp_path: Path) -> None:
    game = parse_game("3x4k3-gravity")
    build = BuildDir(build_layers(game, tmp_path / "build", jobs=1).path, game)
    with pytest.raises(BuildError, match=r"reached-05\.bits: missing; delete the build directory"):
        build.scores(5)
    assert np.array_equal(build.scores(5, expand=True)[0 : layout(game).layer_sizes[5]], build.layers()[5])


def test_the_compiled_kernel_reads_a_sparse_child_as_its_plain_twin_reads_the_dense_one(tmp_path: Path) -> None:
    game = parse_game("4x5k4-gravity")
    result = build_layers(game, tmp_path / "build", jobs=2)
    build = BuildDir(result.path, game)
    dense = result.layers()
    for ply in (9, 12, 15):
        child = build.scores(ply + 1, expand=True)
        assert isinstance(child, SparseLayer)
        for chunk in chunks(game, ply):
            reached = build.reached(ply, chunk.start, chunk.stop)
            expected = gravity.plain_chunk(game, chunk, dense[ply + 1], reached)
            assert np.array_equal(gravity.solve_chunk(game, chunk, child, reached), expected), f"layer {ply}, chunk at {chunk.start}"


def test_a_gravity_build_counts_its_sparse_layers_exactly_once_the_forward_pass_has_and_checks_the_disk_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    game = parse_game("4x5k4-gravity")
    build = BuildDir(tmp_path / "build", game)
    sizes = layout(game).layer_sizes
    assert layer_file_bytes(build) == [size // plan.SPARSE_GUESS for size in sizes], "guessed before the pass"
    guessed = plan_build(game, build.path, retiring=True).disk_bytes
    counted = BuildDir(tmp_path / "counted", game)
    counted.prepare()
    gravity.write_reach(counted)
    assert layer_file_bytes(counted) == [int(counted.reached(ply, 0, size).sum()) for ply, size in enumerate(sizes)]
    exact = plan_build(game, counted.path, retiring=True).disk_bytes
    assert exact > guessed, "this game reaches more than the guess: the second check is the one that refuses"

    free = (guessed + exact) // 2
    monkeypatch.setattr(plan.shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10 * free, 9 * free, free))  # type: ignore[attr-defined]
    with pytest.raises(BuildError, match=r"building 4x5k4-gravity needs [0-9.]+ GiB of disk") as refused:
        build_layers(game, build.path, jobs=1, release=release(Compression.default()))
    assert build.has_reach(), "the forward pass is kept: the build resumes from it where there is room"
    assert not list(build.path.glob("layer-*")), "no layer was written"
    assert f"{(exact - _allocated(build.path)) / 2**30:.2f} GiB" in str(refused.value)


def test_a_resumed_sparse_layer_is_re_derived_from_its_sparse_child_before_it_is_sealed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game without a shipped checksum: the check reads both layers dense through their bits, and the boards
    reached from the reach files the build kept (no forward pass again)."""
    monkeypatch.setattr(solver.storage.trust, "expected_root", lambda game, kind="dense": None)
    game = parse_game("4x4k4-gravity")
    directory = tmp_path / "build"

    def stop_in_layer_11(done: ChunkDone) -> None:
        if not done.forward and done.ply == 11:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_layers(game, directory, jobs=1, progress=stop_in_layer_11)
    forge_finished_layer(BuildDir(directory, game), 13)

    def walked(*args: object, **kwargs: object) -> None:
        raise AssertionError("the forward pass is not run again")

    monkeypatch.setattr(proof, "reach_layers", walked)
    output = tmp_path / f"{game.name}.ttt"
    with pytest.raises(TableError, match=r"table just built is wrong \(layer 13: 1 board disagrees with its children"):
        build_compact(game, output, build_dir=directory, jobs=1)
    assert not output.exists()
