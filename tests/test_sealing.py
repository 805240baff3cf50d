"""Sealing: finished layers compressed as soon as nothing reads them raw, resumable, the same bytes as one pass."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from forgery import forge_finished_layer

import solver.retrograde.chunks
import solver.retrograde.plan
import solver.retrograde.sealing
import solver.retrograde.sweep
from solver.contents.stored import stored_layers
from solver.encoding.layouts import layout
from solver.errors import BuildError, TableError
from solver.retrograde.builddir import BuildDir
from solver.retrograde.chunks import ChunkDone
from solver.retrograde.pieces import SealedPiece
from solver.retrograde.sealing import BLOCK, Compression, Span, assemble, release
from solver.retrograde.sweep import build_layers
from solver.rules.game import parse_game
from solver.store.make import build_compact

GAME = "2x9k4"
SMALL_CHUNKS = 1 << 12


@pytest.mark.parametrize("name", ["3x3k3", "2x9k4", "3x6k3", "4x5k4", "3x7k3", "4x6k4", "5x5k4"])
def test_every_block_starts_in_exactly_one_layer_and_each_head_fills_the_block_below(name: str) -> None:
    game = parse_game(name)
    index = layout(game)
    spans = [Span.of(game, ply) for ply in range(game.cells + 1)]
    starts = [block for span in spans for block in range(span.first_block, span.first_block + span.blocks)]
    assert starts == list(range(-(-index.size // BLOCK)))
    for span in spans:
        start = index.layer_offsets[span.ply]
        assert (start + span.head) % BLOCK == 0 or span.head == span.size
        assert (span.whole - span.head) % BLOCK == 0 and span.head <= span.whole <= span.size
        assert span.carry == min(-(-index.layer_offsets[span.ply + 1] // BLOCK) * BLOCK, index.size) - index.layer_offsets[span.ply + 1]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_sealed_build_writes_the_same_bytes_as_one_pass_over_the_layers(tmp_path: Path, stand_in_table: bytes, jobs: int) -> None:
    path = build_compact(parse_game(GAME), tmp_path / f"{GAME}.ttt", jobs=jobs)
    assert path.read_bytes() == stand_in_table
    assert not (tmp_path / f"{GAME}.ttt.build").exists()


def test_the_table_stores_what_the_layers_say(tmp_path: Path, stand_in_layers: list[np.ndarray]) -> None:
    from solver.contents.opening import open_table

    game = parse_game(GAME)
    path = build_compact(game, tmp_path / f"{GAME}.ttt", jobs=1)
    table = open_table(path, game=game)
    assert (table.compressed("scores").decode_all() == np.concatenate(list(stored_layers(game, stand_in_layers)))).all()
    meta = table.header.meta["layer_histograms"]
    for ply, layer in enumerate(stand_in_layers):
        counted = {int(score): int(n) for score, n in zip(*np.unique(layer, return_counts=True), strict=True)}
        assert {int(k): v for k, v in meta[str(ply)]["all"].items()} == counted


def test_no_more_than_one_finished_layer_is_raw_while_a_layer_is_solved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    game = parse_game(GAME)
    directory = tmp_path / "build"
    seen: list[tuple[int, list[str]]] = []

    def watch(done: ChunkDone) -> None:
        seen.append((done.ply, sorted(p.name for p in directory.glob("layer-*.i8"))))

    build_layers(game, directory, jobs=1, progress=watch, release=release(Compression.default()))
    assert {ply for ply, _ in seen} == set(range(game.cells + 1))
    for ply, raw in seen:
        assert raw == ([] if ply == game.cells else [f"layer-{ply + 1:02d}.i8"]), (ply, raw)
    assert sorted(p.suffix for p in directory.glob("layer-*")) == sorted([".blocks", ".index", ".head"] * (game.cells + 1))


class Stop(Exception):
    """Raised to kill a build at a chosen moment."""


@pytest.mark.parametrize("ply", [17, 12, 9, 3, 0])
def test_a_build_killed_in_any_layer_resumes_and_ends_with_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stand_in_table: bytes, ply: int
) -> None:
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    game = parse_game(GAME)
    chunks = iter(range(10**9))

    def stop(done: ChunkDone) -> None:
        if done.ply == ply and next(chunks) == (2 if ply else 0):
            raise Stop

    with pytest.raises(Stop):
        build_compact(game, tmp_path / f"{GAME}.ttt", jobs=1, progress=stop)
    assert (tmp_path / f"{GAME}.ttt.build" / "manifest.json").is_file()
    notes: list[str] = []
    assert build_compact(game, tmp_path / f"{GAME}.ttt", jobs=1, notify=notes.append).read_bytes() == stand_in_table
    assert any("resuming" in note for note in notes), notes


def test_a_resumed_build_seals_from_their_raw_files_only_the_layers_an_earlier_run_solved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stand_in_table: bytes
) -> None:
    # killed in layer 9: layer 10 was finished (its sealed files not yet recorded) and 9 half solved, so both are
    # sealed from their raw files; layer 8 is sealed as it is solved, and waits for the head of layer 9 to end
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    game = parse_game(GAME)
    with pytest.raises(Stop):
        build_layers(game, tmp_path / "build", jobs=1, progress=lambda done: _raise_in(done, 9), release=release(Compression.default()))
    from_raw: list[int] = []
    real_seal = solver.retrograde.sealing.seal_segment

    def seal(job: solver.retrograde.sealing.SegmentJob) -> SealedPiece:
        from_raw.append(job.ply)
        return real_seal(job)

    monkeypatch.setattr(solver.retrograde.sealing, "seal_segment", seal)
    build_layers(game, tmp_path / "build", jobs=1, release=release(Compression.default()))
    assert set(from_raw) == {10, 9}
    assert assemble(BuildDir(tmp_path / "build", game), tmp_path / "out.ttt").read_bytes() == stand_in_table


@pytest.mark.parametrize("where", ["after the blocks were written", "after the layer was recorded, before its raw file went"])
def test_a_build_killed_while_it_seals_a_layer_resumes_and_ends_with_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stand_in_table: bytes, where: str
) -> None:
    game = parse_game(GAME)
    real_retire = BuildDir.retire

    def killed(self: BuildDir, ply: int, files: dict[str, str], info: dict[str, object]) -> None:
        if ply == 10:
            if where.startswith("after the layer"):
                data = self.manifest()
                data.setdefault("retired", {})[str(ply)] = {"files": files, "info": info}
                (self.path / "manifest.json").write_text(json.dumps(data))
            raise Stop
        real_retire(self, ply, files, info)

    monkeypatch.setattr(BuildDir, "retire", killed)
    with pytest.raises(Stop):
        build_compact(game, tmp_path / f"{GAME}.ttt", jobs=1)
    monkeypatch.setattr(BuildDir, "retire", real_retire)
    assert build_compact(game, tmp_path / f"{GAME}.ttt", jobs=1).read_bytes() == stand_in_table
    assert not (tmp_path / f"{GAME}.ttt.build").exists()


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished build directory of the stand-in, every layer sealed (built once; tests work on copies)."""
    directory = tmp_path_factory.mktemp("sealed") / "build"
    build_layers(parse_game(GAME), directory, jobs=1, release=release(Compression.default()))
    return directory


def _copy(sealed: Path, tmp_path: Path) -> BuildDir:
    shutil.copytree(sealed, tmp_path / "build")
    return BuildDir(tmp_path / "build", parse_game(GAME))


def test_a_damaged_sealed_file_is_refused_when_the_table_is_assembled(sealed: Path, tmp_path: Path) -> None:
    build = _copy(sealed, tmp_path)
    blocks = build.path / "layer-09.blocks"
    data = bytearray(blocks.read_bytes())
    data[len(data) // 2] ^= 0x10
    blocks.write_bytes(bytes(data))
    with pytest.raises(BuildError, match=r"layer-09\.blocks does not match its SHA-256; delete the build directory"):
        assemble(build, tmp_path / "out.ttt")
    assert not (tmp_path / "out.ttt").exists()


def test_a_damaged_sealed_layer_cannot_be_solved_again_and_says_to_start_over(sealed: Path, tmp_path: Path) -> None:
    build = _copy(sealed, tmp_path)
    (build.path / "layer-09.index").write_bytes(b"damaged")
    with pytest.raises(
        BuildError, match=r"layer 9 of the 2x9k4 build in .* is missing or damaged, and cannot be solved again: layer 10, which it reads, is retired"
    ):
        build_layers(build.game, build.path, jobs=1, release=release(Compression.default()))


@pytest.mark.parametrize(
    "retired",
    [
        [],
        {"99": {"files": {}, "info": {}}},
        {"5": {"files": {"../escape": "0" * 64}, "info": {}}},
        {"5": {"files": {"layer-05.blocks": "not a digest"}, "info": {}}},
        {"5": {"files": {}, "info": "text"}},
    ],
    ids=["a list", "a layer not finished", "a path outside", "a bad digest", "info not an object"],
)
def test_a_malformed_retired_entry_in_the_manifest_is_one_line(sealed: Path, tmp_path: Path, retired: object) -> None:
    build = _copy(sealed, tmp_path)
    data = json.loads((build.path / "manifest.json").read_text())
    data["retired"] = retired
    (build.path / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(BuildError) as caught:
        build.finished()
    assert "\n" not in str(caught.value) and "delete the build directory" in str(caught.value)


def test_a_retired_file_name_outside_the_pattern_is_refused(sealed: Path, tmp_path: Path) -> None:
    build = _copy(sealed, tmp_path)
    with pytest.raises(ValueError, match="layer-PP"):
        build.retire(3, {"../../victim": "0" * 64}, {})


def test_a_resumed_raw_layer_is_checked_against_its_raw_child_before_it_is_sealed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game without a shipped checksum: a layer an earlier run left is re-derived before it is sealed."""
    monkeypatch.setattr(solver.storage.trust, "expected_root", lambda game, kind="dense": None)
    game = parse_game(GAME)
    directory = tmp_path / "build"
    with pytest.raises(Stop):
        build_layers(game, directory, jobs=1, progress=lambda done: _raise_in(done, 12))
    forge_finished_layer(BuildDir(directory, game), 14)
    output = tmp_path / f"{GAME}.ttt"
    with pytest.raises(TableError, match=r"table just built is wrong \(layer 14: 1 board disagrees with its children"):
        build_compact(game, output, build_dir=directory, jobs=1)
    assert not output.exists()


def _raise_in(done: ChunkDone, ply: int) -> None:
    if done.ply == ply:
        raise Stop


def test_layers_solved_by_an_earlier_run_are_sealed_in_segments_over_the_mapper_it_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stand_in_table: bytes
) -> None:
    # the layers of a build run without sealing are all raw, as an earlier run leaves them: sealed from their files
    monkeypatch.setattr(solver.retrograde.sealing, "SEGMENT_BLOCKS", 1)
    calls: list[int] = []

    def mapper(function: object, items: object) -> object:
        jobs = list(items)  # type: ignore[call-overload]
        calls.append(len(jobs))
        return map(function, jobs)  # type: ignore[call-overload]

    game = parse_game(GAME)
    directory = tmp_path / "build"
    build_layers(game, directory, jobs=1)
    release(Compression.default())(BuildDir(directory, game), -1, mapper, list(range(game.cells + 1)))
    assert len(calls) == game.cells + 1 and sum(calls) > game.cells, "every layer went through the mapper, a segment a block"
    assert assemble(BuildDir(directory, game), tmp_path / "out.ttt").read_bytes() == stand_in_table


def test_a_fresh_build_seals_each_layer_as_it_is_solved_and_reads_no_raw_layer_back_to_seal_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stand_in_table: bytes
) -> None:
    def refuse(job: object) -> None:
        raise AssertionError(f"a raw layer was read back to be sealed: {job}")

    monkeypatch.setattr(solver.retrograde.sealing, "seal_segment", refuse)
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    path = build_compact(parse_game(GAME), tmp_path / f"{GAME}.ttt", jobs=1)
    assert path.read_bytes() == stand_in_table


@pytest.mark.parametrize(("block", "chunk"), [(512, SMALL_CHUNKS), (BLOCK, SMALL_CHUNKS), (4096, 4096), (64, 1000)])
def test_chunks_sealed_as_they_are_solved_give_the_plain_stored_bytes_however_blocks_and_chunks_fall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stand_in_layers: list[np.ndarray], block: int, chunk: int
) -> None:
    # blocks smaller than a chunk (whole blocks sealed by the worker), larger (a block joined from many chunks), equal,
    # and chunks that end part-way through a block; the layers' files decoded in order are the plain stored bytes
    from solver.storage.blockarray import codec_of

    monkeypatch.setattr(solver.retrograde.sealing, "BLOCK", block)
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", chunk)
    game = parse_game(GAME)
    directory = tmp_path / "build"
    build_layers(game, directory, jobs=1, release=release(Compression.default()))
    build = BuildDir(directory, game)
    retired = build.retired()
    decode = codec_of(Compression.default().name).decompress
    monkeypatch.setattr(solver.retrograde.sealing, "RUN_BLOCKS", 3)  # the sealed blocks read in runs of three
    runs = [run for ply in range(game.cells + 1) for run in solver.retrograde.sealing._sealed_blocks(build, ply, retired[ply])]
    ends = [np.cumsum(run.lengths).tolist() for run in runs]
    blocks = [decode(run.packed[a:b], int(size)) for run, stop in zip(runs, ends, strict=True) for a, b, size in zip([0, *stop], stop, run.sizes, strict=False)]
    assert all(len(data) == block for data in blocks[:-1]) and max(run.sizes.size for run in runs) == 3
    head = (directory / "layer-00.head").read_bytes()
    assert head + b"".join(blocks) == np.concatenate(list(stored_layers(game, stand_in_layers))).tobytes()


@pytest.mark.skipif(not hasattr(os, "posix_fadvise") or not Path("/proc/self/fd").is_dir(), reason="posix_fadvise and /proc (Linux)")
def test_a_worker_sealing_a_segment_asks_the_kernel_to_read_the_next_segments_of_that_layer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver.retrograde.sealing, "SEGMENT_BLOCKS", 1)
    asked: list[tuple[str, int, int, int]] = []
    sealed: list[tuple[int, int, int]] = []
    real_fadvise, real_seal = os.posix_fadvise, solver.retrograde.sealing.seal_segment

    def fadvise(fd: int, offset: int, length: int, advice: int) -> None:
        asked.append((os.readlink(f"/proc/self/fd/{fd}"), offset, length, advice))
        real_fadvise(fd, offset, length, advice)

    def seal(job: solver.retrograde.sealing.SegmentJob) -> SealedPiece:
        sealed.append((job.ply, job.start, job.stop))
        return real_seal(job)

    game = parse_game(GAME)
    directory = tmp_path / "build"
    build_layers(game, directory, jobs=1)  # every layer raw, as an earlier run leaves them
    monkeypatch.setattr(os, "posix_fadvise", fadvise)
    monkeypatch.setattr(solver.retrograde.sealing, "seal_segment", seal)
    release(Compression.default())(BuildDir(directory, game), -1, map, [])
    ahead = [(f"layer-{ply:02d}.i8", stop, 2 * (stop - start), os.POSIX_FADV_WILLNEED) for ply, start, stop in sealed]
    assert len(sealed) > game.cells
    assert [(Path(path).name, offset, length, advice) for path, offset, length, advice in asked if Path(path).suffix == ".i8"] == ahead


def test_a_resumed_build_counts_the_disk_its_directory_holds_already(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stand_in_table: bytes) -> None:
    """Resuming 5x5k4 with 45 GiB in its directory must not ask for the whole 52 GiB peak again."""
    game = parse_game(GAME)
    directory = tmp_path / "build"
    with pytest.raises(Stop):
        build_layers(game, directory, jobs=1, progress=lambda done: _raise_in(done, 9), release=release(Compression.default()))
    peak = solver.retrograde.plan.plan_build(game, directory, jobs=1, retiring=True).disk_bytes
    assert solver.retrograde.plan._allocated(directory) > 1
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(solver.retrograde.plan.shutil, "disk_usage", lambda _: usage._replace(free=peak - 1))
    build_layers(game, directory, jobs=1, release=release(Compression.default()))  # less free than the peak, more than still needed
    monkeypatch.setattr(solver.retrograde.plan.shutil, "disk_usage", lambda _: usage)
    assert assemble(BuildDir(directory, game), tmp_path / "out.ttt").read_bytes() == stand_in_table
    monkeypatch.setattr(solver.retrograde.plan.shutil, "disk_usage", lambda _: usage._replace(free=0))
    with pytest.raises(BuildError, match=r"GiB of disk in .* beyond what it holds .* GiB there already\), but only 0\.00 GiB is free"):
        build_layers(game, tmp_path / "fresh", jobs=1, release=release(Compression.default()))


def test_writing_a_sealed_builds_table_asks_only_for_the_disk_its_sealed_blocks_take(sealed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a quarter of a byte a board (33 GB for 4x8k4-gravity, refused after its whole build on a disk it fits)."""
    build = _copy(sealed, tmp_path)
    packed = sum(entry["info"]["data_bytes"] for entry in build.retired().values())
    boards = layout(build.game).size
    assert packed * 2 < boards // 4, "the stand-in compresses well below a quarter of a byte a board"
    real = shutil.disk_usage
    free = packed + boards // 8 + (1 << 16)  # room for the blocks and the header, not for a quarter of a byte a board
    monkeypatch.setattr(shutil, "disk_usage", lambda path: real(path)._replace(free=free))
    written = assemble(build, tmp_path / "table.ttt")
    assert written.stat().st_size <= free
