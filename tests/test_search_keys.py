"""The search's canonical keys (solver/search/bitboard.py): the key a node reads from the position and its mirror image,
both carried down the search (``canonical_of``), is the canonical key the columns' loop gives (``canonical``), the
one the table and the book store, on every position of random Connect Four games and of a board of another width; and
every entry a search leaves in its table is under a canonical key."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_transposition_tags import _unmix

from solver.rules.game import parse_game
from solver.search import Engine
from solver.search.bitboard import G_BOARD, ZERO, canonical, canonical_of, key_of, mirror_cell, mirror_key, possible
from solver.search.position import geometry_of


@pytest.mark.parametrize("name", ["connect4", "5x6k4-gravity", "4x3k3-gravity"])
def test_each_cells_mirror_image_is_the_same_height_in_the_mirrored_column(name: str) -> None:
    geo = geometry_of(parse_game(name))
    for bit in range(64):
        cell = np.uint64(1 << bit)
        if cell & geo[G_BOARD]:
            assert mirror_cell(cell, geo) == mirror_key(cell, geo), f"{name}: bit {bit}"


@pytest.mark.parametrize("name", ["connect4", "5x6k4-gravity"])
def test_the_key_read_from_a_position_and_its_mirror_image_is_its_canonical_key(name: str) -> None:
    game = parse_game(name)
    geo = geometry_of(game)
    rng = random.Random(name)
    checked = 0
    for _ in range(100):
        pos = mask = mpos = mmask = np.uint64(0)
        while True:
            assert canonical_of(pos, mask, mpos, mmask, geo) == canonical(np.uint64(key_of(pos, mask, geo)), geo)
            checked += 1
            free = [np.uint64(1 << b) for b in range(64) if possible(mask, geo) >> np.uint64(b) & np.uint64(1)]
            if not free:
                break
            move = rng.choice(free)
            pos, mask, mpos, mmask = pos ^ mask, mask | move, mpos ^ mmask, mmask | mirror_cell(move, geo)
            assert mmask == mirror_key(mask, geo) and mpos == mirror_key(pos, geo) and move != ZERO
    assert checked > 100 * game.cells // 2


def test_every_entry_a_search_leaves_is_stored_under_a_canonical_key() -> None:
    """Each bound the search stores is under the canonical key of its position (its key read back from its bucket and
    tag, :mod:`tests.test_transposition_tags`): a search that carried a wrong mirror image down would store some
    under a key that is not the smaller of itself and its mirror's."""
    engine = Engine("connect4", table_bytes=1 << 24, threads=1)
    engine.score(moves="335662333565")  # Pons' Begin-Easy: about 90,000 nodes
    table, geo = engine._table, geometry_of(engine.game)
    buckets = table.size // 2
    stored = np.flatnonzero(table)
    assert stored.size > 1000
    for index in stored.tolist():
        hashed = (int(table[index]) >> 16 << 16) | (index // 2)
        key = np.uint64(_unmix(hashed))
        assert index // 2 == hashed & (buckets - 1) and canonical(key, geo) == key, f"entry {index}: key {int(key):#x}"
