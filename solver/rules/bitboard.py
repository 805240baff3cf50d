"""Boards as the rules read them: base-3 codes cut into digit fields, and the fields' tables of cells.

A board's code is ``sum(digit_i * 3**i)`` (digit 0 empty, 1 X, 2 O; :mod:`solver.encoding.board`).
The rules and the symmetries read many codes at once through tables over a few digits at a
time: the code is cut into fields of at most :data:`FIELD_CELLS` digits, the same fields for
both, so a batch cuts its codes once.

>>> code_fields(9), code_fields(25)
(((0, 3), (3, 3), (6, 3)), ((0, 8), (8, 9), (17, 8)))
"""

from __future__ import annotations

import numpy as np

FIELD_CELLS = 9
"""Widest digit field of :func:`code_fields` (tables over a field's patterns have ``3**9 = 19,683`` entries)."""


def code_fields(cells: int) -> tuple[tuple[int, int], ...]:
    """``(first cell, width)`` of each digit field that tables over a code's digits use
    (:mod:`solver.encoding.symmetry`, :mod:`solver.rules.base`: both cut codes alike, so a batch cuts them once):
    three for 3 to 27 cells (the unrolled scalar path of the symmetries), widths as equal as possible.
    """
    count = max(1, min(cells, 3), -(-cells // FIELD_CELLS))
    bounds = [round(cells * i / count) for i in range(count + 1)]
    return tuple((a, b - a) for a, b in zip(bounds, bounds[1:], strict=False) if b > a)


def digit_fields(codes: np.ndarray, moduli: tuple[int, ...]) -> list[np.ndarray]:
    """The base-3 digit fields of int64 codes, lowest first: field ``j`` is ``codes // prod(moduli[:j]) % moduli[j]``
    (the last field is all the digits left).

    Floor division by a constant is several times faster in numpy than ``%``, so each field is
    ``rest - (rest // m) * m`` and the next ``rest`` is that quotient.
    """
    out, rest = [], codes
    for modulus in moduli[:-1]:
        quotient = rest // modulus
        out.append(rest - quotient * modulus)
        rest = quotient
    out.append(rest)
    return out
