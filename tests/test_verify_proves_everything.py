"""``solve verify`` proves everything a table file says, and a forged file is believed for nothing.

* the counts a compact file keeps in its header (each layer's histograms, what ``solve stats``
  prints) are recounted from the proved layers: a forged file of a game without a shipped
  checksum, its scores real and its histograms changed, every checksum recomputed, is refused
  before its first answer and never recorded as trusted;
* every block of the file is checked (CRC, decoding, digest, possible scores), not only those a
  look-up reads: a damaged byte anywhere fails ``verify``, and the message names its place in the
  file (a range of bytes that holds it);
* what was checked is printed, one line per part.

The forgeries are written the way an attacker would: with the package's own writer, so the
CRCs, the digests and the root all agree with the forged content.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import solver
from solver.cli import main
from solver.contents.stored import compact_meta, layer_histograms, stored_layers
from solver.errors import TableError
from solver.retrograde.sweep import build_layers
from solver.rules.game import parse_game
from solver.storage import blockarray, tablefile
from solver.store.locate import open_file

UNPINNED = "3x4k3"
"""A compact table of 3x4k3 stands in for 3x6k4: no compact checksum ships for it, and it builds in a second."""


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output and (result.exception is None or isinstance(result.exception, SystemExit)), result.exception
    return result.exit_code, result.stdout, result.stderr


def write_with_meta(path: Path, game: str, layers: list[np.ndarray], meta: dict[str, object]) -> Path:
    """A compact table file of these layers with this meta, every CRC, digest and the root computed by the package's writer."""
    codec = blockarray.codec_of(blockarray.default_codec())
    blocks = blockarray.encode_blocks(stored_layers(parse_game(game), layers), codec=codec.name, level=codec.default_level)
    return tablefile.write_compressed(path, parse_game(game), blocks, meta, codec=codec.name, level=codec.default_level)


@pytest.fixture(scope="module")
def unpinned_layers(tmp_path_factory: pytest.TempPathFactory) -> list[np.ndarray]:
    built = build_layers(parse_game(UNPINNED), tmp_path_factory.mktemp("layers") / "build", jobs=1)
    return [np.array(layer) for layer in built.layers()]


def forged_counts(path: Path, layers: list[np.ndarray]) -> tuple[Path, str, str]:
    """The real scores with layer 0's counts changed (the empty board's draw made a win): the file, and the result each says."""
    game = parse_game(UNPINNED)
    meta = {**compact_meta(game), "layer_histograms": layer_histograms(game, layers)}
    layer0 = meta["layer_histograms"]["0"]
    (true,) = layer0["all"]
    said = "97" if true != "97" else "0"
    meta["layer_histograms"]["0"] = {"all": {said: 1}, "canonical": {said: 1}}
    return write_with_meta(path, UNPINNED, layers, meta), true, said


def test_a_table_with_forged_layer_counts_is_refused_before_its_first_answer_and_never_trusted(tmp_path: Path, unpinned_layers: list[np.ndarray]) -> None:
    """Real scores with forged counts: the proof recounts the counts, so the table answers nothing, not even `stats`, and is not recorded."""
    path, _, _ = forged_counts(tmp_path / f"{UNPINNED}.ttt", unpinned_layers)
    with pytest.raises(TableError) as caught:
        open_file(path).stats()
    message = str(caught.value)
    assert str(path) in message and "it is wrong" in message and "the header's counts of layer 0" in message, message
    assert not (tmp_path / "trusted.json").exists()


def test_verify_recounts_the_layer_counts_and_fails_a_forged_one(tmp_path: Path, unpinned_layers: list[np.ndarray]) -> None:
    path, _, _ = forged_counts(tmp_path / f"{UNPINNED}.ttt", unpinned_layers)
    code, out, err = run("verify", "--table", str(path))
    assert code == 1, (out, err)
    assert "the header's counts of layer 0" in err and "damaged or forged" in err, err
    assert "OK" not in out and "counts: the header's layer histograms recounted from the proved layers: FAILED" in out, out
    assert not (tmp_path / "trusted.json").exists()


def test_verify_prints_every_part_it_checks_then_trusts_the_table(tmp_path: Path, unpinned_layers: list[np.ndarray]) -> None:
    game = parse_game(UNPINNED)
    meta = {**compact_meta(game), "layer_histograms": layer_histograms(game, unpinned_layers)}
    path = write_with_meta(tmp_path / f"{UNPINNED}.ttt", UNPINNED, unpinned_layers, meta)
    code, out, err = run("verify", "--table", str(path))
    assert code == 0, err
    lines = out.splitlines()
    parts = [line.removeprefix(f"{path}: ").split(":")[0] for line in lines]
    assert parts == ["header", "blocks", "scores", "counts", "OK (3x4k3, sha256 " + open_file(path, prove_untrusted=False).sha256 + ")"], lines
    assert "CRC, decoding, digest, every stored score possible" in lines[1] and f"{len(unpinned_layers)} layers re-derived" in lines[2]
    assert "recounted from the proved layers" in lines[3]
    assert (tmp_path / "trusted.json").is_file()


@pytest.fixture
def pinned(tmp_path: Path, stand_in_table: bytes) -> Path:
    """The 2x9k4 table (its checksum ships), as a build writes it."""
    path = tmp_path / "2x9k4.ttt"
    path.write_bytes(stand_in_table)
    return path


def _places(message: str) -> list[range]:
    """Every place a message names: ``bytes A to B`` and ``byte N``."""
    found = [range(int(a.replace(",", "")), int(b.replace(",", "")) + 1) for a, b in re.findall(r"bytes ([0-9,]+) to ([0-9,]+)", message)]
    return found + [range(int(n.replace(",", "")), int(n.replace(",", "")) + 1) for n in re.findall(r"\bbyte ([0-9,]+)", message)]


def _where_in(path: Path) -> dict[str, int]:
    """A byte in each part of a compressed table file."""
    header = tablefile.open_table(path).header
    spec = header.spec("scores")
    encoding = spec.encoding
    assert encoding is not None
    offsets = spec.offset + encoding.data_bytes
    starts = np.frombuffer(path.read_bytes()[offsets : offsets + 8 * (encoding.blocks + 1)], dtype="<u8")
    last_block = spec.offset + int(starts[-2])
    crcs = offsets + 8 * (encoding.blocks + 1)
    end = spec.offset + encoding.region_bytes
    if header.digests_offset == end:
        pytest.skip("no alignment bytes between the region and the digests in this file")
    return {
        "the first block": spec.offset + 3,
        "the last block": last_block + 1,
        "the offset of the last block": offsets + 8 * (encoding.blocks - 1),
        "the CRC of the last block": crcs + 4 * (encoding.blocks - 1) + 1,
        "an alignment byte": end,
        "a digest": header.digests_offset + 32 * (encoding.blocks // 2) + 5,
        "the last digest byte": header.end - 1,
    }


def test_verify_fails_a_table_whose_last_block_fails_its_crc_naming_the_block(pinned: Path) -> None:
    """A block no look-up reads is checked all the same, and named by its bytes in the file."""
    at = _where_in(pinned)["the last block"]
    data = bytearray(pinned.read_bytes())
    data[at] ^= 0x10
    pinned.write_bytes(bytes(data))
    code, out, err = run("verify", "--table", str(pinned))
    assert code == 1 and "OK" not in out, (out, err)
    blocks = tablefile.open_table(pinned).header.digest_count
    assert f"block {blocks - 1} (bytes" in err and "does not match its CRC" in err, err
    assert any(at in place for place in _places(err)), err


@pytest.mark.parametrize(
    "part",
    ["the first block", "the last block", "the offset of the last block", "the CRC of the last block", "an alignment byte", "a digest", "the last digest byte"],
)
def test_a_damaged_byte_anywhere_fails_verify_with_its_place_in_the_file(pinned: Path, part: str) -> None:
    at = _where_in(pinned)[part]
    data = bytearray(pinned.read_bytes())
    data[at] ^= 0x01
    pinned.write_bytes(bytes(data))
    code, out, err = run("verify", "--table", str(pinned))
    assert code == 1 and "OK" not in out, (out, err)
    assert any(at in place for place in _places(err)), f"byte {at:,} ({part}) is in no place named by: {err}"


def test_bytes_added_after_a_table_fail_it_naming_them(pinned: Path) -> None:
    size = pinned.stat().st_size
    with pinned.open("ab") as out:
        out.write(b"\0" * 10)
    code, _, err = run("verify", "--table", str(pinned))
    assert code == 1 and f"bytes {size:,} to {size + 9:,} were added" in err, err


def test_a_damaged_byte_in_the_header_fails_verify_in_one_line(pinned: Path) -> None:
    data = bytearray(pinned.read_bytes())
    at = bytes(data).index(b'"root":"') + 9  # a hex digit of the root
    data[at] = ord("0") if data[at] != ord("0") else ord("1")
    pinned.write_bytes(bytes(data))
    code, out, err = run("verify", "--table", str(pinned))
    assert code == 1 and out == "", out
    (line,) = err.splitlines()
    assert line.startswith("solve: error: ") and str(pinned) in line and "checksum mismatch" in line
    assert any(at in place for place in _places(line)), line


def test_a_forged_table_of_a_game_without_a_shipped_checksum_with_an_impossible_byte_where_no_lookup_reads_fails_verify(
    tmp_path: Path, unpinned_layers: list[np.ndarray]
) -> None:
    """The bytes a look-up never reads ("don't care") are checked too: every stored byte must be a score its layer can hold."""
    game = parse_game(UNPINNED)
    stored = np.concatenate(list(stored_layers(game, unpinned_layers)))
    last = game.cells
    start = solver.encoding.layouts.layout(game).layer_offsets[last]
    stored[start] = 97  # the full layer: no board of it is read, and none can be a win in 3
    path = tablefile.write_table(tmp_path / f"{UNPINNED}.ttt", kind="compact", game=game, arrays={"scores": stored}, meta=compact_meta(game))
    code, out, err = run("verify", "--table", str(path))
    assert code == 1 and "OK" not in out, (out, err)
    assert f"board {start:,} (layer {last}) holds the score 97, impossible" in err, err
