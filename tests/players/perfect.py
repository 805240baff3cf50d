"""A perfect tic-tac-toe player with no import of the package (three in a row on any small board).

The grader's sandbox gives a player nothing of ``solver`` (it would be the answer key), so the
test players that play a best move on the positions they do not attack import this file, a
neighbour of theirs, instead. A best move is the table's: win fastest, lose slowest.
"""

from functools import cache

K = 3


def _lines(rows, cols):
    found = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(K)]
                if all(0 <= rr < rows and 0 <= cc < cols for rr, cc in cells):
                    found.append(tuple(rr * cols + cc for rr, cc in cells))
    return tuple(found)


@cache
def _score(cells, rows, cols):
    """The mover's score: 1 + the empty cells left when it wins, minus that when it loses, 0 for a draw."""
    lines = _lines(rows, cols)
    empty = cells.count(None)
    if any(cells[a] is not None and all(cells[i] == cells[a] for i in line) for line in lines for a in line[:1]):
        return -(1 + empty)  # the player who just moved made a line
    if empty == 0:
        return 0
    mover = "X" if cells.count("X") == cells.count("O") else "O"
    return max(-_score(cells[:i] + (mover,) + cells[i + 1 :], rows, cols) for i in range(len(cells)) if cells[i] is None)


def _cells(board):
    """The board's cells as 'X', 'O' and None (either case; anything else is an empty cell)."""
    return tuple({"X": "X", "x": "X", "O": "O", "o": "O"}.get(cell) if isinstance(cell, str) else None for row in board for cell in row)


def best_move(board):
    """A best move on a list of rows of 'X' and 'O' (either case) and anything else for empty, as ``(row, col)``."""
    rows, cols = len(board), len(board[0])
    cells = _cells(board)
    mover = "X" if cells.count("X") == cells.count("O") else "O"
    moves = [i for i in range(len(cells)) if cells[i] is None]
    best = max(moves, key=lambda i: -_score(cells[:i] + (mover,) + cells[i + 1 :], rows, cols))
    return divmod(best, cols)


def value(board):
    """The position's value for X: 1 a win, 0 a draw, -1 a loss."""
    rows, cols = len(board), len(board[0])
    cells = _cells(board)
    score = _score(cells, rows, cols)
    mover_sign = 1 if cells.count("X") == cells.count("O") else -1
    return mover_sign * (score > 0) - mover_sign * (score < 0)
