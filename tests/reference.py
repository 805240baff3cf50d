"""An independent reference solver for m,n,k games, in normal, misère and armageddon play, with or without gravity, to check the tables against.

Nothing here imports :mod:`solver`: the lines, the winner check, the symmetries,
the move generation and the minimax are written again from the rules, as plainly
as possible, so that a shared mistake is unlikely.

**Conventions** (the same as the package's, restated):

* A board is a tuple of ``rows * cols`` digits, cell ``i = row * cols + col``
  (row-major from the top-left): 0 empty, 1 X, 2 O. X moves first, so X is to
  move when both players have as many pieces.
* A board's code is ``sum(digit_i * 3**i)`` (:func:`code`, :func:`board_of`).
* :meth:`Reference.solve` answers for the **side to move**: ``result`` is 1
  (win), 0 (draw) or -1 (loss) and ``plies`` the number of plies to the end
  when the winner wins as fast as possible and the loser holds out as long as
  possible. A draw lasts until the board is full (plies = empty cells). On a
  finished board ``plies`` is 0 and ``result`` is -1 if the last mover made a
  line (the player "to move" has lost; +1 in misère play, where the one who makes a
  line loses), 0 if the board is full.
* ``best`` is the set of cells whose move reaches that outcome: the fastest
  win, the slowest loss, or any drawing move; empty on a finished board.
* :meth:`Reference.value` is for **X**: 1 X wins, 0 draw, -1 O wins.

>>> ttt = Reference(3, 3, 3)
>>> ttt.solve(EMPTY_3X3)
Solution(result=0, plies=9, best=frozenset({0, 1, 2, 3, 4, 5, 6, 7, 8}))
>>> ttt.solve((1, 1, 0, 2, 2, 0, 0, 0, 0))      # XX./OO./...: X wins at once
Solution(result=1, plies=1, best=frozenset({2}))
>>> len(ttt.reachable())
5478
>>> misere = Reference(3, 3, 3, misere=True).solve((1, 1, 0, 2, 2, 0, 0, 0, 0))  # misère: (0,2) loses at once
>>> misere.result, misere.plies, sorted(misere.best)
(0, 5, [6, 7, 8])

**Armageddon** (``armageddon=True``): a line wins as in normal play, but a full board without
a line is O's win, not a draw ("draw odds" for O): on it the side to move has won (+1) if it is
O and lost (-1) if it is X, with 0 plies; no result is ever 0.

>>> arm = Reference(3, 3, 3, armageddon=True)
>>> arm.solve(EMPTY_3X3).result, arm.value(EMPTY_3X3)  # tic-tac-toe is a draw, so O wins it
(-1, -1)

**Gravity** (``gravity=True``, Connect Four's family): a piece drops to the lowest
empty cell of its column, so a cell is a move only if it is empty and on the
bottom row or right above a piece (:meth:`Reference.moves`). Lines end the game as
above, in normal or misère play; ``best`` is still a set of cells, the landing
cells; the only symmetry is the left-right mirror. :func:`reachable_counts` counts
the reachable boards ply by ply with a second search that shares nothing with the
minimax, and :func:`stacking_order` says whether an alternating order builds a
board's column stacks at all (lines ignored).

>>> c4 = Reference(4, 4, 4, gravity=True)
>>> c4.solve((0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 2, 2, 2))  # ..../X.../X.../XOOO: X drops a fourth on column 0
Solution(result=1, plies=1, best=frozenset({0}))
>>> start = Reference(3, 3, 3, gravity=True).solve(EMPTY_3X3)  # 3x3k3-gravity: only the bottom row is open
>>> start.result, start.plies, sorted(start.best)
(0, 9, [6, 7, 8])
>>> counts = reachable_counts(4, 4, 4)  # 4x4k4-gravity: boards by pieces on them
>>> counts
[1, 4, 16, 52, 160, 436, 1128, 2512, 5084, 9276, 14788, 21720, 26698, 28922, 24912, 18076, 7244]
>>> sum(counts)
161029
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable, Iterable
from functools import cache
from typing import NamedTuple

Board = tuple[int, ...]
X, O = 1, 2
WIN, DRAW, LOSS = 1, 0, -1
EMPTY_3X3: Board = (0,) * 9


class Solution(NamedTuple):
    """The outcome of a board for the side to move (see the module docstring)."""

    result: int  #: 1 win, 0 draw, -1 loss, for the side to move
    plies: int  #: plies to the end under perfect play
    best: frozenset[int]  #: every cell reaching the outcome; empty when finished


def winning_lines(rows: int, cols: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Every run of ``k`` cells along a row, a column or either diagonal.

    >>> winning_lines(2, 2, 2)
    ((0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2))
    >>> len(winning_lines(3, 3, 3)), len(winning_lines(3, 4, 3)), len(winning_lines(4, 4, 3))
    (8, 14, 24)
    """
    found = []
    # Horizontal runs, then vertical, then down-right, then down-left.
    for r in range(rows):
        for c in range(cols - k + 1):
            found.append(tuple(r * cols + c + t for t in range(k)))
    for c in range(cols):
        for r in range(rows - k + 1):
            found.append(tuple((r + t) * cols + c for t in range(k)))
    for r in range(rows - k + 1):
        for c in range(cols - k + 1):
            found.append(tuple((r + t) * cols + c + t for t in range(k)))
    for r in range(rows - k + 1):
        for c in range(k - 1, cols):
            found.append(tuple((r + t) * cols + c - t for t in range(k)))
    # With k = 1 every direction finds the same single cells: keep each line once.
    unique: dict[frozenset[int], tuple[int, ...]] = {}
    for line in found:
        unique.setdefault(frozenset(line), line)
    return tuple(unique.values())


def code(board: Board) -> int:
    """The base-3 code of a board: ``sum(digit_i * 3**i)``.

    >>> code((1, 0, 2, 0, 1, 0, 0, 0, 2))
    13222
    """
    return sum(digit * 3**cell for cell, digit in enumerate(board))


def board_of(code_: int, cells: int) -> Board:
    """The board of a base-3 code (the inverse of :func:`code`).

    >>> board_of(13222, 9)
    (1, 0, 2, 0, 1, 0, 0, 0, 2)
    """
    digits = []
    for _ in range(cells):
        code_, digit = divmod(code_, 3)
        digits.append(digit)
    return tuple(digits)


def show(board: Board, cols: int) -> str:
    """The board as ``X.O/.X./..O`` (for messages).

    >>> show((1, 0, 2, 0, 1, 0, 0, 0, 2), 3)
    'X.O/.X./..O'
    """
    chars = "".join(".XO"[digit] for digit in board)
    return "/".join(chars[i : i + cols] for i in range(0, len(chars), cols))


@cache
def reference(name: str) -> Reference:
    """The shared :class:`Reference` of a game named ``RxCkK``, ``RxCkK-misere``, ``RxCkK-gravity`` or
    ``RxCkK-gravity-misere`` (one memo per game per process).

    >>> reference("3x4k3").lines == winning_lines(3, 4, 3), reference("3x3k3-misere").misere
    (True, True)
    >>> game = reference("4x4k4-gravity-misere")
    >>> game.gravity, game.misere, game.name
    (True, True, '4x4k4-gravity-misere')
    """
    match = re.fullmatch(r"(\d+)x(\d+)k(\d+)(-gravity)?(-misere|-armageddon)?", name)
    if match is None:
        raise ValueError(f"expected a game name like '3x3k3', '3x3k3-misere', '4x4k4-gravity' or '4x4k4-gravity-misere', found {name!r}")
    return Reference(int(match[1]), int(match[2]), int(match[3]), misere=match[5] == "-misere", gravity=bool(match[4]), armageddon=match[5] == "-armageddon")


class Reference:
    """A rows x cols board, ``k`` in a row wins (loses, with ``misere``): plain memoised minimax and enumeration.

    With ``gravity`` a piece drops to the lowest empty cell of its column (Connect Four's family): the
    moves are those landing cells (:meth:`moves`), and the only symmetry is the left-right mirror.
    One instance keeps its memo for its lifetime, so sharing an instance shares the work.
    """

    def __init__(self, rows: int, cols: int, k: int, *, misere: bool = False, gravity: bool = False, armageddon: bool = False) -> None:
        self.rows, self.cols, self.k, self.misere, self.gravity, self.armageddon = rows, cols, k, misere, gravity, armageddon
        self.line_result = WIN if misere else LOSS
        """The result, for the side to move, of a board whose last mover made a line."""
        self.cells = rows * cols
        self.lines = winning_lines(rows, cols, k)
        self.lines_through = tuple(tuple(line for line in self.lines if cell in line) for cell in range(self.cells))
        self.empty: Board = (0,) * self.cells
        self._memo: dict[Board, tuple[int, int, tuple[int, ...]]] = {}
        self._games: dict[Board, tuple[int, int, int]] = {}
        self._reachable_memo: dict[Board, bool] = {}
        self._reachable: frozenset[Board] | None = None

    @property
    def name(self) -> str:
        """The game's name, e.g. ``3x3k3``, ``3x3k3-misere``, ``4x4k4-gravity`` or ``4x4k4-gravity-misere``."""
        return (
            f"{self.rows}x{self.cols}k{self.k}"
            + ("-gravity" if self.gravity else "")
            + ("-misere" if self.misere else "")
            + ("-armageddon" if self.armageddon else "")
        )

    # -- rules ------------------------------------------------------------------
    def winner(self, board: Board) -> int:
        """1 if X has a whole line, 2 if O has, else 0 (the first line found decides)."""
        for line in self.lines:
            first = board[line[0]]
            if first and all(board[cell] == first for cell in line):
                return first
        return 0

    def is_over(self, board: Board) -> bool:
        """Whether the game has ended: someone has a line, or no cell is empty."""
        return bool(self.winner(board)) or 0 not in board

    def to_move(self, board: Board) -> int:
        """1 (X) when both have as many pieces, else 2 (O)."""
        return X if board.count(X) == board.count(O) else O

    def playable(self, board: Board, cell: int) -> bool:
        """Whether ``cell`` is a move: it is empty and, with gravity, on the bottom row or right above a piece."""
        if board[cell]:
            return False
        return not self.gravity or cell + self.cols >= self.cells or bool(board[cell + self.cols])

    def moves(self, board: Board) -> list[int]:
        """Every playable cell (:meth:`playable`), lowest index first; with gravity at most one a column.

        >>> Reference(3, 3, 3, gravity=True).moves((0, 0, 0, 0, 0, 0, 1, 0, 0))
        [3, 7, 8]
        """
        return [cell for cell in range(self.cells) if self.playable(board, cell)]

    def drop(self, board: Board, column: int) -> int | None:
        """The cell a piece dropped into ``column`` lands on (its lowest empty cell), None if the column is full.

        >>> Reference(3, 3, 3, gravity=True).drop((0, 0, 0, 0, 0, 0, 1, 0, 0), 0)
        3
        """
        for row in reversed(range(self.rows)):
            if board[row * self.cols + column] == 0:
                return row * self.cols + column
        return None

    def settled(self, board: Board) -> bool:
        """Whether every piece lies on the bottom row or on another piece (always true without gravity)."""
        if not self.gravity:
            return True
        return all(not board[cell] or cell + self.cols >= self.cells or board[cell + self.cols] for cell in range(self.cells))

    def play(self, board: Board, cell: int) -> Board:
        """The board after the side to move plays ``cell`` (which must be a move: :meth:`playable`)."""
        assert self.playable(board, cell), f"cell {cell} of {show(board, self.cols)} is not a move"
        return board[:cell] + (self.to_move(board),) + board[cell + 1 :]

    def random_position(self, rng: random.Random, empty: int) -> Board | None:
        """A random game played until ``empty`` cells are left, or None when it ends first."""
        board = self.empty
        while board.count(0) > empty:
            board = self.play(board, rng.choice(self.moves(board)))
            if self.is_over(board):
                return None
        return board

    def _completes_line(self, board: Board, cell: int, piece: int) -> bool:
        return any(all(board[c] == piece for c in line) for line in self.lines_through[cell])

    def full_result(self, player: int) -> int:
        """The result for ``player`` (1 X, 2 O) of a full board without a line: a draw, or under armageddon O's win."""
        if not self.armageddon:
            return DRAW
        return WIN if player == O else LOSS

    # -- minimax ----------------------------------------------------------------
    def solve(self, board: Board) -> Solution:
        """The outcome for the side to move under perfect play (module docstring)."""
        board = tuple(board)
        if self.winner(board):
            return Solution(self.line_result, 0, frozenset())
        if 0 not in board:
            return Solution(self.full_result(self.to_move(board)), 0, frozenset())
        result, plies, best = self._solve_open(board)
        return Solution(result, plies, frozenset(best))

    def value(self, board: Board) -> int:
        """The value for X under perfect play: 1, 0 or -1."""
        result = self.solve(board).result
        return result if self.to_move(board) == X else -result

    def move_outcomes(self, board: Board) -> dict[int, tuple[int, int]]:
        """For every move (:meth:`moves`) of an unfinished board: (result for the mover, plies from now)."""
        board = tuple(board)
        if self.is_over(board):
            return {}
        return dict(self._outcomes(board))

    def _outcomes(self, board: Board) -> Iterable[tuple[int, tuple[int, int]]]:
        piece = self.to_move(board)
        for cell in self.moves(board):
            child = board[:cell] + (piece,) + board[cell + 1 :]
            if self._completes_line(child, cell, piece):
                yield cell, (-self.line_result, 1)
            elif 0 not in child:
                yield cell, (self.full_result(piece), 1)
            else:
                result, plies, _ = self._solve_open(child)
                yield cell, (-result, plies + 1)

    def _solve_open(self, board: Board) -> tuple[int, int, tuple[int, ...]]:
        """Minimax of a board that is not finished, memoised."""
        known = self._memo.get(board)
        if known is not None:
            return known
        best_key = None
        best_cells: list[int] = []
        best_outcome = (LOSS, 0)
        for cell, (result, plies) in self._outcomes(board):
            # Prefer a win, then a draw, then a loss; a faster win, a slower loss.
            key = (result, -plies if result == WIN else plies)
            if best_key is None or key > best_key:
                best_key, best_cells, best_outcome = key, [cell], (result, plies)
            elif key == best_key:
                best_cells.append(cell)
        answer = (best_outcome[0], best_outcome[1], tuple(best_cells))
        self._memo[board] = answer
        return answer

    # -- enumeration --------------------------------------------------------------
    def reachable(self) -> frozenset[Board]:
        """Every board a legal game reaches from the empty one (depth-first, iterative).

        A finished board (a line, or full) is kept but not expanded. Found once per instance.
        """
        if self._reachable is None:
            self._reachable = frozenset(self._search())
        return self._reachable

    def _search(self) -> set[Board]:
        seen = {self.empty}
        stack = [self.empty]
        while stack:
            board = stack.pop()
            if self.is_over(board):
                continue
            piece = self.to_move(board)
            for cell in self.moves(board):
                child = board[:cell] + (piece,) + board[cell + 1 :]
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        return seen

    def is_reachable(self, board: Board) -> bool:
        """Whether a legal game reaches ``board``, searched backward (memoised).

        Take back one of the last mover's pieces at a time: the board before it
        must be unfinished and itself reachable. With gravity the board must be
        :meth:`settled` and only a piece at the top of its column comes back out.
        Independent of :meth:`reachable`.
        """
        board = tuple(board)
        known = self._reachable_memo.get(board)
        if known is not None:
            return known
        nx, no = board.count(X), board.count(O)
        if nx == no == 0:
            answer = True
        elif nx not in (no, no + 1) or not self.settled(board):
            answer = False
        else:
            last = X if nx > no else O
            answer = False
            for cell in range(self.cells):
                if board[cell] == last and self._on_top(board, cell):
                    parent = board[:cell] + (0,) + board[cell + 1 :]
                    if not self.winner(parent) and self.is_reachable(parent):
                        answer = True
                        break
        self._reachable_memo[board] = answer
        return answer

    def _on_top(self, board: Board, cell: int) -> bool:
        """Whether the piece on ``cell`` can be taken back: always without gravity, else when nothing lies on it."""
        return not self.gravity or cell < self.cols or not board[cell - self.cols]

    def games(self, board: Board | None = None) -> tuple[int, int, int]:
        """Complete games (move sequences to the end) from ``board``: (X wins, O wins, draws)."""
        board = self.empty if board is None else tuple(board)
        known = self._games.get(board)
        if known is not None:
            return known
        won = self.winner(board)
        if won:
            x_won = (won == X) != self.misere  # in misère play the line's owner lost
            answer = (1, 0, 0) if x_won else (0, 1, 0)
        elif 0 not in board:
            answer = (0, 0, 1)
        else:
            x_wins = o_wins = draws = 0
            for cell in self.moves(board):
                a, b, c = self.games(self.play(board, cell))
                x_wins, o_wins, draws = x_wins + a, o_wins + b, draws + c
            answer = (x_wins, o_wins, draws)
        self._games[board] = answer
        return answer

    # -- symmetry -------------------------------------------------------------------
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The board's symmetries as permutations, identity first, each listed once.

        ``perm[cell]`` is where the piece on ``cell`` goes. The group is generated
        from the two mirror images (and the transpose on a square board) by closing
        under composition: 8 on a square board, 4 on a rectangle, fewer when a side
        is 1 long and a mirror does nothing. With gravity "down" is fixed, so only
        the left-right mirror generates: 2 images, 1 on a single column.

        >>> len(Reference(3, 3, 3).symmetries()), len(Reference(3, 4, 3).symmetries()), len(Reference(1, 5, 3).symmetries())
        (8, 4, 2)
        >>> len(Reference(4, 4, 4, gravity=True).symmetries()), len(Reference(3, 1, 3, gravity=True).symmetries())
        (2, 1)
        """
        rows, cols = self.rows, self.cols

        def perm(move: Callable[[int, int], int]) -> tuple[int, ...]:
            return tuple(move(cell // cols, cell % cols) for cell in range(self.cells))

        upside_down = perm(lambda r, c: (rows - 1 - r) * cols + c)
        left_to_right = perm(lambda r, c: r * cols + (cols - 1 - c))
        generators = [left_to_right] if self.gravity else [upside_down, left_to_right]
        if rows == cols and not self.gravity:
            generators.append(perm(lambda r, c: c * cols + r))  # transpose
        identity = tuple(range(self.cells))
        group = [identity]
        frontier = [identity]
        while frontier:
            found = []
            for p in frontier:
                for g in generators:
                    composed = tuple(g[p[cell]] for cell in range(self.cells))
                    if composed not in group and composed not in found:
                        found.append(composed)
            group.extend(found)
            frontier = found
        return tuple(group)

    @staticmethod
    def image(board: Board, perm: tuple[int, ...]) -> Board:
        """The board with the piece on every ``cell`` moved to ``perm[cell]``."""
        out = [0] * len(board)
        for cell, digit in enumerate(board):
            out[perm[cell]] = digit
        return tuple(out)

    def unique(self, boards: Iterable[Board]) -> int:
        """How many boards are left when symmetric images count once."""
        perms = self.symmetries()
        return len({min(self.image(board, p) for p in perms) for board in boards})


# -- a second enumeration, apart from the minimax ------------------------------------
# reachable_counts() shares nothing with Reference: a board is a pair of bit masks, the lines are found
# again another way (line_masks), and the moves come from bit operations, so that the per-ply counts of
# the two searches agreeing says something about both.


def line_masks(rows: int, cols: int, k: int) -> tuple[int, ...]:
    """Every line of ``k`` cells as a bit mask (bit ``i`` = cell ``i``), smallest first.

    Found from each start cell and each of the four directions (right, down, down-right, down-left)
    whose ``k``-th cell is still on the board: a second derivation, apart from :func:`winning_lines`.

    >>> [bin(mask) for mask in line_masks(2, 2, 2)]
    ['0b11', '0b101', '0b110', '0b1001', '0b1010', '0b1100']
    """
    masks = set()
    for row in range(rows):
        for col in range(cols):
            for down, right in ((0, 1), (1, 0), (1, 1), (1, -1)):
                if 0 <= row + (k - 1) * down < rows and 0 <= col + (k - 1) * right < cols:
                    masks.add(sum(1 << ((row + t * down) * cols + col + t * right) for t in range(k)))
    return tuple(sorted(masks))


def reachable_counts(rows: int, cols: int, k: int, *, gravity: bool = True, plies: int | None = None) -> list[int]:
    """How many boards legal games reach with 0, 1, 2, ... pieces on them: breadth-first, one set a ply.

    ``counts[n]`` is the number of distinct boards after ``n`` plies (X first, turns alternating; with
    ``gravity`` each piece on the lowest empty cell of its column), stopping each game at its first
    line of ``k``: a board with a line is counted but not extended. Misère play reaches the same boards
    (only who the line's owner is changes). ``plies`` stops after that many plies (the list is then
    ``plies + 1`` long); otherwise the list runs to the last ply any game reaches.

    A board is the integer ``X's cells | O's cells << rows * cols`` (bit ``i`` = cell ``i``); each ply
    keeps the boards still open and those just ended by a line in two sets, so a board is counted once
    however many games reach it.

    >>> reachable_counts(2, 2, 2)
    [1, 2, 4, 6]
    >>> reachable_counts(2, 2, 2, gravity=False)
    [1, 4, 12, 12]
    """
    cells = rows * cols
    moves = _Moves(rows, cols, k, gravity=gravity)
    last = cells if plies is None else min(plies, cells)
    still_open = {0}
    counts = [1]
    for ply in range(last):
        # The mover's cells are the low half of a board's bits when X moves (even plies), the high half when O does.
        shift = 0 if ply % 2 == 0 else cells
        still_open, ended = _next_ply(still_open, moves, shift, lines_possible=ply // 2 + 1 >= k)
        if not still_open and not ended:
            break
        counts.append(len(still_open) + len(ended))
    return counts


class _Moves:
    """The moves of each shape of board (which cells are taken), found by bit operations and kept."""

    def __init__(self, rows: int, cols: int, k: int, *, gravity: bool) -> None:
        self.cells, self.cols, self.gravity = rows * cols, cols, gravity
        self.board_mask = (1 << self.cells) - 1
        self.bottom_row = sum(1 << ((rows - 1) * cols + col) for col in range(cols))
        self.lines_through = [tuple(mask for mask in line_masks(rows, cols, k) if mask >> cell & 1) for cell in range(self.cells)]
        self._known: dict[int, tuple[tuple[int, tuple[int, ...]], ...]] = {}

    def of(self, board: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """``(bit of the cell, lines through it)`` for every move on ``board`` (an integer as in :func:`reachable_counts`)."""
        taken = (board | board >> self.cells) & self.board_mask
        known = self._known.get(taken)
        if known is None:
            # Free: empty, and with gravity on the bottom row or right above a taken cell (cell i + cols is below i).
            free = self.board_mask & ~taken & (((taken >> self.cols) | self.bottom_row) if self.gravity else self.board_mask)
            known = self._known[taken] = tuple((1 << cell, self.lines_through[cell]) for cell in range(self.cells) if free >> cell & 1)
        return known


def _next_ply(boards: set[int], moves: _Moves, shift: int, *, lines_possible: bool) -> tuple[set[int], set[int]]:
    """The boards one move after ``boards`` (the mover's cells at bit ``shift`` up): ``(still open, ended by a line)``.

    ``lines_possible`` is False while the mover has too few pieces for a line (then none is looked for).
    """
    still_open: set[int] = set()
    ended: set[int] = set()
    for board in boards:
        mine = board >> shift & moves.board_mask
        for bit, lines in moves.of(board):
            child = board | bit << shift
            placed = mine | bit
            # A plain loop, not any(): this is the innermost step, run for every move of every board.
            for line in lines if lines_possible else ():
                if placed & line == line:
                    ended.add(child)
                    break
            else:
                still_open.add(child)
    return still_open, ended


# -- stacking columns, lines ignored ----------------------------------------------------


def stacking_order(board: Board, rows: int, cols: int) -> tuple[int, ...] | None:
    """Columns, in dropping order, that build exactly ``board``'s column stacks, X first and turns alternating.

    Lines are ignored (a line on the way does not stop the stacking). None when no order does: a piece
    floats over an empty cell, the piece counts are not X's = O's or O's + 1, or every order fails.
    Exhaustive depth-first search over the height vector (pieces dropped so far into each column), with
    a memo of the height vectors from which no order finishes.

    >>> stacking_order((2, 0, 1, 0), 2, 2)         # O./X.: X drops into column 0, then O on it
    (0, 0)
    >>> stacking_order((1, 0, 2, 0), 2, 2) is None  # X./O.: O would have to drop first
    True
    """
    stacks = []
    for col in range(cols):
        column = [board[row * cols + col] for row in reversed(range(rows))]  # bottom first
        height = next((row for row, digit in enumerate(column) if digit == 0), rows)
        if any(column[height:]):
            return None  # a piece over an empty cell
        stacks.append(column[:height])
    if board.count(X) - board.count(O) not in (0, 1):
        return None
    target = tuple(len(stack) for stack in stacks)
    dead: set[tuple[int, ...]] = set()
    order: list[int] = []

    def finish(heights: tuple[int, ...]) -> bool:
        """Whether an order from ``heights`` builds the target (it is appended to ``order``)."""
        if heights == target:
            return True
        if heights in dead:
            return False
        piece = X if sum(heights) % 2 == 0 else O
        for col in range(cols):
            height = heights[col]
            if height < target[col] and stacks[col][height] == piece:
                order.append(col)
                if finish(heights[:col] + (height + 1,) + heights[col + 1 :]):
                    return True
                order.pop()
        dead.add(heights)
        return False

    return tuple(order) if finish((0,) * cols) else None


def can_stack(board: Board, rows: int, cols: int) -> bool:
    """Whether some alternating order, X first, drops exactly ``board``'s column stacks (lines ignored):
    :func:`stacking_order` found one."""
    return stacking_order(board, rows, cols) is not None


if __name__ == "__main__":  # pragma: no cover - a quick look from the shell
    sys.setrecursionlimit(10_000)
    game = reference(sys.argv[1]) if len(sys.argv) == 2 else Reference(*(int(arg) for arg in sys.argv[1:4]))
    print(game.name, len(game.reachable()), game.solve(game.empty))
