"""Counts in words: ``1 ply``, ``4 plies``, ``1,869 positions``; values as ``+1``, ``0``, ``-1``.

Every message that puts a number before a noun goes through :func:`count`, so
none says "1 plies" or "1 more kinds".

>>> count(1, "ply"), count(4, "ply"), count(1869, "position"), count(0, "blunder")
('1 ply', '4 plies', '1,869 positions', '0 blunders')
>>> count(1, "kind"), count(2, "X win"), count(3, "loss"), count(2, "day")
('1 kind', '2 X wins', '3 losses', '2 days')
"""

from __future__ import annotations


def plural(noun: str) -> str:
    """The plural of a noun used in messages (the last word takes the ending)."""
    head, _, last = noun.rpartition(" ")
    if last.endswith("y") and last[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        many = last[:-1] + "ies"
    elif last.endswith(("s", "x", "ch", "sh")):
        many = last + "es"
    else:
        many = last + "s"
    return f"{head} {many}" if head else many


def signed(value: int) -> str:
    """A value for X as shown in messages: ``+1``, ``0`` or ``-1``.

    >>> signed(1), signed(0), signed(-1)
    ('+1', '0', '-1')
    """
    return f"{value:+d}" if value else "0"


def count(number: int, noun: str) -> str:
    """``number`` and ``noun``, plural unless the number is 1; thousands separated by commas."""
    return f"{number:,} {noun if number == 1 else plural(noun)}"


def percent(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a percentage to one decimal, ``58.7%``; a share that is not all, or not none, never
    reads ``100.0%`` or ``0.0%``: it gets the figures it needs (4,519 of 4,520 is ``99.98%``, 1 of 4,520 ``0.02%``).

    >>> percent(2651, 4520), percent(4519, 4520), percent(4520, 4520), percent(1, 4520), percent(0, 4520)
    ('58.7%', '99.98%', '100.0%', '0.02%', '0.0%')
    """
    share = 100 * part / whole
    text = f"{share:.1f}"
    for decimals in range(2, 10):
        if not ((part != whole and float(text) >= 100) or (part != 0 and float(text) <= 0)):
            break
        text = f"{share:.{decimals}f}"
    return f"{text}%"


def seconds(value: float) -> str:
    """A number of seconds as a person reads it: three significant figures at most, so a budget worked out from a
    deadline reads ``4.9``, not ``4.89964``; whole seconds from 1,000 on, with commas (no exponent).

    >>> seconds(4.899642), seconds(5.0), seconds(0.2), seconds(0.012345), seconds(12.345), seconds(1234.5)
    ('4.9', '5', '0.2', '0.0123', '12.3', '1,234')
    """
    return f"{value:.3g}" if abs(value) < 999.5 else f"{value:,.0f}"
