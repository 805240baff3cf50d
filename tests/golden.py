"""Published numbers about tic-tac-toe and its m,n,k relatives, in one place, each with its source.

Conventions: X moves first; a game stops at the first line or a full board; a
"position" is a board some legal game reaches (the empty board and finished
boards included); a "game" is a complete move sequence from the empty board.
Values are for X (1 X wins, 0 draw, -1 O wins) under perfect play.
"""

from __future__ import annotations

# -- Reachable positions ----------------------------------------------------------
POSITIONS = {
    # 1x1 (2) and 2x2 (29), both with k = the side, enumerated by hand in the question
    # "Determining the number of valid TicTacToe board states in terms of board dimension",
    # https://math.stackexchange.com/q/469371
    "1x1k1": 2,
    "2x2k2": 29,
    # 5,478 legal positions: Wikipedia, "Game complexity", section "Example: tic-tac-toe
    # (noughts and crosses)"; also the question above.
    "3x3k3": 5_478,
    # The two 4x4 counts are the figures this project was briefed with as published
    # (the 4x4 case is the open part of the math.stackexchange question above). No
    # code in tests/ re-derives them: the reference solver is too slow for 4x4.
    "4x4k4": 9_722_011,
    "4x4k3": 6_036_001,
}

# -- Tic-tac-toe ---------------------------------------------------------------------
# 765 "essentially different" positions once rotations and reflections are identified:
# Wikipedia, "Game complexity", section "Example: tic-tac-toe (noughts and crosses)".
UNIQUE_POSITIONS_3X3 = 765

# 958 finished boards: 626 won by X, 316 by O, 16 drawn. The 958 and the 626 are the UCI
# Machine Learning Repository's "Tic-Tac-Toe Endgame" data set (D. W. Aha, 1991: 958
# instances, 65.3 % "positive" = X has won; its 332 "negative" ones are the 316 + 16 others);
# the split of those 332 is Henry Bottomley's, "How many Tic-Tac-Toe (noughts and crosses)
# games are possible?", http://www.se16.info/hgb/tictactoe.htm
TERMINAL_3X3 = {"positions": 958, "x_wins": 626, "o_wins": 316, "draws": 16}

# The finished boards up to symmetry: 138 = 91 won by X + 44 by O + 3 drawn.
# Wikipedia, "Tic-tac-toe", section "Combinatorics".
UNIQUE_TERMINAL_3X3 = {"positions": 138, "x_wins": 91, "o_wins": 44, "draws": 3}

# 255,168 complete games: 131,184 won by X, 77,904 by O, 46,080 drawn.
# Henry Bottomley, http://www.se16.info/hgb/tictactoe.htm (quoted by Wikipedia, "Tic-tac-toe",
# section "Combinatorics").
GAMES_3X3 = {"total": 255_168, "x_wins": 131_184, "o_wins": 77_904, "draws": 46_080}

# -- Game values from the empty board --------------------------------------------------
START_VALUE = {
    # Tic-tac-toe is a draw: Wikipedia, "Tic-tac-toe" (a "futile game"); a draw lasts all 9 plies.
    "3x3k3": 0,
    # Wikipedia, "m,n,k-game", section "Specific results": k = 3 is a first-player win on
    # every board larger than 3x3 (m >= 4, n >= 3, or m >= 3, n >= 4) ...
    "3x4k3": 1,
    "4x3k3": 1,
    "4x4k3": 1,
    # ... and k = 4 is a draw on boards up to 5x5, so 4,4,4 is a draw.
    "4x4k4": 0,
}

# -- Connect Four and its family (gravity: a piece drops to the lowest empty cell of its column) --
# Names are rows x columns, as everywhere here: Connect Four is 6 rows of 7 columns, "6x7k4-gravity".

# Legal 6x7 Connect Four positions after n plies, n = 0..9 (the first ten terms; the sequence runs to
# n = 42): OEIS A212693, "Number of legal 7 X 6 Connect-Four positions after n plies" (John Tromp, 2012),
# https://oeis.org/A212693. "Legal" is what "reachable" means here: a game stops at its first four in a
# row (such a board is counted, not extended).
CONNECT_FOUR_POSITIONS_BY_PLY = (1, 7, 49, 238, 1_120, 4_263, 16_422, 54_859, 184_275, 558_186)

# Complete games (move sequences until four in a row or a full board) of Connect Four on a board
# n + 1 columns wide and n rows high, n = 1..4: OEIS A342329, "Number of different games of Connect
# Four on an (n+1) X n board" (Robin Jehn, 2021), https://oeis.org/A342329. On 1x2 and 2x3 no four
# fits, so every game is a draw (2 and 90 = 6! / 2!^3 orders).
CONNECT_FOUR_GAMES = {
    "1x2k4-gravity": 2,
    "2x3k4-gravity": 90,
    "3x4k4-gravity": 356_232,
    "4x5k4-gravity": 152_505_051_772,
}
