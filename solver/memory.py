"""What memory this machine has, for refusing at once what could not fit (an index of a tall gravity board, a
transposition table) instead of letting an allocation fail deep inside numpy or the operating system."""

from __future__ import annotations

import os


def total_memory() -> int | None:
    """Bytes of physical memory this machine has, or None where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (OSError, ValueError, AttributeError):
        return None


def free_memory() -> int | None:
    """Bytes of memory free for a new allocation now (Linux's ``MemAvailable``), else :func:`total_memory`."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return total_memory()


def size_words(size: int) -> str:
    """A size in bytes for a message: ``26.0 GiB``, or ``2**62 bytes`` past a zebibyte."""
    return f"{size / 2**30:,.1f} GiB" if size < 2**70 else f"2**{size.bit_length() - 1} bytes"
