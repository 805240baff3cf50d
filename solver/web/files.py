"""The table files a server offers for download: ``GET /tables/`` lists them, ``GET /tables/{game}.ttt`` sends one.

Another machine's ``solve fetch --from http://host:port/tables/`` downloads from here, and
``solver.table_for(game, url=...)`` / ``solve lookup --table URL`` read a table here block by
block: both only need byte ranges. The files are those of the tables the server opened and
verified at start-up (a table built in memory has none); nothing a request names reaches the
file system but a name looked up in that list.

A file is sent by Starlette's :class:`~starlette.responses.FileResponse`: ``Range`` requests get
``206 Partial Content`` (``416`` for a range past the end), ``HEAD`` the headers alone. Its
``ETag`` is the table's root checksum (``solve verify`` prints it), so ``If-Range`` and
``If-None-Match`` are answered by content: the same table has the same ETag on every server.
A file replaced on disk after the server opened it is not sent (``503``): its checksum would
not be the one the listing and the ETag give.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, Response

from ..errors import quote
from ..storage.tablefile import expected_root
from ..tables import Table

PREFIX = "/tables/"


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
    identity: tuple[int, int, int, int]
    """The file's device, inode, size and modification time when the server opened it."""

    @property
    def etag(self) -> str:
        """The strong ETag: the table's root checksum."""
        return f'"{self.checksum}"'

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


def _identity(info: os.stat_result) -> tuple[int, int, int, int]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


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
        shipped = expected_root(table.game, table.kind) == root
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
        """One file, with byte ranges, its checksum as ETag."""
        name = request.path_params["name"]
        offered = self.files.get(name)
        if offered is None:
            raise HTTPException(404, f"no table file {quote(name)} here: the files offered are listed at {PREFIX}")
        try:
            changed = _identity(os.stat(offered.path)) != offered.identity
        except OSError:
            changed = True
        if changed:
            raise HTTPException(503, f"{name} changed on disk since the server opened it: restart the server to offer the new file")
        headers = {"etag": offered.etag, "cache-control": "no-cache"}
        if request.headers.get("if-none-match") == offered.etag:
            return Response(status_code=304, headers=headers)
        return FileResponse(offered.path, headers=headers, media_type="application/octet-stream", filename=name)
