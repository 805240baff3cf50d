"""The proof of a compact table (``solve verify``) in bounded memory: layers walked from the full board down, two at a
time, held on disk past a size (:class:`solver.storage.spill.Spill`), and a proof the disk cannot hold refused at once."""

from __future__ import annotations

import errno
import os
import stat
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import solver.storage.spill
import solver.storage.trust
import solver.store.make
from solver.cli import main
from solver.encoding.layouts import layout
from solver.errors import DiskFullError
from solver.retrograde.sweep import build_layers
from solver.rules.game import parse_game
from solver.storage.spill import Spill
from solver.store.locate import open_file
from solver.store.make import proof, proof_spill_bytes, write_compact

GAMES = ["3x4k3-gravity", "3x4k3"]
"""A game with a forward pass (its bits of the boards reached spilled too) and one without."""


def _table_file(name: str, directory: Path, *, forge: bool = False) -> Path:
    """``name``'s compressed compact table (its file does not hold every board, so the proof answers each layer
    into the spill); with ``forge``, the empty board says "the first player wins on ply 5", plausible and wrong."""
    game = parse_game(name)
    layers = [np.array(layer) for layer in build_layers(game, directory / f"{name}.build", jobs=1).layers()]
    if forge:
        assert layers[0][0] != 95
        layers[0][0] = 95
    return write_compact(directory / f"{name}{'-forged' if forge else ''}.ttt", game, layers)


def _opened(path: Path, name: str):
    return open_file(path, game=parse_game(name), verify=False, prove_untrusted=False)


def _spilled_layer_files(where: Path) -> int:
    """Layer files in the spill directories under ``where`` now."""
    return sum(1 for spill in where.iterdir() for entry in spill.iterdir() if entry.name.startswith("layer-"))


@pytest.mark.parametrize("name", GAMES)
def test_a_proof_with_every_layer_on_disk_holds_two_at_a_time_and_proves_the_table(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver.storage.spill, "KEEP_IN_MEMORY", 0)
    table = _opened(_table_file(name, tmp_path), name)
    assert not table.complete
    where = tmp_path / "spill"
    where.mkdir()
    seen: list[int] = []
    checks = proof(table, spill_in=where, progress=lambda boards: seen.append(_spilled_layer_files(where)))
    assert [check.problems for check in checks] == [()] * len(checks)
    assert any("re-derived" in check.what for check in checks) and any("recounted" in check.what for check in checks)
    assert max(seen) == 2 and min(seen) >= 1  # a layer and its child, the top layer alone at first
    assert list(where.iterdir()) == []  # the spill's directory went with it


@pytest.mark.parametrize("name", GAMES)
def test_a_forged_score_is_found_the_same_with_the_layers_on_disk_as_in_memory(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver.storage.trust, "expected_root", lambda game, kind="dense": None)
    path = _table_file(name, tmp_path, forge=True)
    in_memory = proof(_opened(path, name))
    monkeypatch.setattr(solver.storage.spill, "KEEP_IN_MEMORY", 0)
    on_disk = proof(_opened(path, name), spill_in=tmp_path)
    problems = [problem for check in on_disk for problem in check.problems]
    assert len(problems) == 1 and problems[0].startswith("layer 0: 1 board disagrees with its children") and "stored 95" in problems[0]
    assert on_disk == in_memory
    assert not any(entry.name.startswith(solver.storage.spill.PREFIX) for entry in tmp_path.iterdir())


@pytest.fixture
def no_room(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A 3x4k3-gravity table file whose proof spills every layer, where the disk has 100 bytes free."""
    path = _table_file("3x4k3-gravity", tmp_path)
    monkeypatch.setattr(solver.storage.spill, "KEEP_IN_MEMORY", 0)
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(solver.store.make.shutil, "disk_usage", lambda where: usage(10**6, 10**6 - 100, 100))
    return path


def test_a_proof_the_disk_cannot_hold_is_refused_before_any_layer_is_read(no_room: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = "3x4k3-gravity"
    table = _opened(no_room, name)
    monkeypatch.setattr(type(table), "layer", lambda *args, **kwargs: pytest.fail("a layer was read"))
    needed = proof_spill_bytes(parse_game(name), keep_in_memory=0)
    with pytest.raises(DiskFullError, match=rf"proving {name} keeps about .* \({needed:,} bytes\) on disk there .* has 100 bytes free: .*TMPDIR"):
        proof(table, spill_in=tmp_path)


def test_solve_verify_says_in_one_line_that_the_disk_cannot_hold_its_proof(no_room: Path) -> None:
    result = CliRunner().invoke(main, ["verify", "--game", "3x4k3-gravity", "--table", str(no_room), "--quiet"])
    assert result.exit_code != 0 and isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "keeps about" in lines[0] and "TMPDIR" in lines[0] and "Traceback" not in result.output


def test_the_spill_of_4x8_is_two_of_its_layers_and_its_bits_of_the_boards_reached() -> None:
    game = parse_game("4x8k4-gravity")
    sizes = [int(size) for size in layout(game).layer_sizes]
    two = max(a + b for a, b in zip(sizes, sizes[1:], strict=False))
    bits = sum(-(-size // 8) for size in sizes if -(-size // 8) > solver.storage.spill.KEEP_IN_MEMORY)
    assert proof_spill_bytes(game) == two + bits
    assert 40e9 < proof_spill_bytes(game) < 50e9  # what the docs say: 47 GB
    assert proof_spill_bytes(game, complete=True) == bits  # a table that holds every board is read where it lies
    assert proof_spill_bytes(parse_game("3x3k3")) == 0


def test_a_spill_keeps_small_arrays_in_memory_and_big_ones_in_a_private_directory_until_released(tmp_path: Path) -> None:
    with Spill(tmp_path, keep_in_memory=1000) as spill:
        small = spill.array("small", 1000, np.int8)
        assert not isinstance(small, np.memmap) and spill.directory is None
        big = spill.array("big", 1001, np.int8)
        assert isinstance(big, np.memmap) and not big.any()
        assert spill.directory is not None and stat.S_IMODE(spill.directory.stat().st_mode) == 0o700
        files = list(spill.directory.iterdir())
        assert [entry.name for entry in files] == ["big.bin"] and files[0].stat().st_size == 1001
        big[:] = 7
        spill.release("big")
        assert not files[0].exists() and int(big[5]) == 7  # a view kept still reads its bytes
        spill.array("other", 4096, np.int64)
        assert spill.peak_disk == 4096 * 8
        directory = spill.directory
    assert not directory.exists()


def test_a_spill_with_no_room_raises_disk_full_and_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int, offset: int, length: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(solver.storage.spill.os, "posix_fallocate", full)
    with Spill(tmp_path, keep_in_memory=0) as spill:
        with pytest.raises(DiskFullError, match=r"the disk filled up while setting aside layer-3 on disk .* it needs about 2\.0 MiB"):
            spill.array("layer-3", 2 << 20, np.int8)
        assert spill.directory is not None and list(spill.directory.iterdir()) == []


def test_solve_verify_says_how_much_disk_its_proof_keeps_and_where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = "3x4k3-gravity"
    path = _table_file(name, tmp_path)
    monkeypatch.setattr(solver.storage.spill, "KEEP_IN_MEMORY", 0)
    result = CliRunner().invoke(main, ["verify", "--game", name, "--table", str(path)])
    assert result.exit_code == 0, result.output
    needed = proof_spill_bytes(parse_game(name), keep_in_memory=0)
    assert f"keeping up to {needed / 2**30:,.1f} GiB on disk in" in result.stderr and "(set TMPDIR to choose)" in result.stderr


def test_a_proof_finds_the_same_problems_on_one_core_as_on_four(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import solver.retrograde.proof

    monkeypatch.setattr(solver.storage.trust, "expected_root", lambda game, kind="dense": None)
    path = _table_file("3x4k3-gravity", tmp_path, forge=True)
    found = {}
    for cores in (1, 4):
        monkeypatch.setattr(solver.retrograde.proof.os, "cpu_count", lambda cores=cores: cores)
        checked: list[int] = []
        found[cores] = (proof(_opened(path, "3x4k3-gravity"), progress=checked.append), sum(checked))
    assert found[1] == found[4] and found[1][1] == layout(parse_game("3x4k3-gravity")).size
    assert any(problem.startswith("layer 0: 1 board disagrees") for check in found[1][0] for problem in check.problems)
