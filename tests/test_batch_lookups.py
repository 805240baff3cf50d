"""Batches at memory speed: a compact table's batch look-up answers every column
(``score``, ``ply``, ``best``, ``value``, ``plies``) as one look-up at a time does, from a compressed
file, from memory and from plain layers; and a batch decodes each block it touches once.

The per-position answer (``table.lookup(code)``) is the scalar path (:meth:`CompactTable.at`,
:meth:`CompactTable.best_mask_of`); the batch is the vectorised one (:mod:`solver.tables.children`,
:meth:`solver.storage.blockarray.BlockArray.take`), written apart from it.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from solver.encoding import coderules
from solver.encoding import symmetry as symmetry_module
from solver.encoding.coderules import code_rules, digit_fields
from solver.encoding.layouts import layout
from solver.encoding.symmetry import Symmetries, symmetries
from solver.errors import TableError
from solver.retrograde.sweep import build_layers
from solver.rules.base import IN_PLAY
from solver.rules.game import parse_game
from solver.rules.score import UNREACHABLE
from solver.storage import blockarray
from solver.storage.blockarray import BlockArray, write_blocks
from solver.store.locate import open_compact
from solver.store.make import write_compact
from solver.tables import CompactTable, compact

COLUMNS = ("score", "pieces", "best", "value", "plies")


def _one_by_one(table: CompactTable, codes: np.ndarray) -> dict[str, np.ndarray]:
    """Every column of a batch, from one ``table.lookup(code)`` per code."""
    rows = []
    for code in codes.tolist():
        p = table.lookup(code)
        rows.append((p.score, p.pieces, p.best_mask, p.value, p.plies))
    columns = np.array(rows, dtype=np.int64).reshape(-1, len(COLUMNS)).T
    return dict(zip(COLUMNS, columns, strict=True))


def _assert_batch_answers_as_one_by_one(table: CompactTable, codes: np.ndarray) -> None:
    batch = table.lookup_codes(codes)
    expected = _one_by_one(table, codes)
    for name in COLUMNS:
        got = np.asarray(getattr(batch, name)).astype(np.int64)
        wrong = np.flatnonzero(got != expected[name])
        if wrong.size:
            first = wrong[0]
            board = table.lookup(int(codes[first])).board
            raise AssertionError(f"{name} of {board!r}: batch {got[first]}, alone {expected[name][first]} ({wrong.size} differ)")


def _reachable(game_name: str, layers: list[np.ndarray]) -> np.ndarray:
    index = layout(parse_game(game_name))
    return index.codes(0, index.size)[0][np.concatenate(layers) != UNREACHABLE]


@pytest.fixture(scope="module", params=["3x4k4", "3x4k4-misere"])
def small_tables(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[np.ndarray, dict[str, Callable[[], CompactTable]]]:
    """Every reachable code of a 12-cell game (normal and misère play) and three ways to hold its table:
    compressed (three blocks), decoded into memory, plain layers."""
    name: str = request.param
    game = parse_game(name)
    directory = tmp_path_factory.mktemp(name)
    layers = [np.array(layer) for layer in build_layers(game, directory / "build", jobs=1).layers()]
    path = write_compact(directory / f"{name}.ttt", game, layers)

    def compressed() -> CompactTable:
        table = open_compact(path, game=game)
        assert isinstance(table, CompactTable)
        return table

    ways: dict[str, Callable[[], CompactTable]] = {
        "compressed": compressed,
        "in memory": lambda: compressed().load_into_memory(),
        "plain layers": lambda: CompactTable.from_layers(game, layers),
    }
    return _reachable(name, layers), ways


@pytest.mark.parametrize("way", ["compressed", "in memory", "plain layers"])
def test_every_reachable_position_answers_in_a_batch_as_it_does_alone(small_tables, way: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blockarray, "WAVE_BLOCKS", 1)  # one block a wave: the grouping by wave is exercised too
    codes, ways = small_tables
    table = ways[way]()
    assert table.layout.size > 1 << 16  # more than one block
    _assert_batch_answers_as_one_by_one(table, np.random.default_rng(5).permutation(codes))


def _count_word_and_image_work(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often, from now on, codes are cut into digit fields, turned into board words, or into images under the symmetries."""
    calls = {"digit fields": 0, "words": 0, "images": 0}

    def counting(key: str, function: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
        def counted(*args: object, **options: object) -> np.ndarray:
            calls[key] += 1
            return function(*args, **options)

        return counted

    for module in (compact, coderules, symmetry_module):
        monkeypatch.setattr(module, "digit_fields", counting("digit fields", digit_fields))
    monkeypatch.setattr(coderules.CodeRules, "words", counting("words", coderules.CodeRules.words))
    monkeypatch.setattr(Symmetries, "_patterns", counting("images", Symmetries._patterns))
    return calls


@pytest.mark.parametrize(("way", "images"), [("compressed", False), ("plain layers", False), ("plain layers", True)])
def test_a_batchs_best_moves_reuse_the_words_and_images_of_its_look_up(small_tables, way: str, images: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compact, "KEEP_IMAGES", images)
    codes, ways = small_tables
    table = ways[way]()
    codes = np.random.default_rng(7).permutation(codes)[:20_000]
    expected = _one_by_one(table, codes)["best"]
    calls = _count_word_and_image_work(monkeypatch)
    batch = table.lookup_codes(codes)
    after_look_up = dict(calls)
    assert after_look_up["words"] and after_look_up["digit fields"]  # the counters see the look-up's work
    assert np.array_equal(batch.best.astype(np.int64), expected)
    if images:
        assert calls == after_look_up  # .best computed no word, chunk or image again
    else:
        assert calls["words"] == after_look_up["words"]  # .best computed no word again (only the images it needs)
    monkeypatch.setattr(compact, "KEEP_FOR_BEST", False)  # the same without the reuse: the counters see .best's work
    batch = table.lookup_codes(codes)
    after_look_up = dict(calls)
    assert np.array_equal(batch.best.astype(np.int64), expected)
    assert calls["words"] > after_look_up["words"] and calls["images"] > after_look_up["images"]


@pytest.fixture(scope="module")
def stand_in_file(tmp_path_factory: pytest.TempPathFactory, stand_in_table: bytes) -> Path:
    """The compressed 2x9k4 table (1,321 blocks) in a file."""
    path = tmp_path_factory.mktemp("2x9k4") / "2x9k4.ttt"
    path.write_bytes(stand_in_table)
    return path


@pytest.fixture(scope="module")
def stand_in_codes(stand_in_layers: list[np.ndarray]) -> np.ndarray:
    """30,000 random reachable codes of 2x9k4."""
    return np.random.default_rng(24).choice(_reachable("2x9k4", stand_in_layers), 30_000)


@pytest.mark.parametrize("threads", [1, 3])
def test_random_reachable_positions_of_a_compressed_2x9k4_answer_in_a_batch_as_alone(
    stand_in_file: Path, stand_in_codes: np.ndarray, threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(blockarray, "_DECODE_THREADS", threads)
    monkeypatch.setattr(blockarray, "WAVE_BLOCKS", 64)  # about 20 waves
    table = open_compact(stand_in_file)
    assert isinstance(table, CompactTable)
    _assert_batch_answers_as_one_by_one(table, stand_in_codes)
    _assert_batch_answers_as_one_by_one(table.load_into_memory(), stand_in_codes[:5000])


def _count_decodes(table: CompactTable, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The blocks the table's compressed array decodes from now on, in the order decoded."""
    array = table.scores
    assert isinstance(array, BlockArray)
    decoded: list[int] = []
    decode = array._decode

    def counting(block: int) -> bytes:
        decoded.append(block)
        return decode(block)

    monkeypatch.setattr(array, "_decode", counting)
    return decoded


def test_a_batch_decodes_each_block_it_touches_once(stand_in_file: Path, stand_in_codes: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blockarray, "WAVE_BLOCKS", 32)
    monkeypatch.setattr(blockarray, "_DECODE_THREADS", 2)
    table = open_compact(stand_in_file)
    assert isinstance(table, CompactTable)
    decoded = _count_decodes(table, monkeypatch)
    batch = table.lookup_codes(stand_in_codes)
    # the blocks of the canonical boards in play, found here by the scalar path
    sym, rules = symmetries(table.game), code_rules(table.game)
    in_play = [code for code in stand_in_codes.tolist() if rules.status_of(code) == IN_PLAY]
    touched = {table.layout.index_of_code(sym.canonical_of(code)[0]) >> 16 for code in in_play}
    assert len(touched) > 4 * 32  # several waves
    assert sorted(decoded) == sorted(touched), "a block decoded twice, or one not needed"
    decoded.clear()
    _ = batch.best
    assert len(decoded) == len(set(decoded)) > 4 * 32, "a block decoded twice for the batch's children"


def _damaged_region(block: int) -> tuple[BlockArray, np.ndarray]:
    """A compressed array of 64 blocks of 4 KiB whose block ``block`` has a flipped byte."""
    array = np.repeat(np.arange(-60, 68, dtype=np.int8), 2048)
    out = io.BytesIO()
    written = write_blocks(out, [array], codec="zlib", block_bytes=1 << 12)
    raw = bytearray(out.getvalue())
    offsets = np.frombuffer(raw, dtype="<u8", count=written.encoding.blocks + 1, offset=written.encoding.data_bytes)
    raw[int(offsets[block]) + 3] ^= 0x41
    return BlockArray(bytes(raw), written.encoding, written.digest, name="damaged", cache_blocks=2), array


@pytest.mark.parametrize("wave, threads", [(1, 1), (3, 3), (256, 2)])
def test_a_batch_reads_every_item_through_its_blocks_whatever_the_waves_and_threads(wave: int, threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blockarray, "WAVE_BLOCKS", wave)
    monkeypatch.setattr(blockarray, "_DECODE_THREADS", threads)
    array = np.random.default_rng(9).integers(-128, 128, 300_000).astype(np.int8)
    out = io.BytesIO()
    written = write_blocks(out, [array], codec="zlib", block_bytes=1 << 12)
    read = BlockArray(out.getvalue(), written.encoding, written.digest, cache_blocks=2)
    picks = np.random.default_rng(10).integers(0, array.size, (40, 500))
    assert np.array_equal(read.take(picks), array[picks])
    assert read.take(np.array([], dtype=np.int64)).size == 0
    with pytest.raises(IndexError):
        read.take(np.array([0, array.size]))


def test_a_damaged_block_in_a_batch_is_refused_by_its_number(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blockarray, "WAVE_BLOCKS", 4)
    monkeypatch.setattr(blockarray, "_DECODE_THREADS", 3)
    read, array = _damaged_region(37)
    with pytest.raises(TableError, match="damaged: block 37 "):
        read.take(np.arange(0, array.size, 1000))
    assert np.array_equal(read.take(np.arange(0, 37 << 12, 999)), array[: 37 << 12 : 999])  # the others still read


def test_a_small_batch_leaves_its_blocks_cached_and_a_large_one_leaves_the_cache_alone() -> None:
    array = np.repeat(np.arange(-60, 68, dtype=np.int8), 2048)
    out = io.BytesIO()
    written = write_blocks(out, [array], codec="zlib", block_bytes=1 << 12)
    read = BlockArray(out.getvalue(), written.encoding, written.digest, cache_blocks=4)
    read.take(np.array([5 << 12, 6 << 12]))
    assert set(read._cache) == {5, 6}
    read.take(np.arange(0, array.size, 1 << 12))  # all 64 blocks: more than the cache holds
    assert set(read._cache) == {5, 6}


@pytest.mark.slow
def test_random_reachable_positions_of_4x5k4_answer_in_a_batch_as_alone(tmp_path: Path) -> None:
    """4x5k4 (20 cells, 11,312 blocks; a build of 15 to 50 s): a batch of random reachable codes, compressed and in memory."""
    game = parse_game("4x5k4")
    layers = build_layers(game, tmp_path / "build", jobs=2).layers()
    table = open_compact(write_compact(tmp_path / "4x5k4.ttt", game, layers), game=game)
    assert isinstance(table, CompactTable)
    index = layout(game)
    drawn = index.codes_at(np.random.default_rng(45).integers(0, index.size, 60_000))
    codes = drawn[table.lookup_codes(drawn, check=False).score != UNREACHABLE][:20_000]
    _assert_batch_answers_as_one_by_one(table, codes)
    _assert_batch_answers_as_one_by_one(table.load_into_memory(), codes)


@pytest.mark.parametrize("name", ["3x3k3", "4x5k4", "5x5k4", "2x9k4", "3x7k1", "5x5k5", "4x4k2"])
def test_the_winning_cells_of_many_boards_are_each_boards_own(name: str) -> None:
    game = parse_game(name)
    rules, rng = game.rules, np.random.default_rng(len(name))
    held = rng.integers(0, 1 << game.cells, 3000) & rng.integers(0, 1 << game.cells, 3000)
    other = rng.integers(0, 1 << game.cells, 3000) & ~held & game.full_mask
    empty = game.full_mask & ~(held | other)
    many = rules.winning_cells_many(held, empty).tolist()
    assert many == [rules.winning_cells(h, e) for h, e in zip(held.tolist(), empty.tolist(), strict=True)]


@pytest.mark.parametrize("name", ["3x3k3", "4x5k4", "5x5k4"])  # 8 symmetries; 4 in uint32; 8 in int64 (25 cells)
def test_the_canonical_children_of_many_boards_are_each_boards_own(name: str) -> None:
    game = parse_game(name)
    index = layout(game)
    codes = index.codes_at(np.random.default_rng(3).integers(0, index.size, 400))
    sym = symmetries(game)
    images = np.empty((sym.count - 1, codes.size), dtype=np.uint32) if sym.keeps_images else None
    sym.canonical_codes(codes, digit_fields(codes, sym.moduli), images)  # what a batch look-up keeps
    for piece in (1, 2):
        grid = sym.canonical_child_grid(codes, piece)
        assert grid.shape == (game.cells, codes.size)
        if images is not None:  # from the kept images: the same grid
            assert np.array_equal(sym.canonical_child_grid(codes, piece, images), grid)
        for column, code in enumerate(codes.tolist()):
            empty = [cell for cell in range(game.cells) if (code // 3**cell) % 3 == 0]
            assert grid[empty, column].tolist() == list(sym.canonical_child_codes(code, piece, empty)), (code, piece)
