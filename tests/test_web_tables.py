"""``/tables/``'s validators follow RFC 9110: a strong ETag made from the file's bytes, ``If-None-Match``
(``*``, weak comparison, lists) and ``If-Range`` (strong comparison), and no file served under the ETag of
bytes it no longer holds, even rewritten in place with its size and times put back."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from web_support import need_web

import solver
from solver.store.locate import open_file, shipped_path

need_web()
from starlette.testclient import TestClient  # noqa: E402

from solver import web  # noqa: E402

NAME = "3x3k3.ttt"


@pytest.fixture
def served(tmp_path: Path) -> tuple[TestClient, Path]:
    """A server offering a copy of the shipped tic-tac-toe table, and the copy's path."""
    shipped = shipped_path(solver.parse_game("3x3k3"))
    assert shipped is not None
    path = Path(shutil.copy(shipped, tmp_path / NAME))
    return TestClient(web.create_app([open_file(path)])), path


def test_the_etag_is_strong_and_made_from_the_files_bytes(served: tuple[TestClient, Path], tmp_path: Path) -> None:
    client, path = served
    answer = client.get("/tables/" + NAME)
    assert answer.status_code == 200 and answer.content == path.read_bytes()
    assert answer.headers["etag"] == f'"sha256-{hashlib.sha256(path.read_bytes()).hexdigest()}"'
    (tmp_path / "other").mkdir()
    elsewhere = Path(shutil.copy(path, tmp_path / "other" / NAME))  # another inode, another time: the same bytes, the same ETag
    moved = TestClient(web.create_app([open_file(elsewhere)]))
    assert moved.head("/tables/" + NAME).headers["etag"] == answer.headers["etag"]


@pytest.mark.parametrize("method", ["GET", "HEAD"])
@pytest.mark.parametrize(
    ("condition", "status"),
    [
        ("*", 304),
        ("{etag}", 304),
        ("W/{etag}", 304),  # If-None-Match compares weakly
        ('"other", {etag}', 304),
        ('W/"other",{etag} , "more"', 304),
        ('"other"', 200),
        ('W/"other", "more"', 200),
        ('"sha256-"', 200),
    ],
)
def test_if_none_match_takes_a_star_weak_tags_and_lists(served: tuple[TestClient, Path], method: str, condition: str, status: int) -> None:
    client, _ = served
    etag = client.head("/tables/" + NAME).headers["etag"]
    answer = client.request(method, "/tables/" + NAME, headers={"If-None-Match": condition.format(etag=etag)})
    assert answer.status_code == status, (condition, answer.status_code)
    assert answer.headers["etag"] == etag
    if status == 304:
        assert answer.content == b""


def test_if_none_match_is_answered_before_a_range(served: tuple[TestClient, Path]) -> None:
    client, _ = served
    etag = client.head("/tables/" + NAME).headers["etag"]
    assert client.get("/tables/" + NAME, headers={"If-None-Match": etag, "Range": "bytes=0-9"}).status_code == 304


def test_if_range_compares_strongly_and_takes_no_date(served: tuple[TestClient, Path]) -> None:
    client, path = served
    data = path.read_bytes()
    whole = client.head("/tables/" + NAME)
    etag = whole.headers["etag"]
    part = client.get("/tables/" + NAME, headers={"Range": "bytes=10-19", "If-Range": etag})
    assert part.status_code == 206 and part.content == data[10:20]
    for validator in (f"W/{etag}", '"other"', whole.headers.get("last-modified", "Sat, 28 Nov 2026 00:00:00 GMT")):
        answer = client.get("/tables/" + NAME, headers={"Range": "bytes=10-19", "If-Range": validator})
        assert answer.status_code == 200 and answer.content == data, f"If-Range {validator} must send the whole file"


def test_a_file_rewritten_in_place_with_its_size_and_times_restored_is_not_served_under_its_old_etag(served: tuple[TestClient, Path]) -> None:
    client, path = served
    before = path.read_bytes()
    first = client.get("/tables/" + NAME)
    etag = first.headers["etag"]
    info = os.stat(path)
    changed = bytearray(before)
    changed[-1] ^= 0xFF
    with open(path, "r+b") as out:  # in place: the same inode, the same size
        out.write(changed)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))  # and the same times
    assert (os.stat(path).st_size, os.stat(path).st_mtime_ns, os.stat(path).st_ino) == (info.st_size, info.st_mtime_ns, info.st_ino)
    for headers in ({}, {"If-None-Match": etag}, {"Range": "bytes=0-", "If-Range": etag}):
        answer = client.get("/tables/" + NAME, headers=headers)
        assert not (answer.status_code in (200, 206, 304) and answer.headers.get("etag") == etag), f"{headers}: served under the old ETag"
        assert answer.status_code == 503, answer.status_code


def test_the_etag_is_computed_once_per_file_identity(served: tuple[TestClient, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from solver.web import files

    client, _ = served
    hashed = []
    monkeypatch.setattr(files, "RACY_SECONDS", 0.0)  # the copy was just written: its change time is racy otherwise
    real = files.file_etag
    monkeypatch.setattr(files, "file_etag", lambda path: hashed.append(path) or real(path))
    tags = {client.get("/tables/" + NAME, headers={"Range": "bytes=0-9"}).headers["etag"] for _ in range(5)}
    assert len(tags) == 1 and len(hashed) == 1


def test_api_answers_take_if_none_match_lists_weak_tags_and_a_star(served: tuple[TestClient, Path]) -> None:
    client, _ = served
    etag = client.get("/api/v1/3x3k3", params={"board": "X........"}).headers["etag"]
    for condition in ("*", f"W/{etag}", f'"other", {etag}'):
        assert client.get("/api/v1/3x3k3", params={"board": "X........"}, headers={"If-None-Match": condition}).status_code == 304
    assert client.get("/api/v1/3x3k3", params={"board": "X........"}, headers={"If-None-Match": '"other"'}).status_code == 200
