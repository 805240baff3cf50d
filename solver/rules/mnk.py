"""The m,n,k rule: ``rows`` x ``cols`` cells, ``k`` of one player's pieces in a row, column or
diagonal end the game, and whoever completes that line wins; every empty cell is a move.

This module is the rule, scalar and vectorised side by side: its lines and symmetries, the
status of one board or of many (:mod:`solver.rules.base`: in play, a line completed, full,
unreachable), the moves of a position, why a board cannot occur, and which scores a table
may hold. Misère play (:mod:`solver.rules.misere`) keeps all of it but who wins a line.

A compact table does not store the score of a finished or unreachable board (its bytes
there are "don't care", :mod:`solver.tables.compact`): the rules give it, and this
module decides it, agreeing with :meth:`MnkRules.violation` on every board
with legal piece counts (tested on every code of several games).

**How it is fast.** X's and O's cells go in one 64-bit word (X in bits ``0 ..
cells - 1``, O from bit 32), read from per-chunk tables over the code's base-3 digits
(as :mod:`solver.encoding.symmetry` does). A line in direction ``d`` (step ``s`` cells) starts
at cell ``c`` when ``word & word >> s & ... & word >> (k - 1) s`` has bit ``c`` set and
``c`` is a start whose line fits on the board: four directions, the run of cells doubled
at each shift (two shifts for ``k = 4``), both players at once. A board with lines is
judged by who has them (one player only), the piece counts (who moved last) and, only
when that player has several, whether the lines share a cell. The batch methods cut codes
into the same digit chunks as :mod:`solver.encoding.symmetry` (:func:`solver.rules.bitboard.code_chunks`),
so a batch look-up cuts them once for both.

The piece counts are checked by :meth:`MnkRules.judge` and the batch methods
(:meth:`MnkRules.classify`, :meth:`MnkRules.statuses`): illegal counts are :data:`INVALID`.

>>> from solver.rules.game import Game
>>> rules = Game().rules
>>> from solver.encoding.board import parse
>>> [rules.status_of(parse(b)[1]) for b in ("X../.../...", "XXX/OO./...", "XXX/OOO/...", "XOX/XOO/OXX")]
[0, 1, 3, 2]
>>> rules.line_score, len(rules.lines), len(rules.symmetries)
(-100, 8, 8)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property

import numpy as np

from .base import DRAWN, IN_PLAY, INVALID, LINE, Rules
from .bitboard import code_chunks, digit_chunks
from .game import Game
from .score import UNREACHABLE, WIN

O_SHIFT = 32
"""O's cells start at this bit of a board word (boards of up to 32 cells)."""
_LOW = (1 << O_SHIFT) - 1
_STEP = 1 << 14
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
"""Row, column, diagonal, anti-diagonal: the directions a line runs in."""
WIN_TABLE_CELLS = 20
"""Boards of at most this many cells answer :meth:`MnkRules.completes_line` from a table over every mask (1 MiB at 20)."""


class MnkRules(Rules):
    """The m,n,k rule (module docstring). Get it from the game: ``game.rules``."""

    suffix = ""
    title = "normal play"
    line_wins = True

    def __init__(self, game: Game) -> None:
        if game.cells > O_SHIFT:
            raise ValueError(f"{game.name} has {game.cells} cells: board words hold at most {O_SHIFT}")
        super().__init__(game)
        self.chunks = code_chunks(game.cells)
        self.moduli: tuple[int, ...] = tuple(3**width for _, width in self.chunks)
        """``3**width`` of each digit chunk (:func:`solver.rules.bitboard.code_chunks`: the same as :class:`solver.encoding.symmetry.Symmetries`)."""
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
        self._runs = tuple((starts, _run_shifts(game.k, step)) for step, starts in self._directions)
        """Per direction: where lines start, and the shifts that leave bit ``c`` set where ``k`` cells from ``c`` are one player's."""
        self.full = game.full_mask
        self._line_array = np.array(self.line_masks, dtype=np.int64)

    # -- lines, symmetries, scores ------------------------------------------------------
    @cached_property
    def lines(self) -> tuple[tuple[int, ...], ...]:
        """Every line: ``k`` cells in a row, column or diagonal (cell tuples, in a fixed order)."""
        game, found = self.game, []
        for dr, dc in _DIRECTIONS:
            for r in range(game.rows):
                for c in range(game.cols):
                    end_r, end_c = r + dr * (game.k - 1), c + dc * (game.k - 1)
                    if 0 <= end_r < game.rows and 0 <= end_c < game.cols:
                        found.append(tuple(game.cell(r + dr * t, c + dc * t) for t in range(game.k)))
        return tuple(found)

    @cached_property
    def line_masks(self) -> tuple[int, ...]:
        """:attr:`lines` as bit masks."""
        return tuple(sum(1 << cell for cell in line) for line in self.lines)

    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The board's symmetries as cell permutations, identity first: a square board has 8
        (rotations and reflections), any other rectangle 4. ``perm[cell]`` is the cell whose
        content moves to ``cell``."""
        r, c, game = self.game.rows, self.game.cols, self.game
        maps: list[Callable[[int, int], tuple[int, int]]] = [
            lambda i, j: (i, j),
            lambda i, j: (r - 1 - i, c - 1 - j),
            lambda i, j: (i, c - 1 - j),
            lambda i, j: (r - 1 - i, j),
        ]
        if r == c:
            maps += [
                lambda i, j: (j, i),
                lambda i, j: (c - 1 - j, r - 1 - i),
                lambda i, j: (j, r - 1 - i),
                lambda i, j: (c - 1 - j, i),
            ]
        return tuple(tuple(game.cell(*f(*game.coords(cell))) for cell in range(game.cells)) for f in maps)

    def possible_scores(self, ply: int) -> frozenset[int]:
        """Every score a position with ``ply`` pieces can hold (:func:`solver.rules.score.possible_scores`)."""
        return possible_scores(self.game.cells, self.game.k, ply, line_wins=self.line_wins)

    def moves(self, x: int, o: int) -> int:
        """Every empty cell (a bit each): in an m,n,k game any empty cell may be played."""
        return self.full & ~(x | o)

    def moves_many(self, occupied: np.ndarray) -> np.ndarray:
        """:meth:`moves` of many boards: every empty cell."""
        return np.asarray(self.full & ~occupied)

    def violation(self, code: int) -> str | None:
        """Why no legal game reaches this board, or None when one does.

        >>> from solver.encoding.board import parse
        >>> rules = Game().rules
        >>> rules.violation(parse("XXX/OO./...")[1]) is None
        True
        >>> rules.violation(parse("XX./.../...")[1])
        'impossible piece counts: 2 X and 0 O (X moves first, so X has as many pieces as O or one more)'
        """
        word = self.word_of(code)
        x, o = word & _LOW, word >> O_SHIFT
        nx, no = x.bit_count(), o.bit_count()
        if nx not in (no, no + 1):
            return f"impossible piece counts: {nx} X and {no} O (X moves first, so X has as many pieces as O or one more)"
        x_lines, o_lines = self.lines_in(x), self.lines_in(o)
        if x_lines and o_lines:
            return f"both players have a line: X at {self._cells(x_lines[0])} and O at {self._cells(o_lines[0])}"
        for player, other, lines, moved_last in (("X", "O", x_lines, nx > no), ("O", "X", o_lines, nx == no)):
            if lines:
                return self._line_violation(player, other, lines, moved_last)
        return None

    def _line_violation(self, player: str, other: str, lines: list[tuple[int, ...]], moved_last: bool) -> str | None:
        """Why a board where only ``player`` has lines cannot occur, or None when it can."""
        if not moved_last:
            ended = "won" if self.line_wins else "completed a line"
            return f"{player} has a line at {self._cells(lines[0])} but {other} moved after it: the game went on after {player} {ended}"
        if set(lines[0]).intersection(*lines[1:]):
            return None
        named, common = [], set(lines[0])
        for line in lines:  # name just enough lines to leave no common cell
            named.append(line)
            common &= set(line)
            if not common:
                break
        listed = " and ".join(self._cells(line) for line in named)
        ending = "winning" if self.line_wins else "completing one"
        return f"{player} has lines at {listed} with no cell common to all: {player} kept playing after {ending}"

    def _cells(self, cells: Sequence[int]) -> str:
        return ",".join(f"({r},{c})" for r, c in map(self.game.coords, cells))

    def completes_line(self, masks: np.ndarray) -> np.ndarray:
        """Whether each of many one-player cell masks holds a whole line (bool, shaped like ``masks``)."""
        masks = np.asarray(masks)
        if self.game.cells <= WIN_TABLE_CELLS:
            return np.asarray(self.win_table[masks])
        won = np.zeros(masks.shape, dtype=bool)
        for line in self.line_masks:
            won |= (masks & line) == line
        return won

    @cached_property
    def win_table(self) -> np.ndarray:
        """Whether each of the ``2**cells`` one-player masks holds a whole line (bool; boards up to :data:`WIN_TABLE_CELLS` cells)."""
        masks = np.arange(1 << self.game.cells, dtype=np.int64)
        win = np.zeros(masks.size, dtype=bool)
        for line in self.line_masks:
            win |= (masks & line) == line
        return win

    def _direction_starts(self) -> tuple[tuple[int, int], ...]:
        """``(step, starts)`` per direction: ``starts`` has bit ``c`` (and ``c + 32``) for every cell a line starts at."""
        game, found = self.game, []
        for dr, dc in _DIRECTIONS:
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
        for table, modulus in zip(self._lists, self.moduli, strict=True):
            code, pattern = divmod(code, modulus)
            word |= table[pattern]
        return word

    def status_of(self, code: int) -> int:
        """The status of one code (a code in range; piece counts checked here)."""
        return self.judge(code)[0]

    def judge(self, code: int) -> tuple[int, int]:
        """``(status, pieces)`` of one code in range: what a look-up needs besides the stored byte (the
        piece counts are checked here: illegal ones are :data:`INVALID`).

        Lines are found as the batch methods find them, runs doubled along each direction
        (two shifts a direction for ``k = 4``, not three).
        """
        return self.judge_word(self.word_of(code))

    def judge_word(self, word: int) -> tuple[int, int]:
        """:meth:`judge` of a board word (:meth:`word_of`), for a caller that needs the word too."""
        x, o = word & _LOW, word >> O_SHIFT
        nx, no = x.bit_count(), o.bit_count()
        if nx != no and nx != no + 1:
            return INVALID, nx + no
        won = 0
        for starts, shifts in self._runs:
            run = word
            for shift in shifts:
                run &= run >> shift
            won |= run & starts
        if not won:
            return (DRAWN if nx + no == self.game.cells else IN_PLAY), nx + no
        return self._won(x, o, nx, no), nx + no

    def _won(self, x: int, o: int, nx: int, no: int) -> int:
        x_lines = [m for m in self.line_masks if x & m == m]
        o_lines = [m for m in self.line_masks if o & m == m]
        if x_lines and o_lines:
            return INVALID
        lines, moved_last = (x_lines, nx == no + 1) if x_lines else (o_lines, nx == no)
        common = self.full
        for line in lines:
            common &= line
        return LINE if moved_last and common else INVALID

    def winning_cells(self, mask: int, empty: int) -> int:
        """The cells of ``empty`` where a player holding the cells ``mask`` would complete a line (a bit each).

        A line is completed by a move when exactly one of its cells is missing from
        ``mask`` and that cell is empty: one pass over the game's lines (28 for 5x5k4).
        """
        found = 0
        for line in self.line_masks:
            missing = line & ~mask
            if missing & (missing - 1) == 0 and missing & empty:
                found |= missing
        return found

    def winning_cells_many(self, masks: np.ndarray, empty: np.ndarray) -> np.ndarray:
        """:meth:`winning_cells` of many boards (uint32, flat): bit ``c`` set where the player holding
        ``masks`` would complete a line by a move on empty cell ``c``.

        By shifts along each direction rather than line by line: with ``ahead[j]`` having bit ``p``
        where the player holds the cell ``j`` steps after ``p`` (``masks >> j * step``), a move at
        position ``t`` of a line starting at ``p`` completes it when every ``ahead[j]``, ``j != t``,
        has bit ``p`` and a line fits at ``p``; the move's cell is ``p + t * step``.
        """
        held = np.ascontiguousarray(masks).astype(np.uint32).reshape(-1)
        found = np.zeros(held.size, dtype=np.uint32)
        line = np.empty_like(held)
        k = self.game.k
        for step, starts in self._directions:
            ahead = [held] + [held >> np.uint32(j * step) for j in range(1, k)]
            for t in range(k):
                others = ahead[:t] + ahead[t + 1 :]
                line.fill(starts & _LOW)  # where a line fits
                for part in others:
                    line &= part
                line <<= np.uint32(t * step)
                found |= line
        found &= np.ascontiguousarray(empty).astype(np.uint32).reshape(-1)
        return found

    # -- many codes --------------------------------------------------------------------
    def words(self, codes: np.ndarray, patterns: Sequence[np.ndarray] | None = None) -> np.ndarray:
        """The board words of many codes (int64, flat).

        :param patterns: the codes' digit chunks if the caller has them already (as for
            :meth:`classify`); the codes are then done in one step.
        """
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        out = np.empty(flat.size, dtype=np.int64)
        if patterns is not None:
            self._words_step(patterns, out)
            return out
        for a in range(0, flat.size, _STEP):
            self._words_step(digit_chunks(flat[a : a + _STEP], self.moduli), out[a : a + _STEP])
        return out

    def _words_step(self, patterns: Sequence[np.ndarray], out: np.ndarray) -> None:
        np.take(self._tables[0], patterns[0], out=out)
        term = np.empty(out.size, dtype=np.int64)
        for table, pattern in zip(self._tables[1:], patterns[1:], strict=True):
            out |= np.take(table, pattern, out=term)

    def statuses_of_words(self, words: np.ndarray) -> np.ndarray:
        """The status of many board words (:meth:`words`) (uint8, flat; illegal piece counts: :data:`INVALID`).

        What :meth:`statuses` does after reading the words: for callers that assemble the
        words themselves (from half-boards, :mod:`solver.storage.histograms`).
        """
        flat = np.ascontiguousarray(words, dtype=np.int64).reshape(-1)
        status = np.empty(flat.size, dtype=np.uint8)
        pieces = np.empty(flat.size, dtype=np.uint8)
        for a in range(0, flat.size, _STEP):
            self._classify_step(flat[a : a + _STEP], status[a : a + _STEP], pieces[a : a + _STEP])
        return status

    def statuses(self, codes: np.ndarray) -> np.ndarray:
        """The status of many codes (uint8, shaped like ``codes``; illegal piece counts: :data:`INVALID`)."""
        return self.classify(codes)[0].reshape(np.shape(codes))

    def classify(self, codes: np.ndarray, patterns: Sequence[np.ndarray] | None = None, words: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(status, pieces)`` of many codes in range, uint8 each, flat: what a batch look-up needs
        besides the table's bytes. The piece counts are checked here: a code with illegal counts
        (X neither as many as O nor one more) is :data:`INVALID` with 0 pieces (it is in no layer).

        :param patterns: the codes' digit chunks if the caller has them already
            (:func:`solver.encoding.board.digit_chunks` of ``codes`` and :attr:`moduli`); the codes are then done in one step
            (keep them to a few ``2**14`` so the temporaries stay in cache).
        :param words: the codes' board words (:meth:`words`) if the caller has them already (a batch
            look-up keeps them for its best moves); the codes are then done in one step.
        """
        flat = np.ascontiguousarray(codes, dtype=np.int64).reshape(-1)
        status = np.empty(flat.size, dtype=np.uint8)
        pieces = np.empty(flat.size, dtype=np.uint8)
        if words is not None or patterns is not None:
            self._classify_step(words if words is not None else self.words(flat, patterns), status, pieces)
            return status, pieces
        for a in range(0, flat.size, _STEP):
            self._classify_step(self.words(flat[a : a + _STEP]), status[a : a + _STEP], pieces[a : a + _STEP])
        return status, pieces

    def _classify_step(self, word: np.ndarray, status: np.ndarray, pieces: np.ndarray) -> None:
        x, o = word & _LOW, word >> O_SHIFT
        nx, no = np.bitwise_count(x), np.bitwise_count(o)
        np.add(nx, no, out=pieces)
        np.multiply(pieces == self.game.cells, np.uint8(DRAWN), out=status)  # full: drawn unless a line says otherwise
        won = self._lines(word)
        some = np.flatnonzero(won)
        if some.size:
            status[some] = self._won_lines(x[some], o[some], nx[some], no[some], won[some])
        illegal = np.flatnonzero((nx - no) > 1)  # uint8: X one piece ahead gives 1, O ahead wraps past 1
        if illegal.size:
            status[illegal] = INVALID
            pieces[illegal] = 0

    def _lines(self, word: np.ndarray) -> np.ndarray:
        """Bit ``c`` (and ``c + 32``) set where X's (O's) cells hold a line of ``k`` starting at cell ``c``."""
        k, won = self.game.k, np.zeros(word.size, dtype=np.int64)
        found, shifted = np.empty_like(word), np.empty_like(word)
        for step, starts in self._directions:
            run, length = word, 1  # bit c of run: length cells in this direction from c are the player's
            while 2 * length <= k:  # the run doubles at each step
                np.bitwise_and(run, np.right_shift(run, length * step, out=shifted), out=found)
                run, length = found, 2 * length
            if length < k:  # two overlapping runs of length cells cover k
                np.bitwise_and(run, np.right_shift(run, (k - length) * step, out=shifted), out=found)
                run = found
            won |= np.bitwise_and(run, starts, out=found)  # only where a line fits on the board
        return won

    def _won_lines(self, x: np.ndarray, o: np.ndarray, nx: np.ndarray, no: np.ndarray, won: np.ndarray) -> np.ndarray:
        """Statuses of boards where somebody has a line (``nx``, ``no``: their pieces; ``won``: where lines start, :meth:`_lines`).

        One player with one line, and the other's turn: lost. Both with lines, or the wrong
        turn: invalid. One player with several lines: lost only if they share a cell (the
        last move made them all), decided by :meth:`_share_a_cell`.
        """
        x_starts, o_starts = np.bitwise_count(won & _LOW), np.bitwise_count(won >> O_SHIFT)
        x_last = (nx == no + 1) & (o_starts == 0)
        o_last = (nx == no) & (x_starts == 0)
        out = np.where((x_last & (x_starts == 1)) | (o_last & (o_starts == 1)), LINE, INVALID).astype(np.uint8)
        several = np.flatnonzero((x_last & (x_starts > 1)) | (o_last & (o_starts > 1)))
        if several.size:
            winner = np.where(x_last[several], x[several], o[several])
            out[several] = np.where(self._share_a_cell(winner), LINE, INVALID)
        return out

    def _share_a_cell(self, cells: np.ndarray) -> np.ndarray:
        """Whether all the lines held by each of many players' cells share a cell (bool; at least one line held)."""
        lines = self._line_array
        held = (cells[:, None] & lines) == lines
        common = np.bitwise_and.reduce(np.where(held, lines, self.full), axis=1)
        found: np.ndarray = common != 0
        return found


def _run_shifts(k: int, step: int) -> tuple[int, ...]:
    """The shifts (``run &= run >> shift``, in order) that turn a board word into the starts of runs of
    ``k`` cells ``step`` apart: the run doubles at each shift, then two overlapping runs cover ``k``
    (as :meth:`MnkRules._lines` does for many words)."""
    shifts, length = [], 1
    while 2 * length <= k:
        shifts.append(length * step)
        length *= 2
    if length < k:
        shifts.append((k - length) * step)
    return tuple(shifts)


def possible_scores(cells: int, k: int, ply: int, *, line_wins: bool = True) -> frozenset[int]:
    """Every score a position with ``ply`` pieces on a board of ``cells`` cells (lines of ``k``) can hold.

    In normal play (``line_wins``) a win in ``d`` plies needs ``d`` odd, at most the empty
    cells, and the side to move holding ``k`` pieces by then; a loss in ``d`` plies (``d = 0``:
    already lost) needs ``d`` even, at most the empty cells, and the other side holding ``k``
    pieces by then. In misère play the one who completes a line loses, so the parities and the
    players swap. A draw and :data:`UNREACHABLE` are always possible. Every other score is
    impossible there (a stored 127, a win in more plies than cells left, a loss before the
    line can be complete).

    >>> sorted(possible_scores(9, 3, 4))  # X to move with 2 pieces each: win in 1, 3 or 5; loss in 2 or 4
    [-128, -98, -96, 0, 95, 97, 99]
    >>> sorted(possible_scores(9, 3, 4, line_wins=False))  # misère: X loses in 1, 3 or 5; wins in 2 or 4
    [-128, -99, -97, -95, 0, 96, 98]
    """
    mover, other, left = ply // 2, ply - ply // 2, cells - ply
    found = {UNREACHABLE, 0}
    for d in range(left + 1):
        if d % 2 and mover + (d + 1) // 2 >= k:  # the side to move completes a line on ply d
            found.add(WIN - d if line_wins else d - WIN)
        if d % 2 == 0 and other + d // 2 >= k:  # the other side completes one on ply d
            found.add(d - WIN if line_wins else WIN - d)
    return frozenset(found)
