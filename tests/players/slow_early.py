"""A player whose time grows as a plain minimax's does, with the factorial of the empty cells (2 s on the empty
tic-tac-toe board, 0.03 s with 7 empty): it times out on the first plies only, and plays the first empty cell."""

import math
import time


def first_empty_slowly(board):
    empty = [(row, col) for row in range(3) for col in range(3) if board[row][col] is None]
    time.sleep(2.0 * math.factorial(len(empty)) / math.factorial(9))
    return empty[0]
