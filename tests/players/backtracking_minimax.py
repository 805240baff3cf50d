"""A backtracking minimax for O, in the style of course notebooks that use ``' '`` for empty.

``get_best_move(board)`` always plays **O** (it is the notebook's AI) and returns
``[i, j]``. It changes the board it is given while it searches (and puts it back).
Grade it as O with ``' '`` as the empty symbol::

    solve grade tests/players/backtracking_minimax.py:get_best_move --symbols 'X,O, ' --side O
"""


def check_rows(board):
    for row in board:
        if " " not in row:
            if "X" not in row:
                return -1
            if "O" not in row:
                return 1
    return 0


def check_cols(board):
    for i in range(3):
        col = [row[i] for row in board]
        if " " not in col:
            if "X" not in col:
                return -1
            if "O" not in col:
                return 1
    return 0


def check_diagonals(board):
    d1 = []
    d2 = []
    for i in range(3):
        d1.append(board[i][i])
        d2.append(board[2 - i][i])
    for d in (d1, d2):
        if " " not in d:
            if "X" not in d:
                return -1
            if "O" not in d:
                return 1
    return 0


def check_winner(board):
    """(False, winner) when the game is over, (True, 0) while it goes on; 1 = X, -1 = O."""
    for check in (check_rows, check_cols, check_diagonals):
        winner = check(board)
        if winner != 0:
            return False, winner
    if any(" " in row for row in board):
        return True, 0
    return False, 0


def minimax(board, maximizing):
    status = check_winner(board)
    if status[0] is False:
        return status[1]
    if maximizing:
        best_score = float("-inf")
        for i in range(3):
            for j in range(3):
                if board[i][j] == " ":
                    board[i][j] = "X"
                    best_score = max(minimax(board, False), best_score)
                    board[i][j] = " "
        return best_score
    best_score = float("inf")
    for i in range(3):
        for j in range(3):
            if board[i][j] == " ":
                board[i][j] = "O"
                best_score = min(minimax(board, True), best_score)
                board[i][j] = " "
    return best_score


def get_best_move(board):
    """The best move for O, as [i, j]."""
    best_score = float("inf")
    new_move = []
    for i in range(3):
        for j in range(3):
            if board[i][j] == " ":
                board[i][j] = "O"
                s = minimax(board, True)
                if s < best_score:
                    best_score = s
                    new_move = [i, j]
                board[i][j] = " "
    return new_move
