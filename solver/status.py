"""Whether a board is in play, finished or unreachable, from its bit masks: fast, one code or many.

A compact table does not store the score of a finished or unreachable board (its bytes
there are "don't care", :mod:`solver.tables.compact`): the rules give it, and this
module decides it, agreeing with :func:`solver.board.rule_violation` on every board
with legal piece counts (tested on every code of several games).

=================  ===========================================================================
status             meaning (score for the side to move, :mod:`solver.score`)
=================  ===========================================================================
:data:`IN_PLAY`    reachable, nobody has a line, empty cells left: the table stores its score
:data:`LOST`       reachable and the player who moved last has a line: ``-WIN``
:data:`DRAWN`      reachable, full, nobody has a line: 0
:data:`INVALID`    no legal game reaches it: ``UNREACHABLE``
=================  ===========================================================================

**How it is fast.** X's and O's cells go in one 64-bit word (X in bits ``0 ..
cells - 1``, O from bit 32), read from per-chunk tables over the code's base-3 digits
(as :mod:`solver.symmetry` does). A line in direction ``d`` (step ``s`` cells) starts
at cell ``c`` when ``word & word >> s & ... & word >> (k - 1) s`` has bit ``c`` set and
``c`` is a start whose line fits on the board: four directions, ``k - 1`` shifts each,
both players at once. A board with lines is judged by who has them (one player only),
the piece counts (who moved last) and, only when that player has several, the slower
path: do the lines share a cell.

The piece counts must be legal (X as many as O or one more; :func:`solver.index.Layout.index_of`
tells); :meth:`Rules.status_of` checks them too, :meth:`Rules.statuses` does not.

>>> from solver.game import Game
>>> rules = rules_of(Game())
>>> from solver.board import parse
>>> [rules.status_of(parse(b)[1]) for b in ("X../.../...", "XXX/OO./...", "XXX/OOO/...", "XOX/XOO/OXX")]
[0, 1, 3, 2]
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .game import Game
from .score import UNREACHABLE, WIN

IN_PLAY = 0
LOST = 1
DRAWN = 2
INVALID = 3
STATUS_SCORE = (0, -WIN, 0, UNREACHABLE)
"""The score the rules give each status (``STATUS_SCORE[status]``; in play: none, a table stores it)."""
O_SHIFT = 32
"""O's cells start at this bit of a board word (boards of up to 32 cells)."""
_LOW = (1 << O_SHIFT) - 1
_STEP = 1 << 14
_CHUNK_CELLS = 9


class Rules:
    """The status of boards of one game (module docstring). Get one with :func:`rules_of`."""

    def __init__(self, game: Game) -> None:
        if game.cells > O_SHIFT:
            raise ValueError(f"{game.name} has {game.cells} cells: board words hold at most {O_SHIFT}")
        self.game = game
        count = max(1, -(-game.cells // _CHUNK_CELLS))
        bounds = [round(game.cells * i / count) for i in range(count + 1)]
        self.chunks = tuple((a, b - a) for a, b in zip(bounds, bounds[1:], strict=False) if b > a)
        self._moduli = tuple(3**width for _, width in self.chunks)
        self._divisors = tuple(3**first for first, _ in self.chunks)
        tables = []
        for first, width in self.chunks:
            patterns = np.arange(3**width, dtype=np.int64)
            word = np.zeros(patterns.size, dtype=np.int64)
            for i in range(width):
                digit = (patterns // 3**i) % 3
                word |= np.where(digit == 1, 1 << (first + i), 0) | np.where(digit == 2, 1 << (O_SHIFT + first + i), 0)
            tables.append(word)
        self._tables = tuple(tables)
        self._lists = tuple(t.tolist() for t in tables)
        self._directions = self._direction_starts()
        self.full = game.full_mask
        self.line_masks = game.line_masks
        self._lines_through = tuple(tuple(m for m in game.line_masks if m >> cell & 1) for cell in range(game.cells))

    def _direction_starts(self) -> tuple[tuple[int, int], ...]:
        """``(step, starts)`` per direction: ``starts`` has bit ``c`` (and ``c + 32``) for every cell a line starts at."""
        game, found = self.game, []
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            starts = 0
            for r in range(game.rows):
                for c in range(game.cols):
                    end_r, end_c = r + dr * (game.k - 1), c + dc * (game.k - 1)
                    if 0 <= end_r < game.rows and 0 <= end_c < game.cols:
                        starts |= 1 << game.cell(r, c)
            if starts:
                found.append((dr * game.cols + dc, starts | starts << O_SHIFT))
        return tuple(found)

    # -- one code ---------------------------------------------------------------------
    def word_of(self, code: int) -> int:
        """The board word of a code: X's cells, and O's from bit :data:`O_SHIFT`."""
        word = 0
        for table, modulus in zip(self._lists, self._moduli, strict=True):
            code, pattern = divmod(code, modulus)
            word |= table[pattern]
        return word

    def status_of(self, code: int) -> int:
        """The status of one code (a code in range; piece counts checked here)."""
        word = self.word_of(code)
        x, o = word & _LOW, word >> O_SHIFT
        nx, no = x.bit_count(), o.bit_count()
        if nx != no and nx != no + 1:
            return INVALID
        k = self.game.k
        won = 0
        for step, starts in self._directions:
            found = word
            for j in range(1, k):
                found &= word >> (j * step)
            won |= found & starts
        if not won:
            return DRAWN if nx + no == self.game.cells else IN_PLAY
        return self._won(x, o, nx, no)

    def _won(self, x: int, o: int, nx: int, no: int) -> int:
        x_lines = [m for m in self.line_masks if x & m == m]
        o_lines = [m for m in self.line_masks if o & m == m]
        if x_lines and o_lines:
            return INVALID
        lines, moved_last = (x_lines, nx == no + 1) if x_lines else (o_lines, nx == no)
        common = self.full
        for line in lines:
            common &= line
        return LOST if moved_last and common else INVALID

    def wins_at(self, mask: int, cell: int) -> bool:
        """Whether a player's cells ``mask`` (holding ``cell``) have a whole line through ``cell``."""
        return any(mask & line == line for line in self._lines_through[cell])

    # -- many codes --------------------------------------------------------------------
    def words(self, codes: np.ndarray) -> np.ndarray:
        """The board words of many codes (int64, flat)."""
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        out = np.empty(flat.size, dtype=np.int64)
        for a in range(0, flat.size, _STEP):
            step = flat[a : a + _STEP]
            part = out[a : a + _STEP]
            part[:] = 0
            for table, divisor, modulus in zip(self._tables, self._divisors, self._moduli, strict=True):
                part |= table[(step // divisor) % modulus if divisor > 1 else step % modulus]
        return out

    def statuses(self, codes: np.ndarray) -> np.ndarray:
        """The status of many codes with legal piece counts (uint8, shaped like ``codes``)."""
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        out = np.empty(flat.size, dtype=np.uint8)
        for a in range(0, flat.size, _STEP):
            out[a : a + _STEP] = self._statuses_of_words(self.words(flat[a : a + _STEP]))
        return out.reshape(np.shape(codes))

    def statuses_of_words(self, words: np.ndarray) -> np.ndarray:
        """The status of many board words (:meth:`words`) with legal piece counts (uint8, flat).

        What :meth:`statuses` does after reading the words: for callers that assemble the
        words themselves (from half-boards, :mod:`solver.counts`).
        """
        flat = np.ascontiguousarray(words, dtype=np.int64).reshape(-1)
        out = np.empty(flat.size, dtype=np.uint8)
        for a in range(0, flat.size, _STEP):
            out[a : a + _STEP] = self._statuses_of_words(flat[a : a + _STEP])
        return out

    def _statuses_of_words(self, word: np.ndarray) -> np.ndarray:
        k = self.game.k
        won = np.zeros(word.size, dtype=np.int64)
        starts = []
        for step, first in self._directions:
            found = word.copy()
            for j in range(1, k):
                found &= word >> (j * step)
            found &= first
            won |= found
            starts.append(found)
        x, o = word & _LOW, word >> O_SHIFT
        status = np.where((x | o) == self.full, DRAWN, IN_PLAY).astype(np.uint8)
        some = np.flatnonzero(won)
        if some.size:
            lines = sum((np.bitwise_count(found[some]) for found in starts), start=np.zeros(some.size, dtype=np.uint8))
            status[some] = self._with_lines(x[some], o[some], won[some], lines)
        return status

    def _with_lines(self, x: np.ndarray, o: np.ndarray, won: np.ndarray, lines: np.ndarray) -> np.ndarray:
        """Statuses of boards where somebody has a line: ``won`` the cells where a line starts (X's, then O's
        from bit :data:`O_SHIFT`), ``lines`` how many lines there are. Only a player's several lines need
        :meth:`_won_many` (do they share a cell)."""
        x_has, o_has = (won & _LOW) != 0, (won >> O_SHIFT) != 0
        nx, no = np.bitwise_count(x), np.bitwise_count(o)
        moved_last = np.where(x_has, nx == no + 1, nx == no) & (x_has != o_has)
        status = np.where(moved_last, LOST, INVALID).astype(np.uint8)
        several = np.flatnonzero(moved_last & (lines > 1))
        if several.size:
            status[several] = self._won_many(x[several], o[several])
        return status

    def _won_many(self, x: np.ndarray, o: np.ndarray) -> np.ndarray:
        """Statuses of boards where somebody has a line."""
        x_any = np.zeros(x.size, dtype=bool)
        o_any = np.zeros(x.size, dtype=bool)
        x_common = np.full(x.size, self.full, dtype=np.int64)
        o_common = np.full(x.size, self.full, dtype=np.int64)
        for line in self.line_masks:
            in_x, in_o = (x & line) == line, (o & line) == line
            x_any |= in_x
            o_any |= in_o
            x_common = np.where(in_x, x_common & line, x_common)
            o_common = np.where(in_o, o_common & line, o_common)
        nx, no = np.bitwise_count(x), np.bitwise_count(o)
        x_ok = x_any & ~o_any & (nx == no + 1) & (x_common != 0)
        o_ok = o_any & ~x_any & (nx == no) & (o_common != 0)
        return np.where(x_ok | o_ok, LOST, INVALID).astype(np.uint8)


@cache
def rules_of(game: Game) -> Rules:
    """The :class:`Rules` of a game (built once per process)."""
    return Rules(game)
