"""Tables from mirrors and at URLs, against a file server on 127.0.0.1 (tests/range_server.py) and `solve serve`.

`solve fetch` downloads, resumes, checks every block and installs; a table at a URL is read
block by block through the same checks as a file, into a bounded on-disk cache; both refuse
what a hostile or broken mirror sends, naming the block, and install or use nothing of it.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from range_server import serving

import solver
from solver.cli import main
from solver.contents.opening import open_table
from solver.errors import TableError
from solver.rules.game import parse_game
from solver.storage import checksums, remote, trust
from solver.storage.fsutil import partial_name
from solver.storage.tablefile import head_bytes
from solver.store.locate import open_file
from solver.store.mirror import fetch_table
from solver.store.tablebase import table_for
from solver.store.urltable import MIRROR_ENV, open_url_table

GAME = parse_game("2x9k4")
NAME = "2x9k4.ttt"


@pytest.fixture
def served_file(stand_in_table: bytes, tmp_path: Path) -> Path:
    """The 2x9k4 table as a local file (what the mirror serves, and what it must answer as)."""
    path = tmp_path / "local" / NAME
    path.parent.mkdir()
    path.write_bytes(stand_in_table)
    return path


pytestmark = pytest.mark.usefixtures("private_cache")
"""Every test gets its own on-disk block cache (tests/conftest.py), and no mirror from the environment."""


def _region(data: bytes) -> tuple[int, np.ndarray]:
    """Where the scores' compressed region starts in a table file, and its block offsets."""
    header = open_table_bytes(data)
    spec = header.arrays[0]
    assert spec.encoding is not None
    start = spec.offset + spec.encoding.data_bytes
    return spec.offset, np.frombuffer(data[start : start + 8 * (spec.encoding.blocks + 1)], dtype="<u8")


def open_table_bytes(data: bytes):  # noqa: ANN201 - the Header
    from io import BytesIO

    from solver.contents.opening import fits
    from solver.storage.tablefile import read_head

    def fail(problem: str, found: object = None) -> TableError:
        return TableError(problem)

    return read_head(BytesIO(data), len(data), fail, fits)[0]


# -- solve fetch ------------------------------------------------------------------------------
def test_fetch_installs_a_checked_table_where_lookups_find_it(stand_in_table: bytes, table_dir: Path) -> None:
    with serving({NAME: stand_in_table}) as server:
        fetched = fetch_table(GAME, url=server.url, table_dir=table_dir)
    assert fetched.installed and fetched.resumed_from == 0
    assert (table_dir / NAME).read_bytes() == stand_in_table
    assert not partial_name(table_dir / NAME).exists()
    table = table_for(GAME, table_dir=table_dir, build=False)
    assert table.sha256 == checksums.EXPECTED_COMPACT_ROOTS["2x9k4"] == fetched.checksum


def test_fetch_of_a_table_already_in_place_fetches_nothing(stand_in_table: bytes, table_dir: Path) -> None:
    table_dir.mkdir(parents=True)
    (table_dir / NAME).write_bytes(stand_in_table)
    with serving({NAME: stand_in_table}) as server:
        fetched = fetch_table(GAME, url=server.url, table_dir=table_dir)
        assert server.faults.ranges_seen == []
    assert not fetched.installed


def test_fetch_never_replaces_another_file_unless_asked(stand_in_table: bytes, table_dir: Path) -> None:
    table_dir.mkdir(parents=True)
    mine = table_dir / NAME
    mine.write_bytes(b"my own notes, not a table")
    with serving({NAME: stand_in_table}) as server:
        with pytest.raises(TableError, match="not replaced unless asked"):
            fetch_table(GAME, url=server.url, table_dir=table_dir)
        assert mine.read_bytes() == b"my own notes, not a table"
        asked: list[Path] = []
        with pytest.raises(TableError):
            fetch_table(GAME, url=server.url, table_dir=table_dir, replace=lambda path, found: asked.append(path) is not None)
        assert asked == [mine] and mine.read_bytes() == b"my own notes, not a table"
        fetch_table(GAME, url=server.url, table_dir=table_dir, replace=True)
    assert mine.read_bytes() == stand_in_table


def test_fetch_resumes_after_a_cut_connection(stand_in_table: bytes, table_dir: Path) -> None:
    cut = len(stand_in_table) // 2
    with serving({NAME: stand_in_table}) as server:
        server.faults.cut_at = cut
        with pytest.raises(TableError, match="run the same command again to resume"):
            fetch_table(GAME, url=server.url, table_dir=table_dir)
        partial = partial_name(table_dir / NAME)
        assert partial.stat().st_size == cut and not (table_dir / NAME).exists()
        fetched = fetch_table(GAME, url=server.url, table_dir=table_dir)
        assert server.faults.ranges_seen[-1] == f"bytes={cut}-"
    assert fetched.resumed_from == cut and fetched.downloaded == len(stand_in_table) - cut
    assert (table_dir / NAME).read_bytes() == stand_in_table and not partial.exists()


def test_a_partial_of_another_file_is_started_over(stand_in_table: bytes, table_dir: Path) -> None:
    table_dir.mkdir(parents=True)
    partial_name(table_dir / NAME).write_bytes(b"SOLVTTT\n" + b"\0" * 5000)
    with serving({NAME: stand_in_table}) as server:
        fetched = fetch_table(GAME, url=server.url, table_dir=table_dir)
    assert fetched.resumed_from == 0 and (table_dir / NAME).read_bytes() == stand_in_table


def test_a_mirror_sending_one_wrong_byte_is_refused_naming_the_block(stand_in_table: bytes, table_dir: Path) -> None:
    base, offsets = _region(stand_in_table)
    block = len(offsets) // 2
    wrong = base + int(offsets[block]) + 7
    with serving({NAME: stand_in_table}) as server:
        server.faults.flip = wrong
        with pytest.raises(TableError) as refused:
            fetch_table(GAME, url=server.url, table_dir=table_dir)
    message = str(refused.value)
    assert f"block {block} " in message and server.url in message and "nothing was installed" in message
    assert not (table_dir / NAME).exists() and not partial_name(table_dir / NAME).exists()


def test_a_mirror_sending_another_digest_is_refused_before_the_body(stand_in_table: bytes, table_dir: Path) -> None:
    header = open_table_bytes(stand_in_table)
    with serving({NAME: stand_in_table}) as server:
        server.faults.flip = header.digests_offset + 3
        with pytest.raises(TableError, match="checksum mismatch|not the expected"):
            fetch_table(GAME, url=server.url, table_dir=table_dir)
        assert "bytes=0-" not in server.faults.ranges_seen  # the body was never asked for
    assert not (table_dir / NAME).exists()


def test_a_header_with_sizes_no_table_has_is_refused_before_anything_else_is_fetched(stand_in_table: bytes, table_dir: Path) -> None:
    """The offsets are not under the checksum: a header may say anything there. A file that claims 16 TiB of
    compressed blocks, or puts its digests elsewhere than a table file does, is refused from its first bytes."""
    import dataclasses

    header = open_table_bytes(stand_in_table)
    spec = header.arrays[0]
    assert spec.encoding is not None
    huge = dataclasses.replace(spec, encoding=dataclasses.replace(spec.encoding, data_bytes=1 << 44))
    claims_more = dataclasses.replace(header, arrays=(huge,), digests_offset=header.digests_offset + (1 << 44))
    moved = dataclasses.replace(header, digests_offset=header.digests_offset + 64)
    padded = stand_in_table[: header.digests_offset] + bytes(64) + stand_in_table[header.digests_offset :]
    for forged, rest, refusal in (
        (claims_more, stand_in_table, r"declares 17,592,186,044,416 compressed bytes, more than its 1,322 blocks can take"),
        (moved, padded, "not a table file as written .the digests start at byte"),
    ):
        head = head_bytes(forged, spec.offset - 12)
        assert len(head) == spec.offset  # the forged numbers still fit the header's padding
        with serving({NAME: head + rest[len(head) :]}) as server:
            with pytest.raises(TableError, match=refusal):
                fetch_table(GAME, url=server.url, table_dir=table_dir)
            assert server.faults.ranges_seen == ["bytes=0-65535"]
    assert not (table_dir / NAME).exists()


def test_a_game_without_a_shipped_checksum_needs_one(stand_in_table: bytes, table_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(checksums.EXPECTED_COMPACT_ROOTS, "2x9k4")
    monkeypatch.delitem(checksums.EARLIER_COMPACT_ROOTS, "2x9k4")
    root = open_table_bytes(stand_in_table).root
    with serving({NAME: stand_in_table}) as server:
        with pytest.raises(TableError, match=r"no checksum ships .*--checksum"):
            fetch_table(GAME, url=server.url, table_dir=table_dir)
        assert server.faults.ranges_seen == []  # refused before asking
        with pytest.raises(TableError, match="not the expected"):
            fetch_table(GAME, url=server.url, table_dir=table_dir, checksum="ab" * 32)
        assert not (table_dir / NAME).exists()
        fetched = fetch_table(GAME, url=server.url, table_dir=table_dir, checksum=root.upper())
    assert fetched.checksum == root and trust.is_trusted(table_dir, "2x9k4", "compact", root)
    assert table_for(GAME, table_dir=table_dir, build=False).sha256 == root  # believed: the user vouched for it


def test_a_server_without_ranges_is_fetched_whole_and_checked(stand_in_table: bytes, table_dir: Path) -> None:
    with serving({NAME: stand_in_table}) as server:
        server.faults.no_ranges = True
        fetched = fetch_table(GAME, url=server.url + NAME, table_dir=table_dir)
        with pytest.raises(TableError, match="does not answer Range requests"):
            open_url_table(server.url + NAME, game=GAME)
    assert fetched.installed and (table_dir / NAME).read_bytes() == stand_in_table


def test_only_http_urls_are_fetched(table_dir: Path) -> None:
    for url in ("file:///etc/passwd", "ftp://host/2x9k4.ttt", "/tmp/2x9k4.ttt"):
        with pytest.raises(TableError, match="not an http or https URL"):
            fetch_table(GAME, url=url, table_dir=table_dir)
    with pytest.raises(TableError, match=MIRROR_ENV):
        fetch_table(GAME, table_dir=table_dir)


def test_redirects_are_followed_a_few_times_and_only_to_http(stand_in_table: bytes, table_dir: Path) -> None:
    with serving({NAME: stand_in_table}) as server:
        server.redirects = {"/release/2x9k4.ttt": "/" + NAME, "/file/2x9k4.ttt": "file:///etc/passwd", "/ftp/2x9k4.ttt": "ftp://127.0.0.1/2x9k4.ttt"}
        server.redirects.update({f"/loop{i}/2x9k4.ttt": f"/loop{i + 1}/2x9k4.ttt" for i in range(10)})
        fetched = fetch_table(GAME, url=server.url + "release/2x9k4.ttt", table_dir=table_dir)
        for where in ("file", "ftp"):
            with pytest.raises(TableError, match="is not allowed|not http or https"):
                fetch_table(GAME, url=server.url + f"{where}/2x9k4.ttt", table_dir=table_dir / "b")
        with pytest.raises(TableError, match="redirect"):
            fetch_table(GAME, url=server.url + "loop0/2x9k4.ttt", table_dir=table_dir / "c")
        assert sum(seen.startswith("bytes=0-") for seen in server.faults.ranges_seen) >= 1
    assert fetched.installed and (table_dir / NAME).read_bytes() == stand_in_table
    assert not (table_dir / "b").exists() or not any((table_dir / "b").iterdir())


def test_a_dense_table_is_fetched_whole_not_read_at_a_url(table_dir: Path, tmp_path: Path) -> None:
    small = parse_game("3x4k3")
    path = solver.build_table(game=small).save(tmp_path / "3x4k3.ttt")
    with serving({"3x4k3.ttt": path.read_bytes()}) as server:
        fetched = fetch_table(small, url=server.url, table_dir=table_dir)
        with pytest.raises(TableError, match="solve fetch --game 3x4k3"):
            open_url_table(server.url + "3x4k3.ttt", game=small)
    assert fetched.installed and (table_dir / "3x4k3.ttt").read_bytes() == path.read_bytes()


def test_solve_fetch_uses_the_mirror_variable_and_says_what_it_did(stand_in_table: bytes, table_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with serving({NAME: stand_in_table}) as server:
        monkeypatch.setenv(MIRROR_ENV, server.url)
        result = CliRunner().invoke(main, ["fetch", "--game", "2x9k4", "--table-dir", str(table_dir)])
        assert result.exit_code == 0, result.output
        assert f"Installed {table_dir / NAME}" in result.output and "every block checked" in result.output
        server.faults.flip = len(stand_in_table) - 5  # a digest: refused, one line, exit 1
        again = CliRunner().invoke(main, ["fetch", "--game", "2x9k4", "--table-dir", str(table_dir / "other")])
    assert again.exit_code == 1 and again.output.count("\n") == 1 and again.output.startswith("solve: error: ")


# -- a table at a URL -------------------------------------------------------------------------
def _random_codes(table: solver.tables.Table, n: int, seed: int) -> np.ndarray:
    """``n`` random reachable codes, some finished."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, GAME.codes, size=20 * n, dtype=np.int64)
    reachable = table.lookup_codes(codes, check=False).reachable
    return codes[reachable][:n]


def test_a_url_table_answers_as_the_local_one(stand_in_table: bytes, served_file: Path) -> None:
    """Every stored byte is read through the URL (so every answer, a function of them and the rules, is the same);
    and a sample of positions is compared answer by answer: scores, plies and best moves."""
    local = open_file(served_file, game=GAME)
    with serving({NAME: stand_in_table}) as server:
        url_table = table_for(GAME, url=server.url)
        codes = _random_codes(local, 20_000, seed=24)
        mine, theirs = url_table.lookup_codes(codes), local.lookup_codes(codes)
        for column in ("score", "pieces", "best", "plies", "value"):
            assert np.array_equal(getattr(mine, column), getattr(theirs, column)), column
        for code in codes[:300].tolist():
            assert url_table.at(code).to_dict() == local.at(code).to_dict()
        assert np.array_equal(url_table.scores.decode_all(), local.scores.decode_all())
    assert url_table.file is not None and url_table.file.where == server.url + NAME


def test_a_url_table_fetches_each_block_once_and_a_new_process_reads_the_cache(stand_in_table: bytes, served_file: Path) -> None:
    with serving({NAME: stand_in_table}) as server:
        first = open_url_table(server.url + NAME, game=GAME)
        blocks = first.scores.blocks
        first.scores.decode_all()
        asked = len(server.faults.ranges_seen)
        assert asked <= 4 + blocks  # head, digests, index, then each block at most once
        second = open_url_table(server.url + NAME, game=GAME)  # a fresh reader: the head and blocks from the cache
        assert np.array_equal(second.scores.decode_all(), first.scores.decode_all())
        assert len(server.faults.ranges_seen) == asked + 1  # only the first bytes, to see the file is the same


def test_a_url_table_refuses_a_wrong_block_naming_it_and_keeps_nothing_of_it(stand_in_table: bytes, private_cache: Path) -> None:
    base, offsets = _region(stand_in_table)
    block = 3
    with serving({NAME: stand_in_table}) as server:
        server.faults.flip = base + int(offsets[block]) + 1
        table = open_url_table(server.url + NAME, game=GAME)
        with pytest.raises(TableError) as refused:
            table.scores.block(block)
        assert re.search(rf"{re.escape(server.url + NAME)}: block {block} \(", str(refused.value))
        server.faults.flip = None
        assert table.scores.block(block) is not None  # fetched again, right this time: the bad copy was not kept


def test_the_on_disk_cache_is_bounded(stand_in_table: bytes, private_cache: Path) -> None:
    bound = 64 << 10
    with serving({NAME: stand_in_table}) as server:
        table = open_url_table(server.url + NAME, game=GAME, cache_bytes=bound)
        table.scores.decode_all()  # every block fetched and offered to the cache: far more than the bound
    cache = remote.BlockCache(max_bytes=bound)
    assert cache.path.parent == private_cache
    assert 0 < cache.bytes <= bound
    fetched = sum(int(b) - int(a) for a, b in zip(_region(stand_in_table)[1][:-1], _region(stand_in_table)[1][1:], strict=True))
    assert fetched > 2 * bound


def test_solve_lookup_table_url_prints_what_the_local_table_does(stand_in_table: bytes, served_file: Path) -> None:
    board = "X......../.O......."
    local = CliRunner().invoke(main, ["lookup", board, "--game", "2x9k4", "--table", str(served_file)])
    with serving({NAME: stand_in_table}) as server:
        remote_result = CliRunner().invoke(main, ["lookup", board, "--table", server.url + NAME])
        gone = CliRunner().invoke(main, ["lookup", board, "--table", server.url + "5x5k4.ttt"])
    assert local.exit_code == 0 and remote_result.exit_code == 0, remote_result.output
    assert remote_result.output == local.output
    assert gone.exit_code == 1 and "404" in gone.output and gone.output.startswith("solve: error: ")


# -- solve serve offers its files -----------------------------------------------------------------
def test_solve_serve_offers_its_table_files_with_ranges_and_the_sha256_of_their_bytes_as_etag(served_file: Path) -> None:
    from web_support import need_web

    need_web()
    from starlette.testclient import TestClient

    from solver import web

    data = served_file.read_bytes()
    root = open_table(served_file).header.root
    client = TestClient(web.create_app([open_file(served_file, game=GAME)]))
    listing = client.get("/tables/").json()["tables"]
    entry = {"name": NAME, "game": "2x9k4", "kind": "compact", "bytes": len(data), "checksum": root, "shipped_checksum": True, "url": "/tables/" + NAME}
    assert listing == [entry]
    whole = client.get("/tables/" + NAME)
    assert whole.status_code == 200 and whole.content == data and whole.headers["etag"] == f'"sha256-{hashlib.sha256(data).hexdigest()}"'
    part = client.get("/tables/" + NAME, headers={"Range": "bytes=100-199"})
    assert part.status_code == 206 and part.content == data[100:200] and part.headers["content-range"] == f"bytes 100-199/{len(data)}"
    assert client.get("/tables/" + NAME, headers={"Range": f"bytes={len(data)}-"}).status_code == 416
    assert client.get("/tables/" + NAME, headers={"If-None-Match": whole.headers["etag"]}).status_code == 304
    assert client.get("/tables/3x3k3.ttt").status_code == 404 and client.get("/tables/..%2Fetc%2Fpasswd").status_code == 404


def test_fetch_and_url_tables_work_against_solve_serve(served_file: Path, table_dir: Path) -> None:
    from web_support import need_web, running_server

    need_web()
    with running_server(served_file.parent) as (base, _):
        fetched = fetch_table(GAME, url=base + "tables/", table_dir=table_dir)
        url_table = open_url_table(base + "tables/" + NAME, game=GAME)
        assert url_table.at(0).to_dict() == open_file(served_file).at(0).to_dict()
    assert fetched.installed and (table_dir / NAME).read_bytes() == served_file.read_bytes()


# -- the manual ---------------------------------------------------------------------------------------
def test_the_checksums_page_lists_every_shipped_checksum_as_the_script_writes_it() -> None:
    """docs/checksums.md is written by scripts/checksums.py from the module, never by hand: it is what the
    script writes today, and it holds every checksum the package ships (and no other)."""
    import importlib.util

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("checksums_script", root / "scripts" / "checksums.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    page = (root / "docs" / "checksums.md").read_text(encoding="utf-8")
    assert page == script.page_text(*script._current())  # the module as its file lists it (a test may have reordered the dicts)
    listed = set(re.findall(r"^\| `([^`]+)` \| `([0-9a-f]{64})` \|$", page, flags=re.M))
    earlier = {(name, root) for name, roots in checksums.EARLIER_COMPACT_ROOTS.items() for root in roots}
    assert listed == {*checksums.EXPECTED_ROOTS.items(), *checksums.EXPECTED_COMPACT_ROOTS.items(), *earlier}
