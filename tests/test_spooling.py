"""The layer being solved: written raw where the disk has room for it beside its child (then renamed), else spooled
compressed chunk by chunk and decoded once its child has retired."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import solver.retrograde.chunks
import solver.retrograde.plan
import solver.retrograde.sweep
from solver.errors import BuildError
from solver.retrograde.builddir import BuildDir
from solver.retrograde.chunks import chunks
from solver.retrograde.sealing import Compression, release
from solver.retrograde.spool import spool_bytes, unspool
from solver.retrograde.sweep import build_layers
from solver.rules.game import parse_game
from solver.store.make import build_compact

GAME = "2x9k4"
SMALL_CHUNKS = 1 << 12
KILLED = 9
"""The layer the kills below hit: its child, layer 10, is retired by then."""


class Stop(Exception):
    """Raised to kill a build at a chosen moment."""


def no_room_for_raw_layers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every layer is spooled: the disk seems to have no room for a layer beside its child."""
    monkeypatch.setattr(solver.retrograde.sweep, "_free_disk", lambda path: 0)


@pytest.mark.parametrize(
    "scores",
    [
        np.zeros(1, np.int8),
        np.zeros(1 << 16, np.int8),
        np.random.default_rng(1).integers(-128, 128, 5000).astype(np.int8),
        np.repeat(np.int8([97, -96, 0]), 3000),
    ],
    ids=["one board", "a run of draws", "random bytes", "three runs"],
)
def test_a_spooled_chunk_decodes_to_its_scores_and_never_takes_more_than_its_own_bytes(scores: np.ndarray) -> None:
    data = spool_bytes(scores)
    assert len(data) <= scores.size
    assert unspool(data, scores.size) == scores.tobytes()


def test_a_layer_of_real_scores_spools_to_a_small_part_of_its_size(stand_in_layers: list[np.ndarray]) -> None:
    layer = max(stand_in_layers, key=len)
    assert len(spool_bytes(layer)) * solver.retrograde.plan.SPOOLED_AT_MOST < layer.size


def test_spooled_bytes_that_are_damaged_do_not_decode_to_the_scores() -> None:
    scores = np.repeat(np.int8([97, -96, 0, 5]), 4000)
    data = bytearray(spool_bytes(scores))
    data[len(data) // 2] ^= 0x40
    assert unspool(bytes(data), scores.size) != scores.tobytes()
    assert unspool(bytes(data[:-3]), scores.size) is None, "a cut chunk"


def test_a_spooling_retiring_build_never_holds_a_layer_and_its_child_raw_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    no_room_for_raw_layers(monkeypatch)
    game = parse_game(GAME)
    directory = tmp_path / "build"
    seen: list[tuple[str, list[str]]] = []
    real = BuildDir.create

    def watch(build: BuildDir, path: Path, flags: int = os.O_RDWR) -> int:
        if path.name.endswith(".expanding"):  # a layer about to be decoded raw: the raw layers there then
            seen.append((path.name, sorted(p.name for p in directory.glob("layer-*.i8"))))
        return real(build, path, flags)

    monkeypatch.setattr(BuildDir, "create", watch)  # the background deletion of a retired child may lag: seen where it counts
    build_layers(game, directory, jobs=1, release=release(Compression.default()))
    expanded = [name for name, _ in seen]
    assert expanded == [f"layer-{ply:02d}.i8.expanding" for ply in range(game.cells, game.cells - len(seen), -1)] and len(seen) > game.cells // 2, expanded
    assert all(raw == [] for _, raw in seen), seen


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/self/maps (Linux)")
def test_no_retired_layer_stays_mapped_and_so_holds_its_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A deleted file's pages stay allocated while a map of it lives: the solving and sealing tasks map per task."""
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    directory = tmp_path / "build"
    held: list[tuple[int, list[str]]] = []
    real = solver.retrograde.sweep.finish_layer

    def watch(build: BuildDir, ply: int, **options: Any) -> None:
        maps = Path("/proc/self/maps").read_text().splitlines()
        held.append((ply, [line for line in maps if str(directory) in line]))
        real(build, ply, **options)

    monkeypatch.setattr(solver.retrograde.sweep, "finish_layer", watch)
    build_layers(parse_game(GAME), directory, jobs=1, release=release(Compression.default()))
    assert len(held) == parse_game(GAME).cells + 1
    assert all(not lines for _, lines in held), held


def _kill(where: str, monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Patch the build to stop at ``where`` in layer :data:`KILLED`; returns what undoes the patch."""
    finish, drop, decode = solver.retrograde.sweep.finish_layer, solver.retrograde.sweep._drop_spool, solver.retrograde.sweep.unspool
    decoding = []

    def finish_killed(build: BuildDir, ply: int, **options: Any) -> None:
        if ply == KILLED and where == "before the layer was decoded":
            raise Stop
        decoding[:] = [ply]
        finish(build, ply, **options)

    def decode_killed(data: bytes, boards: int) -> bytes | None:
        if decoding[:1] == [KILLED] and where == "while the layer was decoded":
            decoding.append(0)
            if len(decoding) > 3:
                raise Stop
        return decode(data, boards)

    def drop_killed(build: BuildDir, ply: int) -> None:
        if ply == KILLED and where == "after the layer was recorded, before its spool went":
            raise Stop
        drop(build, ply)

    patches: dict[str, Any] = {"finish_layer": finish_killed, "unspool": decode_killed, "_drop_spool": drop_killed}
    for name, value in patches.items():
        monkeypatch.setattr(solver.retrograde.sweep, name, value)
    originals = {"finish_layer": finish, "unspool": decode, "_drop_spool": drop}

    def undo() -> None:
        for name, value in originals.items():
            monkeypatch.setattr(solver.retrograde.sweep, name, value)

    return undo


def resumes_below_the_killed_layer(output: Path, monkeypatch: pytest.MonkeyPatch, table: bytes) -> None:
    """Build the table again into ``output``: it must be ``table``, with layer :data:`KILLED` and those above not solved
    again."""
    solved: list[int] = []
    real = solver.retrograde.sweep.run_chunks

    def counted(directory: str, name: str, ply: int, *args: Any, **kwargs: Any) -> list[Any]:
        solved.append(ply)
        return real(directory, name, ply, *args, **kwargs)

    monkeypatch.setattr(solver.retrograde.sweep, "run_chunks", counted)
    assert build_compact(parse_game(GAME), output, jobs=1).read_bytes() == table
    assert set(solved) == set(range(KILLED - 1, -1, -1)), "layer 9 and those above were not solved again"


WHERE = ["before the layer was decoded", "while the layer was decoded", "after the layer was recorded, before its spool went"]


@pytest.mark.parametrize("where", WHERE)
def test_a_build_killed_after_its_layer_was_spooled_resumes_without_solving_it_again(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stand_in_table: bytes
) -> None:
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    no_room_for_raw_layers(monkeypatch)
    game = parse_game(GAME)
    undo = _kill(where, monkeypatch)
    with pytest.raises(Stop):
        build_compact(game, tmp_path / f"{GAME}.ttt", jobs=1)
    undo()
    resumes_below_the_killed_layer(tmp_path / f"{GAME}.ttt", monkeypatch, stand_in_table)


@pytest.mark.parametrize("room", [True, False], ids=["written raw", "spooled"])
def test_a_solved_layer_damaged_once_its_child_retired_says_to_start_over(room: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    if not room:
        no_room_for_raw_layers(monkeypatch)
    game = parse_game(GAME)
    undo = _kill("before the layer was decoded", monkeypatch)
    directory = tmp_path / "build"
    with pytest.raises(Stop):
        build_layers(game, directory, jobs=1, release=release(Compression.default()))
    undo()
    build = BuildDir(directory, game)
    first = int(build.journal_path(KILLED).read_text().split()[0])
    with build.partial_path(KILLED).open("r+b") as handle:
        handle.seek(first + 4)
        byte = handle.read(1)[0]
        handle.seek(first + 4)
        handle.write(bytes([byte ^ 0x55]))
    with pytest.raises(BuildError, match=rf"layer {KILLED} .* cannot be solved again: layer {KILLED + 1}, which it reads, is retired.*delete"):
        build_layers(game, directory, jobs=1, release=release(Compression.default()))


def test_the_partial_file_of_a_layer_being_solved_holds_only_its_compressed_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The spool is sparse: a layer of 3x6k3 (about 3 MB raw) spooled takes a small part of that on disk."""
    no_room_for_raw_layers(monkeypatch)
    game = parse_game("3x6k3")
    undo = _kill("before the layer was decoded", monkeypatch)
    directory = tmp_path / "build"
    with pytest.raises(Stop):
        build_layers(game, directory, jobs=1, release=release(Compression.default()))
    undo()
    partial = BuildDir(directory, game).partial_path(KILLED)
    size, allocated = partial.stat().st_size, partial.stat().st_blocks * 512
    assert size > 1_000_000 and allocated * solver.retrograde.plan.SPOOLED_AT_MOST < size, (size, allocated)


def test_a_layer_decoded_by_several_threads_is_the_same_bytes_and_digest_as_by_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # many chunks a layer, so that the threads decode several ahead of the one written, out of order
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    monkeypatch.setattr(solver.retrograde.sweep, "FINISH_AHEAD", 2)
    no_room_for_raw_layers(monkeypatch)
    monkeypatch.setattr(solver.retrograde.sweep.os, "cpu_count", lambda: 4)
    finish, threads = solver.retrograde.sweep.finish_layer, []

    def finish_with(count: int) -> Callable[..., None]:
        def finished(build: BuildDir, ply: int, **options: Any) -> None:
            threads.append(count)
            finish(build, ply, threads=count)

        return finished

    game, built = parse_game(GAME), []
    for count in (1, 4):
        monkeypatch.setattr(solver.retrograde.sweep, "finish_layer", finish_with(count))
        built.append(build_layers(game, tmp_path / f"threads-{count}", jobs=1))
    assert max(len(chunks(game, ply)) for ply in range(game.cells + 1)) > 8
    assert built[0].sha256 == built[1].sha256
    assert all(built[0].layer_path(ply).read_bytes() == built[1].layer_path(ply).read_bytes() for ply in range(game.cells + 1))
    assert set(threads) == {1, 4}


def test_a_layer_is_written_raw_exactly_when_the_disk_holds_it_its_and_its_childs_sealed_files_and_the_margin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = parse_game(GAME)
    build = BuildDir(tmp_path, game)
    sizes = solver.retrograde.sweep.layout(game).layer_sizes
    ply = KILLED
    need = sizes[ply] + (sizes[ply] + sizes[ply + 1]) // solver.retrograde.plan.RETIRED_AT_MOST + solver.retrograde.sweep.RAW_MARGIN
    for free, raw in ((need, True), (need - 1, False), (0, False), (10 * need, True)):
        monkeypatch.setattr(solver.retrograde.sweep, "_free_disk", lambda path, free=free: free)
        assert solver.retrograde.sweep.raw_fits(build, ply) is raw, free
    top = game.cells  # the full layer has no child
    monkeypatch.setattr(
        solver.retrograde.sweep,
        "_free_disk",
        lambda path: sizes[top] + sizes[top] // solver.retrograde.plan.RETIRED_AT_MOST + solver.retrograde.sweep.RAW_MARGIN,
    )
    assert solver.retrograde.sweep.raw_fits(build, top)


def test_layers_written_raw_are_renamed_not_decoded_and_are_the_same_bytes_and_digests_as_spooled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    game = parse_game(GAME)
    decoded: list[int] = []
    real = solver.retrograde.sweep.unspool

    def counted(data: bytes, boards: int) -> bytes | None:
        decoded.append(boards)
        return real(data, boards)

    monkeypatch.setattr(solver.retrograde.sweep, "unspool", counted)
    raw = build_layers(game, tmp_path / "raw", jobs=1)
    assert decoded == [], "a layer written raw is decoded"
    no_room_for_raw_layers(monkeypatch)
    spooled = build_layers(game, tmp_path / "spooled", jobs=1)
    # spooled, every layer is decoded but those whose chunks all stayed raw, compressed no shorter (layers 0 and 1)
    assert sum(decoded) == sum(solver.retrograde.sweep.layout(game).layer_sizes[2:])
    assert raw.sha256 == spooled.sha256
    assert all(raw.layer_path(ply).read_bytes() == spooled.layer_path(ply).read_bytes() for ply in range(game.cells + 1))


def test_a_layers_recorded_digest_is_the_sha256_of_its_chunks_sha256(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    game = parse_game(GAME)
    built = build_layers(game, tmp_path, jobs=1)
    for ply in range(game.cells + 1):
        scores = built.layer_path(ply).read_bytes()
        parts = b"".join(hashlib.sha256(scores[chunk.start : chunk.stop]).digest() for chunk in chunks(game, ply))
        assert built.sha256[ply] == hashlib.sha256(parts).hexdigest(), ply
    assert max(len(chunks(game, ply)) for ply in range(game.cells + 1)) > 8


def test_a_raw_layer_killed_between_being_renamed_and_recorded_is_finished_on_resume_without_solving_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stand_in_table: bytes
) -> None:
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    game = parse_game(GAME)
    record = BuildDir.record

    def killed(self: BuildDir, ply: int, digest: str) -> None:
        if ply == KILLED:
            raise Stop
        record(self, ply, digest)

    monkeypatch.setattr(BuildDir, "record", killed)
    with pytest.raises(Stop):
        build_compact(game, tmp_path / f"{GAME}.ttt", jobs=1)
    monkeypatch.setattr(BuildDir, "record", record)
    build = BuildDir(tmp_path / f"{GAME}.ttt.build", game)
    assert build.layer_path(KILLED).is_file() and not build.partial_path(KILLED).exists(), "killed after the rename"
    assert KILLED not in build.finished(check=False) and build.journal_path(KILLED).is_file(), "and before the record"
    resumes_below_the_killed_layer(tmp_path / f"{GAME}.ttt", monkeypatch, stand_in_table)


@pytest.mark.parametrize("room", [True, False], ids=["killed while written raw, no room now", "killed while spooled, room now"])
def test_a_layer_killed_half_written_resumes_written_the_same_way_whatever_room_the_disk_has_now(
    room: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stand_in_layers: list[np.ndarray]
) -> None:
    monkeypatch.setattr(solver.retrograde.chunks, "CHUNK_BOARDS", SMALL_CHUNKS)
    game = parse_game(GAME)
    monkeypatch.setattr(solver.retrograde.sweep, "_free_disk", lambda path: 1 << 50 if room else 0)
    done: list[int] = []

    def stop_midway(chunk: solver.retrograde.chunks.ChunkDone) -> None:
        done.append(chunk.ply)
        if done.count(KILLED) == 3:
            raise Stop

    with pytest.raises(Stop):
        build_layers(game, tmp_path, jobs=1, progress=stop_midway)
    monkeypatch.setattr(solver.retrograde.sweep, "_free_disk", lambda path: 0 if room else 1 << 50)
    written: list[bool] = []
    real = solver.retrograde.sweep.run_chunks

    def watched(directory: str, name: str, ply: int, *args: Any, **kwargs: Any) -> list[Any]:
        if ply == KILLED:
            written.append(kwargs["raw"])
        return real(directory, name, ply, *args, **kwargs)

    monkeypatch.setattr(solver.retrograde.sweep, "run_chunks", watched)
    resumed = build_layers(game, tmp_path, jobs=1)
    assert written and set(written) == {room}, "the chunks left of the killed layer were written the other way"
    assert all(np.array_equal(layer, stand_in_layers[ply]) for ply, layer in enumerate(resumed.layers()))


def test_a_retired_raw_layer_is_deleted_in_the_background_and_its_bytes_count_as_free_until_it_is_gone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    game = parse_game(GAME)
    build = BuildDir(tmp_path / "build", game)
    build.prepare()
    sizes = solver.retrograde.sweep.layout(game).layer_sizes
    child = KILLED + 1
    with open(build.layer_path(child), "wb") as out:
        out.truncate(sizes[child])
    gate = threading.Event()
    real_unlink = Path.unlink

    def slow(path: Path, missing_ok: bool = False) -> None:
        assert gate.wait(30), "the deletion was never let go"
        real_unlink(path, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", slow)
    build.retire(child, {}, {})
    assert build.layer_path(child).exists() and build.deleting() == sizes[child]
    need = sizes[KILLED] + (sizes[KILLED] + sizes[child]) // solver.retrograde.plan.RETIRED_AT_MOST + solver.retrograde.sweep.RAW_MARGIN
    monkeypatch.setattr(solver.retrograde.sweep, "_free_disk", lambda path: need - sizes[child])
    assert solver.retrograde.sweep.raw_fits(build, KILLED), "the layer being deleted counts as free disk"
    gate.set()
    build.deleted()
    assert not build.layer_path(child).exists() and build.deleting() == 0
    assert not solver.retrograde.sweep.raw_fits(build, KILLED)
