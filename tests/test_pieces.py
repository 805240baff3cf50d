"""A layer cut anywhere into pieces, each sealed apart (solver/retrograde/pieces.py), and joined in order gives the plain
stored bytes of the layer (solver.contents.stored) in blocks of the table's size; pieces out of order are refused."""

from __future__ import annotations

import numpy as np
import pytest

from solver.contents.stored import stored_layers
from solver.encoding.layouts import layout
from solver.retrograde.pieces import Compression, LayerStream, PieceSealing, seal_piece
from solver.rules.game import parse_game
from solver.storage.blockarray import codec_of

GAME = "2x9k4"


def _span(size: int, offset: int, block: int) -> tuple[int, int]:
    """The layer's head and whole (layer-local), by the table's blocks: independent of solver.retrograde.sealing.Span."""
    head = min(size, -offset % block)
    whole = head + (size - head) // block * block
    return head, whole


@pytest.mark.parametrize("block", [64, 1000, 1 << 16])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_layer_cut_anywhere_and_joined_in_order_is_the_plain_stored_bytes(stand_in_layers: list[np.ndarray], block: int, seed: int) -> None:
    # pieces of one board, of less than a block, of many blocks; every layer of the stand-in game, its blocks decoded
    # one after the other (each layer's head with the blocks of the layer below, as the table holds them)
    game = parse_game(GAME)
    offsets = layout(game).layer_offsets
    codec = Compression.default()
    decode = codec_of(codec.name).decompress
    rng = np.random.default_rng([seed, block])
    carry = b""
    per_layer = []
    for ply in range(game.cells, -1, -1):
        scores = stand_in_layers[ply]
        size = len(scores)
        cuts = np.unique(np.concatenate([[0, size], rng.integers(0, size + 1, 12), rng.integers(0, size + 1, 3) // 2 * 2]))
        head, whole = _span(size, offsets[ply], block)
        stream = LayerStream(size, head, whole, block, codec)
        blocks = []
        for start, stop in zip(cuts[:-1], cuts[1:], strict=True):
            piece = seal_piece(game, ply, scores[start:stop], int(start), offsets[ply], PieceSealing(codec, block))
            blocks += [decode(b.packed, b.size) for b in stream.add(piece)]
        blocks += [decode(b.packed, b.size) for b in stream.end(carry)]
        assert all(len(data) == block for data in blocks[:-1] if data)
        per_layer.append(b"".join(blocks))
        carry = stream.head
    assert carry + b"".join(reversed(per_layer)) == np.concatenate(list(stored_layers(game, stand_in_layers))).tobytes()


def test_pieces_out_of_order_and_a_layer_ended_early_are_refused(stand_in_layers: list[np.ndarray]) -> None:
    game = parse_game(GAME)
    ply = 9
    scores = stand_in_layers[ply]
    codec = Compression.default()
    sealing = PieceSealing(codec, 1 << 16)
    offset = layout(game).layer_offsets[ply]
    stream = LayerStream(len(scores), 0, 0, 1 << 16, codec)
    with pytest.raises(ValueError, match="a piece at 10 added after 0 boards of the layer"):
        list(stream.add(seal_piece(game, ply, scores[10:20], 10, offset, sealing)))
    list(stream.add(seal_piece(game, ply, scores[:10], 0, offset, sealing)))
    with pytest.raises(ValueError, match=f"the layer ended after 10 of its {len(scores):,} boards"):
        list(stream.end(b""))
