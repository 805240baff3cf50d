"""The table file (format in solver/storage/tablefile.py's docstring): exact round trips, reproducible bytes,
and a clear TableError, naming the file and the command that rebuilds it, for every broken file.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import pickle
import struct
from pathlib import Path

import numpy as np
import pytest

import solver
import solver.storage.fsutil
import solver.storage.tablefile
import solver.storage.trust
import solver.store.locate
from solver import build_table, load_table
from solver.contents.opening import fits
from solver.storage.tablefile import read_header

MAGIC = b"SOLVTTT\n"
SOLVER_DIR = Path(solver.__file__).resolve().parent


@pytest.fixture(scope="module")
def tictactoe() -> solver.Table:
    return build_table()


@pytest.fixture(scope="module")
def small() -> solver.Table:
    return build_table(game="2x3")


@pytest.fixture
def saved(tmp_path, tictactoe):
    """A good 3x3 table file and its bytes."""
    path = tictactoe.save(tmp_path / "3x3k3.ttt")
    return path, path.read_bytes()


def array_start(data: bytes) -> int:
    """Where the arrays start: right after the header, whose length is bytes 8-11."""
    (length,) = struct.unpack("<I", data[8:12])
    return 12 + length


def header_of(data: bytes) -> dict:
    return json.loads(data[12 : array_start(data)].decode("ascii"))


def digests_of(data: bytes) -> bytes:
    spec = header_of(data)["digests"]
    return data[spec["offset"] : spec["offset"] + 32 * spec["count"]]


def entries_span(data: bytes) -> tuple[int, int]:
    """The byte range of the dense entries array."""
    (spec,) = header_of(data)["arrays"]
    return spec["offset"], spec["offset"] + 4 * int(np.prod(spec["shape"]))


def with_header(data: bytes, header: dict) -> bytes:
    """The file with its header JSON replaced, keeping the header length (it is padded with spaces)."""
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode("ascii")
    room = array_start(data) - 12
    assert len(text) <= room, "the new header must fit the old one's room"
    return data[:12] + text.ljust(room) + data[array_start(data) :]


def table_error(path: Path, game: str = "3x3", *, verify=None, table: bool = True) -> str:
    """Opening ``path`` raises TableError naming the file and the command that rebuilds it
    (``table=False``: a file that is no table, for which no command that writes there is suggested).

    Returns the message with the path replaced by ``<path>``, so that checks of its content cannot
    be satisfied by the temporary directory's name.
    """
    with pytest.raises(solver.TableError) as caught:
        load_table(path, game=game, verify=verify)
    message = str(caught.value)
    name = solver.parse_game(game).name
    assert str(path) in message, message
    if table:
        assert f"solve build --game {name} --output {path}" in message, message
    else:
        assert "solve build" not in message and "--output" not in message, message
    return message.replace(str(path), "<path>")  # what is said about the file, not where it is


# -- the format as documented -----------------------------------------------------------------------------


def test_file_layout_matches_the_documented_format(saved, tictactoe):
    path, data = saved
    assert data[:8] == MAGIC
    start = array_start(data)
    assert start % 64 == 0, "the arrays start on a 64-byte boundary"
    raw = data[12:start]
    header = json.loads(raw.decode("ascii"))
    assert raw.decode("ascii") == json.dumps(header, sort_keys=True, separators=(",", ":")).ljust(len(raw))
    assert header["format_version"] == solver.storage.tablefile.FORMAT_VERSION
    assert header["kind"] == "dense"
    assert header["game"] == {"rows": 3, "cols": 3, "k": 3, "name": "3x3k3"}
    assert {"encoding", "score", "root", "block_bytes", "digests"} <= header.keys()
    first, end = entries_span(data)
    assert first == start
    block = header["block_bytes"]
    digests = digests_of(data)
    assert len(digests) == 32 * -(-(end - first) // block)
    for i in range(len(digests) // 32):
        assert digests[32 * i : 32 * i + 32] == hashlib.sha256(data[first + i * block : min(end, first + (i + 1) * block)]).digest()
    without_root = {key: value for key, value in header.items() if key != "root"}
    canonical = json.dumps(without_root, sort_keys=True, separators=(",", ":")).encode("ascii")
    assert header["root"] == hashlib.sha256(canonical + digests).hexdigest() == tictactoe.sha256
    assert len(data) == header["digests"]["offset"] + len(digests)


def test_save_then_load_gives_the_same_table(tmp_path, tictactoe, small):
    for table in (tictactoe, small):
        path = table.save(tmp_path / f"{table.game.name}.ttt")
        loaded = load_table(path)
        assert loaded.game == table.game and loaded.path == path
        assert np.array_equal(loaded.score, table.score) and np.array_equal(loaded.best, table.best)
        assert loaded.sha256 == table.sha256
        for code in table.reachable_codes()[::7]:
            mine, theirs = loaded.at(int(code)), table.at(int(code))
            assert (mine.score, mine.best_mask, mine.plies, mine.value) == (theirs.score, theirs.best_mask, theirs.plies, theirs.value)
        assert loaded.verify() == []


def test_loaded_arrays_are_read_only(saved):
    loaded = load_table(saved[0])
    with pytest.raises((ValueError, TypeError)):
        loaded.score[0] = 1


@pytest.mark.parametrize("game", ["3x3", "2x3", "3x4"])
def test_two_builds_write_byte_identical_files(tmp_path, game):
    first = build_table(game=game).save(tmp_path / "a.ttt").read_bytes()
    second = build_table(game=game).save(tmp_path / "b.ttt").read_bytes()
    assert first == second


def test_shipped_table_equals_a_fresh_build_byte_for_byte(tmp_path):
    shipped = solver.store.locate.shipped_path(solver.Game())
    assert shipped is not None and shipped.is_file(), "the 3x3 table must ship with the package"
    fresh = build_table().save(tmp_path / "3x3k3.ttt")
    assert shipped.read_bytes() == fresh.read_bytes(), f"{shipped} is stale: rebuild it with: solve build --game 3x3k3 --output data/3x3k3.ttt"
    assert load_table(shipped, verify=True).verify() == []


# -- broken files: one TableError naming the file and the fix --------------------------------------------------


def test_a_missing_file_is_said_to_be_missing_with_the_command_that_builds_it_not_rebuilds_it(tmp_path):
    path = tmp_path / "nope" / "2x3k2.ttt"
    message = table_error(path, "2x3")
    assert message == "<path>: no such table file (check the path); to build the table there: solve build --game 2x3k2 --output <path>"
    assert "rebuild" not in message


def test_a_directory_is_not_a_table(tmp_path):
    (tmp_path / "3x3k3.ttt").mkdir()
    assert "directory" in table_error(tmp_path / "3x3k3.ttt", table=False)


@pytest.mark.parametrize(
    "where",
    ["empty", "inside magic", "after magic", "inside length", "after length", "inside header", "at arrays", "inside arrays", "last byte"],
)
def test_truncated_file_says_truncated(saved, where):
    path, data = saved
    start = array_start(data)
    cut = {
        "empty": 0,
        "inside magic": 4,
        "after magic": 8,
        "inside length": 10,
        "after length": 12,
        "inside header": (12 + start) // 2,
        "at arrays": start,
        "inside arrays": (start + len(data)) // 2,
        "last byte": len(data) - 1,
    }[where]
    path.write_bytes(data[:cut])
    message = table_error(path)
    assert "truncated" in message, f"cut at {cut} bytes ({where}): {message}"
    assert str(cut) in message, message


@pytest.mark.parametrize(
    "corrupt",
    [
        pytest.param(lambda d: d[:12] + b"#" + d[13:], id="not-json"),
        pytest.param(lambda d: d[:12] + b"[]".ljust(array_start(d) - 12) + d[array_start(d) :], id="json-list"),
        pytest.param(lambda d: d[:12] + b"{}".ljust(array_start(d) - 12) + d[array_start(d) :], id="json-empty"),
        pytest.param(lambda d: d[:12] + b"\xff" + d[13:], id="not-ascii"),
        pytest.param(lambda d: d[:8] + struct.pack("<I", 0) + d[12:], id="zero-length"),
        pytest.param(lambda d: with_header(d, {**header_of(d), "game": {"rows": "three", "cols": 3, "k": 3}}), id="bad-rows"),
        pytest.param(lambda d: with_header(d, {**header_of(d), "game": {"rows": 0, "cols": 3, "k": 3}}), id="no-rows"),
        pytest.param(lambda d: with_header(d, {k: v for k, v in header_of(d).items() if k != "root"}), id="no-root"),
        pytest.param(lambda d: with_header(d, {**header_of(d), "block_bytes": 3}), id="odd-block-size"),
        pytest.param(lambda d: with_header(d, {**header_of(d), "kind": "sparse"}), id="unknown-kind"),
        pytest.param(lambda d: d[:12] + (b"[" * 200_000)[: array_start(d) - 12] + d[array_start(d) :], id="deeply-nested"),
        pytest.param(lambda d: with_header(d, {k: v for k, v in header_of(d).items() if k != "arrays"}), id="no-arrays"),
    ],
)
def test_corrupt_header(saved, corrupt):
    path, data = saved
    path.write_bytes(corrupt(data))
    message = table_error(path)
    assert "corrupt header" in message, message


def test_huge_header_length_is_refused_before_reading(saved):
    path, data = saved
    path.write_bytes(data[:8] + struct.pack("<I", 2**32 - 1) + data[12:])
    assert "corrupt header (length 4,294,967,295 bytes" in table_error(path)


def test_a_header_of_200000_nested_brackets_is_a_table_error_not_a_recursion_error(tmp_path):
    text = b"[" * 200_000
    path = tmp_path / "3x3k3.ttt"
    path.write_bytes(MAGIC + struct.pack("<I", len(text)) + text + b"\0" * 64)
    assert "corrupt header" in table_error(path)


def test_wrong_magic(saved):
    path, data = saved
    path.write_bytes(b"PK\x03\x04" + data[4:])
    assert "magic" in table_error(path, table=False)
    path.write_bytes(b"\x93NUMPY" + data[6:])  # an .npy file is not a table either
    assert "magic" in table_error(path, table=False)


def test_wrong_format_version(saved):
    path, data = saved
    version = solver.storage.tablefile.COMPRESSED_VERSION + 1
    path.write_bytes(with_header(data, {**header_of(data), "format_version": version}))
    message = table_error(path)
    assert f"format version {version}" in message and f"expected {solver.storage.tablefile.FORMAT_VERSION}" in message


def test_a_dense_table_claiming_the_compressed_format_version_is_refused(saved):
    path, data = saved
    path.write_bytes(with_header(data, {**header_of(data), "format_version": solver.storage.tablefile.COMPRESSED_VERSION}))
    assert "corrupt header" in table_error(path)


@pytest.mark.parametrize("offset", [-64, -1])
def test_negative_array_offset_is_a_table_error(saved, offset):
    """BUG: a negative offset passes the size check and np.memmap raises OverflowError."""
    path, data = saved
    header = header_of(data)
    for spec in header["arrays"]:
        spec["offset"] = offset
    path.write_bytes(with_header(data, header))
    table_error(path, verify=False)


def test_array_offset_inside_the_header_is_a_table_error(saved):
    """The arrays start right after the header; an offset pointing into it is a corrupt header even
    when the checksum is not checked (large tables are opened without it)."""
    path, data = saved
    header = header_of(data)
    for spec in header["arrays"]:
        spec["offset"] = 0
    path.write_bytes(with_header(data, header))
    table_error(path, verify=False)


def _resealed(data: bytes, header: dict) -> bytes:
    """The file with ``header``, its root recomputed over the new header and the digests it points
    at: a forgery whose checksum matches, so that only the header's own checks can refuse it."""
    header = {key: value for key, value in header.items() if key != "root"}
    spec = header["digests"]
    digests = data[spec["offset"] : spec["offset"] + 32 * spec["count"]]
    canonical = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    return with_header(data, {**header, "root": hashlib.sha256(canonical + digests).hexdigest()})


@pytest.mark.parametrize("overlap", ["the array starts inside the header", "the digests start inside the array"])
def test_a_header_whose_regions_overlap_is_refused_even_when_its_checksum_matches(saved, monkeypatch, overlap):
    path, data = saved
    monkeypatch.setattr(solver.storage.trust, "expected_root", lambda game, kind="dense": None)  # a forger's own root
    header = header_of(data)
    path.write_bytes(_resealed(data, header))
    assert load_table(path, verify=False).sha256 == header["root"], "resealing an unchanged header must keep the file good"
    (spec,) = header["arrays"]
    if overlap == "the array starts inside the header":
        spec["offset"] = 0
    else:
        header["digests"]["offset"] = spec["offset"] + 64
    path.write_bytes(_resealed(data, header))
    assert "corrupt header" in table_error(path, verify=False)


def test_flipped_byte_in_the_arrays(saved):
    path, data = saved
    first, end = entries_span(data)
    for where in (first, (first + end) // 2, end - 1):
        broken = bytearray(data)
        broken[where] ^= 0x40
        path.write_bytes(bytes(broken))
        message = table_error(path)  # small tables are checksummed on open
        assert "does not match its checksum" in message, message
        problems = load_table(path, verify=False).verify()
        assert any("checksum" in problem for problem in problems), problems
        assert any("differs from a fresh build" in problem for problem in problems), problems
        table_error(path, verify=True)


def test_flipped_byte_in_the_block_digests(saved):
    path, data = saved
    spec = header_of(data)["digests"]
    broken = bytearray(data)
    broken[spec["offset"] + 5] ^= 1
    path.write_bytes(bytes(broken))
    assert "checksum mismatch" in table_error(path, verify=False)


def test_flipped_byte_in_the_stored_checksum(saved):
    path, data = saved
    header = header_of(data)
    header["root"] = ("0" if header["root"][0] != "0" else "1") + header["root"][1:]
    path.write_bytes(with_header(data, header))
    assert "checksum mismatch" in table_error(path)


def test_table_of_another_game(tmp_path, small):
    path = small.save(tmp_path / "3x3k3.ttt")
    message = table_error(path, "3x3")
    assert "2x3k2" in message and "3x3k3" in message


def test_table_of_another_game_in_the_table_dir(tmp_path, monkeypatch, small):
    small.save(tmp_path / "3x4k3.ttt")
    monkeypatch.setenv("SOLVED_TICTACTOE_DIR", str(tmp_path))
    solver.forget()
    try:
        with pytest.raises(solver.TableError, match=r"holds 2x3k2, expected 3x4k3.*solve build --game 3x4k3 --output"):
            solver.table_for("3x4")
    finally:
        solver.forget()


def test_header_of_a_good_file_reads(saved):
    header = read_header(saved[0], fits, game=solver.Game())
    assert header.game.name == "3x3k3" and header.kind == "dense" and header.spec("entries").shape == (3**9,)


# -- nothing is ever unpickled -------------------------------------------------------------------------------------


def test_no_pickle_or_np_load_anywhere_in_the_package():
    offenders = []
    for source in sorted(SOLVER_DIR.glob("*.py")):
        tree = ast.parse(source.read_text(), filename=str(source))
        for node in ast.walk(tree):
            where = f"{source.name}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Import):
                offenders += [where for alias in node.names if alias.name.split(".")[0] in {"pickle", "cPickle", "dill", "shelve", "joblib", "marshal"}]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in {"pickle", "dill", "shelve", "joblib", "marshal"}:
                offenders.append(where)
            elif isinstance(node, ast.keyword) and node.arg == "allow_pickle":
                offenders.append(where)
            elif (
                isinstance(node, ast.Attribute)
                and node.attr in {"load", "loads", "fromfile"}
                and isinstance(node.value, ast.Name)
                and node.value.id in {"np", "numpy", "pickle"}
            ):
                offenders.append(where)
    assert offenders == [], f"pickle-capable loading in solver/: {offenders}"


def test_loading_works_with_every_unpickler_disabled(saved, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a table load must not unpickle or np.load")

    for module, name in ((pickle, "load"), (pickle, "loads"), (pickle, "Unpickler"), (np, "load"), (np.lib.format, "read_array")):
        monkeypatch.setattr(module, name, refuse)
    assert load_table(saved[0], verify=True).at(0).value == 0


# -- atomic writes ---------------------------------------------------------------------------------------------------


def _leftovers(directory: Path, keep: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p != keep)


@pytest.mark.parametrize(
    "target, error",
    [("replace", OSError("disk on fire")), ("fsync", OSError(28, "No space left on device")), ("fsync", KeyboardInterrupt())],
)
def test_a_failed_save_keeps_the_old_file_and_leaves_no_temp_file(saved, small, monkeypatch, target, error):
    path, before = saved

    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(solver.storage.fsutil.os, target, fail)
    with pytest.raises(solver.TableError if isinstance(error, OSError) else type(error)) as caught:
        small.save(path)
    if isinstance(error, OSError):
        assert str(path.parent) in str(caught.value)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert _leftovers(path.parent, path) == []
    assert load_table(path).game.name == "3x3k3"


def test_a_failed_write_of_the_arrays_keeps_the_old_file(saved, small, monkeypatch):
    path, before = saved
    real_fdopen = os.fdopen

    class Exploding:
        def __init__(self, handle):
            self.handle, self.written = handle, 0

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def __getattr__(self, name):
            return getattr(self.handle, name)

        def write(self, chunk):
            chunk = memoryview(chunk).cast("B")
            room = max(0, 100 - self.written)  # the disk fills up after 100 bytes, mid-header
            self.written += self.handle.write(chunk[:room])
            if len(chunk) > room:
                raise OSError(28, "No space left on device")
            return len(chunk)

    monkeypatch.setattr(solver.storage.fsutil.os, "fdopen", lambda *a, **k: Exploding(real_fdopen(*a, **k)))
    with pytest.raises(solver.TableError, match="disk filled up") as caught:
        small.save(path)
    assert str(path) in str(caught.value)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert _leftovers(path.parent, path) == []


def test_a_failed_first_save_leaves_nothing(tmp_path, small, monkeypatch):
    monkeypatch.setattr(solver.storage.fsutil.os, "replace", lambda *a: (_ for _ in ()).throw(OSError("no")))
    with pytest.raises(solver.TableError):
        small.save(tmp_path / "2x3k2.ttt")
    assert list(tmp_path.iterdir()) == []


def test_save_replaces_an_old_table_in_one_step(saved, small):
    path, _ = saved
    small.save(path)
    assert load_table(path).game.name == "2x3k2"
    assert _leftovers(path.parent, path) == []
