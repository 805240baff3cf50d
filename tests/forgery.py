"""A finished raw layer of a build directory changed on disk and recorded anew, as a forger would (tests of the
checks a resumed build makes beyond the manifest)."""

from __future__ import annotations

import hashlib
import json

from solver.retrograde.builddir import BuildDir
from solver.retrograde.chunks import chunks


def forge_finished_layer(build: BuildDir, ply: int) -> None:
    """Change one reachable, decided score of finished layer ``ply`` and record the layer's new digest: the SHA-256 of
    its chunks' SHA-256, computed here with hashlib."""
    path = build.layer_path(ply)
    data = bytearray(path.read_bytes())
    at = next(i for i, value in enumerate(data) if value not in (0x80, 0))
    data[at] = (data[at] + 1) % 256
    path.write_bytes(bytes(data))
    spans = build.spans(ply)  # each chunk's bytes in the layer's file (a sparse layer's: its boards reached)
    parts = b"".join(hashlib.sha256(data[spans[chunk.start][0] : sum(spans[chunk.start])]).digest() for chunk in chunks(build.game, ply))
    manifest = json.loads((build.path / "manifest.json").read_text())
    manifest["layers"][str(ply)]["sha256"] = hashlib.sha256(parts).hexdigest()
    (build.path / "manifest.json").write_text(json.dumps(manifest))
