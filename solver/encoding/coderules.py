"""Codes to board words, and the rule asked of a code: where a base-3 code meets the rules' bit words.

The rules (:mod:`solver.rules.base`) read a board as a **word**: X's cells in the low bits, O's
from bit :data:`solver.rules.base.O_SHIFT` (one Python int, or int64 in numpy); they know no code.
A **code** is this layer's: ``sum(digit_i * 3**i)`` (digit 0 empty, 1 X, 2 O;
:mod:`solver.encoding.board`). :class:`CodeRules` turns codes into words and asks the rule:
``code_rules(game).judge(code)`` is ``game.rules.judge_word(code_rules(game).word_of(code))``.

**Digit fields.** Many codes at once are read through tables over a few digits at a time: the
code is cut into fields of at most :data:`FIELD_CELLS` digits (:func:`code_fields`), the same
fields here and in the symmetries (:mod:`solver.encoding.symmetry`), so a batch cuts its codes
once (:func:`digit_fields`) and both read the same fields. A word is the OR of one table entry a
field. Boards past 32 cells have wide words (:class:`solver.rules.widegravity.WideRules`): one is a
Python int read digit by digit; many are ``(boards, 2)`` int64 arrays (X's cells, O's), read
through the same fields up to 39 cells (:data:`solver.rules.catalog.TABLE_CELLS`: a code past it
overflows int64).

>>> code_fields(9), code_fields(25)
(((0, 3), (3, 3), (6, 3)), ((0, 8), (8, 9), (17, 8)))
>>> from solver.encoding.board import parse
>>> game, code = parse("XXX/OO./...")
>>> coded = code_rules(game)
>>> coded.word_of(code) == game.rules.join(0b000000111, 0b000011000)  # X on cells 0 to 2, O on 3 and 4
True
>>> coded.judge(code), game.rules.judge_word(coded.word_of(code))
((1, 5), (1, 5))
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from ..errors import GameTooLargeError
from ..rules.base import O_SHIFT, Outcome, Rules
from ..rules.catalog import TABLE_CELLS
from ..rules.game import Game

FIELD_CELLS = 9
"""Widest digit field of :func:`code_fields` (tables over a field's patterns have ``3**9 = 19,683`` entries)."""

_STEP = 1 << 14


def code_fields(cells: int) -> tuple[tuple[int, int], ...]:
    """``(first cell, width)`` of each digit field that tables over a code's digits use
    (:mod:`solver.encoding.symmetry`, :class:`CodeRules`: both cut codes alike, so a batch cuts them once):
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


class CodeRules:
    """One game's codes read as board words, and its rule asked of a code (module docstring). Get it with :func:`code_rules`."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.rules: Rules = game.rules
        """The rule asked, on the words read here."""
        self.fields = code_fields(game.cells)
        self.moduli: tuple[int, ...] = tuple(3**width for _, width in self.fields)
        """``3**width`` of each digit field (:func:`code_fields`: the same as :class:`solver.encoding.symmetry.Symmetries`)."""
        self.wide = game.cells > O_SHIFT
        """Whether the board is past a 64-bit word (one code read digit by digit; many as ``(boards, 2)`` words)."""
        self.batches = game.cells <= TABLE_CELLS
        """Whether many codes at once fit int64 (:meth:`words`)."""
        tables = []
        for first, width in self.fields if self.batches else ():
            patterns = np.arange(3**width, dtype=np.int64)
            x, o = np.zeros(patterns.size, dtype=np.int64), np.zeros(patterns.size, dtype=np.int64)
            for i in range(width):
                digit = (patterns // 3**i) % 3
                x |= np.where(digit == 1, 1 << (first + i), 0)
                o |= np.where(digit == 2, 1 << (first + i), 0)
            tables.append(self.rules.join_many(x, o))
        self._tables = tuple(tables)
        """Per digit field, the words of its patterns (``rules.join_many``: a word a pattern, or ``(patterns, 2)``)."""
        self._lists = () if self.wide else tuple(t.tolist() for t in tables)

    def __repr__(self) -> str:
        return f"<CodeRules of {self.game.name}>"

    # -- codes to words ----------------------------------------------------------------
    def word_of(self, code: int) -> int:
        """The board word of a code: X's cells, and O's from the rule's shift (:meth:`solver.rules.base.Rules.split`)."""
        if self.wide:
            return self._wide_word(code)
        word = 0
        for table, modulus in zip(self._lists, self.moduli, strict=True):
            code, pattern = divmod(code, modulus)
            word |= table[pattern]
        return word

    def _wide_word(self, code: int) -> int:
        x = o = cell = 0
        while code:
            code, digit = divmod(code, 3)
            if digit == 1:
                x |= 1 << cell
            elif digit == 2:
                o |= 1 << cell
            cell += 1
        return self.rules.join(x, o)

    def words(self, codes: np.ndarray, patterns: Sequence[np.ndarray] | None = None) -> np.ndarray:
        """The board words of many codes (int64, flat; past 32 cells ``(codes, 2)``: :meth:`solver.rules.base.Rules.split_many` parts them).

        :param patterns: the codes' digit fields (:func:`digit_fields` of ``codes`` and :attr:`moduli`)
            if the caller has them already; the codes are then done in one step.
        """
        if not self.batches:
            raise GameTooLargeError(
                f"{self.game.name} has {self.game.cells} cells: its codes pass int64 (at most {TABLE_CELLS} cells), so its boards are judged one at a time"
            )
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        out = np.empty((flat.size, *self._tables[0].shape[1:]), dtype=np.int64)
        if patterns is not None:
            self._words_step(patterns, out)
            return out
        for a in range(0, flat.size, _STEP):
            self._words_step(digit_fields(flat[a : a + _STEP], self.moduli), out[a : a + _STEP])
        return out

    def _words_step(self, patterns: Sequence[np.ndarray], out: np.ndarray) -> None:
        np.take(self._tables[0], patterns[0], axis=0, out=out)
        term = np.empty_like(out)
        for table, pattern in zip(self._tables[1:], patterns[1:], strict=True):
            out |= np.take(table, pattern, axis=0, out=term)

    # -- the rule asked of one code --------------------------------------------------------
    def judge(self, code: int) -> tuple[int, int]:
        """``(status, pieces)`` of one code in range (:meth:`solver.rules.base.Rules.judge_word`)."""
        return self.rules.judge_word(self.word_of(code))

    def status_of(self, code: int) -> int:
        """The status of one code in range (piece counts checked: illegal ones are ``INVALID``)."""
        return self.rules.judge_word(self.word_of(code))[0]

    def is_over(self, code: int) -> bool:
        """Whether the game has ended on the board ``code`` (a line, or no move left); an invalid board is not over."""
        return self.rules.is_over_word(self.word_of(code))

    def outcome(self, code: int) -> Outcome:
        """The board's :class:`solver.rules.base.Outcome`, the winner named."""
        return self.rules.outcome_of_word(self.word_of(code))

    def violation(self, code: int) -> str | None:
        """Why no legal game reaches the board ``code``, or None when one does (:meth:`solver.rules.base.Rules.violation_of_word`)."""
        return self.rules.violation_of_word(self.word_of(code))

    def illegal_move(self, code: int, cell: int) -> str | None:
        """Why the side to move may not play ``cell`` on the board ``code``, in words, or None when the move is legal."""
        return self.rules.illegal_move_of_word(self.word_of(code), cell)

    def is_legal(self, code: int, cell: int) -> bool:
        """Whether the side to move may play ``cell`` on the board ``code``: the game not over and the cell one of its moves."""
        return self.illegal_move(code, cell) is None

    # -- the rule asked of many codes ------------------------------------------------------
    def classify(self, codes: np.ndarray, patterns: Sequence[np.ndarray] | None = None, words: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(status, pieces)`` of many codes in range, uint8 each, flat (:meth:`solver.rules.base.Rules.classify_words`).

        :param patterns: the codes' digit fields if the caller has them already; the codes are then done in one step.
        :param words: the codes' board words (:meth:`words`) if the caller has them already (a batch look-up
            keeps them for its best moves).
        """
        if words is None and patterns is None:
            flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
            status = np.empty(flat.size, dtype=np.uint8)
            pieces = np.empty(flat.size, dtype=np.uint8)
            for a in range(0, flat.size, _STEP):
                status[a : a + _STEP], pieces[a : a + _STEP] = self.rules.classify_words(self.words(flat[a : a + _STEP]))
            return status, pieces
        return self.rules.classify_words(words if words is not None else self.words(codes, patterns))

    def statuses(self, codes: np.ndarray) -> np.ndarray:
        """The status of many codes (uint8, shaped like ``codes``; illegal piece counts: ``INVALID``)."""
        return self.classify(codes)[0].reshape(np.shape(codes))


@cache
def code_rules(game: Game) -> CodeRules:
    """The :class:`CodeRules` of a game (one per game, its tables built once)."""
    return CodeRules(game)
