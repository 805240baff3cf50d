"""Table files in the forms of earlier releases, written by the tests (the package writes only today's)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import solver
from solver.storage import tablefile


def write_plain_compact(path: Path, table: solver.Table) -> Path:
    """``table`` written in the plain (uncompressed, format 2) compact layout of earlier releases."""
    header, length, parts = tablefile._plan("compact", table.game, table.file_arrays(), table.file_meta())
    with path.open("wb") as out:
        digests = bytearray()
        for spec in header.arrays:
            out.seek(spec.offset)
            digests += tablefile._write_blocks(out, parts[spec.name], header.block_bytes)
        out.seek(header.digests_offset)
        out.write(digests)
        header = dataclasses.replace(header, root=tablefile.root_of(header, bytes(digests)))
        out.seek(0)
        out.write(tablefile.head_bytes(header, length))
    return path
