"""A student's Connect Four player, the way course notebooks write it: a plain minimax over a 2-D list.

The board is a list of rows, top row first, of ``'X'``, ``'O'`` and ``None``; a piece dropped in a
column falls to the lowest empty cell of it. The function gets the board and the player to move
(``'X'`` or ``'O'``) and returns a column, numbered from 0 at the left. ``K`` pieces in a row, column
or diagonal win: 4 is Connect Four; 3 keeps the small boards the grader solves in seconds.

Grade it with::

    solve grade tests/players/connect_four.py:connect --game 3x4k3-gravity --turn symbol
    solve grade tests/players/connect_four.py:connect_cells --game 3x4k3-gravity --turn symbol
    solve grade tests/players/connect_four.py:shortsighted --game 3x4k3-gravity --turn symbol
    solve grade tests/players/connect_four.py:top_cell --game 3x4k3-gravity --turn symbol

``connect`` returns the column of a best move; ``connect_cells`` the same move as ``(row, col)``,
the cell the piece lands on; ``shortsighted`` looks two plies ahead only (a deliberate mistake: it
throws results away); ``top_cell`` answers the top cell of the best column instead of the cell
the piece lands on (an illegal answer under gravity).
"""

from functools import cache

K = 3


def other(player):
    return "O" if player == "X" else "X"


def landing_row(board, col):
    """The lowest empty row of ``col``, or None when the column is full."""
    for row in range(len(board) - 1, -1, -1):
        if board[row][col] is None:
            return row
    return None


def wins(board, player, row, col):
    """Whether ``player``'s piece at (row, col) completes K in a row."""
    rows, cols = len(board), len(board[0])
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < rows and 0 <= c < cols and board[r][c] == player:
                run += 1
                r, c = r + sign * dr, c + sign * dc
        if run >= K:
            return True
    return False


@cache
def value(state, player, depth):
    """The value of ``state`` (a tuple of rows) for ``player`` to move: more than 0 a win (sooner is more),
    less than 0 a loss (later is less), 0 a draw; looks ``depth`` plies ahead (None: to the end)."""
    board = [list(row) for row in state]
    empty = sum(cell is None for row in board for cell in row)
    if empty == 0 or depth == 0:
        return 0
    best = -1000
    for col in range(len(board[0])):
        row = landing_row(board, col)
        if row is None:
            continue
        board[row][col] = player
        if wins(board, player, row, col):
            score = empty
        else:
            score = -value(tuple(map(tuple, board)), other(player), None if depth is None else depth - 1)
        board[row][col] = None
        best = max(best, score)
    return best


def choose(board, player, depth=None):
    """The first column with the best value, and the row its piece lands on."""
    best, move = -1001, None
    state = tuple(map(tuple, board))
    for col in range(len(board[0])):
        row = landing_row(board, col)
        if row is None:
            continue
        grid = [list(r) for r in state]
        grid[row][col] = player
        if wins(grid, player, row, col):
            score = sum(cell is None for r in board for cell in r)
        else:
            score = -value(tuple(map(tuple, grid)), other(player), None if depth is None else depth - 1)
        if score > best:
            best, move = score, (row, col)
    return move


def connect(board, player):
    """A best column."""
    return choose(board, player)[1]


def connect_cells(board, player):
    """A best move as ``(row, col)``: the cell the piece lands on."""
    return choose(board, player)


def shortsighted(board, player):
    """A column chosen by looking two plies ahead only: it misses what comes later."""
    return choose(board, player, depth=2)[1]


def top_cell(board, player):
    """The top cell of the best column: not where the piece lands (an illegal answer under gravity)."""
    return 0, choose(board, player)[1]


def connect_value(board, player):
    """``(value, column)``, as minimax functions often return: grade it with ``--returns value-move``."""
    row, col = choose(board, player)
    grid = [list(r) for r in board]
    grid[row][col] = player
    won = wins(grid, player, row, col)
    return (1 if won else 0), col
