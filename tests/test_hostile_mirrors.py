"""Slow, broken and hostile mirrors against `solve fetch` and tables at a URL: every one bounded in time and refused in one line.

The servers run on 127.0.0.1 (tests/range_server.py, tests/hostile_server.py); the deadlines are made short
through their environment variables, so each test takes a second or two (a trickling server gives up by
itself after 12 s, so even a client without deadlines ends).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hostile_server import answering
from range_server import serving

import solver
from solver.cli import main
from solver.errors import DiskFullError, SolverError, TableError
from solver.rules.game import parse_game
from solver.storage import pace, remote
from solver.storage.fsutil import partial_name
from solver.store import mirror
from solver.store.mirror import fetch_table
from solver.store.urltable import MIRROR_ENV, open_url_table

GAME = parse_game("2x9k4")
NAME = "2x9k4.ttt"
CUT_OFF_WITHIN = 8.0
"""Seconds within which a server missing a one-second deadline must be cut off (it would trickle on for 12 s)."""


pytestmark = pytest.mark.usefixtures("private_cache")
"""Every test gets its own on-disk block cache (tests/conftest.py), and no mirror from the environment."""


@pytest.fixture
def short_deadlines(monkeypatch: pytest.MonkeyPatch) -> None:
    """A head within 1 s, a body at 1,000 bytes a second over 0.5 s, a block request within 1 s in all."""
    monkeypatch.setenv(pace.HEAD_ENV, "1")
    monkeypatch.setenv(pace.SPEED_LIMIT_ENV, "1000")
    monkeypatch.setenv(pace.SPEED_TIME_ENV, "0.5")
    monkeypatch.setenv(pace.REQUEST_ENV, "1")


def _one_line(error: BaseException) -> str:
    text = str(error)
    assert "\n" not in text and "\r" not in text and len(text) < 600, text
    return text


def _block_range(data: bytes, block: int) -> str:
    """The Range header a URL table sends for ``block`` of the scores."""
    from test_mirrors import _region

    base, offsets = _region(data)
    return f"bytes={base + int(offsets[block])}-{base + int(offsets[block + 1]) - 1}"


# -- 1. deadlines: the head, the rate, a block request in all ------------------------------------------
def test_a_status_line_sent_a_byte_at_a_time_is_cut_off_at_the_head_deadline(short_deadlines: None, table_dir: Path) -> None:
    head = b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-9/10\r\nContent-Length: 10\r\n\r\n0123456789"
    with answering(head, pause=0.2) as url:
        began = time.monotonic()
        with pytest.raises(TableError) as refused:
            fetch_table(GAME, url=url, table_dir=table_dir)
        took = time.monotonic() - began
        result = CliRunner().invoke(main, ["fetch", "--game", "2x9k4", "--from", url, "--table-dir", str(table_dir)])
    message = _one_line(refused.value)
    assert message.startswith(url + NAME + ": ") and "no complete response head within 1 s" in message and pace.HEAD_ENV in message
    assert took < CUT_OFF_WITHIN
    assert result.exit_code == 1 and result.output.startswith(f"solve: error: {url}{NAME}: the server sent no complete response head within 1 s (")
    assert result.output.count("\n") == 1


def test_a_download_that_trickles_is_cut_off_below_the_minimum_rate_and_keeps_what_came(short_deadlines: None, stand_in_table: bytes, table_dir: Path) -> None:
    with serving({NAME: stand_in_table}) as server:
        server.faults.trickle = r"bytes=\d+-"  # the download's open-ended request, not the head's or the digests'
        began = time.monotonic()
        with pytest.raises(TableError) as refused:
            fetch_table(GAME, url=server.url, table_dir=table_dir)
        took = time.monotonic() - began
    message = _one_line(refused.value)
    assert message.startswith(server.url + NAME + ": the server sent ") and "below the minimum rate of 1,000 bytes a second" in message
    assert "run the same command again to resume" in message and took < CUT_OFF_WITHIN
    assert partial_name(table_dir / NAME).exists()


def test_a_block_request_of_a_url_table_is_bounded_in_all(stand_in_table: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pace.SPEED_LIMIT_ENV, "1")  # 20 bytes a second keeps the rate: only the bound in all cuts it off
    monkeypatch.setenv(pace.REQUEST_ENV, "1")
    with serving({NAME: stand_in_table}) as server:
        table = open_url_table(server.url + NAME, game=GAME)
        server.faults.trickle = _block_range(stand_in_table, 3)
        began = time.monotonic()
        with pytest.raises(TableError) as refused:
            table.scores.block(3)
        took = time.monotonic() - began
        server.faults.trickle = None
        assert table.scores.block(3) is not None  # the server answers in time again: so does the table
    message = _one_line(refused.value)
    assert message.startswith(server.url + NAME + ": the server took over 1 s to answer one request") and took < CUT_OFF_WITHIN


@pytest.mark.parametrize("value", ["soon", "0", "-1", "inf", "nan", "٣"])
def test_a_deadline_variable_that_is_not_a_positive_number_is_refused_naming_it(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pace.SPEED_TIME_ENV, value)
    with pytest.raises(TableError, match=rf"^\${pace.SPEED_TIME_ENV} is .*: expected a positive number \(default 30\)$"):
        remote.HttpRange("http://127.0.0.1:9/2x9k4.ttt")


# -- 7. malformed answers, URLs and arguments: one line, never a traceback ------------------------------------
_HEAD = b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-99/100\r\n"
MALFORMED = {
    "a bad status line": b"HTTP/1.1 2x6 Partial Content\r\n\r\n",
    "not HTTP at all": b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
    "over 100 headers": _HEAD + b"X-Many: yes\r\n" * 101 + b"Content-Length: 100\r\n\r\n" + bytes(100),
    "a 64 KB header line": _HEAD + b"X-Long: " + b"a" * 65536 + b"\r\nContent-Length: 100\r\n\r\n" + bytes(100),
    "a bad chunked body": _HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n" + bytes(10) + b"\r\n0\r\n\r\n",
    "a cut chunked body": _HEAD + b"Transfer-Encoding: chunked\r\n\r\n64\r\n" + bytes(10),
}


@pytest.mark.parametrize("answer", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_answer_is_one_line_naming_the_server(answer: bytes, table_dir: Path) -> None:
    with answering(answer) as url:
        with pytest.raises(TableError) as refused:
            fetch_table(GAME, url=url, table_dir=table_dir)
        with pytest.raises(TableError) as at_url:
            open_url_table(url + NAME, game=GAME)
        result = CliRunner().invoke(main, ["fetch", "--game", "2x9k4", "--from", url, "--table-dir", str(table_dir)])
    for error in (refused.value, at_url.value):
        assert _one_line(error).startswith(url + NAME + ": ")
    assert result.exit_code == 1 and result.output.startswith(f"solve: error: {url}{NAME}: ") and result.output.count("\n") == 1


BAD_URLS = {
    "a space": "http://example.org/my tables/",
    "a line break": "http://example.org/tables/\r\nX-Injected: yes",
    "an unclosed IPv6 address": "http://[::1",
    "a 300-character label": "http://" + "a" * 300 + ".example.org/",
    "non-ASCII digits in the port": "http://127.0.0.1:٨٠/",
    "an empty host": "http:///tables/",
    "a port out of range": "http://127.0.0.1:70000/",
}


@pytest.mark.parametrize("via", ["argument", "variable"])
@pytest.mark.parametrize("url", BAD_URLS.values(), ids=BAD_URLS.keys())
def test_a_malformed_url_is_one_line_naming_it(url: str, via: str, table_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if via == "variable":
        monkeypatch.setenv(MIRROR_ENV, url)
    given, named = (url, "url ") if via == "argument" else (None, f"${MIRROR_ENV} ")
    calls = [lambda: fetch_table(GAME, url=given, table_dir=table_dir)]
    if via == "argument":
        calls.append(lambda: solver.table_for("2x9k4", url=url))
    for call in calls:
        with pytest.raises(TableError) as refused:
            call()
        assert _one_line(refused.value).startswith(named)
    args = ["fetch", "--game", "2x9k4", "--table-dir", str(table_dir)] + (["--from", url] if via == "argument" else [])
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and result.output.startswith(f"solve: error: {named}") and result.output.count("\n") == 1, result.output


WRONG_TYPES = {
    "table_for(url=123)": (lambda: solver.table_for("2x9k4", url=123), "url"),
    "table_for(checksum=5)": (lambda: solver.table_for("2x9k4", url="http://127.0.0.1:9/", checksum=5), "checksum"),
    "fetch_table(checksum=5)": (lambda: fetch_table(GAME, url="http://127.0.0.1:9/", checksum=5), "checksum"),
    "fetch_table(table_dir=5)": (lambda: fetch_table(GAME, url="http://127.0.0.1:9/", table_dir=5), "table_dir"),
    "fetch_table(url=b'...')": (lambda: fetch_table(GAME, url=b"http://127.0.0.1:9/"), "url"),
    "open_url_table(url=None)": (lambda: open_url_table(None), "url"),
    "fetch_table(game=5)": (lambda: fetch_table(5, url="http://127.0.0.1:9/"), "game"),
}


@pytest.mark.parametrize("call, name", WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_an_argument_of_the_wrong_type_is_one_line_naming_it(call, name: str) -> None:  # noqa: ANN001 - a lambda
    with pytest.raises(SolverError) as refused:
        call()
    assert isinstance(refused.value, TypeError) and _one_line(refused.value).startswith(f"{name} must be ")


# -- 3. a table already in place is checked; a damaged one is repaired ---------------------------------------------
def _damaged(data: bytes, block: int) -> bytes:
    from test_mirrors import _region

    base, offsets = _region(data)
    wrong = bytearray(data)
    wrong[base + int(offsets[block]) + 3] ^= 0xFF
    return bytes(wrong)


def test_fetch_checks_a_table_in_place_and_repairs_a_damaged_one(stand_in_table: bytes, table_dir: Path) -> None:
    table_dir.mkdir(parents=True)
    (table_dir / NAME).write_bytes(_damaged(stand_in_table, 5))
    with serving({NAME: stand_in_table}) as server:
        fetched = fetch_table(GAME, url=server.url, table_dir=table_dir)
        assert fetched.installed and fetched.repaired is not None and "block 5 " in fetched.repaired
        assert (table_dir / NAME).read_bytes() == stand_in_table
        again = fetch_table(GAME, url=server.url, table_dir=table_dir)  # whole now: checked, nothing fetched
    assert not again.installed and again.repaired is None


@pytest.mark.parametrize("replace", [False, True])
def test_solve_fetch_repairs_a_damaged_table_with_or_without_replace(replace: bool, stand_in_table: bytes, table_dir: Path) -> None:
    table_dir.mkdir(parents=True)
    (table_dir / NAME).write_bytes(_damaged(stand_in_table, 2))
    with serving({NAME: stand_in_table}) as server:
        args = ["fetch", "--game", "2x9k4", "--from", server.url, "--table-dir", str(table_dir)] + (["--replace"] if replace else [])
        result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    last = result.output.splitlines()[-1]
    assert last.startswith(f"Repaired {table_dir / NAME} ") and "failed its check" in last and "block 2 " in last
    assert (table_dir / NAME).read_bytes() == stand_in_table


def test_replace_keeps_the_file_in_place_until_the_new_one_has_passed(stand_in_table: bytes, table_dir: Path) -> None:
    from test_mirrors import _region

    table_dir.mkdir(parents=True)
    mine = table_dir / NAME
    mine.write_bytes(_damaged(stand_in_table, 1))
    base, offsets = _region(stand_in_table)
    with serving({NAME: stand_in_table}) as server:
        server.faults.flip = base + int(offsets[4]) + 1  # the mirror is wrong too: nothing replaces the file
        with pytest.raises(TableError, match="block 4 .*nothing was installed"):
            fetch_table(GAME, url=server.url, table_dir=table_dir, replace=True)
    assert mine.read_bytes() == _damaged(stand_in_table, 1)


# -- 4. a partial that is already whole goes straight to its check -------------------------------------------------
def test_a_whole_partial_goes_straight_to_its_check(stand_in_table: bytes, table_dir: Path) -> None:
    """A fetch interrupted during its check (Ctrl-C) left a whole download: the next run checks and installs it,
    and asks for no byte past the end (before: a 416, and "run the same command again" for ever)."""
    table_dir.mkdir(parents=True)
    partial_name(table_dir / NAME).write_bytes(stand_in_table)
    with serving({NAME: stand_in_table}) as server:
        fetched = fetch_table(GAME, url=server.url, table_dir=table_dir)
        assert f"bytes={len(stand_in_table)}-" not in server.faults.ranges_seen
    assert fetched.installed and fetched.resumed_from == len(stand_in_table) and fetched.downloaded == 0
    assert (table_dir / NAME).read_bytes() == stand_in_table and not partial_name(table_dir / NAME).exists()


def test_a_416_for_a_whole_file_is_nothing_left_to_send(stand_in_table: bytes) -> None:
    size = len(stand_in_table)
    with serving({NAME: stand_in_table}) as server:
        http = remote.HttpRange(server.url + NAME)
        assert list(http.stream(size, size)) == []
        assert server.faults.ranges_seen == [f"bytes={size}-"]
        with pytest.raises(TableError, match="416"):
            list(http.stream(size, size + 10))  # a file shorter than its header says is still refused


# -- 6. a disk that fills up during a download --------------------------------------------------------------------
def test_a_disk_that_fills_during_a_download_names_the_path_and_the_figures(stand_in_table: bytes, table_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int, data: bytes, offset: int) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    partial = partial_name(table_dir / NAME)
    with serving({NAME: stand_in_table}) as server:
        monkeypatch.setattr(mirror.os, "pwrite", full)
        with pytest.raises(DiskFullError) as refused:
            fetch_table(GAME, url=server.url, table_dir=table_dir)
        result = CliRunner().invoke(main, ["fetch", "--game", "2x9k4", "--from", server.url, "--table-dir", str(table_dir)])
    message = _one_line(refused.value)
    assert message.startswith(f"{partial}: the disk filled up while downloading the table (No space left on device)")
    assert f"it needs about {len(stand_in_table) / 1024:.1f} KiB ({len(stand_in_table):,} bytes)" in message
    assert f"{table_dir} has " in message and " free" in message and "run the same command again to resume" in message
    errors = [line for line in result.output.splitlines() if line.startswith("solve: error: ")]
    assert result.exit_code == 1 and len(errors) == 1 and str(partial) in errors[0] and "Traceback" not in result.output


# -- 2. nothing cached from a source before it is verified; a bad entry is named and discarded -----------------------
def _zeroed_crcs(data: bytes) -> bytes:
    from test_mirrors import open_table_bytes

    spec = open_table_bytes(data).arrays[0]
    assert spec.encoding is not None
    crcs = spec.offset + spec.encoding.data_bytes + 8 * (spec.encoding.blocks + 1)
    return data[:crcs] + bytes(4 * spec.encoding.blocks) + data[crcs + 4 * spec.encoding.blocks :]


def _heads_kept(cache_dir: Path) -> int:
    with sqlite3.connect(cache_dir / "url-blocks.sqlite3") as db:
        return int(db.execute("SELECT COUNT(*) FROM pieces WHERE start < 0").fetchone()[0])


def test_a_hostile_mirror_leaves_nothing_in_the_cache_that_breaks_an_honest_one(stand_in_table: bytes, private_cache: Path) -> None:
    """A mirror that sends zeroed CRCs (the root covers the digests, not the offset table and CRCs) is refused
    naming it; nothing of its head is kept, and the honest mirror then answers (before: it was blamed)."""
    with serving({NAME: _zeroed_crcs(stand_in_table)}) as hostile, serving({NAME: stand_in_table}) as honest:
        bad = open_url_table(hostile.url + NAME, game=GAME)
        with pytest.raises(TableError) as refused:
            bad.scores.block(3)
        assert _one_line(refused.value).startswith(f"{hostile.url}{NAME}: block 3 ")
        assert _heads_kept(private_cache) == 0
        good = open_url_table(honest.url + NAME, game=GAME)
        assert good.scores.block(3) is not None
        assert np.array_equal(good.scores.decode_all(), open_url_table(honest.url + NAME, game=GAME).scores.decode_all())
    assert _heads_kept(private_cache) == 1  # the honest head, kept once a block passed against it


def test_a_damaged_cache_entry_is_named_discarded_and_fetched_afresh(stand_in_table: bytes, private_cache: Path) -> None:
    with serving({NAME: stand_in_table}) as server:
        url = server.url + NAME
        first = open_url_table(url, game=GAME)
        first.scores.block(0)
        assert _heads_kept(private_cache) == 1
        with sqlite3.connect(private_cache / "url-blocks.sqlite3") as db:
            (kept,) = db.execute("SELECT data FROM pieces WHERE start < 0").fetchone()
            crcs = 4 * first.scores.blocks
            db.execute("UPDATE pieces SET data = ? WHERE start < 0", (kept[:-crcs] + bytes(crcs),))
        second = open_url_table(url, game=GAME)
        with pytest.raises(TableError) as refused:
            second.scores.block(7)
        message = _one_line(refused.value)
        assert message.startswith(f"{url}: block 7 ") and f"the block cache ({private_cache / 'url-blocks.sqlite3'})" in message
        assert "that entry was discarded" in message and _heads_kept(private_cache) == 0
        third = open_url_table(url, game=GAME)
        assert third.scores.block(7) is not None


# -- 5. eviction in time proportional to what it evicts ---------------------------------------------------------------
def test_the_cache_keeps_a_running_total_that_counts_a_replaced_row_once(tmp_path: Path) -> None:
    cache = remote.BlockCache(tmp_path / "c.sqlite3", max_bytes=1 << 20)
    cache.put("k", 0, b"a" * 1000)
    cache.put("k", 0, b"b" * 1000)  # the same row again: no new bytes
    assert cache.bytes == 1000
    cache.put("k", 0, b"c" * 400)
    assert cache.bytes == 400
    other = remote.BlockCache(tmp_path / "c.sqlite3", max_bytes=1 << 20)  # another process's view of the same file
    other.put("k", 1, b"d" * 100)
    cache.drop("k", 0)
    assert cache.bytes == other.bytes == 100 and cache.scanned == cache.evicted == 0


def test_eviction_reads_only_about_the_rows_it_removes_and_a_hit_never_evicts(tmp_path: Path) -> None:
    cache = remote.BlockCache(tmp_path / "c.sqlite3", max_bytes=100_000)
    for start in range(99):
        cache.put("k", start, bytes(1000))
    for start in range(99):
        assert cache.get("k", start) is not None  # hits, oldest first: they only mark their rows used
    assert cache.bytes == 99_000 and cache.scanned == cache.evicted == 0
    cache.put("k", 1000, bytes(2000))  # 101,000 bytes: back to 90,000, the 11 least recently used out
    assert cache.evicted == 11 and cache.scanned <= cache.evicted + cache.EVICT_BATCH and cache.bytes == 90_000
    assert all(cache.get("k", start) is None for start in range(11)) and cache.get("k", 11) is not None
    with sqlite3.connect(tmp_path / "c.sqlite3") as db:
        plan = " ".join(row[-1] for row in db.execute("EXPLAIN QUERY PLAN " + cache.EVICT_QUERY, (cache.EVICT_BATCH,)))
    assert "pieces_by_use" in plan and "TEMP B-TREE" not in plan  # walked by the index, never sorted whole


def test_a_look_up_served_from_the_cache_starts_no_eviction(stand_in_table: bytes, tmp_path: Path) -> None:
    from solver.storage.trust import expects

    cache = remote.BlockCache(tmp_path / "c.sqlite3", max_bytes=64 << 20)
    with serving({NAME: stand_in_table}) as server:
        first = remote.open_url(server.url + NAME, game=GAME, expected=expects(GAME, None), cache=cache)
        every = first.compressed("scores").decode_all()
        cache.max_bytes = cache.bytes  # full to the byte: one new byte would evict
        again = remote.open_url(server.url + NAME, game=GAME, expected=expects(GAME, None), cache=cache)
        assert np.array_equal(again.compressed("scores").decode_all(), every)
    assert cache.evicted == cache.scanned == 0 and cache.bytes == cache.max_bytes


def test_a_slow_server_above_the_minimum_rate_is_not_cut_off() -> None:
    """The rate is an average over each span: a server sending 20 bytes a second passes a 5 bytes a second minimum."""
    data = bytes(range(40))
    with serving({"small.bin": data}) as server:
        server.faults.trickle = r"bytes=0-"
        http = remote.HttpRange(server.url + "small.bin", limits=pace.Limits(head_seconds=1, speed_limit=5, speed_time=0.5))
        assert b"".join(http.stream(0, len(data))) == data


# -- over HTTPS: the same deadlines inside TLS reads ------------------------------------------------------------------
@pytest.fixture
def certificate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A self-signed certificate for localhost, trusted by the client for the test (openssl makes it)."""
    import shutil
    import ssl
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: no certificate to serve HTTPS with")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1"]
        + ["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    monkeypatch.setattr(pace, "tls_context", lambda: ssl.create_default_context(cafile=str(cert)))
    return cert, key


def test_over_https_a_table_is_fetched_and_read_and_a_trickle_is_cut_off(
    certificate: tuple[Path, Path], short_deadlines: None, stand_in_table: bytes, table_dir: Path
) -> None:
    with serving({NAME: stand_in_table}, tls=certificate) as server:
        assert server.url.startswith("https://")
        fetched = fetch_table(GAME, url=server.url, table_dir=table_dir)
        table = open_url_table(server.url + NAME, game=GAME)
        assert table.scores.block(3) is not None and table.scores.block(4) is not None  # the second over the kept-alive connection
        server.faults.trickle = _block_range(stand_in_table, 5)
        with pytest.raises(TableError) as refused:
            table.scores.block(5)
    assert fetched.installed and (table_dir / NAME).read_bytes() == stand_in_table
    assert _one_line(refused.value).startswith(f"{server.url}{NAME}: the server sent ") and "minimum rate" in _one_line(refused.value)
