"""Integrity is one stage (solver/storage/integrity.py): every block of every table kind passes the checks its
header declares before any answer comes from it, whichever path reads it (a look-up, a batch, the copy into
memory), one record says which blocks passed, and one policy (solver/storage/trust.py) says which tables are
believed: a trusted table replaced by another is not.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from table_forms import write_plain_compact

import solver
import solver.tables.dense
from solver import build_table, load_table
from solver.contents import opening
from solver.contents.stored import compact_meta
from solver.encoding.layouts import layout
from solver.retrograde.sweep import build_layers
from solver.rules.game import Game, parse_game
from solver.storage import blockarray, integrity, tablefile, trust
from solver.storage.checksums import EXPECTED_ROOTS
from solver.store import locate
from solver.store.make import build_compact, write_compact
from solver.tables import CompactTable


@pytest.fixture(scope="module")
def tictactoe() -> solver.Table:
    return build_table()


@pytest.fixture(scope="module")
def tictactoe_layers(tmp_path_factory: pytest.TempPathFactory) -> list[np.ndarray]:
    built = build_layers(Game(), tmp_path_factory.mktemp("layers") / "3x3k3.build", jobs=1)
    return [np.array(layer) for layer in built.layers()]


@pytest.fixture
def lazily_verified(monkeypatch: pytest.MonkeyPatch) -> None:
    """Open every dense table like a large one: no block is checked when it is opened."""
    monkeypatch.setattr(solver.tables.dense, "VERIFY_ON_OPEN_BYTES", 0)


def _flip(path: Path, where: int) -> None:
    data = bytearray(path.read_bytes())
    data[where] ^= 0x10
    path.write_bytes(bytes(data))


def _assert_names_the_file(error: pytest.ExceptionInfo[solver.TableError], path: Path) -> None:
    message = str(error.value)
    assert message.startswith(f"{path}: ") and f"rebuild it with: solve build --game 3x3k3 --output {path}" in message, message


# -- the mutant that skipped the check on the load_into_memory path -------------------------------------------


def test_a_flipped_byte_in_a_dense_table_file_is_refused_by_load_into_memory_naming_the_file(
    tmp_path: Path, tictactoe: solver.Table, lazily_verified: None
) -> None:
    path = tictactoe.save(tmp_path / "3x3k3.ttt")
    spec = opening.open_table(path).header.spec("entries")
    _flip(path, spec.offset + spec.nbytes // 2)
    table = load_table(path)
    assert table.reads_memory_map and not table.file.verified("entries").passed  # type: ignore[union-attr]
    with pytest.raises(solver.TableError, match="does not match its checksum") as caught:
        table.load_into_memory()
    _assert_names_the_file(caught, path)
    assert table.reads_memory_map, "a copy that failed its check is never used"


def test_a_flipped_byte_in_a_plain_compact_table_file_is_refused_by_load_into_memory_naming_the_file(
    tmp_path: Path, tictactoe_layers: list[np.ndarray]
) -> None:
    path = write_plain_compact(tmp_path / "3x3k3.ttt", CompactTable.from_layers(Game(), tictactoe_layers))
    spec = opening.open_table(path).header.spec("scores")
    assert spec.encoding is None
    _flip(path, spec.offset + spec.nbytes // 2)
    table = CompactTable.from_file(opening.open_table(path))
    with pytest.raises(solver.TableError, match="does not match its checksum") as caught:
        table.load_into_memory()
    _assert_names_the_file(caught, path)


def test_a_flipped_byte_in_a_compressed_compact_table_file_is_refused_by_load_into_memory_naming_the_file(
    tmp_path: Path, tictactoe_layers: list[np.ndarray]
) -> None:
    path = write_compact(tmp_path / "3x3k3.ttt", Game(), tictactoe_layers)
    spec = opening.open_table(path).header.spec("scores")
    assert spec.encoding is not None
    _flip(path, spec.offset + spec.encoding.data_bytes // 2)
    table = CompactTable.from_file(opening.open_table(path))
    with pytest.raises(solver.TableError, match="does not match its CRC") as caught:
        table.load_into_memory()
    _assert_names_the_file(caught, path)


# -- the mutant that trusted a table by its game and kind, not its checksum ------------------------------------


def _plausible_but_wrong(game: Game, score: int) -> int:
    """A score a position of layer 0 could hold, other than ``score`` (the values stage lets it through)."""
    return next(other for other in sorted(game.rules.possible_scores(0)) if other != score and other != -128)


def test_a_trusted_table_replaced_by_another_of_the_same_game_is_proved_again_and_refused(tmp_path: Path) -> None:
    game = parse_game("2x4k3")  # no checksum ships for compact 2x4k3: it is trusted because it was built here
    assert trust.expected_root(game, "compact") is None
    path = build_compact(game, tmp_path / "2x4k3.ttt", jobs=1)
    built = locate.open_file(path)
    assert trust.is_trusted(tmp_path, "2x4k3", "compact", built.sha256)
    layers = [built.layer(ply) for ply in range(game.cells + 1)]
    wrong = _plausible_but_wrong(game, int(layers[0][0]))
    layers[0][0] = wrong  # the empty board: a value its layer allows, not the game's
    replaced = tablefile.write_table(  # every checksum right for the new scores; not built here, so not recorded
        tmp_path / "2x4k3.ttt", kind="compact", game=game, meta=compact_meta(game), arrays={"scores": np.concatenate(layers)}, boards=layout(game).size
    )
    assert opening.open_table(replaced).header.root != built.sha256
    with pytest.raises(solver.TableError, match="no checksum ships for compact 2x4k3 tables and this user did not build this one, and it is wrong"):
        locate.open_file(replaced)


def test_the_registry_believes_a_table_by_its_checksum_not_by_its_game_and_kind(tmp_path: Path) -> None:
    assert trust.record(tmp_path, "2x4k3", "compact", "a" * 64)
    assert trust.is_trusted(tmp_path, "2x4k3", "compact", "a" * 64)
    assert not trust.is_trusted(tmp_path, "2x4k3", "compact", "b" * 64)
    assert not trust.is_trusted(tmp_path, "2x4k3", "dense", "a" * 64)
    assert json.loads((tmp_path / "trusted.json").read_text())["tables"] == [{"game": "2x4k3", "kind": "compact", "root": "a" * 64}]


# -- the stage, declared by the header ------------------------------------------------------------------------


def test_each_file_declares_its_stages_by_its_format_version_and_kind_and_no_byte_changed(tmp_path: Path, tictactoe_layers: list[np.ndarray]) -> None:
    shipped = locate.shipped_path(Game())
    assert shipped is not None
    dense = opening.open_table(shipped).header
    assert dense.stages == integrity.PLAIN == ("sha256", "values")
    assert dense.root == EXPECTED_ROOTS["3x3k3"], "the shipped table reads the same: the stages add nothing to a header"
    compressed = opening.open_table(write_compact(tmp_path / "c.ttt", Game(), tictactoe_layers)).header
    assert compressed.stages == integrity.COMPRESSED == ("crc32", "decode", "sha256", "values")
    assert "stages" not in tablefile.header_dict(compressed)
    with pytest.raises(ValueError, match="format version 3 holds no dense table"):
        integrity.declared_stages(3, "dense")


def test_the_values_stage_runs_only_where_no_checksum_ships(tmp_path: Path, tictactoe: solver.Table, tictactoe_layers: list[np.ndarray]) -> None:
    shipped = tictactoe.save(tmp_path / "3x3k3.ttt")
    assert load_table(shipped).file.checks("entries").values is None  # type: ignore[union-attr]
    unshipped = CompactTable.from_file(opening.open_table(write_compact(tmp_path / "c.ttt", Game(), tictactoe_layers)))
    assert unshipped.file is not None and unshipped.file.checks("scores").values is not None


def test_one_record_says_which_blocks_passed_and_the_tables_read_it_not_a_copy(
    tmp_path: Path, tictactoe_layers: list[np.ndarray], lazily_verified: None
) -> None:
    dense = load_table(build_table(game="3x4k3").save(tmp_path / "3x4k3.ttt"))
    assert dense.file is not None
    verified = dense.file.verified("entries")
    assert verified is dense.file.guard("entries").verified is dense.file.checks("entries").verified
    assert dense._verified is verified.flags
    assert verified.passed == 0
    dense.at(0)
    assert verified.flags[0] == 1 and verified.passed == 1 and not verified.done
    dense.verify_blocks()
    assert verified.done
    compact = CompactTable.from_file(opening.open_table(write_compact(tmp_path / "c.ttt", Game(), tictactoe_layers)))
    assert compact.file is not None
    record = compact.file.verified("scores")
    assert record is compact.file.compressed("scores").checks.verified and record.passed == 0
    compact.lookup(0)
    assert record.flags[0] == 1


def test_a_block_cache_can_ask_the_stage_whether_a_blocks_bytes_pass_before_keeping_them() -> None:
    """What a URL table's cache calls before it keeps a block (solver/storage/remote.py): region_checks made from the
    head's bytes alone (encoding, offset table and CRCs, digests), then passes() on each fetched block."""
    scores = np.repeat(np.arange(-3, 4, dtype=np.int8), 30_000)
    out = io.BytesIO()
    written = blockarray.write_blocks(out, [scores], codec="zlib", block_bytes=1 << 16)
    region = out.getvalue()
    encoding = written.encoding
    checks = blockarray.region_checks(encoding, region[encoding.data_bytes :], written.digest, name="https://example.invalid/t.ttt")
    offsets = np.frombuffer(region[encoding.data_bytes :], dtype="<u8", count=encoding.blocks + 1)
    block = bytes(region[int(offsets[1]) : int(offsets[2])])
    assert checks.passes(1, block) and 1 in checks.verified
    damaged = bytearray(block)
    damaged[len(damaged) // 2] ^= 1
    assert not checks.passes(1, bytes(damaged)) and not checks.passes(2, block)
    with pytest.raises(solver.TableError, match="https://example.invalid/t.ttt: block 1 .* does not match its CRC"):
        checks.packed(1, bytes(damaged))
    broken = bytearray(region[encoding.data_bytes :])
    broken[15] ^= 0x01  # the top byte of the second offset: far past the end
    with pytest.raises(solver.TableError, match="the offset table of the compressed blocks is damaged"):
        blockarray.region_checks(encoding, bytes(broken), written.digest)


class _Keeping(blockarray.MappedRegion):
    """A source that records what it is told: which blocks it may keep, which it must drop."""

    def __init__(self, region: bytes) -> None:
        super().__init__(region)
        self.kept: list[int] = []
        self.dropped: list[int] = []

    def passed(self, start: int, stop: int) -> None:
        self.kept.append(start)

    def forget(self, start: int, stop: int) -> None:
        self.dropped.append(start)


def test_a_caching_source_is_told_to_keep_a_block_only_after_it_passed_every_stage() -> None:
    """What a URL table's block cache relies on (solver/storage/remote.py keeps a block on passed() only)."""
    scores = np.repeat(np.arange(-3, 4, dtype=np.int8), 30_000)
    out = io.BytesIO()
    written = blockarray.write_blocks(out, [scores], codec="zlib", block_bytes=1 << 16)
    region = bytearray(out.getvalue())
    offsets = np.frombuffer(bytes(region[written.encoding.data_bytes :]), dtype="<u8", count=written.encoding.blocks + 1)
    region[int(offsets[2]) + 5] ^= 1  # block 2 damaged
    source = _Keeping(bytes(region))
    array = blockarray.BlockArray(source, written.encoding, written.digest, name="cached")
    assert array[0] == -3 and source.kept == [0] and array.checks.verified.flags[0] == 1
    with pytest.raises(solver.TableError, match="cached: block 2 .* does not match its CRC"):
        array.block(2)
    assert source.kept == [0] and source.dropped == [int(offsets[2])] and 2 not in array.checks.verified
