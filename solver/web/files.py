"""The table files a server offers for download: ``GET /tables/`` lists them, ``GET /tables/{game}.ttt`` sends one.

Another machine's ``solve fetch --from http://host:port/tables/`` downloads from here, and
``solver.table_for(game, url=...)`` / ``solve lookup --table URL`` read a table here block by
block: both only need byte ranges. The files are those of the tables the server opened and
verified at start-up (a table built in memory has none); nothing a request names reaches the
file system but a name looked up in that list.

A file is sent by Starlette's :class:`~starlette.responses.FileResponse`: ``Range`` requests get
``206 Partial Content`` (``416`` for a range past the end), ``HEAD`` the headers alone. The
validators follow RFC 9110 (section 13):

* the ``ETag`` is strong and made from the bytes: ``"sha256-<SHA-256 of the file>"``, so the
  same file has the same ETag on every server, and two files of the same table that differ in
  their bytes (compressed with zstd or with zlib: the same root checksum) have different ones.
  It is computed once per file identity (device, inode, size, modification and change times),
  off the event loop, and not kept while the file's change time is too recent to tell a later
  write from it (:data:`RACY_SECONDS`, as git treats a "racily clean" file);
* ``If-None-Match`` takes ``*``, a list, and weak tags (``W/"..."``), compared weakly, and is
  answered (``304``, for ``GET`` and ``HEAD``) before any range;
* ``If-Range`` compares strongly: a weak tag or a date never matches, and the whole file is sent.

A file changed on disk since the server opened it (its identity differs: a new file, or one
rewritten in place, whose change time moves even when its size and modification time are put
back) is not sent (``503``): the checksum the listing gives would not be its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import anyio.to_thread
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, Response

from ..api import Table, is_shipped
from ..errors import quote

PREFIX = "/tables/"
RACY_SECONDS = 2.0
"""A file whose change time is less than this many seconds before its bytes were hashed may change again within
the same tick of the file system's clock without its identity showing it: its ETag is not kept (computed again)."""
Identity = tuple[int, int, int, int, int]
"""A file's device, inode, size, modification and change times (ns): any write changes the change time, which
no system call sets back (``os.utime`` sets the other two and moves it)."""


@dataclass(frozen=True)
class OfferedFile:
    """One table file offered for download."""

    name: str
    """``<game>.ttt``."""
    game: str
    kind: str
    path: Path
    size: int
    checksum: str
    shipped: bool
    """Whether the package ships this checksum (else the table is one its server built or was given)."""
    identity: Identity
    """The file's :data:`Identity` when the server opened it."""
    etags: dict[Identity, str] = field(default_factory=dict, compare=False)
    """The ETag of the file's bytes, by identity (at most one: the identity it was opened with)."""

    def to_dict(self) -> dict[str, object]:
        """The listing's entry."""
        return {
            "name": self.name,
            "game": self.game,
            "kind": self.kind,
            "bytes": self.size,
            "checksum": self.checksum,
            "shipped_checksum": self.shipped,
            "url": PREFIX + self.name,
        }


def _identity(info: os.stat_result) -> Identity:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def file_etag(path: Path) -> tuple[Identity, str, bool]:
    """The strong ETag of a file's bytes (``"sha256-<hex>"``), the identity they had, and whether the ETag may be
    kept for that identity (the identity did not change while the file was read, and its change time is not racy).
    """
    started = time.time_ns()
    with open(path, "rb") as file:
        before = _identity(os.fstat(file.fileno()))
        digest = hashlib.file_digest(file, "sha256").hexdigest()
        after = _identity(os.fstat(file.fileno()))
    settled = before == after and started - before[4] > RACY_SECONDS * 1e9
    return before, f'"sha256-{digest}"', settled


_TAG = re.compile(r'\s*(W/)?("[^"]*")\s*(?:,|$)')


def entity_tags(header: str) -> list[tuple[bool, str]] | None:
    """The entity tags of an ``If-None-Match`` or ``If-Range`` value as ``(weak, "opaque")``, or None if it is not a list of them."""
    found: list[tuple[bool, str]] = []
    at = 0
    text = header.strip()
    while at < len(text):
        match = _TAG.match(text, at)
        if match is None or match.end() == at:
            return None
        found.append((match.group(1) is not None, match.group(2)))
        at = match.end()
    return found


def none_match(header: str | None, etag: str) -> bool:
    """Whether ``If-None-Match`` matches the current (strong) ``etag`` (RFC 9110, 13.1.2): ``*`` matches any
    representation; each tag of a list is compared weakly (``W/"x"`` matches ``"x"``). A value that is no list of
    tags matches nothing (it is ignored)."""
    if header is None:
        return False
    if header.strip() == "*":
        return True
    tags = entity_tags(header)
    return tags is not None and any(opaque == etag for _, opaque in tags)


def range_validator_matches(header: str, etag: str) -> bool:
    """Whether ``If-Range`` lets a range be sent (RFC 9110, 13.1.5): one strong tag equal to ``etag`` (strong
    comparison). A weak tag or a date (a modification time, which a rewrite can put back) never does."""
    tags = entity_tags(header)
    return tags is not None and len(tags) == 1 and not tags[0][0] and tags[0][1] == etag


class _TableFileResponse(FileResponse):
    """A :class:`FileResponse` whose ``If-Range`` compares the ETag strongly and takes no date."""

    def _should_use_range(self, http_if_range: str) -> bool:
        return range_validator_matches(http_if_range, self.headers["etag"])


def offered_files(tables: Iterable[Table]) -> dict[str, OfferedFile]:
    """The files of the tables opened from a local file, by name (a table in memory, or read from a URL, has none)."""
    found: dict[str, OfferedFile] = {}
    for table in tables:
        file = table.file
        if file is None or file.where is not None:
            continue
        try:
            info = os.stat(file.path)
        except OSError:
            continue
        name = f"{table.game.name}.ttt"
        root = file.header.root
        shipped = is_shipped(root, table.game, table.kind)
        found.setdefault(name, OfferedFile(name, table.game.name, table.kind, file.path, info.st_size, root, shipped, _identity(info)))
    return found


class TableFiles:
    """The handlers of ``/tables/`` and ``/tables/{name}`` over the files offered."""

    def __init__(self, tables: Iterable[Table]) -> None:
        self.files = offered_files(tables)
        self.listing = (json.dumps({"tables": [entry.to_dict() for entry in self.files.values()]}, sort_keys=True) + "\n").encode()

    async def index(self, request: Request) -> Response:
        """The files offered, as JSON: name, game, kind, bytes, checksum, URL."""
        return Response(self.listing, media_type="application/json", headers={"cache-control": "no-cache"})

    async def file(self, request: Request) -> Response:
        """One file, with byte ranges, the SHA-256 of its bytes as its ETag (module docstring)."""
        name = request.path_params["name"]
        offered = self.files.get(name)
        if offered is None:
            raise HTTPException(404, f"no table file {quote(name)} here: the files offered are listed at {PREFIX}")
        info = _current(offered)
        etag = offered.etags.get(offered.identity, "")
        if not etag:
            identity, etag, settled = await anyio.to_thread.run_sync(file_etag, offered.path)
            if identity != offered.identity:
                raise _changed(name)
            if settled:
                offered.etags[identity] = etag
            info = _current(offered)  # not changed while it was hashed
        headers = {"etag": etag, "cache-control": "no-cache"}
        if none_match(request.headers.get("if-none-match"), etag):
            return Response(status_code=304, headers=headers)
        response = _TableFileResponse(offered.path, headers=headers, media_type="application/octet-stream", filename=name, stat_result=info)
        del response.headers["last-modified"]  # a modification time can be put back: the ETag is the only validator
        return response


def _changed(name: str) -> HTTPException:
    return HTTPException(503, f"{name} changed on disk since the server opened it: restart the server to offer the new file")


def _current(offered: OfferedFile) -> os.stat_result:
    """The file's ``stat`` now, if it is still the file the server opened.

    :raises HTTPException: 503 if it is gone or changed (another file, or this one written since).
    """
    try:
        info = os.stat(offered.path)
    except OSError:
        raise _changed(offered.name) from None
    if _identity(info) != offered.identity:
        raise _changed(offered.name)
    return info
