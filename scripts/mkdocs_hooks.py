"""MkDocs hook: the site carries the HTTP API's OpenAPI document, written from the code that serves it.

``docs/http.md`` links ``openapi.json``; this hook adds that file to the site at build time from
:func:`solver.web.openapi.openapi_document` (the document ``solve serve`` answers at
``/api/v1/openapi.json``), so the published description never drifts from the server's. Needs the
``web`` extra, as ``solve serve`` does.
"""

from __future__ import annotations

import json
from typing import Any

from mkdocs.structure.files import File, Files


def on_files(files: Files, config: Any) -> Files:
    """Add ``openapi.json`` (the document for a server of tic-tac-toe alone) to the site's files."""
    from solver.web import MAX_BATCH, MAX_BODY_BYTES
    from solver.web.openapi import openapi_document

    document = openapi_document(["3x3k3"], max_batch=MAX_BATCH, max_body=MAX_BODY_BYTES)
    files.append(File.generated(config, "openapi.json", content=json.dumps(document, indent=2) + "\n"))
    return files
