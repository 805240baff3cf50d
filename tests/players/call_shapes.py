"""Move functions of other shapes than ``f(board) -> move``, graded with options, not wrappers."""

from perfect import best_move, value


def with_symbol(board, me):
    """``--turn symbol``: ``me`` is the mover's symbol; refuses a wrong one."""
    pieces = sum(cell is not None for row in board for cell in row)
    if me != ("X" if pieces % 2 == 0 else "O"):
        raise ValueError(f"told {me!r} moves with {pieces} pieces on the board")
    return best_move(board)


def with_is_max(board, is_max):
    """``--turn max``: ``is_max`` is True when X moves."""
    pieces = sum(cell is not None for row in board for cell in row)
    if is_max is not (pieces % 2 == 0):
        raise ValueError(f"told is_max={is_max!r} with {pieces} pieces on the board")
    return best_move(board)


def value_and_move(board):
    """``--returns value-move``: (value for X, [row, col])."""
    return value(board), list(best_move(board))


def flat_cell(board):
    """A flat cell index ``row * 3 + col``."""
    row, col = best_move(board)
    return row * 3 + col


class Bot:
    """``FILE.py:Bot.move``: a method of an object built with ``Bot()``."""

    def __init__(self):
        self.calls = 0

    def move(self, board):
        self.calls += 1
        return best_move(board)


class NeedsArguments:
    def __init__(self, depth):
        self.depth = depth

    def move(self, board):
        return best_move(board)
