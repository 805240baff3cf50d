"""A table file's header is checked against the game's layout before anything it declares is read.

The game named in the header fixes how many items, blocks and bytes its table holds; a header
that declares more is refused before its digests are read or hashed, and a dense table of a game
past 16 cells (which only a forger writes) is refused at once. Each refusal is one line naming
the file.

The forged files are sparse: a few kilobytes on disk, as large as they claim to be, every
checksum consistent with what they declare (the root computed as the package computes it).
How much opening reads is measured by the kernel (``rchar`` of ``/proc/self/io``): a count of
bytes, not a time.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.contents import opening
from solver.contents.stored import compact_meta
from solver.encoding.layouts import layout
from solver.errors import TableError
from solver.rules.game import parse_game
from solver.storage import tablefile
from solver.storage.blockarray import DEFAULT_BLOCK_BYTES, Encoding
from solver.store.locate import open_file

IO = Path("/proc/self/io")
pytestmark = pytest.mark.skipif(not IO.exists(), reason="needs /proc/self/io to count the bytes read")


def bytes_read() -> int:
    return int(next(line for line in IO.read_text().splitlines() if line.startswith("rchar:")).split()[1])


def write_sparse(path: Path, header: tablefile.Header, digests: bytes | None = None) -> Path:
    """The file a header describes: the header with its root, holes for the arrays, the digests (holes when all zero)."""
    digests = digests if digests is not None else bytes(32 * header.digest_count)
    root = tablefile.root_of(header, digests)
    header = tablefile.Header(header.kind, header.game, header.meta, header.arrays, header.block_bytes, header.digests_offset, root, header.format_version)
    with path.open("wb") as out:
        out.write(tablefile.head_bytes(header, header.arrays[0].offset - 12))
        if digests.strip(b"\0"):
            out.seek(header.digests_offset)
            out.write(digests)
        out.truncate(header.end)
    return path


def one_line_refusal(path: Path, *fragments: str) -> str:
    result = CliRunner().invoke(main, ["verify", "--table", str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"solve: error: {path}: "), line
    for fragment in fragments:
        assert fragment in line, line
    return line


def forged_compressed(path: Path, blocks: int) -> Path:
    """A 3x4k3 compact file whose header declares ``blocks`` compressed blocks (a few bytes each)."""
    game = parse_game("3x4k3")
    encoding = Encoding("zlib", 6, DEFAULT_BLOCK_BYTES, blocks * DEFAULT_BLOCK_BYTES, 16 * blocks)
    far = 1 << 50
    placeholder = tablefile._compressed_header(game, compact_meta(game), encoding, far, far)
    offset = tablefile.aligned(12 + len(tablefile.canonical_json({**tablefile.header_dict(placeholder), "root": placeholder.root})))
    region_end = offset + encoding.region_bytes
    return write_sparse(path, tablefile._compressed_header(game, compact_meta(game), encoding, offset, tablefile.aligned(region_end)))


def test_a_header_declaring_millions_of_blocks_is_refused_before_its_digests_are_read(tmp_path: Path) -> None:
    """A few kilobytes on disk declaring 2 M blocks (64 MB of digests): opening reads its header only."""
    path = forged_compressed(tmp_path / "3x4k3.ttt", 2_000_000)
    assert path.stat().st_size > 64 << 20 and path.stat().st_blocks * 512 < 1 << 20, "the forged file must be sparse"
    before = bytes_read()
    with pytest.raises(TableError) as caught:
        opening.open_table(path)
    assert bytes_read() - before < 1 << 20, f"opening read {bytes_read() - before:,} bytes"
    message = str(caught.value)
    assert "does not fit the game's layout" in message and f"declare {2_000_000 * DEFAULT_BLOCK_BYTES:,} items" in message, message
    one_line_refusal(path, "does not fit the game's layout")


def test_a_header_declaring_more_compressed_bytes_than_its_blocks_can_take_is_refused(tmp_path: Path) -> None:
    game = parse_game("3x4k3")
    blocks = -(-layout(game).size // DEFAULT_BLOCK_BYTES)
    encoding = Encoding("zlib", 6, DEFAULT_BLOCK_BYTES, layout(game).size, 1 << 40)  # a terabyte of holes
    far = 1 << 50
    placeholder = tablefile._compressed_header(game, compact_meta(game), encoding, far, far)
    offset = tablefile.aligned(12 + len(tablefile.canonical_json({**tablefile.header_dict(placeholder), "root": placeholder.root})))
    header = tablefile._compressed_header(game, compact_meta(game), encoding, offset, tablefile.aligned(offset + encoding.region_bytes))
    assert header.digest_count == blocks
    try:
        path = write_sparse(tmp_path / "3x4k3.ttt", header)
    except OSError as error:  # a file system without terabyte files
        pytest.skip(f"cannot make a sparse file of a terabyte here: {error}")
    one_line_refusal(path, "does not fit the game's layout", "compressed bytes")


def test_a_dense_table_of_a_17_cell_game_is_refused_at_once(tmp_path: Path) -> None:
    """Its checksums consistent, such a file is refused from its header: no in-memory proof of a game that is not dense."""
    game = parse_game("1x17k3")
    header, length = tablefile.header_layout("dense", game, {}, {"entries": (tablefile.ENTRY, (game.codes,))})
    assert header.arrays[0].offset == 12 + length
    block = header.block_bytes
    whole, last = divmod(header.arrays[0].nbytes, block)
    digests = hashlib.sha256(bytes(block)).digest() * whole + (hashlib.sha256(bytes(last)).digest() if last else b"")
    path = write_sparse(tmp_path / "1x17k3.ttt", header, digests)
    before = bytes_read()
    with pytest.raises(TableError, match="dense tables hold games of at most 16 cells"):
        open_file(path)
    assert bytes_read() - before < 1 << 20
    one_line_refusal(path, "dense tables hold games of at most 16 cells", "damaged or forged")
    result = CliRunner().invoke(main, ["lookup", "0", "--game", "1x17k3", "--table-dir", str(tmp_path)])
    assert result.exit_code == 1 and len(result.stderr.splitlines()) == 1 and str(path) in result.stderr, result.output


@pytest.mark.parametrize("change", ["block size", "array offset", "digests offset"])
def test_a_header_whose_layout_is_not_the_one_its_game_gives_is_refused(tmp_path: Path, change: str) -> None:
    """Block size and offsets are fixed by the game and the header's length: any other is a forgery, refused in one line."""
    game = parse_game("3x4k3")
    header, length = tablefile.header_layout("dense", game, {}, {"entries": (tablefile.ENTRY, (game.codes,))})
    spec = header.arrays[0]
    if change == "block size":
        header = tablefile.Header("dense", game, {}, (spec,), header.block_bytes * 2, header.digests_offset, "", header.format_version)
    elif change == "array offset":
        moved = tablefile.ArraySpec(spec.name, spec.dtype, spec.shape, spec.offset + 64, 0)
        header = tablefile.Header("dense", game, {}, (moved,), header.block_bytes, header.digests_offset + 64, "", header.format_version)
    else:
        header = tablefile.Header("dense", game, {}, (spec,), header.block_bytes, header.digests_offset + 64, "", header.format_version)
    digests = bytes(32 * header.digest_count)
    root = tablefile.root_of(header, digests)
    header = tablefile.Header(header.kind, game, {}, header.arrays, header.block_bytes, header.digests_offset, root, header.format_version)
    path = tmp_path / "3x4k3.ttt"
    with path.open("wb") as out:
        out.write(tablefile.head_bytes(header, length))
        out.truncate(header.end)
    one_line_refusal(path)
    os.remove(path)


@pytest.mark.parametrize(("stated", "said"), [((3, 3, 3, "nosuchrule"), "no rule is named"), ((3, 3, 0, ""), "does not fit a 3x3 board")])
def test_a_header_whose_numbers_name_no_game_is_refused_before_its_digests_are_read(tmp_path: Path, stated: tuple[int, int, int, str], said: str) -> None:
    """Storage reads a header's game as plain numbers; the layer above makes a game of them (and refuses numbers that
    are none) before anything the header declares is read, with the rebuild command of the file's name."""
    game = parse_game("3x3k3")
    header, _ = tablefile.header_layout("dense", tablefile.StoredGame(*stated), {}, {"entries": (tablefile.ENTRY, (game.codes,))})
    path = write_sparse(tmp_path / "3x3k3.ttt", header)
    before = bytes_read()
    with pytest.raises(TableError, match=rf"corrupt header \(InvalidGameError: .*{said}.*rebuild it with: solve build --game 3x3k3 --output"):
        opening.open_table(path)
    assert bytes_read() - before < 1 << 20
    one_line_refusal(path, "corrupt header", "solve build --game 3x3k3")
