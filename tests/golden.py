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
