"""The OpenSpiel and PettingZoo adapters (:mod:`solver.interop`).

The first half needs no extra package: string parsing, action ids, hand-made
observations, PettingZoo's ``observe()`` reproduced from its source, and errors.
The second half runs against the real packages (``pip install '.[interop]'``)
and is skipped without them; set ``SOLVED_TICTACTOE_REQUIRE_INTEROP=1`` (as CI
should) to make a missing package an error instead of a skip.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from golden import POSITIONS, TERMINAL_3X3  # tests/golden.py (conftest.py puts tests/ on sys.path)

import solver
from solver import InvalidBoardError, interop

OPENSPIEL_STATES = POSITIONS["3x3k3"]
"""OpenSpiel's tic_tac_toe has one state per reachable position (keyed by ``str``)."""

REQUIRE = os.environ.get("SOLVED_TICTACTOE_REQUIRE_INTEROP") == "1"
EMPTY = "...\n...\n..."


def _reachable_codes() -> list[int]:
    return [int(code) for code in solver.table_for().reachable_codes()]


def _documented_squares(code: int) -> list[int]:
    """PettingZoo's ``board.squares`` for our board: square ``row + 3 * col``, 1 = X, 2 = O."""
    digits = solver.encoding.board.digits(solver.Game(), code)
    return [digits[3 * (a % 3) + a // 3] for a in range(9)]


def _pettingzoo_observe(squares: list[int], agent: str) -> np.ndarray:
    """PettingZoo 1.27 ``tictactoe.py`` ``observe()``, lines 160-168, on a list of squares."""
    board_vals = np.array(squares).reshape(3, 3)
    cur_player = ["player_1", "player_2"].index(agent)
    opp_player = (cur_player + 1) % 2
    observation = np.empty((3, 3, 2), dtype=np.int8)
    observation[:, :, 0] = np.equal(board_vals, cur_player + 1)
    observation[:, :, 1] = np.equal(board_vals, opp_player + 1)
    return observation


# -- without the extra: squares and action ids ------------------------------------------


def test_openspiel_string_reads_x_as_the_first_player_row_by_row() -> None:
    assert interop.board_from_openspiel("x.o\n...\n...") == solver.encode("X.O/.../...")
    assert interop.board_from_openspiel("...\n.x.\n..o") == solver.encode(".../.X./..O")
    assert interop.board_from_openspiel(EMPTY) == 0


def test_openspiel_action_ids_are_our_row_major_cell_indices() -> None:
    for row in range(3):
        for col in range(3):
            assert interop.openspiel_action((row, col)) == 3 * row + col == interop.openspiel_action(3 * row + col)
            assert interop.openspiel_move(3 * row + col) == (row, col)


def test_pettingzoo_action_ids_follow_its_documented_column_major_layout() -> None:
    layout = [[interop.pettingzoo_action((row, col)) for col in range(3)] for row in range(3)]
    assert layout == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]  # PettingZoo's docs: "0 | 3 | 6 / 1 | 4 | 7 / 2 | 5 | 8"
    for action in range(9):
        assert interop.pettingzoo_action(interop.pettingzoo_move(action)) == action
        # an OpenSpiel id is our cell index, so pettingzoo_action converts it (a transpose)
        assert interop.pettingzoo_action(interop.openspiel_action(interop.pettingzoo_move(action))) == action


def test_best_actions_of_a_won_in_one_position_name_the_winning_square() -> None:
    # X to move: X.. / X.. / ... in PettingZoo's picture holds actions 0, 1; O holds 3, 4; X wins at action 2.
    assert interop.openspiel_best_actions("xo.\nxo.\n...") == [6]
    observation = np.zeros((3, 3, 2), dtype=np.int8)
    observation[0, 0, 0] = observation[0, 1, 0] = 1  # own (X) marks: actions 0 and 1
    observation[1, 0, 1] = observation[1, 1, 1] = 1  # opponent (O): actions 3 and 4
    assert solver.lookup(interop.board_from_pettingzoo(observation)).board == "XO./XO./..."
    assert interop.pettingzoo_best_actions(observation) == [2] == [interop.pettingzoo_action((2, 0))]
    assert interop.pettingzoo_best_actions({"observation": observation, "action_mask": np.ones(9)}) == [2]


def test_hand_made_observation_reads_the_same_for_either_observer() -> None:
    # X played action 1 (row 1, col 0), O played action 3 (row 0, col 1); X to move.
    as_x = np.zeros((3, 3, 2), dtype=np.int8)
    as_x[0, 1, 0] = 1  # observation[i, j] is action 3 * i + j
    as_x[1, 0, 1] = 1
    as_o = as_x[:, :, ::-1]
    expected = solver.encode(".O./X../...")
    assert interop.board_from_pettingzoo(as_x) == expected
    assert interop.board_from_pettingzoo(as_x, agent="player_1") == expected
    assert interop.board_from_pettingzoo(as_o, agent="player_2") == expected
    assert interop.board_from_pettingzoo(as_o.tolist(), agent="player_2") == expected  # nested lists work too
    # without agent=, equal counts are read as X to move (env.last() observes for the agent to move)
    assert interop.board_from_pettingzoo(as_o) == solver.encode(".X./O../...")


def test_equal_counts_with_a_line_on_plane_0_read_as_o_having_just_won() -> None:
    # After O wins, env.last() reports to player_1 and then to player_2, the last mover.
    won = solver.encode("XXO/.O./OX.")
    assert interop.board_from_pettingzoo(interop.pettingzoo_observation(won, agent="player_1")) == won
    assert interop.board_from_pettingzoo(interop.pettingzoo_observation(won, agent="player_2")) == won


def test_every_reachable_board_round_trips_through_pettingzoos_observe() -> None:
    for code in _reachable_codes():
        squares = _documented_squares(code)
        to_move = "player_1" if squares.count(0) % 2 == 1 else "player_2"
        for agent in ("player_1", "player_2"):
            observed = _pettingzoo_observe(squares, agent)
            board = solver.encoding.board.render(solver.Game(), code)
            assert np.array_equal(interop.pettingzoo_observation(code, agent=agent), observed), board
            assert interop.board_from_pettingzoo(observed, agent=agent) == code, board
            if agent == to_move:
                assert np.array_equal(interop.pettingzoo_observation(code), observed), board
            if agent == to_move or solver.lookup(code).winner == "O":  # every observation env.last() gives
                assert interop.board_from_pettingzoo(observed) == code, board


def test_best_actions_are_empty_when_the_game_is_over() -> None:
    assert interop.openspiel_best_actions("xxx\noo.\n...") == []
    assert interop.openspiel_returns("xxx\noo.\n...") == [1.0, -1.0]
    assert interop.openspiel_returns("ooo\nxx.\n..x") == [-1.0, 1.0]
    assert interop.pettingzoo_best_actions(interop.pettingzoo_observation("XXX/OO./...")) == []


def test_importing_the_adapters_loads_neither_openspiel_nor_pettingzoo() -> None:
    code = (
        "import sys, solver; light = 'solver.interop' not in sys.modules; import solver.interop;"
        "print(light, sorted(m for m in ('pyspiel', 'open_spiel', 'pettingzoo', 'pygame', 'gymnasium') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True []"


# -- without the extra: errors say what was found and what was expected ------------------


def _observation(**cells: int) -> np.ndarray:
    array = np.zeros((3, 3, 2), dtype=np.int8)
    for name, value in cells.items():  # o_i_j_p=value
        i, j, p = (int(c) for c in name[1:])
        array[i, j, p] = value
    return array


class _FakeState:
    """Duck-typed like a pyspiel state of another game."""

    def legal_actions(self) -> list[int]:
        return []

    def is_terminal(self) -> bool:
        return True

    def get_game(self) -> Any:
        kind = type("T", (), {"short_name": "connect_four"})()
        return type("G", (), {"get_type": lambda self: kind})()


@pytest.mark.parametrize(
    ("observation", "agent", "message"),
    [
        (np.zeros((3, 3)), None, "observation has shape (3, 3), expected (3, 3, 2)"),
        (np.zeros((2, 3, 3)), None, "observation has shape (2, 3, 3), expected (3, 3, 2)"),
        (_observation(o120=2), None, "observation[1, 2, 0] is 2: expected 0 or 1 (plane 0 holds the observing agent's marks)"),
        (_observation(o001=-1), None, "observation[0, 0, 1] is -1: expected 0 or 1 (plane 1 holds the opponent's marks)"),
        (_observation(o210=1, o211=1), None, "observation[2, 1] has both planes set (PettingZoo action 7, row 1, col 2)"),
        (_observation(o000=1, o010=1), None, "impossible mark counts: 2 on plane 0 (the observing agent) and 0 on plane 1"),
        (_observation(o000=1), "player_2", "impossible mark counts for player_2: 1 on plane 0 (player_2) and 0 on plane 1, so 0 X and 1 O"),
        (_observation(), "X", "unknown agent 'X': expected 'player_1' (X) or 'player_2' (O)"),
        (np.full((3, 3, 2), "x"), None, "observation has dtype <U1: expected numbers 0 and 1"),
        ({"obs": np.zeros((3, 3, 2))}, None, "a dict with keys ['obs']: expected PettingZoo's observation dict"),
        (({"observation": np.zeros((3, 3, 2))}, 0, False, False, {}), None, "found the whole env.last() tuple"),
        # X has column 0 (actions 0, 1, 2) and O column 1 (3, 4, 5): both have a line
        (_observation(o000=1, o010=1, o020=1, o101=1, o111=1, o121=1), None, "is not a reachable position: both players have a line"),
    ],
)
def test_bad_observations_are_refused_naming_what_was_found(observation: Any, agent: Any, message: str) -> None:
    with pytest.raises(InvalidBoardError) as error:
        interop.board_from_pettingzoo(observation, agent=agent)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ("x.q\n...\n...", "unknown symbol 'q' at row 0, col 2"),
        ("x...\n....\n....", "is 3x4, expected 3x3"),
        ("xx.\n...\n...", "impossible piece counts: 2 X and 0 O"),
        (42, "cannot read an OpenSpiel board from int: expected a pyspiel tic_tac_toe state or its str()"),
        (_FakeState(), "an OpenSpiel 'connect_four' state: expected a 'tic_tac_toe' state"),
    ],
)
def test_bad_openspiel_boards_are_refused_naming_what_was_found(state: Any, message: str) -> None:
    with pytest.raises(InvalidBoardError) as error:
        interop.board_from_openspiel(state)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: interop.openspiel_move(9), "OpenSpiel action 9 is not a tic-tac-toe action: expected an int 0 to 8"),
        (lambda: interop.pettingzoo_move(True), "PettingZoo action True is not a tic-tac-toe action"),
        (lambda: interop.pettingzoo_action((3, 0)), "(3, 0) is off the board: expected a cell 0-8 or row,col with row 0-2 and col 0-2"),
        (lambda: interop.openspiel_action(-1), "cell -1 is off the board: expected a cell 0-8"),
        (lambda: interop.openspiel_action("a1"), "cannot read move 'a1': expected a cell 0-8"),
        (lambda: interop.pettingzoo_observation("XX./.../..."), "impossible piece counts: 2 X and 0 O"),
    ],
)
def test_bad_squares_and_action_ids_are_refused(call: Any, message: str) -> None:
    with pytest.raises(InvalidBoardError) as error:
        call()
    assert message in str(error.value)


# -- with the [interop] extra --------------------------------------------------------------


def _import(name: str) -> ModuleType:
    with warnings.catch_warnings():  # pettingzoo.classic.tictactoe_v3 warns that make() is preferred
        warnings.simplefilter("ignore", DeprecationWarning)
        if REQUIRE:
            import importlib

            return importlib.import_module(name)
        return pytest.importorskip(name, reason=f"needs the [interop] extra ({name})")


@pytest.fixture(scope="module")
def pyspiel() -> ModuleType:
    return _import("pyspiel")


@pytest.fixture(scope="module")
def tictactoe_v3() -> ModuleType:
    return _import("pettingzoo.classic.tictactoe_v3")


@pytest.fixture(scope="module")
def openspiel_states(pyspiel: ModuleType) -> dict[str, Any]:
    """Every state of OpenSpiel's tic_tac_toe, one per distinct board (``str``)."""
    states: dict[str, Any] = {}

    def walk(state: Any) -> None:
        key = str(state)
        if key not in states:
            states[key] = state
            for action in state.legal_actions():
                walk(state.child(action))

    walk(pyspiel.load_game("tic_tac_toe").new_initial_state())
    return states


def _openspiel_minimax(states: dict[str, Any]) -> dict[str, float]:
    """Player 0's return under perfect play of every state, by OpenSpiel's own state API only."""
    values: dict[str, float] = {}

    def value(state: Any) -> float:
        key = str(state)
        if key not in values:
            if state.is_terminal():
                values[key] = state.returns()[0]
            else:
                children = [value(state.child(action)) for action in state.legal_actions()]
                values[key] = max(children) if state.current_player() == 0 else min(children)
        return values[key]

    for state in states.values():
        value(state)
    return values


@pytest.mark.interop
def test_every_openspiel_state_matches_openspiel_minimax(openspiel_states: dict[str, Any]) -> None:
    assert len(openspiel_states) == OPENSPIEL_STATES
    finished = [tuple(state.returns()) for state in openspiel_states.values() if state.is_terminal()]
    assert (len(finished), finished.count((1.0, -1.0)), finished.count((-1.0, 1.0)), finished.count((0.0, 0.0))) == (
        TERMINAL_3X3["positions"],
        TERMINAL_3X3["x_wins"],
        TERMINAL_3X3["o_wins"],
        TERMINAL_3X3["draws"],
    )
    values = _openspiel_minimax(openspiel_states)
    failures = []
    for key, state in openspiel_states.items():
        position = interop.openspiel_position(state)
        mover = state.current_player()
        empty = [cell for cell, piece in enumerate(position.cells) if piece is None]
        checks = {
            "board from str": interop.board_from_openspiel(key) == position.code,
            "returns": interop.openspiel_returns(state) == [values[key], -values[key]],
            "terminal": position.is_over == state.is_terminal(),
            "legal actions": state.is_terminal() or state.legal_actions() == empty,
            "to move": position.to_move == {0: "X", 1: "O"}.get(mover),
        }
        if not state.is_terminal():
            optimal = {a for a in state.legal_actions() if values[str(state.child(a))] == values[key]}
            best = interop.openspiel_best_actions(state)
            checks["best actions keep the minimax value"] = bool(best) and set(best) <= optimal
            checks["every move's value"] = all(move.value == values[str(state.child(move.cell))] for move in position.moves)
        failures += [f"{name} differs on\n{key}" for name, ok in checks.items() if not ok]
    assert not failures, f"{len(failures)} failures, first: {failures[:3]}"


@pytest.mark.interop
def test_openspiel_alpha_beta_search_agrees_on_every_state(pyspiel: ModuleType, openspiel_states: dict[str, Any]) -> None:
    minimax = _import("open_spiel.python.algorithms.minimax")
    game = pyspiel.load_game("tic_tac_toe")
    wrong = []
    for key, state in openspiel_states.items():
        if state.is_terminal():
            continue
        value, action = minimax.alpha_beta_search(game, state, maximizing_player_id=0)
        position = interop.openspiel_position(state)
        if value != position.value or position.move(action).value != position.value:
            wrong.append(f"{key}\nalpha-beta: value {value} action {action}; table: value {position.value}")
    assert not wrong, f"{len(wrong)} states differ, first:\n{wrong[0]}"


@pytest.mark.interop
def test_openspiel_minimax_solver_action_values_match_every_move(openspiel_states: dict[str, Any]) -> None:
    minimax_solver = pytest.importorskip(  # not in open_spiel 1.5; skipped even under REQUIRE
        "open_spiel.python.algorithms.minimax_solver", reason="OpenSpiel 1.5 has no MinimaxSolver"
    )
    table = minimax_solver.MinimaxSolver("tic_tac_toe").solve()  # str(state) -> action values for the mover
    assert len(table) == OPENSPIEL_STATES - TERMINAL_3X3["positions"]
    wrong = []
    for key, entry in table.items():
        position = interop.openspiel_position(key)
        sign = 1 if position.to_move == "X" else -1
        mine = {move.cell: float(sign * move.value) for move in position.moves}
        theirs = {a: float(v) for a, v in enumerate(entry.action_values) if a in mine}
        if mine != theirs or set(interop.openspiel_best_actions(key)) - {a for a, v in theirs.items() if v == entry.value}:
            wrong.append(f"{key}\ntable {mine}\nOpenSpiel {theirs}")
    assert not wrong, f"{len(wrong)} states differ, first:\n{wrong[0]}"


def _pettingzoo_game(tictactoe_v3: ModuleType, choose: dict[str, Any], rng: np.random.Generator, *, mirror: Any = None) -> dict[str, float]:
    """Play one game; ``choose[agent](observation, rng)`` picks each move. Returns the final rewards.

    Every step checks the board read from the observation against PettingZoo's own squares
    (in its documented layout) and against ``observe()`` for both agents; ``mirror`` (an
    OpenSpiel state) replays the game and must show the same board and returns.
    """
    env = tictactoe_v3.env()
    env.reset(seed=int(rng.integers(1 << 31)))
    rewards: dict[str, float] = {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        assert not truncation, "an illegal move ended the game"
        code = interop.board_from_pettingzoo(observation)
        squares = env.unwrapped.board.squares
        drawn = solver.encode([{0: None, 1: "X", 2: "O"}[s] for s in _documented_squares_inverse(squares)])
        assert code == drawn, f"read {solver.lookup(code).board}, PettingZoo's squares {squares} draw {solver.lookup(drawn).board}"
        for who in ("player_1", "player_2"):
            assert np.array_equal(interop.pettingzoo_observation(code, agent=who), env.observe(who)["observation"])
        if mirror is not None:
            assert interop.board_from_openspiel(mirror) == code, f"{mirror}\nvs {solver.lookup(code).board}"
        if termination:
            rewards[agent] = reward
            env.step(None)
            continue
        action = choose[agent](observation, rng)
        assert observation["action_mask"][action] == 1, f"action {action} is not legal on {solver.lookup(code).board}"
        env.step(action)
        if mirror is not None:
            mirror.apply_action(interop.openspiel_action(interop.pettingzoo_move(action)))
    env.close()
    if mirror is not None:
        assert mirror.is_terminal() and mirror.returns() == [rewards["player_1"], rewards["player_2"]]
    return rewards


def _documented_squares_inverse(squares: list[int]) -> list[int]:
    """Our row-major cells from PettingZoo's squares: cell ``3 * row + col`` is square ``row + 3 * col``."""
    return [squares[row + 3 * col] for row in range(3) for col in range(3)]


def _table(observation: Any, rng: np.random.Generator) -> int:
    return int(rng.choice(interop.pettingzoo_best_actions(observation)))


def _random(observation: Any, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(observation["action_mask"])))


@pytest.mark.interop
def test_pettingzoo_step_puts_each_action_where_pettingzoo_move_says(tictactoe_v3: ModuleType) -> None:
    for action in range(9):
        env = tictactoe_v3.env()
        env.reset(seed=0)
        env.step(action)  # player_1 (X)
        observation = env.last()[0]  # player_2 observes
        position = solver.lookup(interop.board_from_pettingzoo(observation))
        row, col = interop.pettingzoo_move(action)
        assert position.cells[3 * row + col] == "X" and position.pieces == 1, (action, position.board)
        assert observation["observation"][action // 3, action % 3, 1] == 1  # the array is [col, row]
        assert interop.pettingzoo_best_actions(observation) == sorted(interop.pettingzoo_action(cell) for cell in position.best_cells)
        env.close()


@pytest.mark.interop
def test_pettingzoo_and_openspiel_boards_agree_move_by_move(pyspiel: ModuleType, tictactoe_v3: ModuleType) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    rng = np.random.default_rng(2024)
    for _ in range(100):
        _pettingzoo_game(tictactoe_v3, {"player_1": _random, "player_2": _random}, rng, mirror=game.new_initial_state())


@pytest.mark.interop
def test_table_against_itself_in_pettingzoo_always_draws(tictactoe_v3: ModuleType) -> None:
    rng = np.random.default_rng(1)
    results = [_pettingzoo_game(tictactoe_v3, {"player_1": _table, "player_2": _table}, rng) for _ in range(50)]
    assert all(rewards == {"player_1": 0, "player_2": 0} for rewards in results), results


@pytest.mark.interop
def test_table_never_loses_to_a_random_player_in_pettingzoo(tictactoe_v3: ModuleType) -> None:
    rng = np.random.default_rng(7)
    outcomes = {"win": 0, "draw": 0, "loss": 0}
    for game in range(200):
        table_agent = "player_1" if game % 2 == 0 else "player_2"
        other = "player_2" if table_agent == "player_1" else "player_1"
        rewards = _pettingzoo_game(tictactoe_v3, {table_agent: _table, other: _random}, rng)
        outcomes[{1: "win", 0: "draw", -1: "loss"}[int(rewards[table_agent])]] += 1
    assert outcomes["loss"] == 0, outcomes
    assert outcomes["win"] > outcomes["draw"], outcomes  # a random player blunders most games


# -- the manual's examples (docs/interop.md) -----------------------------------------------

PAGE = Path(__file__).resolve().parent.parent / "docs" / "interop.md"
_EXAMPLE = re.compile(r"```python\n((?:(?!```).)*)```\s*```text\n((?:(?!```).)*)```", re.S)


@pytest.mark.interop
def test_interop_page_examples_print_what_the_page_shows(pyspiel: ModuleType, tictactoe_v3: ModuleType) -> None:
    """Each ```python block of docs/interop.md that uses the adapters, run in order in one namespace,
    prints exactly the ```text block after it. (No ``>>>`` prompts: test_docs.py doctests every
    page without the extra.)"""
    text = PAGE.read_text(encoding="utf-8") if PAGE.is_file() else ""
    examples = [(code, output) for code, output in _EXAMPLE.findall(text) if "interop" in code]
    if not examples:
        pytest.skip("docs/interop.md has no interop examples")
    namespace: dict[str, Any] = {"__name__": "__readme__"}
    for code, expected in examples:
        printed = io.StringIO()
        with warnings.catch_warnings(), contextlib.redirect_stdout(printed):
            warnings.simplefilter("ignore", DeprecationWarning)
            exec(compile(code, str(PAGE), "exec"), namespace)
        assert printed.getvalue() == expected, f"docs/interop.md example:\n{code}"
