"""Fast example players for the grading tests, one per board form and failure mode.

Each takes one board and returns a move; grade them with e.g.::

    solve grade tests/players/simple_players.py:first_empty
    solve grade tests/players/simple_players.py:numpy_first_empty --numpy
    solve grade tests/players/simple_players.py:flat_first_empty --flat
"""

import random

from perfect import best_move


def perfect(board):
    """Always a best move (as ``(row, col)``), by the neighbour module ``perfect``."""
    return best_move(board)


def first_empty(board):
    """The first empty cell in reading order, as ``(row, col)`` ('X'/'O'/None boards)."""
    for i, row in enumerate(board):
        for j, cell in enumerate(row):
            if cell is None:
                return i, j
    raise ValueError("no empty cell")


def random_player(seed):
    """A player that picks a random empty cell, as ``[row, col]``, reproducibly from ``seed``."""
    rng = random.Random(seed)

    def play(board):
        return rng.choice([[i, j] for i in range(3) for j in range(3) if board[i][j] is None])

    return play


def numpy_first_empty(board):
    """For ``--numpy`` boards (1 X, -1 O, 0 empty): the first empty cell as a flat index."""
    return int((board.reshape(-1) == 0).argmax())


def flat_first_empty(board):
    """For ``--flat`` boards (``"X...O...."``): the first empty cell as a flat index."""
    return board.index(".")


def raises_on_full_corners(board):
    """Raises ZeroDivisionError when all four corners are taken, else plays a best move."""
    if all(board[i][j] is not None for i in (0, 2) for j in (0, 2)):
        return 1 / 0
    return best_move(board)


def garbage(board):
    """Illegal answers by the number of pieces: a taken cell, off the board, None, text, a float; else best."""
    pieces = sum(cell is not None for row in board for cell in row)
    taken = next(((i, j) for i in range(3) for j in range(3) if board[i][j] is not None), None)
    answers = {1: taken, 2: 9, 3: None, 4: "centre", 5: (1.0, 1.0), 6: (True, False)}
    if pieces in answers:
        return answers[pieces]
    return best_move(board)


def scribbler(board):
    """Plays a best move, then fills every empty cell of the board it was given with 'X'."""
    move = best_move(board)
    for row in board:
        for j, cell in enumerate(row):
            if cell is None:
                row[j] = "X"
    return move
