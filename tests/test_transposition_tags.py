"""The transposition table never takes one position's entry for another's (solver/search/transposition.py): the bucket
and the whole 48-bit tag together name the hashed key, so a key whose hash differs from a stored one in any tag bit
misses, however many low bits they share.

The colliding keys are made here by inverting SplitMix64's finaliser in plain Python (no code of the package).
"""

from __future__ import annotations

import numpy as np
import pytest

from solver.search.transposition import get, new_table, put, work_of

MASK = (1 << 64) - 1


def _mix(key: int) -> int:
    key ^= key >> 30
    key = (key * 0xBF58476D1CE4E5B9) & MASK
    key ^= key >> 27
    key = (key * 0x94D049BB133111EB) & MASK
    return key ^ (key >> 31)


def _unshift(value: int, shift: int) -> int:
    """The x with x ^ (x >> shift) == value."""
    x = value
    for _ in range(64 // shift + 1):
        x = value ^ (x >> shift)
    return x & MASK


def _unmix(hashed: int) -> int:
    key = _unshift(hashed, 31)
    key = (key * pow(0x94D049BB133111EB, -1, 1 << 64)) & MASK
    key = _unshift(key, 27)
    key = (key * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & MASK
    return _unshift(key, 30)


@pytest.mark.parametrize("bit", [16, 31, 32, 40, 47, 63])
def test_a_key_whose_hash_differs_from_a_stored_ones_in_one_tag_bit_is_not_taken_for_it(bit: int) -> None:
    table = new_table(1 << 20)
    stored = 0x0000_1234_5678_9ABC
    other = _unmix(_mix(stored) ^ (1 << bit))  # the same bucket (low bits), the same tag but for one bit
    assert _mix(other) ^ _mix(stored) == 1 << bit and _unmix(_mix(stored)) == stored
    put(table, np.uint64(stored), 5, True, 10)
    assert get(table, np.uint64(stored)) != 0
    assert get(table, np.uint64(other)) == 0, f"a key differing in tag bit {bit} read the stored key's entry"
    put(table, np.uint64(other), -3, False, 10)
    assert get(table, np.uint64(stored)) != get(table, np.uint64(other))


def test_an_entrys_work_is_the_bit_length_of_the_nodes_its_search_visited() -> None:
    assert [work_of(n) for n in (0, 1, 2, 3, 1000, 1 << 40)] == [0, 1, 2, 2, 10, 41]


def test_a_buckets_first_tier_keeps_the_entry_that_cost_the_most_work_and_the_second_takes_the_rest() -> None:
    """Four keys of one bucket (their hashes differ in tag bits only): a costly entry stays in the first tier while
    cheaper ones, even of positions with fewer pieces, take turns in the second; a costlier one takes the first."""
    table = new_table(1 << 20)
    hashed = _mix(0x0000_1234_5678_9ABC)
    costly, cheap, cheaper, costlier = (np.uint64(_unmix(hashed ^ (i << 40))) for i in range(4))
    put(table, costly, 5, True, work_of(1_000_000))
    put(table, cheap, 3, True, work_of(10))
    assert get(table, costly) != 0 and get(table, cheap) != 0
    put(table, cheaper, -2, False, work_of(100))
    assert get(table, costly) != 0, "a cheaper entry displaced the costliest"
    assert get(table, cheap) == 0 and get(table, cheaper) != 0, "the second tier did not take the newest entry"
    put(table, costlier, 1, True, work_of(10_000_000))
    assert get(table, costlier) != 0 and get(table, cheaper) != 0 and get(table, costly) == 0
