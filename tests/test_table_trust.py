"""A table never answers wrongly: damaged blocks are found on first use, forged files are refused
by the checksum the package expects, and unreachable codes are marked even without checks.
"""

from __future__ import annotations

import hashlib
import json
import struct

import numpy as np
import pytest

import solver
import solver.store
import solver.tablefile
import solver.tables.dense
from solver import build_table, load_table
from solver.checksums import EXPECTED_ROOTS
from solver.game import DENSE_MAX_CELLS, parse_game
from solver.tablefile import open_table


def header_of(data: bytes) -> dict:
    (length,) = struct.unpack("<I", data[8:12])
    return json.loads(data[12 : 12 + length].decode("ascii"))


def entries_span(data: bytes) -> tuple[int, int]:
    (spec,) = header_of(data)["arrays"]
    return spec["offset"], spec["offset"] + 4 * int(np.prod(spec["shape"]))


@pytest.fixture(scope="module")
def tictactoe() -> solver.Table:
    return build_table()


@pytest.fixture
def lazily_verified(monkeypatch):
    """Open every table like a large one: blocks are verified on first use, not on open."""
    monkeypatch.setattr(solver.tables.dense, "VERIFY_ON_OPEN_BYTES", 0)


def _flip(path, where: int) -> None:
    data = bytearray(path.read_bytes())
    data[where] ^= 0x01
    path.write_bytes(bytes(data))


# -- damaged blocks --------------------------------------------------------------------------------------

def test_a_batch_reaching_the_last_block_verifies_it_before_answering(tmp_path, lazily_verified):
    """A batch spanning the first and the last block: every block it touches is hashed, the last one too."""
    table = build_table(game="3x4k3")
    path = table.save(tmp_path / "3x4k3.ttt")
    first, _ = entries_span(path.read_bytes())
    guard = load_table(path).file.guard("entries")
    assert guard.count >= 3
    reachable = table.reachable_codes()
    last = int(reachable[-1])
    assert last >> guard.shift == guard.count - 1, "the code must lie in the last block"
    _flip(path, first + 4 * last + 3)  # its score
    damaged = load_table(path)
    with pytest.raises(solver.TableError, match=f"block {guard.count - 1} of 'entries'.*does not match its checksum"):
        damaged.lookup_codes(np.array([int(reachable[0]), int(reachable[len(reachable) // 2]), last]))
    with pytest.raises(solver.TableError, match="does not match its checksum"):
        load_table(path).lookup_codes(np.array([last, int(reachable[0])]))


def test_a_flipped_byte_anywhere_in_the_entries_raises_on_first_use_instead_of_answering(tmp_path, tictactoe, lazily_verified):
    """Before block checksums, a flipped byte in a large memory-mapped table gave a wrong answer silently."""
    path = tictactoe.save(tmp_path / "3x3k3.ttt")
    first, end = entries_span(path.read_bytes())
    reachable = tictactoe.reachable_codes()
    for code in (int(reachable[0]), int(reachable[len(reachable) // 2]), int(reachable[-1])):
        for byte in range(4):  # best (2 bytes), ply, score
            tictactoe.save(path)
            _flip(path, first + 4 * code + byte)
            table = load_table(path)
            with pytest.raises(solver.TableError, match=r"does not match its checksum.*solve build --game 3x3k3"):
                table.at(code)
            with pytest.raises(solver.TableError, match="does not match its checksum"):
                table.lookup_codes(np.array([code]))
            with pytest.raises(solver.TableError):
                table.lookup(solver.board.render(table.game, code))


def test_a_damaged_block_does_not_stop_answers_from_intact_blocks(tmp_path, lazily_verified):
    table = build_table(game="3x4")  # 531,441 codes: 33 blocks of 64 KiB
    path = table.save(tmp_path / "3x4k3.ttt")
    first, _ = entries_span(path.read_bytes())
    reachable = table.reachable_codes()
    damaged, intact = int(reachable[-1]), int(reachable[0])
    assert damaged * 4 // (64 << 10) != intact * 4 // (64 << 10)
    _flip(path, first + 4 * damaged + 3)
    opened = load_table(path)
    assert opened.at(intact).score == table.at(intact).score
    with pytest.raises(solver.TableError, match="block"):
        opened.at(damaged)


def test_only_the_touched_blocks_are_hashed_by_a_lookup(tmp_path, lazily_verified):
    path = build_table(game="3x4").save(tmp_path / "3x4k3.ttt")
    opened = load_table(path)
    guard = opened.file.guard("entries")
    assert sum(guard.flags) == 0
    opened.at(0)
    assert sum(guard.flags) == 1 and guard.flags[0] == 1
    opened.lookup_codes(np.arange(0, opened.game.codes, 3**11), check=False)
    assert 1 < sum(guard.flags) < guard.count


def test_every_bulk_array_read_is_verified_first(tmp_path, lazily_verified):
    table = build_table(game="3x4")
    path = table.save(tmp_path / "3x4k3.ttt")
    first, end = entries_span(path.read_bytes())
    _flip(path, end - 1)
    opened = load_table(path)
    for read in (lambda: opened.score, lambda: opened.entries, lambda: opened.reachable_codes(), lambda: opened.stats()):
        with pytest.raises(solver.TableError, match="does not match its checksum"):
            read()


# -- forged files and the expected checksums --------------------------------------------------------------

def _forge(path, code: int, new_score: int) -> None:
    """Change one code's score and recompute every checksum in the file, so that it is self-consistent."""
    data = bytearray(path.read_bytes())
    header = header_of(data)
    first, end = entries_span(data)
    data[first + 4 * code + 3] = new_score & 0xFF
    block = header["block_bytes"]
    index = (4 * code) // block
    digest = hashlib.sha256(data[first + index * block : min(end, first + (index + 1) * block)]).digest()
    at = header["digests"]["offset"] + 32 * index
    data[at : at + 32] = digest
    digests = bytes(data[header["digests"]["offset"] :])
    without_root = {key: value for key, value in header.items() if key != "root"}
    header["root"] = hashlib.sha256(json.dumps(without_root, sort_keys=True, separators=(",", ":")).encode() + digests).hexdigest()
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    (length,) = struct.unpack("<I", data[8:12])
    data[12 : 12 + length] = text.ljust(length)
    path.write_bytes(bytes(data))


def test_a_forged_self_consistent_table_is_refused_naming_both_checksums(tmp_path, tictactoe):
    path = tictactoe.save(tmp_path / "3x3k3.ttt")
    _forge(path, 0, 99)  # "X wins the empty board in one ply"
    monkeypatched_expected = EXPECTED_ROOTS["3x3k3"]
    with pytest.raises(solver.TableError) as caught:
        load_table(path, verify=True)
    message = str(caught.value)
    forged_root = header_of(path.read_bytes())["root"]
    assert forged_root in message and monkeypatched_expected in message, message
    assert str(path) in message and f"solve build --game 3x3k3 --output {path}" in message


def test_a_forged_table_of_a_game_without_a_shipped_checksum_is_still_self_consistent(tmp_path, tictactoe, monkeypatch):
    """What is not guaranteed: with no expected checksum, a self-consistent forgery opens (solve verify catches it)."""
    monkeypatch.setattr(solver.tablefile, "expected_root", lambda game, kind="dense": None)
    path = tictactoe.save(tmp_path / "3x3k3.ttt")
    _forge(path, 0, 99)
    forged = load_table(path, verify=True)
    assert forged.at(0).score == 99
    assert any("differs from a fresh build" in problem for problem in forged.verify())


def test_a_file_in_the_table_dir_never_overrides_the_shipped_tictactoe_table(table_dir, tictactoe):
    path = tictactoe.save(table_dir / "3x3k3.ttt")
    _forge(path, 0, 99)
    assert solver.table_for().path == solver.store.shipped_path(solver.Game())
    assert solver.lookup(0).score == 0


def test_expected_checksums_cover_every_game_up_to_16_cells():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from checksums import every_game

    assert {game.name for game in every_game(DENSE_MAX_CELLS)} == set(EXPECTED_ROOTS)
    assert all(len(root) == 64 and int(root, 16) >= 0 for root in EXPECTED_ROOTS.values())


@pytest.mark.parametrize("game", [name for name, _ in zip(sorted(EXPECTED_ROOTS, key=lambda n: solver.parse_game(n).cells), range(60), strict=False)])
def test_a_fresh_build_has_the_expected_checksum(game):
    assert build_table(game=game).sha256 == EXPECTED_ROOTS[game]


@pytest.mark.slow
@pytest.mark.parametrize("game", ["3x4k3", "4x3k3", "2x6k4", "3x5k3"])
def test_a_fresh_build_of_a_larger_game_has_the_expected_checksum(game):
    assert build_table(game=game).sha256 == EXPECTED_ROOTS[game]


def test_the_shipped_table_has_the_expected_checksum():
    shipped = solver.store.shipped_path(solver.Game())
    assert open_table(shipped).header.root == EXPECTED_ROOTS["3x3k3"]


# -- unreachable codes without checks -----------------------------------------------------------------------

def test_lookup_codes_without_checks_marks_unreachable_codes(tictactoe):
    codes = np.array([0, 2, 4, 13222])  # 2 = O alone: impossible counts; 4 = X and X: impossible
    scores = tictactoe.lookup_codes(codes, check=False)
    assert scores.reachable.tolist() == [True, False, False, True]
    assert scores.score[~scores.reachable].tolist() == [-128, -128]
    assert scores.reachable.dtype == bool
    assert tictactoe.lookup_codes(codes[scores.reachable]).reachable.all()


# -- compact tables past 16 cells -------------------------------------------------------------------------

@pytest.mark.parametrize("game", ["2x9k4", pytest.param("3x6k3", marks=pytest.mark.slow), pytest.param("4x5k4", marks=pytest.mark.slow)])
def test_a_fresh_compact_build_has_the_shipped_checksum(tmp_path, game):
    from solver.builder import build_compact
    from solver.checksums import EXPECTED_COMPACT_ROOTS
    from solver.store import open_compact

    path = build_compact(parse_game(game), tmp_path / f"{game}.ttt", jobs=2)
    assert open_compact(path).sha256 == EXPECTED_COMPACT_ROOTS[game]


def test_a_compact_table_with_a_changed_score_is_refused_even_when_self_consistent(tmp_path):
    from solver.builder import build_compact
    from solver.store import open_compact

    path = build_compact(parse_game("2x9k4"), tmp_path / "2x9k4.ttt", jobs=1)
    header = header_of(path.read_bytes())
    (spec,) = header["arrays"]
    data = bytearray(path.read_bytes())
    data[spec["offset"]] = 99  # the empty board: "X wins in one ply"
    block = header["block_bytes"]
    at = header["digests"]["offset"]
    data[at : at + 32] = hashlib.sha256(data[spec["offset"] : spec["offset"] + block]).digest()
    without_root = {key: value for key, value in header.items() if key != "root"}
    forged = hashlib.sha256(json.dumps(without_root, sort_keys=True, separators=(",", ":")).encode() + bytes(data[at:])).hexdigest()
    (length,) = struct.unpack("<I", data[8:12])
    data[12 : 12 + length] = json.dumps({**header, "root": forged}, sort_keys=True, separators=(",", ":")).encode().ljust(length)
    path.write_bytes(bytes(data))
    with pytest.raises(solver.TableError, match=f"checksum {forged} is not the expected"):
        open_compact(path)
