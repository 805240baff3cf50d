# ruff: noqa (the notebook's code is kept verbatim, style and all)
# Seed notebook shared/seeds/003_0d2b9089bd1717ee.txt ("Minimax", a course's BasePlayer/Game classes): its
# final MinimaxPlayer cell (In [1]) verbatim, then the few lines of docs/grading.md that adapt it to a board
# function. `tictactoe` is the course's module; tests/players/tictactoe.py stands in for it here.

from tictactoe import *


# here is an empty Minimax player
class MinimaxPlayer(BasePlayer):
    # return a valid move (0..9, equal to [row * 3 + col] )
    def move(self, game, state):
        best_row = -1
        best_col = -1
        best_score = -1
        for row in range(3):
            for col in range(3):
                if game.board[row][col] == 0:
                    game.board[row][col] = self.n
                    score = self.minimax(game, True)
                    print(row, col, row * 3 + col, score)
                    game.board[row][col] = 0
                    if score > best_score:
                        best_score = score
                        best_row = row
                        best_col = col
        return best_row * 3 + best_col

    # receive feedback from most recent move
    def update(self, game, state, reward):
        if reward == -1:
            print("Inconceivable!")  # how did we manage to lose, having examined every outcome?

    # do the silly housekeeping of representing all scores as positive values (0..3)
    def get_score(self, game):
        max_min = game.max_min()
        if self.n == 1:
            if max_min[0] == 3:
                return 1
            elif max_min[1] == -3:
                return -1
            else:
                return 0
        else:
            if max_min[1] == -3:
                return 1
            elif max_min[0] == 3:
                return -1
            else:
                return 0

    # check if the board is full (implying that the game is over)
    def board_is_full(self, board):
        for row in range(3):
            for col in range(3):
                if board[row][col] == 0:
                    return False
        return True

    # do the real work first described by Jon Von Neumann in 1928
    def minimax(self, game, isMe):

        # first, check for terminal conditions...
        score = self.get_score(game)
        if abs(score) == 3:
            return score  # a winner or loser... either is a terminal state
        if self.board_is_full(game.board):
            return 0  # a tie is also a terminal state

        if isMe:
            best = -4
            for row in range(3):
                for col in range(3):
                    if g.board[row][col] == 0:
                        g.board[row][col] = self.n
                        best = max(best, self.minimax(game, not isMe))
                        g.board[row][col] = 0
        else:
            best = 4
            for row in range(3):
                for col in range(3):
                    if g.board[row][col] == 0:
                        g.board[row][col] = -self.n
                        best = min(best, self.minimax(game, not isMe))
                        g.board[row][col] = 0
        return best


# The adapter (docs/grading.md, "Grade your minimax"): solve grade seed003.py:move --numpy --turn symbol
def move(board, me):
    global g
    g = Game()  # the notebook's minimax() plays on the global g
    g.board = board
    player = MinimaxPlayer()
    player.n = me  # 1 for X, -1 for O
    return player.move(g, None)
