"""A textbook recursive minimax, written the way tutorials and course notebooks write it.

Adapted from the usual "minimax for tic-tac-toe" notebook shape: the board is a
list of rows holding ``"X"``, ``"O"`` or ``None``; ``minimax(board)`` returns the
optimal action ``(i, j)`` for the player to move. Utilities are 1 (X wins),
-1 (O wins) and 0, with no preference for quicker wins: it keeps every result
but does not always win fastest. Plain recursion, no memo: seconds on the empty board.

Grade it with::

    solve grade tests/players/textbook_minimax.py:minimax
"""

import copy
import math

X = "X"
O = "O"  # noqa: E741 - the notebook's name
EMPTY = None


def initial_state():
    """Returns starting state of the board."""
    return [[EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY]]


def player(board):
    """Returns player who has the next turn on a board."""
    counter = 0
    for row in board:
        for cell in row:
            if cell != EMPTY:
                counter += 1
    return X if counter % 2 == 0 else O


def actions(board):
    """Returns set of all possible actions (i, j) available on the board."""
    moves = set()
    for i in range(3):
        for j in range(3):
            if board[i][j] == EMPTY:
                moves.add((i, j))
    return moves


def result(board, action):
    """Returns the board that results from making move (i, j) on the board."""
    i, j = action
    if i > 2 or i < 0 or j > 2 or j < 0:
        raise Exception("Out of bounds")
    copied_board = copy.deepcopy(board)
    if copied_board[i][j] != EMPTY:
        raise Exception("Invalid Action")
    copied_board[i][j] = player(board)
    return copied_board


def winner(board):
    """Returns the winner of the game, if there is one."""
    for row in board:
        if row[0] is not EMPTY and all(cell == row[0] for cell in row):
            return row[0]
    for j in range(3):
        if board[0][j] is not EMPTY and all(row[j] == board[0][j] for row in board):
            return board[0][j]
    if board[0][0] is not EMPTY and board[0][0] == board[1][1] == board[2][2]:
        return board[0][0]
    if board[2][0] is not EMPTY and board[2][0] == board[1][1] == board[0][2]:
        return board[2][0]
    return None


def terminal(board):
    """Returns True if game is over, False otherwise."""
    return winner(board) is not None or all(cell != EMPTY for row in board for cell in row)


def utility(board):
    """Returns 1 if X has won the game, -1 if O has won, 0 otherwise."""
    won = winner(board)
    if won == X:
        return 1
    if won == O:
        return -1
    return 0


def minimax(board):
    """Returns the optimal action for the current player on the board."""
    if terminal(board):
        return None
    if player(board) == X:
        return maxvalue(board)[1]
    return minvalue(board)[1]


def maxvalue(board):
    if terminal(board):
        return utility(board), None
    value = -math.inf
    best_action = None
    for action in actions(board):
        temp_value = max(value, minvalue(result(board, action))[0])
        if temp_value > value:
            value = temp_value
            best_action = action
    return value, best_action


def minvalue(board):
    if terminal(board):
        return utility(board), None
    value = math.inf
    best_action = None
    for action in actions(board):
        temp_value = min(value, maxvalue(result(board, action))[0])
        if temp_value < value:
            value = temp_value
            best_action = action
    return value, best_action
