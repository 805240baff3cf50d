"""The fast paths of compact look-ups (the look-up targets of Performance) answer exactly as the simple ones.

Each fast path is checked against a slower reference that it replaced or that states the
rule plainly: the block check (on arrays and on the bytes of a decoded block) against an item-by-item check, the batch rules
against the one-code rules (``CodeRules.status_of``, ``Layout.index_of``), canonical codes
against the smallest image, decoding over threads against one thread, batches split over
threads against one part. Damaged blocks are still refused on every path.
"""

from __future__ import annotations

import io
from bisect import bisect_right
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solver.tables.compact as compact
from solver.contents.plausible import compact_check, possible_bytes, score_mask
from solver.encoding.coderules import code_rules, digit_fields
from solver.encoding.layouts import layout
from solver.encoding.symmetry import symmetries
from solver.errors import InvalidBoardError, TableError
from solver.retrograde.sweep import build_layers
from solver.rules.base import INVALID
from solver.rules.game import parse_game
from solver.storage.blockarray import CODECS, BlockArray, Encoding, write_blocks
from solver.storage.tablefile import open_table
from solver.store.locate import open_compact
from solver.store.make import write_compact

ZSTD = pytest.mark.skipif(not CODECS["zstd"].available(), reason="zstd is not installed")


# -- the block check -------------------------------------------------------------------------------
def item_by_item(game_name: str, offsets: list[int], first: int, items: np.ndarray) -> str | None:
    """The plausibility check stated plainly: the first item whose layer cannot hold its score."""
    game = parse_game(game_name)
    mask = score_mask(game)
    for at, value in enumerate(items.tolist()):
        ply = bisect_right(offsets, first + at) - 1
        if not mask[ply][value & 0xFF]:
            return f"board {first + at:,} (layer {ply}) holds the score {value}, impossible for a {game.name} position with {ply} pieces on the board"
    return None


@st.composite
def blocks_of_runs(draw: st.DrawFn) -> tuple[list[int], int, np.ndarray]:
    """Layer offsets of 3x3k3 (10 layers of random sizes), a first board and a block of runs of scores."""
    sizes = draw(st.lists(st.integers(0, 40), min_size=10, max_size=10))
    offsets = [0, *np.cumsum(sizes).tolist()]
    total = offsets[-1]
    first = draw(st.integers(0, max(0, total - 1)))
    values = st.sampled_from([-128, -100, -98, -97, -96, 0, 0, 1, 95, 96, 97, 99, 127])
    runs = draw(st.lists(st.tuples(values, st.integers(1, 30)), max_size=12))
    items = np.repeat(np.array([v for v, _ in runs], dtype=np.int8), [n for _, n in runs])[: total - first]
    return offsets, first, items


@settings(max_examples=300, deadline=None)
@given(blocks_of_runs())
def test_the_block_check_by_runs_finds_what_an_item_by_item_check_finds(case: tuple[list[int], int, np.ndarray]) -> None:
    offsets, first, items = case
    assert compact_check(parse_game("3x3k3"), offsets)(first, items) == item_by_item("3x3k3", offsets, first, items)


@st.composite
def blocks_of_any_bytes(draw: st.DrawFn) -> tuple[str, list[int], int, bytes]:
    """A game, layer offsets of random sizes (some empty), a first board and a block of arbitrary bytes: every
    value 0 to 255, mostly the scores its layers can hold, so that one impossible byte anywhere decides."""
    name = draw(st.sampled_from(["3x3k3", "2x9k4", "4x4k4"]))
    game = parse_game(name)
    sizes = draw(st.lists(st.integers(0, 60), min_size=game.cells + 1, max_size=game.cells + 1))
    offsets = [0, *np.cumsum(sizes).tolist()]
    total = max(1, offsets[-1])
    first = draw(st.integers(0, total - 1))
    possible = sorted({v & 0xFF for ply in range(game.cells + 1) for v in game.rules.possible_scores(ply)})
    values = st.one_of(st.sampled_from(possible), st.integers(0, 255)) if draw(st.booleans()) else st.sampled_from(possible)
    data = bytes(draw(st.lists(values, max_size=max(0, offsets[-1] - first))))
    return name, offsets, first, data


@settings(max_examples=400, deadline=None)
@given(blocks_of_any_bytes())
def test_the_block_check_of_a_decoded_block_as_bytes_finds_what_an_item_by_item_check_finds(case: tuple[str, list[int], int, bytes]) -> None:
    name, offsets, first, data = case
    items = np.frombuffer(data, dtype=np.int8)
    expected = item_by_item(name, offsets, first, items)
    check = compact_check(parse_game(name), offsets)
    assert check(first, data) == expected  # what a BlockArray passes: the decoded bytes, no copy
    assert check(first, items) == expected  # what a guard of a plain file passes: an int8 array
    assert check(first, items[::-1].copy()[::-1]) == expected  # an array that is a view, not its own bytes


@pytest.mark.parametrize("name", ["3x3k3", "2x9k4", "4x5k4", "5x5k4"])
def test_the_bytes_a_layer_can_hold_are_its_possible_scores(name: str) -> None:
    game = parse_game(name)
    for ply in range(game.cells + 1):
        expected = sorted(v & 0xFF for v in game.rules.possible_scores(ply))
        assert list(possible_bytes(game, ply)) == expected, f"{name} layer {ply}"
        assert np.flatnonzero(score_mask(game)[ply]).tolist() == expected


def test_the_block_check_refuses_an_impossible_score_in_the_middle_of_a_run() -> None:
    game = parse_game("3x3k3")
    offsets = list(layout(game).layer_offsets)
    items = np.zeros(offsets[5] - offsets[3], dtype=np.int8)  # layers 3 and 4: draws everywhere
    assert compact_check(game, offsets)(offsets[3], items) is None
    items[100:200] = 99  # a win in 1 with 3 or 4 pieces on a 3x3 board: X cannot hold a line of 3 yet
    found = compact_check(game, offsets)(offsets[3], items)
    assert found is not None and found.startswith(f"board {offsets[3] + 100:,} (layer ")


# -- the zstd decoder --------------------------------------------------------------------------------
def _region(packed: bytes) -> bytes:
    import zlib

    return packed + np.array([0, len(packed)], dtype="<u8").tobytes() + np.array([zlib.crc32(packed)], dtype="<u4").tobytes()


@ZSTD
@pytest.mark.parametrize("how", ["longer frame", "two frames", "truncated frame"])
def test_a_zstd_block_that_is_not_one_frame_of_its_size_is_refused(how: str) -> None:
    zstd = CODECS["zstd"]
    block = 1 << 12
    one = zstd.compress(bytes(block), 9)
    packed = {"longer frame": zstd.compress(bytes(1 << 20), 9), "two frames": one + one, "truncated frame": one[:-3]}[how]
    read = BlockArray(_region(packed), Encoding("zstd", 9, block, block, len(packed)), lambda b: bytes(32), name="bad")
    with pytest.raises(TableError, match="bad: block 0 .*cannot be decoded"):
        read[0]


@ZSTD
def test_every_zstd_block_decoded_one_after_another_matches_its_digest() -> None:
    array = np.repeat(np.arange(-50, 50, dtype=np.int8), 3000)
    out = io.BytesIO()
    written = write_blocks(out, [array], codec="zstd", block_bytes=1 << 12)
    read = BlockArray(out.getbuffer(), written.encoding, written.digest, cache_blocks=1)
    assert [read[i] for i in range(0, array.size, 997)] == array[::997].tolist()


# -- decoding over threads -------------------------------------------------------------------------
@pytest.mark.parametrize("threads", [1, 2, 3, 8, 500])
def test_decoding_every_block_over_threads_gives_the_array_of_one_thread(threads: int) -> None:
    rng = np.random.default_rng(14)
    array = np.repeat(rng.integers(-128, 128, 4000).astype(np.int8), rng.integers(1, 60, 4000))
    out = io.BytesIO()
    written = write_blocks(out, [array], codec="zlib", block_bytes=1 << 12)
    read = BlockArray(out.getbuffer(), written.encoding, written.digest, cache_blocks=2)
    read[5000]  # one block comes from the cache
    assert np.array_equal(read.decode_all(threads=threads), array)


def test_decoding_over_threads_refuses_the_first_damaged_block() -> None:
    array = np.repeat(np.arange(-100, 100, dtype=np.int8), 500)
    out = io.BytesIO()
    written = write_blocks(out, [array], codec="zlib", block_bytes=1 << 12)
    digests = bytearray(written.digests)
    for block in (5, 20):  # one damaged block in each half
        digests[32 * block] ^= 1
    read = BlockArray(out.getbuffer(), written.encoding, lambda b: bytes(digests[32 * b : 32 * b + 32]), name="t.ttt")
    with pytest.raises(TableError, match="t.ttt: block 5 .*does not match its checksum"):
        read.decode_all(threads=2)


# -- batch rules and canonical codes ------------------------------------------------------------------
def test_the_batch_rules_agree_with_the_one_code_rules_on_every_3x4k3_code() -> None:
    game = parse_game("3x4k3")
    rules, index = code_rules(game), layout(game)
    codes = np.arange(game.codes)
    status, pieces = rules.classify(codes)
    for code in codes.tolist():
        legal = index.index_of_code(code) >= 0
        assert status[code] == (rules.status_of(code) if legal else INVALID), code
        assert pieces[code] == (index.layer_of(index.index_of_code(code)) if legal else 0), code
        judged, count = rules.judge(code)
        assert judged == status[code] and (count == pieces[code] or not legal), code


@pytest.mark.parametrize("name", ["5x5k4", "4x5k4", "3x7k3", "2x9k4", "5x5k5"])
def test_the_batch_rules_agree_with_the_one_code_rules_on_late_boards_with_several_lines(name: str) -> None:
    game = parse_game(name)
    rules, index = code_rules(game), layout(game)
    rng = np.random.default_rng(15)
    late = rng.integers(index.layer_offsets[game.cells - 8], index.size, 20_000)  # many boards with lines, some with several
    codes = np.concatenate([index.codes_at(late), rng.integers(0, game.codes, 5_000)])  # and any code, illegal counts too
    status, pieces = rules.classify(codes)
    patterns = digit_fields(codes, rules.moduli)
    assert np.array_equal(rules.classify(codes, patterns)[0], status)
    for code, found, count in zip(codes.tolist(), status.tolist(), pieces.tolist(), strict=True):
        at = index.index_of_code(code)
        assert found == (rules.status_of(code) if at >= 0 else INVALID), code
        assert count == (index.layer_of(at) if at >= 0 else 0), code
        assert rules.judge(code) == (found, count) or at < 0, code
    several = [c for c in codes.tolist() if rules.status_of(c) != INVALID and rules.word_of(c) and _lines_held(game, rules.word_of(c)) > 1]
    assert several, "the sample has boards where the winner holds several lines"


@pytest.mark.parametrize("name", ["5x5k4", "3x3k3", "2x9k4", "5x5k5", "1x4k1"])
def test_the_winning_cells_of_a_player_are_the_empty_cells_where_a_move_completes_a_line(name: str) -> None:
    game = parse_game(name)
    rules = game.rules
    rng = np.random.default_rng(16)
    for _ in range(2_000):
        cells = rng.permutation(game.cells)
        mover_cells, other_cells = int(rng.integers(0, game.cells)), int(rng.integers(0, game.cells // 2 + 1))
        mover = sum(1 << int(c) for c in cells[:mover_cells])
        other = sum(1 << int(c) for c in cells[mover_cells : mover_cells + other_cells])
        empty = game.full_mask & ~(mover | other)
        expected = sum(
            1 << c for c in range(game.cells) if empty >> c & 1 and any(line >> c & 1 and (mover | 1 << c) & line == line for line in game.rules.line_masks)
        )
        assert rules.winning_cells(mover, empty) == expected, (name, bin(mover), bin(other))


def _lines_held(game, word: int) -> int:
    x, o = word & 0xFFFFFFFF, word >> 32
    return sum(1 for line in game.rules.line_masks if x & line == line or o & line == line)


@pytest.mark.parametrize("name", ["5x5k4", "4x5k4", "3x6k3", "3x3k3", "2x9k4"])
def test_canonical_codes_are_the_smallest_image_with_or_without_given_chunks(name: str) -> None:
    game = parse_game(name)
    sym = symmetries(game)
    codes = layout(game).codes_at(np.random.default_rng(16).integers(0, layout(game).size, 3_000))
    smallest = np.array([min(sym.images_of(code)) for code in codes.tolist()])
    assert np.array_equal(sym.canonical_codes(codes), smallest)
    assert np.array_equal(sym.canonical_codes(codes, digit_fields(codes, sym.moduli)), smallest)
    assert np.array_equal(sym.canonical(codes)[0], smallest)
    assert [sym.canonical_code_of(code) for code in codes.tolist()] == smallest.tolist()


@pytest.mark.parametrize("name", ["5x5k4", "4x5k4", "3x3k3", "2x9k4", "2x2k2", "1x2k2", "1x1k1"])
def test_the_canonical_code_of_one_board_is_its_smallest_image_by_the_plain_reference(name: str) -> None:
    """Any code (illegal counts, finished and unreachable boards too) and every image of each: the smallest
    image computed cell by cell from the game's permutations, the same for all images."""
    game = parse_game(name)
    sym = symmetries(game)
    rng = np.random.default_rng(19)
    codes = rng.integers(0, game.codes, 300).tolist() if game.codes > 300 else list(range(game.codes))
    for code in codes:
        cells = [(code // 3**cell) % 3 for cell in range(game.cells)]
        images = [sum(cells[perm[cell]] * 3**cell for cell in range(game.cells)) for perm in game.rules.symmetries]
        assert sym.images_of(code) == images, code
        assert sym.canonical_of(code) == (min(images), images.index(min(images))), code
        for image in images:
            assert sym.canonical_code_of(image) == min(images), (code, image)


@pytest.mark.parametrize("name", ["3x3k3", "3x4k3"])
def test_every_code_answers_at_as_the_batch_path_does(name: str, tmp_path: Path) -> None:
    """``at`` (one code: rules and pieces from one board word, the canonical code from table rows) against
    ``lookup_codes`` (the vectorised rules and canonical codes) on every code of a square and a rectangle:
    non-canonical images, finished, unreachable and illegal boards."""
    game = parse_game(name)
    table = open_compact(write_compact(tmp_path / f"{name}.ttt", game, build_layers(game, tmp_path / "build", jobs=1).layers()))
    codes = np.arange(game.codes)
    batch = table.lookup_codes(codes, check=False)
    for code, score, ply in zip(codes.tolist(), batch.score.tolist(), batch.pieces.tolist(), strict=True):
        if score == -128:
            with pytest.raises(InvalidBoardError):
                table.at(code)
            assert table.score_of(code) == -128, code
            continue
        position = table.at(code)
        assert (position.score, position.pieces) == (score, ply), code
        assert table.score_of(code) == score, code


# -- batches over threads ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def table_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("3x4k3")
    game = parse_game("3x4k3")
    return write_compact(directory / "3x4k3.ttt", game, build_layers(game, directory / "build", jobs=1).layers())


def _small_parts(monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    """Batches of 3x4k3 split into many small parts over ``workers`` threads."""
    monkeypatch.setattr(compact, "_BATCH", 1 << 10)
    monkeypatch.setattr(compact, "_THREADS_FROM", 1 << 12)
    monkeypatch.setattr(compact, "_WORKERS", workers)


@pytest.mark.parametrize("in_memory", [False, True])
def test_a_batch_split_over_threads_answers_as_one_part(table_file: Path, monkeypatch: pytest.MonkeyPatch, in_memory: bool) -> None:
    codes = np.random.default_rng(17).integers(0, parse_game("3x4k3").codes, 100_000)
    table = open_compact(table_file)
    if in_memory:
        table.load_into_memory(threads=2)
    one = table.lookup_codes(codes, check=False)
    _small_parts(monkeypatch, 3)
    split = open_compact(table_file)
    if in_memory:
        split.load_into_memory(threads=3)
    many = split.lookup_codes(codes, check=False)
    assert np.array_equal(one.score, many.score) and np.array_equal(one.pieces, many.pieces)
    for code, score in zip(codes[:300].tolist(), one.score[:300].tolist(), strict=True):  # the scalar path agrees
        if score != -128:
            assert split.at(code).score == score


def test_a_code_out_of_range_in_a_later_part_is_named(table_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _small_parts(monkeypatch, 2)
    table = open_compact(table_file).load_into_memory()
    codes = np.zeros(10_000, dtype=np.int64)
    codes[9_000] = parse_game("3x4k3").codes
    with pytest.raises(InvalidBoardError, match=r"codes\[9000\] = 531441 is out of range"):
        table.lookup_codes(codes)


def test_pieces_of_a_batch_are_the_pieces_on_each_board_and_0_for_illegal_counts(table_file: Path) -> None:
    game = parse_game("3x4k3")
    table, index = open_compact(table_file), layout(game)
    codes = np.random.default_rng(18).integers(0, game.codes, 20_000)
    found = table.lookup_codes(codes, check=False)
    expected = [index.layer_of(index.index_of_code(c)) if index.index_of_code(c) >= 0 else 0 for c in codes.tolist()]
    assert found.pieces.tolist() == expected


def test_a_batchs_old_ply_name_still_gives_the_pieces_and_says_it_is_deprecated(table_file: Path) -> None:
    found = open_compact(table_file).lookup_codes(np.arange(200), check=False)
    with pytest.warns(DeprecationWarning, match=r"Scores\.pieces"):
        old = found.ply
    assert old is found.pieces and not hasattr(found, "ply_source")


def test_loading_into_memory_over_threads_refuses_a_damaged_block(table_file: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.ttt"
    data = bytearray(table_file.read_bytes())
    spec = open_table(table_file).header.spec("scores")
    assert spec.encoding is not None
    data[spec.offset + spec.encoding.data_bytes - 5] ^= 0x40  # inside the last block
    damaged.write_bytes(bytes(data))
    with pytest.raises(TableError, match=f"block {spec.encoding.blocks - 1} .*does not match its CRC.*rebuild it with"):
        open_compact(damaged).load_into_memory(threads=2)
