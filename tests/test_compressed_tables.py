"""Compressed compact tables (format version 3): answers through the canonical board and the rules,
identical to every board's score that the layered build computes; damaged or forged files refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.contents.stored import compact_meta
from solver.encoding.board import rule_violation
from solver.encoding.coderules import code_rules
from solver.encoding.layouts import layout
from solver.encoding.symmetry import symmetries
from solver.errors import TableError
from solver.retrograde.sweep import build_layers
from solver.rules.base import INVALID
from solver.rules.game import Game, parse_game
from solver.rules.score import UNREACHABLE
from solver.storage.tablefile import COMPRESSED_VERSION, open_table
from solver.store.locate import open_compact
from solver.store.make import write_compact
from solver.tables import CompactTable


def _build(name: str, directory: Path) -> tuple[list[np.ndarray], CompactTable]:
    """Every board's score (the layers main's format stored) and the compressed table written from them."""
    game = parse_game(name)
    layers = [np.array(layer) for layer in build_layers(game, directory / "build", jobs=2).layers()]
    path = write_compact(directory / f"{name}.ttt", game, layers)
    return layers, open_compact(path, game=game)


def _reference_best(game: Game, full: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Best-move masks as main's compact table found them: each child's own stored score, no symmetry."""
    index = layout(game)
    score = full[index.index_of(codes)]
    ply = np.searchsorted(np.asarray(index.layer_offsets), index.index_of(codes), side="right") - 1
    piece = np.where(ply % 2 == 0, 1, 2)
    lowest = np.full(codes.size, 127, dtype=np.int16)
    mask = np.zeros(codes.size, dtype=np.int64)
    playing = (score != -100) & (score != UNREACHABLE)
    for cell in range(game.cells):
        empty = playing & ((codes // 3**cell) % 3 == 0)
        child = np.where(empty, full[index.index_of(np.where(empty, codes + piece * 3**cell, 0))], 127).astype(np.int16)
        mask = np.where(child < lowest, 1 << cell, np.where((child == lowest) & empty, mask | 1 << cell, mask))
        lowest = np.minimum(lowest, child)
    return mask


def _same_answers_for_every_board(name: str, directory: Path) -> None:
    layers, table = _build(name, directory)
    assert table.file is not None and table.file.header.format_version == COMPRESSED_VERSION
    full = np.concatenate(layers)
    for ply, layer in enumerate(layers):  # every legal-count board; other codes have no index (UNREACHABLE)
        mine = table.layer(ply)
        wrong = np.flatnonzero(mine != layer)
        assert not wrong.size, f"ply {ply}: {wrong.size} boards differ, first index {wrong[0]}"
    reachable = layout(table.game).codes(0, full.size)[0][full != UNREACHABLE]
    sample = np.random.default_rng(14).choice(reachable, 200_000)
    answered = table.lookup_codes(sample)
    assert np.array_equal(answered.score, full[layout(table.game).index_of(sample)])
    assert np.array_equal(answered.best.astype(np.int64), _reference_best(table.game, full, sample))
    for code in sample[:3000].tolist():  # the scalar path: one position at a time
        assert table.best_mask_of(code) == _reference_best(table.game, full, np.array([code]))[0]
        assert table.at(code).score == full[table.layout.index_of_code(code)]


def test_every_board_of_2x9k4_answers_as_the_full_scores_do(tmp_path: Path) -> None:
    _same_answers_for_every_board("2x9k4", tmp_path)


@pytest.mark.slow
def test_every_board_of_3x6k3_answers_as_the_full_scores_do(tmp_path: Path) -> None:
    _same_answers_for_every_board("3x6k3", tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["3x6k4", "4x5k4"])
def test_a_seeded_sample_of_a_20_cell_table_answers_as_the_full_scores_do(name: str, tmp_path: Path) -> None:
    """Every layer's full scores (what main's format stored) against the compressed table, on a seeded sample."""
    game = parse_game(name)
    built = build_layers(game, tmp_path / "build", jobs=2)
    layers = built.layers()
    path = write_compact(tmp_path / f"{name}.ttt", game, layers)
    table = open_compact(path, game=game)
    index = layout(game)
    rng = np.random.default_rng(20)
    picked = np.sort(rng.integers(0, index.size, 3_000_000))
    full_at = np.concatenate(
        [
            np.asarray(layers[ply])[picked[(picked >= a) & (picked < b)] - a]
            for ply, (a, b) in enumerate(zip(index.layer_offsets, index.layer_offsets[1:], strict=False))
        ]
    )
    codes = index.codes_at(picked)
    assert np.array_equal(table.lookup_codes(codes, check=False).score, full_at)
    full = np.concatenate([np.asarray(layer) for layer in layers])
    reachable = codes[full_at != UNREACHABLE][:30_000]
    assert np.array_equal(table.lookup_codes(reachable).best.astype(np.int64), _reference_best(game, full, reachable))


def test_the_rules_by_bit_masks_agree_with_rule_violation_on_every_3x4k3_code() -> None:
    game = parse_game("3x4k3")
    rules = code_rules(game)
    codes = np.arange(game.codes)
    legal = layout(game).index_of(codes) >= 0
    statuses = rules.statuses(codes)
    for code in codes[legal].tolist():
        assert (rules.status_of(code) == INVALID) == (rule_violation(game, code) is not None), code
        assert rules.status_of(code) == statuses[code]


@pytest.fixture(scope="module")
def small_tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CompactTable]:
    """Compressed tables of a square board (8 symmetries) and a rectangle (4)."""
    return {name: _build(name, tmp_path_factory.mktemp(name))[1] for name in ("3x3k3", "3x4k3")}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(["3x3k3", "3x4k3"]), moves=st.lists(st.integers(0, 11), max_size=12))
def test_every_image_of_a_position_answers_the_same_with_best_moves_mapped(small_tables: dict[str, CompactTable], name: str, moves: list[int]) -> None:
    table = small_tables[name]
    game, code = table.game, 0
    for ply, cell in enumerate(moves):  # play the moves that land on empty cells until the game ends
        cell %= game.cells
        if (code // 3**cell) % 3 or table.score_of(code) == -100:
            continue
        code += (1 if ply % 2 == 0 else 2) * 3**cell
        code = code if table.score_of(code) != UNREACHABLE else code - (1 if ply % 2 == 0 else 2) * 3**cell
    sym = symmetries(game)
    best = table.best_mask_of(code)
    for s in range(sym.count):
        image = sym.image_of(code, s)
        assert table.score_of(image) == table.score_of(code)
        assert sym.mask_to_caller(table.best_mask_of(image), s) == best
        assert table.lookup_codes([image]).best[0] == table.best_mask_of(image)


def test_writing_the_same_layers_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    game = parse_game("3x4k3")
    layers = build_layers(game, tmp_path / "build", jobs=1).layers()
    first = write_compact(tmp_path / "a.ttt", game, layers).read_bytes()
    assert write_compact(tmp_path / "b.ttt", game, layers).read_bytes() == first
    assert CompactTable.from_layers(game, layers).sha256 == open_compact(tmp_path / "a.ttt").sha256


# -- refusals ----------------------------------------------------------------------------------------
@pytest.fixture
def written(tmp_path: Path) -> Path:
    game = parse_game("3x4k3")
    return write_compact(tmp_path / "3x4k3.ttt", game, build_layers(game, tmp_path / "build", jobs=1).layers())


def _flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x40
    path.write_bytes(bytes(data))


def _region(path: Path) -> tuple[int, int, int]:
    spec = open_table(path).header.spec("scores")
    assert spec.encoding is not None
    return spec.offset, spec.encoding.data_bytes, spec.encoding.blocks


def test_a_flipped_byte_in_a_compressed_block_is_refused_when_read(written: Path) -> None:
    offset, data_bytes, _ = _region(written)
    _flip(written, offset + data_bytes // 2)
    table = open_compact(written)  # the header and digests are whole
    with pytest.raises(TableError, match="does not match its CRC.*rebuild it with: solve build"):
        table.verify_blocks()
    assert any("CRC" in problem for problem in table.file.problems())  # type: ignore[union-attr]
    with pytest.raises(TableError):
        table.lookup_codes(table.layout.codes(0, table.layout.size)[0], check=False)


def test_a_flipped_byte_in_the_offset_table_is_refused_on_open(written: Path) -> None:
    offset, data_bytes, _ = _region(written)
    _flip(written, offset + data_bytes + 8 + 2)  # the end offset of block 0
    with pytest.raises(TableError, match="offset table .* damaged.*rebuild it with"):
        open_compact(written)


def test_a_flipped_byte_in_the_digests_is_refused_on_open(written: Path) -> None:
    header = open_table(written).header
    _flip(written, header.digests_offset + 5)
    with pytest.raises(TableError, match="checksum mismatch"):
        open_compact(written)


def test_a_forged_block_with_a_matching_crc_is_refused_by_its_digest(written: Path, tmp_path: Path) -> None:
    """A block re-compressed from changed scores (its CRC fixed, the offsets consistent) still fails its SHA-256."""
    import zlib

    from solver.storage import blockarray

    offset, data_bytes, blocks = _region(written)
    spec = open_table(written).header.spec("scores")
    assert spec.encoding is not None
    raw = bytearray(written.read_bytes())
    offsets = np.frombuffer(bytes(raw[offset + data_bytes : offset + data_bytes + 8 * (blocks + 1)]), dtype="<u8")
    first = bytes(raw[offset + int(offsets[0]) : offset + int(offsets[1])])
    codec = blockarray.codec_of(spec.encoding.codec)
    decoded = codec.decompress(first, spec.encoding.block_size(0))
    forged = b""
    for at in range(len(decoded)):  # change one score so the block compresses to the same length
        changed = bytearray(decoded)
        changed[at] = (changed[at] + 1) % 128
        forged = codec.compress(bytes(changed), spec.encoding.level)
        if len(forged) == len(first):
            break
    assert len(forged) == len(first)
    raw[offset : offset + len(first)] = forged
    crc_at = offset + data_bytes + 8 * (blocks + 1)
    raw[crc_at : crc_at + 4] = zlib.crc32(forged).to_bytes(4, "little")
    written.write_bytes(bytes(raw))
    table = open_compact(written)
    with pytest.raises(TableError, match="does not match its checksum: the file is damaged or forged"):
        table.at(0)


def test_a_compressed_table_with_a_changed_score_and_a_consistent_root_is_refused_by_the_shipped_checksum(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from solver.storage import checksums

    game = parse_game("3x4k3")
    layers = [np.array(layer) for layer in build_layers(game, tmp_path / "build", jobs=1).layers()]
    honest = open_compact(write_compact(tmp_path / "honest.ttt", game, layers)).sha256
    monkeypatch.setitem(checksums.EXPECTED_COMPACT_ROOTS, "3x4k3", honest)
    layers[0][0] = 1  # the empty board: a forged score, the file otherwise self-consistent
    forged = write_compact(tmp_path / "forged.ttt", game, layers)
    with pytest.raises(TableError, match="is not the expected .* damaged or forged"):
        open_compact(forged)


def test_an_impossible_score_in_a_compressed_block_is_refused_when_the_block_is_first_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A compressed table written honestly from an impossible score (its CRCs, digests and root consistent, no
    checksum shipped for it): the block check of the decoded bytes refuses it, naming the board, the file and
    the rebuild command, before any value of the block is used."""
    from solver.storage import checksums
    from solver.store import locate as store

    game = parse_game("3x4k3")
    layers = [np.array(layer) for layer in build_layers(game, tmp_path / "build", jobs=1).layers()]
    monkeypatch.delitem(checksums.EXPECTED_COMPACT_ROOTS, "3x4k3", raising=False)
    monkeypatch.setattr(store, "trust_or_prove", lambda table: None)  # no consistency pass: the block check alone decides
    layers[0][0] = 99  # "X wins the empty board in one ply"
    forged = write_compact(tmp_path / "forged.ttt", game, layers)
    table = open_compact(forged)
    for read in (lambda: table.at(0), table.verify_blocks, lambda: table.lookup_codes(np.array([0]))):
        with pytest.raises(TableError) as caught:
            read()
        message = str(caught.value)
        assert "board 0 (layer 0) holds the score 99, impossible for a 3x4k3 position with 0 pieces on the board" in message
        assert str(forged) in message and "rebuild it with: solve build --game 3x4k3" in message, message


def test_the_values_check_runs_exactly_where_no_checksum_ships(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table whose checksum ships was matched against it on open, so its digests prove every block holds
    the checked build's bytes: its blocks skip the values check (a cost of each first touch). The same file
    without a shipped checksum checks the values of every block it decodes."""
    from solver.storage import checksums
    from solver.store import locate as store

    game = parse_game("3x4k3")
    layers = [np.array(layer) for layer in build_layers(game, tmp_path / "build", jobs=1).layers()]
    path = write_compact(tmp_path / "t.ttt", game, layers)
    monkeypatch.setattr(store, "trust_or_prove", lambda table: None)
    monkeypatch.delitem(checksums.EXPECTED_COMPACT_ROOTS, "3x4k3", raising=False)
    unpinned = open_compact(path)
    assert isinstance(unpinned, CompactTable) and unpinned.file is not None and not unpinned.file.pinned
    assert unpinned.file.compressed("scores").checks.values is not None
    monkeypatch.setitem(checksums.EXPECTED_COMPACT_ROOTS, "3x4k3", unpinned.sha256)
    pinned = open_compact(path)
    assert isinstance(pinned, CompactTable) and pinned.file is not None and pinned.file.pinned
    assert pinned.file.compressed("scores").checks.values is None
    codes = pinned.reachable_codes()
    assert np.array_equal(pinned.lookup_codes(codes).score, unpinned.lookup_codes(codes).score)


def test_load_into_memory_answers_the_same(written: Path) -> None:
    table = open_compact(written)
    codes = table.reachable_codes()
    before = table.lookup_codes(codes)
    assert table.load_into_memory() is table
    after = table.lookup_codes(codes)
    assert np.array_equal(before.score, after.score) and np.array_equal(before.best, after.best)


def test_a_table_written_before_the_layer_histograms_still_opens_and_is_counted(tmp_path: Path) -> None:
    """A 2x9k4 file of the earlier format 3 contents (no ``layer_histograms`` in its meta) has the earlier
    shipped checksum: it opens, answers and counts; the same file with one more key in its meta does not."""
    from solver.contents.stored import stored_layers
    from solver.storage import blockarray, tablefile
    from solver.storage.checksums import EARLIER_COMPACT_ROOTS

    game = parse_game("2x9k4")
    layers = [np.array(layer) for layer in build_layers(game, tmp_path / "build", jobs=1).layers()]
    codec = blockarray.codec_of(blockarray.default_codec())

    def write(path: Path, meta: dict[str, object]) -> Path:
        blocks = blockarray.encode_blocks(stored_layers(game, layers), codec=codec.name, level=codec.default_level)
        return tablefile.write_compressed(path, game, blocks, meta, codec=codec.name, level=codec.default_level)

    old = write(tmp_path / "old.ttt", compact_meta(game))
    table = open_compact(old, game=game)
    assert table.sha256 in EARLIER_COMPACT_ROOTS["2x9k4"] and table.sha256 != tablefile.expected_root(game, "compact")
    assert table.at(0).result == "draw"
    fresh = write_compact(tmp_path / "new.ttt", game, layers)
    assert table.stats()["unique_positions"] == open_compact(fresh, game=game).stats()["unique_positions"]
    other = write(tmp_path / "other.ttt", {**compact_meta(game), "note": "changed"})
    with pytest.raises(TableError, match="is not the expected"):
        open_compact(other, game=game)


def test_a_table_written_with_zlib_before_zstd_was_a_dependency_opens_with_the_same_checksum(tmp_path: Path) -> None:
    """zlib stays the reader of older files: a 2x9k4 table written with zlib (a plain install before zstandard became a
    dependency) opens against the shipped checksum and answers as the zstd one does; it is the larger of the two."""
    from solver.contents.stored import stored_layers
    from solver.storage import blockarray, tablefile

    game = parse_game("2x9k4")
    layers = [np.array(layer) for layer in build_layers(game, tmp_path / "build", jobs=1).layers()]
    new = write_compact(tmp_path / "new.ttt", game, layers)
    newer = open_compact(new, game=game)
    assert newer.file is not None and newer.file.header.arrays[0].encoding.codec == "zstd"
    zlib = blockarray.codec_of("zlib")
    blocks = blockarray.encode_blocks(stored_layers(game, layers), codec="zlib", level=zlib.default_level)
    old = tablefile.write_compressed(tmp_path / "old.ttt", game, blocks, newer.file.header.meta, codec="zlib", level=zlib.default_level)
    older = open_compact(old, game=game)
    assert older.file is not None and older.file.header.arrays[0].encoding.codec == "zlib"
    assert older.sha256 == newer.sha256 == tablefile.expected_root(game, "compact")
    codes = np.random.default_rng(0).choice(newer.reachable_codes(), 20_000)
    assert np.array_equal(older.lookup_codes(codes).score, newer.lookup_codes(codes).score)
    assert old.stat().st_size > new.stat().st_size


def test_opening_a_compressed_table_allocates_nothing_of_its_decoded_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening 5x5k4 (162 G boards) once asked numpy for 151 GiB of zeros it then threw away."""
    from solver.storage import tablefile

    game = parse_game("2x9k4")
    path = write_compact(tmp_path / "2x9k4.ttt", game, build_layers(game, tmp_path / "build", jobs=1).layers())
    asked: list[int] = []
    real = np.zeros

    def zeros(shape: object, *args: object, **kwargs: object) -> np.ndarray:
        asked.append(int(np.prod(shape)))  # type: ignore[call-overload]
        return real(shape, *args, **kwargs)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(tablefile.np, "zeros", zeros)
    open_table(path, game=game)
    assert max(asked, default=0) < layout(game).size, asked
