"""What /proc says of a process, for the tests that kill a parent and watch its children end."""

from __future__ import annotations

from pathlib import Path


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended: no longer listed, or a zombie (only its exit status waits for a reaper)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return True
    return fields[0] in ("Z", "X")
