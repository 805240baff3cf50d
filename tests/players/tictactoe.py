"""A stand-in for the course module that seed notebook 003 imports (``from tictactoe import *``).

Only what the notebook shows: ``Game`` holds a 3x3 numpy ``board`` (1 X, -1 O, 0 empty) and
``max_min()``, the largest and smallest sum of a row, column or diagonal; players get ``n``
(1 for X, -1 for O).
"""

import numpy as np

__all__ = ["BasePlayer", "Game", "np"]


class BasePlayer:
    n = 0

    def move(self, game, state):
        raise NotImplementedError

    def update(self, game, state, reward):
        pass


class Game:
    def __init__(self, x=None, o=None):
        self.board = np.zeros((3, 3), dtype=int)
        for player, n in ((x, 1), (o, -1)):
            if player is not None:
                player.n = n

    def max_min(self):
        b = self.board
        sums = [*b.sum(axis=0), *b.sum(axis=1), b.trace(), np.fliplr(b).trace()]
        return max(sums), min(sums)

    def game_over(self):
        high, low = self.max_min()
        return high == 3 or low == -3 or not (self.board == 0).any()
