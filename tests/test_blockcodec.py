"""The compressed block array (solver.storage.blockarray): round trip, random access, damage refused, same bytes.

A region is written into a real file and read back through a read-only memory map,
as a table file would hold it. Damage is a flipped byte in a compressed block, in the
offset table, in a block CRC, or in a stored digest: each must raise TableError naming
the file, before any wrong byte is answered.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.errors import TableError
from solver.storage.blockarray import CODECS, BlockArray, Encoding, Written, codec_of, default_codec, write_blocks

AVAILABLE = [name for name, codec in CODECS.items() if codec.available()]
BLOCK = 1 << 12  # small blocks: many of them in a small array


def scores_like(size: int, seed: int = 14) -> np.ndarray:
    """Runs of a few score values with some noise: compressible like a table, not trivially."""
    rng = np.random.default_rng(seed)
    values = np.array([-128, -100, -97, 0, 0, 0, 95, 99], dtype=np.int8)
    runs = rng.integers(1, 200, size=size // 50 + 2)
    return np.repeat(rng.choice(values, size=runs.size), runs)[:size].astype(np.int8)


def write_file(path: Path, parts: list[np.ndarray], codec: str, block: int = BLOCK) -> tuple[Written, int]:
    """A file with 100 bytes of something else, then the region (as inside a table file); returns where it starts."""
    with open(path, "wb") as out:
        out.write(b"x" * 100)
        written = write_blocks(out, parts, codec=codec, block_bytes=block)
    return written, 100


def open_region(path: Path, written: Written, start: int, digests: bytes | None = None, cache_blocks: int = 4) -> BlockArray:
    region = np.memmap(path, dtype=np.uint8, mode="r", offset=start)
    stored = written.digests if digests is None else digests
    return BlockArray(
        region,
        written.encoding,
        lambda b: stored[32 * b : 32 * b + 32],
        name=str(path),
        cache_blocks=cache_blocks,
    )


def flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x41
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("codec", AVAILABLE)
def test_round_trip_of_parts_that_straddle_blocks(tmp_path: Path, codec: str) -> None:
    array = scores_like(50_001)
    parts = [array[:1], array[1:4095], array[4095:4097], array[4097:30_000], array[30_000:30_000], array[30_000:]]
    written, start = write_file(tmp_path / "t", parts, codec)
    assert written.encoding.blocks == -(-array.size // BLOCK) and written.encoding.size == array.size
    read = open_region(tmp_path / "t", written, start)
    assert np.array_equal(read.decode_all(), array)
    assert np.array_equal(read.read(0, array.size), array)
    assert read.problems() == []


@pytest.mark.parametrize("codec", AVAILABLE)
def test_random_access_answers_every_item_like_the_array(tmp_path: Path, codec: str) -> None:
    array = scores_like(40_000)
    written, start = write_file(tmp_path / "t", [array], codec)
    read = open_region(tmp_path / "t", written, start, cache_blocks=2)  # a tiny cache: blocks come and go
    rng = np.random.default_rng(1)
    picks = rng.integers(0, array.size, size=3000)
    assert [read[i] for i in picks.tolist()] == array[picks].tolist()
    assert np.array_equal(read.take(picks.reshape(30, 100)), array[picks].reshape(30, 100))
    for a, b in [(0, 0), (4095, 4097), (8191, 8192), (39_000, 40_000), (0, 40_000)]:
        assert np.array_equal(read.read(a, b), array[a:b])
    with pytest.raises(IndexError):
        read[array.size]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 9000), max_size=6), st.sampled_from(AVAILABLE), st.sampled_from([1 << 10, 1 << 12]))
def test_any_cut_into_parts_gives_the_same_bytes(cuts: list[int], codec: str, block: int) -> None:
    array = scores_like(9000, seed=len(cuts))
    bounds = [0, *sorted(cuts), array.size]
    parts = [array[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    whole, split = io.BytesIO(), io.BytesIO()
    first = write_blocks(whole, [array], codec=codec, block_bytes=block)
    second = write_blocks(split, parts, codec=codec, block_bytes=block)
    assert whole.getvalue() == split.getvalue() and first == second
    read = BlockArray(whole.getbuffer(), first.encoding, first.digest)
    assert np.array_equal(read.decode_all(), array)


@pytest.mark.parametrize("codec", AVAILABLE)
def test_the_same_array_gives_the_same_bytes(tmp_path: Path, codec: str) -> None:
    array = scores_like(30_000)
    one, _ = write_file(tmp_path / "a", [array], codec)
    two, _ = write_file(tmp_path / "b", [array.copy()], codec)
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()
    assert one == two


def test_digests_name_the_decoded_bytes_whatever_the_codec() -> None:
    array = scores_like(20_000)
    digests = {name: write_blocks(io.BytesIO(), [array], codec=name, block_bytes=BLOCK).digests for name in AVAILABLE}
    expected = b"".join(hashlib.sha256(array[a : a + BLOCK].tobytes()).digest() for a in range(0, array.size, BLOCK))
    assert all(found == expected for found in digests.values())


@pytest.mark.parametrize("codec", AVAILABLE)
def test_a_flipped_byte_in_any_compressed_block_is_refused(tmp_path: Path, codec: str) -> None:
    array = scores_like(30_000)
    written, start = write_file(tmp_path / "t", [array], codec)
    clean = (tmp_path / "t").read_bytes()
    offsets = np.frombuffer(clean, dtype="<u8", count=written.encoding.blocks + 1, offset=start + written.encoding.data_bytes)
    for block in range(written.encoding.blocks):
        for at in (int(offsets[block]), (int(offsets[block]) + int(offsets[block + 1])) // 2, int(offsets[block + 1]) - 1):
            (tmp_path / "t").write_bytes(clean)
            flip(tmp_path / "t", start + at)
            read = open_region(tmp_path / "t", written, start)
            with pytest.raises(TableError, match=rf"{tmp_path / 't'}: block {block} .*damaged"):
                read.block(block)
            assert len(read.problems()) == 1, "only the damaged block is refused"


@pytest.mark.parametrize("codec", AVAILABLE)
def test_a_flipped_byte_in_the_offset_table_or_the_crcs_is_refused(tmp_path: Path, codec: str) -> None:
    array = scores_like(30_000)
    written, start = write_file(tmp_path / "t", [array], codec)
    clean = (tmp_path / "t").read_bytes()
    index = start + written.encoding.data_bytes
    for at in range(index, index + written.encoding.index_bytes):
        (tmp_path / "t").write_bytes(clean)
        flip(tmp_path / "t", at)
        try:  # refused when opened (offsets out of order) or when the blocks are read
            read = open_region(tmp_path / "t", written, start)
            problems = read.problems()
        except TableError as error:
            problems = [str(error)]
        assert problems and all(str(tmp_path / "t") in p for p in problems), f"byte {at - index} of the index"


@pytest.mark.parametrize("codec", AVAILABLE)
def test_a_flipped_byte_in_a_stored_digest_is_refused(tmp_path: Path, codec: str) -> None:
    array = scores_like(30_000)
    written, start = write_file(tmp_path / "t", [array], codec)
    for at in (0, 31, 32 * 3 + 7, len(written.digests) - 1):
        digests = bytearray(written.digests)
        digests[at] ^= 1
        read = open_region(tmp_path / "t", written, start, digests=bytes(digests))
        with pytest.raises(TableError, match="does not match its checksum"):
            read.block(at // 32)
        other = 1 if at // 32 == 0 else 0
        assert len(read.block(other)) == BLOCK, "the other blocks still read"


@pytest.mark.parametrize("codec", AVAILABLE)
def test_a_block_forged_with_a_matching_crc_is_refused_by_its_digest(tmp_path: Path, codec: str) -> None:
    # Replace the array by another one of the same size and keep the original digests: every CRC
    # and offset is right for the forged blocks, only the digests of the decoded bytes can tell.
    array = scores_like(30_000)
    written = write_blocks(io.BytesIO(), [array], codec=codec, block_bytes=BLOCK)
    forged_array = array.copy()
    forged_array[5000] = 99 if array[5000] != 99 else 0
    forged = io.BytesIO()
    other = write_blocks(forged, [forged_array], codec=codec, block_bytes=BLOCK)
    read = BlockArray(forged.getbuffer(), other.encoding, written.digest, name="forged")
    assert read[0] == array[0]
    with pytest.raises(TableError, match="forged: block 1 .*does not match its checksum"):
        read[5000]


def test_a_truncated_region_is_refused(tmp_path: Path) -> None:
    written, start = write_file(tmp_path / "t", [scores_like(20_000)], "zlib")
    data = (tmp_path / "t").read_bytes()
    (tmp_path / "t").write_bytes(data[:-1])
    with pytest.raises(TableError, match="truncated"):
        open_region(tmp_path / "t", written, start)


def _bomb_region(decoded: int) -> tuple[bytes, Encoding]:
    """A region of one block that inflates to ``decoded`` bytes, far more than a block."""
    bomb = codec_of("zlib").compress(bytes(decoded), 9)
    region = bomb + np.array([0, len(bomb)], dtype="<u8").tobytes() + np.array([__import__("zlib").crc32(bomb)], dtype="<u4").tobytes()
    return region, Encoding("zlib", 9, BLOCK, BLOCK, len(bomb))


def test_a_block_never_decodes_past_its_size(tmp_path: Path) -> None:
    # A hostile file whose block inflates to far more than a block: refused, not decoded in full.
    region, encoding = _bomb_region(1 << 20)  # 1 KiB compressed: as long as a block may be
    read = BlockArray(region, encoding, lambda b: bytes(32), name="bomb")
    with pytest.raises(TableError, match="cannot be decoded"):
        read[0]


def test_a_block_longer_than_any_block_compresses_to_is_refused_before_it_is_read(tmp_path: Path) -> None:
    # 16 KiB for a 4 KiB block: no codec writes that, and its CRC would be computed over all of it.
    region, encoding = _bomb_region(1 << 24)
    with pytest.raises(TableError, match="offset table"):
        BlockArray(region, encoding, lambda b: bytes(32), name="bomb")


def test_encoding_round_trips_through_its_header_entry_and_refuses_bad_fields() -> None:
    encoding = write_blocks(io.BytesIO(), [scores_like(5000)], codec="zlib", block_bytes=BLOCK).encoding
    assert Encoding.from_json(encoding.to_json()) == encoding
    for bad in ({"codec": "rar"}, {"block_bytes": 3000}, {"level": 99}, {"size": -1}, {"data_bytes": "12"}):
        with pytest.raises(ValueError):
            Encoding.from_json({**encoding.to_json(), **bad})
    with pytest.raises(ValueError):
        Encoding.from_json({**encoding.to_json(), "extra": 1})


def test_writing_refuses_a_part_that_is_not_int8() -> None:
    with pytest.raises(ValueError, match="int8"):
        write_blocks(io.BytesIO(), [np.zeros(10, dtype=np.int16)], codec="zlib")


def test_every_new_file_is_written_with_zstd_because_zstandard_is_a_core_dependency() -> None:
    """Issue 24: a plain ``pip install .`` wrote zlib files 12 % larger than the manual's; zstandard is a dependency now."""
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    assert any(requirement.startswith("zstandard") for requirement in project["dependencies"])
    assert all(not requirement.startswith("zstandard") for extra in project["optional-dependencies"].values() for requirement in extra)
    assert default_codec() == "zstd" and CODECS["zstd"].available()


def test_an_empty_array_is_a_region_of_no_blocks() -> None:
    out = io.BytesIO()
    written = write_blocks(out, [np.zeros(0, dtype=np.int8)], codec="zlib")
    read = BlockArray(out.getbuffer(), written.encoding, written.digest)
    assert written.encoding.blocks == 0 and read.decode_all().size == 0 and read.problems() == []


def test_a_missing_codec_package_is_named_with_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import solver.storage.blockcodec as blockcodec
    from solver.errors import CodecUnavailable

    out = io.BytesIO()
    written = write_blocks(out, [scores_like(5000)], codec="zlib", block_bytes=BLOCK)
    monkeypatch.setattr(blockcodec, "_zstd", lambda: None)
    with pytest.raises(CodecUnavailable, match=r"zstandard.* -m pip install 'zstandard>=0.23'$"):
        default_codec()  # an environment installed without the dependencies writes nothing, rather than other files
    zstd_encoding = Encoding("zstd", 9, BLOCK, written.encoding.size, written.encoding.data_bytes)
    with pytest.raises(CodecUnavailable, match=r"zstandard.* -m pip install 'zstandard>=0.23'$"):
        BlockArray(out.getbuffer(), zstd_encoding, written.digest, name="t.ttt")
    assert BlockArray(out.getbuffer(), written.encoding, written.digest)[0] == scores_like(5000)[0], "zlib still reads"


def _backends() -> dict[str, object]:
    """Every zstd implementation this Python has: the ``zstandard`` package and ``compression.zstd`` (or its backport)."""
    from solver.storage import blockcodec

    found: dict[str, object] = {}
    try:
        import zstandard

        found["zstandard"] = blockcodec._Zstandard(zstandard)
    except ImportError:
        pass
    try:
        from compression import zstd  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        try:
            from backports import zstd  # type: ignore[import-not-found, no-redef, unused-ignore]
        except ImportError:
            return found
    found["compression.zstd"] = blockcodec._Stdlib(zstd)
    return found


BACKENDS = _backends()


def test_both_zstd_packages_write_the_same_bytes_and_read_each_other() -> None:
    if len(BACKENDS) < 2:
        pytest.skip(f"needs both zstandard and compression.zstd (or backports.zstd) to compare; found {sorted(BACKENDS) or 'neither'}")
    data = scores_like(200_000)
    for start in range(0, data.size, 1 << 16):
        block = data[start : start + (1 << 16)].tobytes()
        for level in (1, 9):
            outputs = {name: backend.compress(block, level) for name, backend in BACKENDS.items()}  # type: ignore[attr-defined]
            assert len(set(outputs.values())) == 1, f"level {level}: the packages wrote different frames"
            for backend in BACKENDS.values():
                assert backend.decompress(outputs["zstandard"], len(block)) == block  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_a_zstd_frame_that_declares_or_holds_more_than_its_block_is_refused(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from solver.storage import blockcodec

    monkeypatch.setattr(blockcodec, "_zstd", lambda: BACKENDS[name])
    codec = codec_of("zstd")
    big = codec.compress(bytes(1 << 20), 3)  # declares 1 MiB in its header
    with pytest.raises(ValueError, match="zstd"):
        codec.decompress(big, 1 << 12)
    with pytest.raises(ValueError, match="zstd"):
        codec.decompress(big + b"\x00" * 8, 1 << 20)  # bytes after the frame
    with pytest.raises(ValueError, match="zstd"):
        codec.decompress(big[:-4], 1 << 20)  # cut short
    assert codec.decompress(big, 1 << 20) == bytes(1 << 20)


def test_zstandard_decodes_on_many_threads_at_once(tmp_path: Path) -> None:
    if "zstandard" not in BACKENDS:
        pytest.skip("needs the zstandard package (a dependency)")
    array = scores_like(400_000)
    written, start = write_file(tmp_path / "t", [array], "zstd")
    read = open_region(tmp_path / "t", written, start)
    assert np.array_equal(read.decode_all(threads=4), array), "each thread decodes with its own context"


@pytest.mark.parametrize("codec", AVAILABLE)
def test_a_few_items_read_at_once_are_the_items_one_by_one(tmp_path: Path, codec: str) -> None:
    array = scores_like(40_000)
    written, start = write_file(tmp_path / "t", [array], codec)
    read = open_region(tmp_path / "t", written, start, cache_blocks=2)
    picks = [0, 39_999, 5, 4096, 4095, 4096, 20_000, 1, 39_999]  # blocks come and go, some read twice
    assert read.items(picks) == array[picks].tolist() and read.items([]) == []
    with pytest.raises(IndexError, match="out of range"):
        read.items([3, 40_000])


def test_the_default_level_writes_plain_zstd_frames_with_the_tuned_match_finder_and_other_levels_zstds_own() -> None:
    if "zstandard" not in BACKENDS:
        pytest.skip("needs the zstandard package (a dependency)")
    import zstandard

    from solver.storage.blockcodec import TUNED_LEVELS

    codec = codec_of("zstd")
    tuned = TUNED_LEVELS[codec.default_level]
    own = zstandard.ZstdCompressionParameters(compression_level=codec.default_level, **tuned.as_dict())
    data = scores_like(1 << 18, seed=40)
    for start in range(0, data.size, 1 << 16):
        block = data[start : start + (1 << 16)].tobytes()
        frame = codec.compress(block, codec.default_level)
        assert frame == zstandard.ZstdCompressor(compression_params=own).compress(block), "the default level takes the tuned parameters"
        assert zstandard.ZstdDecompressor().decompress(frame) == block, "any zstd reads it"
        assert codec.compress(block, 3) == zstandard.ZstdCompressor(level=3).compress(block), "a level not tuned is zstd's own"
    assert tuned.min_match > zstandard.ZstdCompressionParameters.from_level(codec.default_level, source_size=1 << 16).min_match


def test_blocks_written_in_runs_give_the_bytes_written_one_at_a_time_and_a_run_that_lies_is_refused() -> None:
    from solver.storage.blockarray import EncodedRun, encode_blocks, write_encoded

    codec = default_codec()
    level = codec_of(codec).default_level
    blocks = list(encode_blocks([scores_like(40 * BLOCK + 123, seed=41)], codec=codec, level=level, block_bytes=BLOCK))

    def run_of(part: list) -> EncodedRun:  # type: ignore[type-arg]
        return EncodedRun(
            b"".join(b.packed for b in part), np.array([len(b.packed) for b in part]), np.array([b.size for b in part]), b"".join(b.digest for b in part)
        )

    one, many = io.BytesIO(), io.BytesIO()
    single = write_encoded(one, blocks, codec=codec, level=level, block_bytes=BLOCK)
    mixed = [run_of(blocks[:7]), blocks[7], run_of(blocks[8:8]), run_of(blocks[8:30]), blocks[30], run_of(blocks[31:])]
    assert write_encoded(many, mixed, codec=codec, level=level, block_bytes=BLOCK) == single and many.getvalue() == one.getvalue()
    short = blocks[-1]  # the last block holds 123 bytes: no block may follow it
    with pytest.raises(ValueError, match="after a short block"):
        write_encoded(io.BytesIO(), [run_of([blocks[0], short, blocks[1]])], codec=codec, level=level, block_bytes=BLOCK)
    with pytest.raises(ValueError, match="after a short block"):
        write_encoded(io.BytesIO(), [short, run_of(blocks[:2])], codec=codec, level=level, block_bytes=BLOCK)
    lying = run_of(blocks[:3])
    with pytest.raises(ValueError, match="not what its lengths say"):
        write_encoded(io.BytesIO(), [EncodedRun(lying.packed[:-1], lying.lengths, lying.sizes, lying.digests)], codec=codec, level=level, block_bytes=BLOCK)
    with pytest.raises(ValueError, match="not what its lengths say"):
        write_encoded(io.BytesIO(), [EncodedRun(lying.packed, lying.lengths, lying.sizes, lying.digests[:-32])], codec=codec, level=level, block_bytes=BLOCK)
