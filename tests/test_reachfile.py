"""A layer's reach file (solver.retrograde.reachfile): written a chunk at a time in any order, read back a range at a
time to exactly the bits put, and refused, saying what is wrong, when it is damaged.

The reference is the flags themselves (numpy), put and read through the file's public functions only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from solver.errors import BuildError
from solver.retrograde import gravity
from solver.retrograde.builddir import BuildDir
from solver.retrograde.reachfile import MAGIC, FrameWriter, ReachIndex, read_index, read_range
from solver.rules.game import parse_game
from solver.storage.blockarray import new_file_codec


def _cuts(rng: np.random.Generator, boards: int, chunks: int) -> list[int]:
    """Chunk starts of a layer of ``boards`` boards: 0 and ``chunks - 1`` distinct others."""
    return [0, *sorted(rng.choice(np.arange(1, boards), size=chunks - 1, replace=False).tolist())]


def _written(path: Path, flags: np.ndarray, starts: list[int], order: list[int]) -> int:
    """The reach file of a layer's ``flags`` at ``path``, its chunks put in ``order``; how many boards it says reached."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        writer = FrameWriter(fd, new_file_codec(), starts, flags.size)
        stops = [*starts[1:], flags.size]
        for k in order:
            writer.put(starts[k], flags[starts[k] : stops[k]])
        return writer.close()
    finally:
        os.close(fd)


def _index(path: Path) -> ReachIndex:
    fd = os.open(path, os.O_RDONLY)
    try:
        return read_index(fd)
    finally:
        os.close(fd)


def _range(path: Path, start: int, stop: int) -> np.ndarray:
    fd = os.open(path, os.O_RDONLY)
    try:
        return read_range(fd, read_index(fd), new_file_codec(), start, stop)
    finally:
        os.close(fd)


@pytest.fixture
def layer(tmp_path: Path) -> Iterator[tuple[Path, np.ndarray, list[int]]]:
    """A layer of 10,007 boards in 23 chunks, runs of boards reached and not (as a layer's are), written in a shuffled order."""
    rng = np.random.default_rng(40)
    flags = np.repeat(rng.random(800) < 0.4, rng.integers(1, 50, size=800))[:10_007]
    assert flags.size == 10_007
    starts = _cuts(rng, flags.size, 23)
    path = tmp_path / "reach-07.zbits"
    assert _written(path, flags, starts, rng.permutation(len(starts)).tolist()) == int(flags.sum())
    yield path, flags, starts


def test_chunks_put_in_any_order_read_back_as_the_bits_put_over_any_range(layer: tuple[Path, np.ndarray, list[int]]) -> None:
    path, flags, starts = layer
    index = _index(path)
    assert index.boards == flags.size and index.reached == int(flags.sum()) and index.starts[:-1].tolist() == starts
    assert np.array_equal(index.before[:-1], np.cumsum([0, *(int(flags[a:b].sum()) for a, b in zip(starts, starts[1:], strict=False))]))
    rng = np.random.default_rng(41)
    ranges = [(0, flags.size), (0, 0), (flags.size, flags.size), (starts[5], starts[6]), (starts[5] + 1, starts[9] - 1)]
    ranges += [tuple(sorted(rng.integers(0, flags.size + 1, size=2).tolist())) for _ in range(200)]
    for start, stop in ranges:
        assert np.array_equal(_range(path, start, stop), flags[start:stop]), (start, stop)


def test_the_same_bits_give_the_same_bytes_whatever_order_the_chunks_come_in(tmp_path: Path, layer: tuple[Path, np.ndarray, list[int]]) -> None:
    path, flags, starts = layer
    again = tmp_path / "again.zbits"
    _written(again, flags, starts, list(range(len(starts))))
    assert again.read_bytes() == path.read_bytes()
    assert path.read_bytes().endswith(MAGIC)


def test_a_frame_that_no_longer_decodes_or_counts_other_boards_is_refused_saying_which(layer: tuple[Path, np.ndarray, list[int]]) -> None:
    path, flags, starts = layer
    index = _index(path)
    data = bytearray(path.read_bytes())
    at = int(index.offsets[3]) + (int(index.offsets[4]) - int(index.offsets[3])) // 2
    data[at] ^= 0x5A
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=f"frame 3 \\(boards {starts[3]:,} to {starts[4]:,}\\)"):
        _range(path, 0, flags.size)
    assert np.array_equal(_range(path, starts[5], starts[7]), flags[starts[5] : starts[7]]), "the other frames still read"


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda data: data[:-1], "no reach file's footer"),
        (lambda data: data[:-20] + data[-16:], "out of order|more than its"),
        (lambda data: data[:16] + data[20:], "out of order|more than its"),
        (lambda data: data[:-16] + (10**9).to_bytes(8, "little") + MAGIC, "counts 1,000,000,000 frames"),
        (lambda data: b"", "no reach file's footer"),
    ],
)
def test_a_cut_or_forged_index_is_refused_before_any_frame_is_read(layer: tuple[Path, np.ndarray, list[int]], damage: object, said: str) -> None:
    path, _, _ = layer
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    with pytest.raises(ValueError, match=said):
        _index(path)


def test_a_range_outside_the_layer_a_chunk_put_twice_and_a_layer_closed_early_are_refused(tmp_path: Path, layer: tuple[Path, np.ndarray, list[int]]) -> None:
    path, flags, starts = layer
    with pytest.raises(ValueError, match="not all in the layer's 10,007"):
        _range(path, 5, flags.size + 1)
    fd = os.open(tmp_path / "early.zbits", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        writer = FrameWriter(fd, new_file_codec(), starts, flags.size)
        writer.put(0, flags[: starts[1]])
        with pytest.raises(ValueError, match="put twice"):
            writer.put(0, flags[: starts[1]])
        with pytest.raises(ValueError, match=f"ends at board {starts[1]:,} of 10,007"):
            writer.close()
    finally:
        os.close(fd)


def test_a_build_names_a_damaged_reach_file_and_the_way_out(tmp_path: Path) -> None:
    game = parse_game("3x4k3-gravity")
    build = BuildDir(tmp_path / "build", game)
    build.prepare()
    gravity.write_reach(build)
    path = build.reach_path(6)
    data = bytearray(path.read_bytes())
    data[3] ^= 0xFF  # inside the first frame
    path.write_bytes(bytes(data))
    with pytest.raises(BuildError, match=f"{path}: frame 0 .*; delete the build directory {build.path} to start again"):
        build.reached(6, 0, 10)


def test_a_forward_pass_replaces_the_bit_a_board_files_of_an_earlier_version(tmp_path: Path) -> None:
    game = parse_game("3x4k3-gravity")
    build = BuildDir(tmp_path / "build", game)
    build.prepare()
    stale = [build.path / f"reach-{ply:02d}.bits" for ply in range(game.cells + 1)]
    for path in stale:
        path.write_bytes(b"\0" * 100)
    gravity.write_reach(build)
    assert not any(path.exists() for path in stale) and build.has_reach()
    assert sorted(path.name for path in build.path.glob("reach-*")) == [f"reach-{ply:02d}.zbits" for ply in range(game.cells + 1)]
