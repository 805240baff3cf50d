# ruff: noqa (the notebook's code is kept verbatim, style and all)
# Seed notebook shared/seeds/002_d21e68988a2dc886.txt (TIC TAC TOE with MINIMAX), its code cell In [1]
# verbatim except the interactive game loop at the end (state = ...; while state != "END": ... input()).
# Boards of "x", "o" and " "; MINIMAX(state, is_max) -> (value, [row, col]), is_max True for "x". Graded with:
#
#     solve grade tests/players/seed002_minimax.py:MINIMAX --symbols 'x,o, ' --turn max --returns value-move

# MAX...>computer, plays with x
# MIN: PLAYER, plays with o
import sys
from random import choice
import numpy as np

sys.setrecursionlimit(15000)

initial_state = [[" ", " ", " "], [" ", " ", " "], [" ", " ", " "]]


def draw(state):
    for i in range(3):
        print(state[i][0] + "|" + state[i][1] + "|" + state[i][2])
        if i < 2:
            print("-+-+-")
    print("\n")


def player_has_horizontal(state, symbol):
    for i in range(3):
        if state[i] == [symbol] * 3:
            return True
    return False


def player_has_diagonal(state, symbol):
    if state[1][1] == symbol:
        if state[0][0] == state[2][2] == symbol or state[0][2] == state[2][0] == symbol:
            return True
        else:
            return False
    else:
        return False


def player_has_vertical(state, symbol):
    for i in range(3):
        if state[0][i] == state[1][i] == state[2][i] == symbol:
            return True
    return False


def is_player_winner(state, is_max):
    symbol = "x"
    if not is_max:
        symbol = "o"
    return player_has_horizontal(state, symbol) or player_has_vertical(state, symbol) or player_has_diagonal(state, symbol)


def is_terminal_state(state):
    if " " not in [item for sublist in state for item in sublist]:
        return True
    if is_player_winner(state, True) or is_player_winner(state, False):
        return True
    return False


def utility_value(state, is_max):
    if is_player_winner(state, True):
        return 1
    elif is_player_winner(state, False):
        return -1
    else:
        return 0


def get_successors(state, is_max):

    successors = []
    for i in range(3):
        for j in range(3):
            if state[i][j] == " ":
                new_state = [x[:] for x in state]
                if is_max:
                    new_state[i][j] = "x"
                else:
                    new_state[i][j] = "o"
                successor = {"state": new_state.copy(), "action": [i, j]}
                successors.append(successor)
    return successors


def MINIMAX(state, is_max):

    # take the maximum minimax we can get from this state
    if is_max:
        minimax_value = MAX_VALUE(state, is_max)
    else:
        minimax_value = MIN_VALUE(state, is_max)
    if is_terminal_state(state):
        return minimax_value, None
    # we need to know the action that lead to that state. we check the successors to evaluate that
    successors = get_successors(state, is_max)
    action = [None, None]
    for s in successors:
        value_successor = MINIMAX(s["state"], not is_max)[0]
        if value_successor == minimax_value:
            action = s["action"]
            break
    return minimax_value, action


def MAX_VALUE(state, is_max):
    if is_terminal_state(state):
        return utility_value(state, is_max)
    else:
        minimax_value = -999999
        successors = get_successors(state, is_max)
        for s in successors:
            minimax_value = max(minimax_value, MIN_VALUE(s["state"], not is_max))
    return minimax_value


def MIN_VALUE(state, is_max):
    if is_terminal_state(state):
        return utility_value(state, is_max)
    else:
        minimax_value = 999999
        successors = get_successors(state, is_max)
        for s in successors:
            minimax_value = min(minimax_value, MAX_VALUE(s["state"], not is_max))
    return minimax_value


def human_play(state):
    row = int(input("Enter new position row: "))
    col = int(input("Enter new position col: "))

    if state[row][col] == " ":
        state[row][col] = "o"
        print("New Board: ")
        draw(state)
        if check_final(state):
            return "END"
        return state
    else:
        print("Position taken, please pick a different position.")
        human_play(state)


def select_random_position(state):
    return list(choice(np.argwhere(np.array(state) == " ")))


def computer_play(state):
    print("computer is thinking...")
    next_action = MINIMAX(state, True)[1]

    print(next_action)
    #### in the first stages all successors of a node can be winners, so the check will return an empty list.

    # if next_action == [None, None]:
    #   next_action = select_random_position(state)
    state[next_action[0]][next_action[1]] = "x"
    draw(state)
    if check_final(state):
        return "END"
    return state


def check_final(state):
    if is_terminal_state(state):
        if is_player_winner(state, True):
            print("BOT WINS!")
        elif is_player_winner(state, False):
            print("YOU WIN")
        else:
            print("DRAW!")
        return True
    else:
        return False
