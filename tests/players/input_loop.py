"""A notebook exported as it was: the game loop at the bottom asks for a move with input() at import."""

from perfect import best_move


def ai(board):
    return best_move(board)


board = [[None] * 3 for _ in range(3)]
while True:
    row, col = map(int, input("your move (row col): ").split())
    board[row][col] = "X"
    i, j = ai(board)
    board[i][j] = "O"
