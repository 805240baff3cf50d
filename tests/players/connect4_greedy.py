"""A student's Connect Four player (6x7, four in a row) that looks one move ahead: it wins at once when it can,
else blocks the opponent's win, else plays the leftmost open column. The board is a list of rows, top row first,
of 'X', 'O' and None; the function gets it and the player to move and returns a column, numbered from 0.

    solve grade tests/players/connect4_greedy.py:play --game connect4 --turn symbol --sample 8
"""


def landing_row(board, col):
    for row in range(len(board) - 1, -1, -1):
        if board[row][col] is None:
            return row
    return None


def wins(board, player, row, col):
    rows, cols = len(board), len(board[0])
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < rows and 0 <= c < cols and board[r][c] == player:
                run += 1
                r, c = r + sign * dr, c + sign * dc
        if run >= 4:
            return True
    return False


def play(board, player):
    other = "O" if player == "X" else "X"
    open_columns = [col for col in range(len(board[0])) if landing_row(board, col) is not None]
    for who in (player, other):
        for col in open_columns:
            if wins(board, who, landing_row(board, col), col):
                return col
    return open_columns[0]
