"""The gravity index and build: the column index numbers every board without a floating piece once, the layered
build walks the games forward and resumes like any build, and a game past this machine (Connect Four) is refused at
once with the estimate and the cluster command."""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from solver.encoding.coderules import code_rules
from solver.encoding.columns import layer_slots
from solver.encoding.layouts import layout
from solver.errors import GameTooLargeError
from solver.retrograde import chunks as chunks_module
from solver.retrograde import gravity, kernel
from solver.retrograde.builddir import BuildDir
from solver.retrograde.chunks import ChunkDone, chunks
from solver.retrograde.dense import build_arrays
from solver.retrograde.plan import forward_bytes, forward_disk, plan_build, reach_bytes, reach_file_bytes, table_bytes, worker_bytes
from solver.retrograde.sealing import Compression, release
from solver.retrograde.sweep import build_layers
from solver.rules.game import Game, parse_game
from solver.rules.score import UNREACHABLE
from solver.store.estimate import beyond_machine, estimate


@pytest.mark.parametrize("name", ["3x4k3-gravity", "4x3k3-gravity", pytest.param("4x4k4-gravity", marks=pytest.mark.slow), "2x5k3-gravity"])
def test_the_column_index_numbers_every_board_without_a_floating_piece_once(name: str) -> None:
    game = parse_game(name)
    index = layout(game)
    every = np.arange(index.size)
    codes = index.codes_at(every)
    assert np.array_equal(index.index_of(codes), every), "index -> code -> index is the identity"
    assert index.layer_sizes == tuple(layer_slots(game.rows, game.cols)), "the layers have the slots counted without building"
    floating = game.rules.move.misplaced  # the pieces with an empty cell below
    words = code_rules(game).words(np.arange(game.codes))
    taken = (words & 0xFFFFFFFF) | (words >> 32)
    settled = np.array([not floating(int(t)) for t in taken])
    counts_legal = np.bitwise_count(words & 0xFFFFFFFF).astype(int) - np.bitwise_count(words >> 32).astype(int)
    numbered = settled & ((counts_legal == 0) | (counts_legal == 1))
    indices = index.index_of(np.arange(game.codes))
    assert np.array_equal(indices >= 0, numbered), "exactly the settled boards with legal counts have an index"
    one_by_one = [index.index_of_code(int(code)) for code in range(0, game.codes, 7)]
    assert one_by_one == [max(-1, int(i)) for i in indices[::7]], "one code at a time, the same (-1: none)"


@pytest.mark.parametrize("name", ["3x4k3-gravity", "4x4k4-gravity", "4x4k3-gravity-misere"])
def test_the_layered_gravity_build_gives_every_board_the_dense_builds_score(name: str, tmp_path: Path) -> None:
    """The forward pass marks unreachable exactly the boards the dense build's forward walk never reaches."""
    game = parse_game(name)
    layers = np.concatenate([np.asarray(layer) for layer in build_layers(game, tmp_path / "build", jobs=2).layers()])
    dense = build_arrays(game).score
    codes = layout(game).codes_at(np.arange(layout(game).size))
    wrong = np.flatnonzero(layers != dense[codes])
    assert not wrong.size, f"{wrong.size} boards differ, first code {codes[wrong[0]]}: layered {layers[wrong[0]]}, dense {dense[codes[wrong[0]]]}"
    assert int((layers != UNREACHABLE).sum()) == int((dense != UNREACHABLE).sum())


def test_a_gravity_build_interrupted_in_its_forward_pass_starts_it_again_and_gives_the_same_bytes(tmp_path: Path) -> None:
    game = parse_game("4x4k4-gravity")

    def stop_in_the_forward_pass(done: ChunkDone) -> None:
        if done.forward and done.ply == 9:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_layers(game, tmp_path / "build", jobs=1, progress=stop_in_the_forward_pass)
    assert not BuildDir(tmp_path / "build", game).has_reach(), "a forward pass cut short is not recorded"
    resumed = build_layers(game, tmp_path / "build", jobs=1)
    fresh = build_layers(game, tmp_path / "fresh", jobs=1)
    assert resumed.sha256 == fresh.sha256
    assert BuildDir(tmp_path / "build", game).manifest()["reach"] == BuildDir(tmp_path / "fresh", game).manifest()["reach"]


def test_a_forward_pass_cut_short_leaves_bits_in_play_that_the_next_one_deletes(tmp_path: Path) -> None:
    game = parse_game("4x4k4-gravity")
    build = BuildDir(tmp_path / "build", game)

    def stop_at_layer_9(done: ChunkDone) -> None:
        if done.forward and done.ply == 9:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_layers(game, build.path, jobs=1, progress=stop_at_layer_9)
    assert not list(build.path.glob("playing-*")), "a pass cut short deletes its bits in play"
    (build.path / "playing-05.bits").write_bytes(b"\0" * 64)  # as a killed pass leaves them
    build_layers(game, build.path, jobs=1)
    assert not list(build.path.glob("playing-*")) and not list(build.path.glob("reached-*"))
    assert sorted(path.name for path in build.path.glob("reach-*")) == [f"reach-{ply:02d}.zbits" for ply in range(game.cells + 1)], (
        "every layer's reach file, which its sparse file is read by, and no other"
    )


def test_a_gravity_build_interrupted_in_its_sweep_keeps_the_forward_pass_and_resumes_below_the_last_layer(tmp_path: Path) -> None:
    game = parse_game("4x4k4-gravity")
    forward: list[int] = []

    def stop_in_layer_5(done: ChunkDone) -> None:
        if done.forward:
            forward.append(done.ply)
        elif done.ply == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_layers(game, tmp_path / "build", jobs=1, progress=stop_in_layer_5)
    assert forward == list(range(17)), "the forward pass reports every layer, the empty board first"
    assert BuildDir(tmp_path / "build", game).has_reach()
    forward.clear()
    resumed = build_layers(game, tmp_path / "build", jobs=1, progress=lambda done: forward.append(done.ply) if done.forward else None)
    assert not forward, "the forward pass kept is not run again"
    assert resumed.resumed_below == 6 and resumed.solved == (5, 4, 3, 2, 1, 0)
    assert resumed.sha256 == build_layers(game, tmp_path / "fresh", jobs=1).sha256


def test_damaged_reach_bits_are_found_again_before_the_build_goes_on(tmp_path: Path) -> None:
    game = parse_game("3x4k3-gravity")

    def stop_in_layer_5(done: ChunkDone) -> None:
        if not done.forward and done.ply == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_layers(game, tmp_path / "build", jobs=1, progress=stop_in_layer_5)
    bits = BuildDir(tmp_path / "build", game).reach_path(3)  # a layer still to solve
    data = bytearray(bits.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bits.write_bytes(bytes(data))
    assert not BuildDir(tmp_path / "build", game).has_reach()
    again = build_layers(game, tmp_path / "build", jobs=1)
    assert again.solved == (5, 4, 3, 2, 1, 0) and again.sha256 == build_layers(game, tmp_path / "fresh", jobs=1).sha256


def test_a_layers_reach_file_is_deleted_once_it_retires_and_its_bits_once_its_parent_is_solved(tmp_path: Path) -> None:
    """A sparse layer is read through its reach file while its file is there (its parent reads it dense through the
    bits made from it, deleted once the parent is solved); once sealed and retired, neither is read again."""
    game = parse_game("4x4k4-gravity")
    build = BuildDir(tmp_path / "build", game)
    left: dict[int, tuple[list[int], list[str]]] = {}

    def files_left(done: ChunkDone) -> None:
        if not done.forward:
            reach = sorted(int(path.name[6:8]) for path in build.path.glob("reach-*.zbits"))
            left[done.ply] = (reach, sorted(path.name for path in build.path.glob("reached-*")))

    build_layers(game, build.path, jobs=1, progress=files_left, release=release(Compression.default()))
    assert sorted(left) == list(range(game.cells + 1))
    for ply, (reach, expanded) in left.items():
        assert reach == list(range(min(ply + 2, game.cells + 1))), f"layer {ply}: the reach files of the layers not retired, {reach}"
        child = [] if ply == game.cells else [f"reached-{ply + 1:02d}.bits", f"reached-{ply + 1:02d}.counts"]
        assert expanded == child, f"layer {ply}: its child's bits and counts alone, {expanded}"
    assert not list(build.path.glob("reach-*")) and not list(build.path.glob("reached-*")) and build.has_reach()


def test_connect_fours_full_table_is_beyond_this_machine_and_its_estimate_says_what_a_cluster_needs(tmp_path: Path) -> None:
    """The full table, not the game: Connect Four is answered by search and its book is built instead
    (tests/test_connect4_fronts.py, tests/test_book.py)."""
    game = parse_game("connect4")
    cost = estimate(game, tmp_path / "6x7k4-gravity.ttt")
    said = beyond_machine(game, cost, tmp_path)
    assert said is not None
    assert "4,531,985,219,092 positions" in said and "on 2 cores" not in said or "cores" in said
    assert "of disk" in said and "of memory" in said and "--scheduler tcp://HOST:8786" in said
    assert not list(tmp_path.iterdir()), "nothing is written"


def test_connect_four_is_named_and_its_codes_are_read_one_at_a_time() -> None:
    game = parse_game("Connect4")
    assert game.name == "6x7k4-gravity" and (game.rows, game.cols, game.k) == (6, 7, 4)
    rules = code_rules(game)
    assert rules.violation(0) is None, "the empty board"
    with pytest.raises(GameTooLargeError, match="42 cells: its codes pass int64"):
        rules.classify(np.zeros(1, dtype=np.uint64))
    status, pieces = game.rules.classify_words(game.rules.join_many(np.zeros(2, dtype=np.int64), np.array([0, 1 << 41])))
    assert status.tolist() == [0, 3] and pieces.tolist() == [0, 0], "many boards as masks: the empty board, and O ahead"
    assert sum(layer_slots(6, 7)) > 4_531_985_219_092, "the index has a slot for every reachable position"


def test_a_gravity_game_that_fits_is_not_refused(tmp_path: Path) -> None:
    game = parse_game("5x6k4-gravity")
    cost = estimate(game, tmp_path / "5x6k4-gravity.ttt")
    assert beyond_machine(game, cost, tmp_path) is None
    assert cost.disk_bytes > sum(map(reach_file_bytes, layer_slots(5, 6))), "the reach files are counted"


@pytest.mark.parametrize("name", ["4x5k4-gravity", "4x6k4-gravity"])
def test_every_layers_reach_file_takes_no_more_disk_than_the_plan_counts(name: str, tmp_path: Path) -> None:
    game = parse_game(name)
    build = BuildDir(tmp_path / "build", game)
    build.prepare()
    gravity.write_reach(build, jobs=2)
    sizes = layout(game).layer_sizes
    found = {ply: build.reach_path(ply).stat().st_size for ply in range(game.cells + 1)}
    assert all(found[ply] <= reach_file_bytes(size) for ply, size in enumerate(sizes)), found
    assert 2 * sum(found.values()) < sum(-(-size // 8) for size in sizes), "the files take less than half the bits in all"


def _plain_reach_layers(game: Game) -> list[np.ndarray]:
    """The forward pass a byte a board (:func:`solver.retrograde.gravity.plain_reach_chunk` over whole layers): each
    layer's packed bits of the boards reached."""
    found: list[np.ndarray] = []
    playing: np.ndarray | None = None
    for ply, size in enumerate(layout(game).layer_sizes):
        reached, live = np.zeros(size, dtype=bool), np.zeros(size, dtype=np.uint8)
        for chunk in chunks(game, ply):
            reached[chunk.start : chunk.stop], live[chunk.start : chunk.stop] = gravity.plain_reach_chunk(game, chunk, playing)
        found.append(np.packbits(reached))
        playing = live
    return found


@pytest.mark.parametrize("name", ["3x4k3-gravity", "4x4k4-gravity", "4x4k3-gravity-misere", "2x5k3-gravity"])
def test_the_forward_pass_in_bits_gives_the_byte_wise_passs_bits_even_where_chunks_share_a_byte(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The pass that holds bits (its chunks ORed into shared bytes, on two threads), the build's pass that writes them
    to its reach-PP.zbits (a compressed frame a chunk, chunks found in any order), and the byte-wise plain twin mark
    the same boards; chunks of a few boards make most chunks start and stop inside a byte."""
    game = parse_game(name)
    reference = _plain_reach_layers(game)
    monkeypatch.setattr(chunks_module, "CHUNK_BOARDS", 5)
    inside = [chunk for ply in range(game.cells + 1) for chunk in chunks(game, ply) if chunk.start % 8 and chunk.stop % 8]
    assert len(inside) > 10, "the test sees chunks that start and stop inside a byte"
    found = dict(gravity.reach_layers(game, jobs=2))
    assert sorted(found) == list(range(game.cells + 1))
    for ply, bits in enumerate(reference):
        assert np.array_equal(found[ply], bits), f"layer {ply} of {name}: the bits differ from the byte-wise pass's"
    build = BuildDir(tmp_path / "build", game)
    build.prepare()
    gravity.write_reach(build, jobs=2)  # the boards in play through files, the layer before's mapped
    assert build.has_reach() and not list(build.path.glob("playing-*")), "no bits in play are left"
    for ply, bits in enumerate(reference):
        size = layout(game).layer_sizes[ply]
        assert np.array_equal(np.packbits(build.reached(ply, 0, size)), bits), f"layer {ply} of {name}: the file's bits differ"
        for chunk in chunks(game, ply):
            wanted = np.unpackbits(bits, count=size)[chunk.start : chunk.stop].astype(bool)
            assert np.array_equal(build.reached(ply, chunk.start, chunk.stop), wanted), f"layer {ply}, chunk at {chunk.start}"


def test_put_bits_sets_a_chunks_bits_and_leaves_its_neighbours_in_shared_bytes() -> None:
    rng = np.random.default_rng(7)
    flags = rng.random(203) < 0.5
    packed = np.zeros(-(-flags.size // 8), dtype=np.uint8)
    cuts = [0, 3, 4, 11, 12, 13, 29, 64, 65, 200, 203]
    lock = threading.Lock()
    for start, stop in reversed(list(itertools.pairwise(cuts))):
        gravity.put_bits(packed, start, flags[start:stop], lock)
    assert np.array_equal(packed, np.packbits(flags))


def test_the_forward_pass_of_a_proof_of_some_layers_keeps_only_their_bits_and_stops_after_the_last() -> None:
    """A resumed build's check of one layer (solver.retrograde.sealing) holds that layer's bits, not every layer's."""
    game = parse_game("4x4k4-gravity")
    every = kernel.reach_layers(game)
    walked: list[int] = []

    def counted(game: Game, *, jobs: int = 1) -> Iterator[tuple[int, np.ndarray]]:
        for ply, bits in gravity.reach_layers(game, jobs=jobs):
            walked.append(ply)
            yield ply, bits

    hook = kernel.hook_of(game)
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(kernel.HOOKS, type(game.rules.move), dataclasses.replace(hook, reach_layers=counted))
        some = kernel.reach_layers(game, plies={5, 9})
    assert sorted(some) == [5, 9] and walked == list(range(10)), "the layers asked for, found forward up to the last of them"
    assert all(np.array_equal(some[ply], every[ply]) for ply in some)


def test_the_plan_of_4x8k4_gravity_counts_its_forward_pass_in_bits_and_fits_16_gib(tmp_path: Path) -> None:
    """The build's forward pass reads a bit a board of the layer before the one it finds (its boards in play, mapped
    from a file), not the 4 bytes a board once counted (64 GiB); its disk, the reach files so far and the bits in play
    of two layers, counts in the plan."""
    game = parse_game("4x8k4-gravity")
    sizes = layout(game).layer_sizes
    plan = plan_build(game, tmp_path / "build", jobs=2)
    assert reach_bytes(sizes) == -(-max(sizes) // 8)
    packed = [-(-size // 8) for size in sizes]
    assert forward_disk(sizes) >= max(a + b for a, b in itertools.pairwise(packed)) and plan.disk_bytes >= forward_disk(sizes)
    assert plan.memory_bytes == forward_bytes(sizes, jobs=2, tables=table_bytes(game)) > 2 * worker_bytes(game)
    assert plan.memory_bytes < 16 * 2**30 and estimate(game, tmp_path / "4x8k4-gravity.ttt", jobs=2).memory_bytes == plan.memory_bytes
