"""The transposition table: bounds on the scores of positions searched before, in a fixed block of memory.

One entry is one ``uint64``, written and read whole, so that threads sharing the table never see
half of an entry (no torn writes, no lock):

==========  =================================================================================
bits        what
==========  =================================================================================
0..6        the score + 64 (a Pons score, |score| <= 33), never 0: an entry of 0 is empty
7           1: the score is a lower bound, 0: an upper bound
8..15       the work the bound cost: the bit length of the nodes its search visited (:func:`work_of`)
16..63      the tag: the hashed key's top 48 bits (the bucket is chosen by its low bits, at least 16 of them)
==========  =================================================================================

The key is mixed by an invertible hash (the SplitMix64 finaliser), so the bucket and the tag
together name the key exactly: a hit is never another position's. The key is the canonical one
(:func:`solver.search.bitboard.canonical`): a position and its mirror share their entry.

A bucket is two entries (Steininger's two tiers, Breuker's TwoDeep): the first keeps the entry that cost the
most work (the bigger search it saves; Steininger's ``c4`` keeps its entries so), the second takes whatever the
first refused. Measured on 2026-12-02 (20 Begin-Hard positions of 9 to 12 pieces, one thread, a table small
enough to fill, as the empty board fills 1 GiB; two trees alternated five positions at a time, load average 6 to
7): with 2 MiB, 4.11 M nodes a position against 4.65 M when the first tier kept the position with fewer pieces
(12 % fewer, 434 against 457 ms); with 8 MiB 3 % fewer; with 128 MiB the same nodes (no entry is evicted).
Keeping the fewer-work entry of the two instead (no tier that always takes) saved less (3.65 M against 3.62 M
nodes with 8 MiB), and moving the first tier's entry to the second when it is displaced saved nothing.

>>> table = new_table(1 << 20)
>>> table.size, table.dtype.name
(131072, 'uint64')
>>> key = np.uint64(12345)
>>> put(table, key, 7, True, work_of(1000))
>>> get(table, key), get(table, np.uint64(54321))
(199, 0)
>>> unpack(get(table, key))
(7, True)
"""

from __future__ import annotations

import mmap

import numpy as np

from ..errors import InvalidArgumentError, InvalidValueError, quote
from ..memory import size_words, total_memory
from .bitboard import popcount
from .kernel import kernel, prefetch
from .options import DEFAULT_TABLE_BYTES

ENTRY_BYTES = 8
"""Bytes an entry: one ``uint64``."""

MIN_BYTES = 1 << 20
"""The smallest table: 131,072 entries (and at least 2**16 buckets keep the tag within 48 bits)."""

SCORE_BIAS = 64
LOWER = 128


def entries_for(size_bytes: int) -> int:
    """The entries of a table of at most ``size_bytes`` (a power of two, at least :data:`MIN_BYTES` worth)."""
    entries = max(size_bytes, MIN_BYTES) // ENTRY_BYTES
    return 1 << (entries.bit_length() - 1)


def checked_table_bytes(size_bytes: object) -> int:
    """A table's size in bytes as given, refused before any memory is asked for when it cannot be one.

    :raises InvalidArgumentError: for anything but an int (``1.5e9``, ``"1G"``);
    :raises InvalidValueError: for a table (rounded down to a power of two) larger than this machine's memory.
    """
    if isinstance(size_bytes, bool) or not isinstance(size_bytes, (int, np.integer)):
        raise InvalidArgumentError(f"table_bytes must be a number of bytes (an int), not {type(size_bytes).__name__} {quote(size_bytes)}")
    size = int(size_bytes)
    memory = total_memory()
    if memory is not None and entries_for(size) * ENTRY_BYTES > memory:
        raise InvalidValueError(
            f"table_bytes={quote(size)} asks for a transposition table of {size_words(entries_for(size) * ENTRY_BYTES)}, "
            f"more than this machine's {size_words(memory)} of memory; the default is {DEFAULT_TABLE_BYTES >> 20} MiB"
        )
    return size


def new_table(size_bytes: int) -> np.ndarray:
    """An empty table of at most ``size_bytes`` (rounded down to a power of two, at least :data:`MIN_BYTES`).

    Its memory is written once here (about 20 ms for 128 MiB), so that the searches do not pay a page fault
    at each first touch of a page (a first search would be many times slower than the next). It is a private
    anonymous mapping the kernel is asked to back with huge pages (``MADV_HUGEPAGE``; Linux gives them where
    ``/sys/kernel/mm/transparent_hugepage/enabled`` is ``madvise`` or ``always``): a probe lands anywhere in the
    table, and with 4 KiB pages nearly every probe of a big table also misses the TLB. Measured on 2026-11-29 on
    quiet cores, the empty board with a 1 GiB table searched 2.25 million positions a second on 4 KiB pages and
    2.88 million on huge pages (the same 460.5 million positions). A process forked later does not write to it: an engine makes a fresh table in a
    child process (:class:`solver.search.engine.Engine`), so no page is copied inside a search.
    """
    entries = entries_for(checked_table_bytes(size_bytes))
    if hasattr(mmap, "MAP_PRIVATE"):  # POSIX; Windows' anonymous mappings take no flags
        memory = mmap.mmap(-1, entries * ENTRY_BYTES, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    else:
        memory = mmap.mmap(-1, entries * ENTRY_BYTES)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        memory.madvise(mmap.MADV_HUGEPAGE)
    table = np.frombuffer(memory, dtype=np.uint64)
    table.fill(0)
    return table


@kernel
def mix(key: np.uint64) -> np.uint64:
    """SplitMix64's finaliser: a bijection of 64-bit words that spreads every bit of the key."""
    key ^= key >> np.uint64(30)
    key *= np.uint64(0xBF58476D1CE4E5B9)
    key ^= key >> np.uint64(27)
    key *= np.uint64(0x94D049BB133111EB)
    key ^= key >> np.uint64(31)
    return key


@kernel
def _slot_and_tag(table: np.ndarray, key: np.uint64) -> tuple[np.int64, np.uint64]:
    buckets = np.uint64(table.size >> 1)
    h = mix(key)
    return np.int64(h & (buckets - np.uint64(1))) * 2, h >> np.uint64(16)


@kernel
def prefetch_bucket(table: np.ndarray, key: np.uint64) -> None:
    """Start bringing a key's bucket into the processor's caches, so that reading it soon waits less
    (:func:`solver.search.kernel.prefetch`; the two entries of a bucket share a cache line)."""
    slot, _ = _slot_and_tag(table, key)
    prefetch(table, slot)


@kernel
def get(table: np.ndarray, key: np.uint64) -> np.int64:
    """The stored byte of a key (score and bound, :func:`unpack`), 0 when absent."""
    slot, tag = _slot_and_tag(table, key)
    for i in range(2):
        entry = table[slot + i]
        if entry >> np.uint64(16) == tag and entry != np.uint64(0):
            return np.int64(entry & np.uint64(0xFF))
    return np.int64(0)


@kernel
def work_of(nodes: np.int64) -> np.int64:
    """The work a search of ``nodes`` positions stands for in an entry: its bit length (0 for 0, at most 63)."""
    x = np.uint64(nodes)
    x |= x >> np.uint64(1)
    x |= x >> np.uint64(2)
    x |= x >> np.uint64(4)
    x |= x >> np.uint64(8)
    x |= x >> np.uint64(16)
    x |= x >> np.uint64(32)
    return np.int64(popcount(x))


@kernel
def put(table: np.ndarray, key: np.uint64, score: np.int64, lower: bool, work: np.int64) -> None:
    """Store a bound on a key's score: in the first tier if it cost as much work or is the same key, else in the second."""
    slot, tag = _slot_and_tag(table, key)
    value = np.uint64(score + SCORE_BIAS) | (np.uint64(LOWER) if lower else np.uint64(0))
    entry = (tag << np.uint64(16)) | (np.uint64(work) << np.uint64(8)) | value
    first = table[slot]
    if first == np.uint64(0) or first >> np.uint64(16) == tag or np.int64((first >> np.uint64(8)) & np.uint64(0xFF)) <= work:
        table[slot] = entry
    else:
        table[slot + 1] = entry


@kernel
def unpack(stored: np.int64) -> tuple[np.int64, bool]:
    """``(score, is_lower_bound)`` of a stored byte from :func:`get` (not 0)."""
    return (stored & np.int64(127)) - np.int64(SCORE_BIAS), (stored & np.int64(LOWER)) != 0
