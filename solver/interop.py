"""Adapters for OpenSpiel's ``tic_tac_toe`` and ``connect_four`` and PettingZoo's ``tictactoe_v3`` and ``connect_four_v3``:
their boards in, their action ids out (Connect Four: the section at the end).

Nothing here imports OpenSpiel or PettingZoo: a state is read through its ``str()``
and an observation as an array, so this module works (and is tested) without them.
Install the ``interop`` extra (``pip install '.[interop]'`` in the checkout) to run the
cross-checks against the real packages.

**Cells and action ids.** Our boards have row 0 at the top and cell
``row * 3 + col`` (:mod:`solver.encoding.board`). The two libraries number the same
squares differently:

=========================  =======================  =====================  ==================
library                    action id of (row, col)  layout of the ids      first player
=========================  =======================  =====================  ==================
OpenSpiel ``tic_tac_toe``  ``3 * row + col``        ``0 1 2/3 4 5/6 7 8``  player 0, ``x``
PettingZoo ``tictactoe``   ``row + 3 * col``        ``0 3 6/1 4 7/2 5 8``  ``player_1``, X
=========================  =======================  =====================  ==================

So an OpenSpiel action id *is* our cell index, and a PettingZoo id is its
transpose. The PettingZoo layout is the one its documentation, its
``board.py`` and its ``render()`` picture use.

**PettingZoo's observation is transposed.** ``observe()`` reshapes the nine
squares row by row, so ``observation[i, j]`` holds square (action id) ``3 * i + j``,
which PettingZoo draws at row ``j``, column ``i``: the array is indexed
``[col, row]``. :func:`board_from_pettingzoo` transposes it back, so the board
you get reads like PettingZoo's picture and :func:`pettingzoo_best_actions`
returns ids that ``env.step`` plays where the table means. (The rules are the
same under transposition, so reading the array untransposed would also play
correctly, but its boards would be PettingZoo's picture flipped about the diagonal.)

Plane 0 holds the observing agent's marks and plane 1 its opponent's, so who
is X depends on who observes. By default the counts decide: the observer is
``player_1`` (X) when plane 0 holds one more mark, ``player_2`` (O) when plane 1
does, and with equal counts ``player_1`` about to move, which is what
``env.last()`` shows during play, unless plane 0 already has three in a row
(then ``player_2`` has just won: the report ``env.last()`` gives it after the
game). Every observation of the usual ``agent_iter()`` loop is read right this
way. Pass ``agent=`` for any other, such as ``env.observe("player_2")`` while
``player_1`` is to move, which equal counts would otherwise misread.

>>> board_from_openspiel("x.o\\n.x.\\n..o")            # str(state) of a pyspiel state
13222
>>> openspiel_best_actions("x.o\\n.x.\\n..o"), openspiel_returns("x.o\\n.x.\\n..o")
([5], [0.0, 0.0])
>>> pettingzoo_action((1, 2)), pettingzoo_move(7), openspiel_action((1, 2))
(7, (1, 2), 5)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import numpy as np

from .api import CONNECT_FOUR as CONNECT_FOUR_GAME
from .api import DEFAULT_GAME, Board, Outcome, Position, check_rules, parse, parse_game, parse_move
from .api import digits as board_digits
from .errors import InvalidBoardError, quote

__all__ = [
    "CONNECT_FOUR",
    "board_from_openspiel",
    "board_from_openspiel_connect_four",
    "board_from_pettingzoo_connect_four",
    "openspiel_connect_four_best_actions",
    "openspiel_connect_four_position",
    "pettingzoo_connect_four_best_actions",
    "pettingzoo_connect_four_position",
    "board_from_pettingzoo",
    "openspiel_action",
    "openspiel_best_actions",
    "openspiel_move",
    "openspiel_position",
    "openspiel_returns",
    "pettingzoo_action",
    "pettingzoo_best_actions",
    "pettingzoo_move",
    "pettingzoo_observation",
    "pettingzoo_position",
]

Agent = Literal["player_1", "player_2"]
"""PettingZoo's agent names: ``player_1`` plays X and moves first, ``player_2`` plays O."""

Square = int | tuple[int, int]
"""A square as our cell index ``row * 3 + col`` (= OpenSpiel's action id) or as ``(row, col)``;
any move :func:`solver.encoding.moves.parse_move` reads (``[row, col]``, ``"1,2"``) is accepted too."""

_MARK: dict[str, int] = {"player_1": 1, "player_2": 2}
_PLANE = ("the observing agent's marks", "the opponent's marks")
_POWERS = 3 ** np.arange(9, dtype=np.int64)
_BITS = 1 << np.arange(9, dtype=np.int64)


def _lookup(code: int) -> Position:
    from .api import lookup

    return lookup(code)


# -- squares and action ids -------------------------------------------------------


def _row_col(move: Square) -> tuple[int, int]:
    """``(row, col)`` of a cell index or a ``(row, col)`` pair, checked to be on the board (:mod:`solver.encoding.moves`)."""
    return DEFAULT_GAME.coords(parse_move(move, DEFAULT_GAME))


def _action_id(action: int, library: str) -> int:
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) or not 0 <= action <= 8:
        raise InvalidBoardError(f"{library} action {action!r} is not a tic-tac-toe action: expected an int 0 to 8")
    return int(action)


def openspiel_action(move: Square) -> int:
    """OpenSpiel's action id of a square: ``3 * row + col`` (the same as our cell index).

    >>> openspiel_action((2, 0)), openspiel_action(6)
    (6, 6)

    :raises InvalidBoardError: for a square off the board.
    """
    row, col = _row_col(move)
    return 3 * row + col


def openspiel_move(action: int) -> tuple[int, int]:
    """The ``(row, col)`` of an OpenSpiel action id (OpenSpiel prints ``x(row,col)``).

    >>> openspiel_move(5)
    (1, 2)
    """
    return divmod(_action_id(action, "OpenSpiel"), 3)


def pettingzoo_action(move: Square) -> int:
    """PettingZoo's action id of a square: ``row + 3 * col`` (its column-major layout).

    >>> pettingzoo_action((2, 0)), pettingzoo_action(6)      # row 2, col 0 either way
    (2, 2)

    :raises InvalidBoardError: for a square off the board.
    """
    row, col = _row_col(move)
    return row + 3 * col


def pettingzoo_move(action: int) -> tuple[int, int]:
    """The ``(row, col)`` where PettingZoo draws action ``action``: ``(action % 3, action // 3)``.

    >>> [pettingzoo_move(a) for a in (0, 1, 3)]
    [(0, 0), (1, 0), (0, 1)]
    """
    col, row = divmod(_action_id(action, "PettingZoo"), 3)
    return row, col


# -- OpenSpiel --------------------------------------------------------------------


def _openspiel_text(state: Any) -> str:
    if isinstance(state, str):
        return state
    if not (callable(getattr(state, "legal_actions", None)) and callable(getattr(state, "is_terminal", None))):
        raise InvalidBoardError(
            f"cannot read an OpenSpiel board from {type(state).__name__}: expected a pyspiel tic_tac_toe state or its str(), e.g. 'x.o\\n...\\n...'"
        )
    try:
        name = state.get_game().get_type().short_name
    except AttributeError:
        name = "tic_tac_toe"
    if name != "tic_tac_toe":
        raise InvalidBoardError(f"an OpenSpiel {name!r} state: expected a 'tic_tac_toe' state")
    return str(state)


def board_from_openspiel(state: Any) -> int:
    """The code of an OpenSpiel ``tic_tac_toe`` board, for :func:`solver.lookup`.

    :param state: a ``pyspiel`` state of ``tic_tac_toe``, or its ``str()``: three
        lines of ``.``, ``x`` (player 0, moves first) and ``o`` (player 1), such as
        ``"x.o\\n...\\n..."``. Any board string :func:`solver.lookup` reads is accepted too.
    :raises InvalidBoardError: for another game, a malformed board, or a board no
        legal game reaches (the message says why).

    >>> import solver
    >>> solver.lookup(board_from_openspiel("xx.\\noo.\\n...")).board
    'XX./OO./...'
    """
    game, code = parse(_openspiel_text(state), DEFAULT_GAME)
    check_rules(game, code)
    return code


def openspiel_position(state: Any) -> Position:
    """The solved :class:`~solver.Position` of an OpenSpiel state or its ``str()``."""
    return _lookup(board_from_openspiel(state))


def openspiel_best_actions(state: Any) -> list[int]:
    """OpenSpiel action ids of every best move, ascending; ``[]`` when the game is over.

    Best means perfect play that wins in the fewest plies, or loses in the most
    (:mod:`solver.rules.score`): a subset of the moves that keep OpenSpiel's minimax value.

    >>> openspiel_best_actions("xx.\\noo.\\n...")        # x to move wins at row 0, col 2
    [2]
    """
    return list(openspiel_position(state).best_cells)


def openspiel_returns(state: Any) -> list[float]:
    """What ``state.returns()`` will be at the end under perfect play: ``[player 0, player 1]``.

    ``[1.0, -1.0]`` x (player 0) wins, ``[0.0, 0.0]`` draw, ``[-1.0, 1.0]`` o wins.
    On a terminal state this equals ``state.returns()``.

    >>> openspiel_returns("xx.\\noo.\\n..."), openspiel_returns("...\\n...\\n...")
    ([1.0, -1.0], [0.0, 0.0])
    """
    value = openspiel_position(state).value
    return [float(value), float(-value)]


# -- PettingZoo -------------------------------------------------------------------


def _planes(observation: Any) -> np.ndarray:
    """The ``(3, 3, 2)`` 0/1 array of an observation, checked."""
    if isinstance(observation, Mapping):
        if "observation" not in observation:
            raise InvalidBoardError(
                f"a dict with keys {sorted(map(str, observation))}: expected PettingZoo's observation dict "
                "(with 'observation' and 'action_mask', from env.last() or env.observe(agent))"
            )
        observation = observation["observation"]
    elif isinstance(observation, tuple) and len(observation) == 5 and isinstance(observation[0], Mapping):
        raise InvalidBoardError("found the whole env.last() tuple: pass its first item, the observation dict")
    try:
        array = np.asarray(observation)
    except ValueError as error:
        raise InvalidBoardError(f"cannot read an observation array ({error}): expected shape (3, 3, 2)") from None
    if array.dtype.kind not in "biuf":
        raise InvalidBoardError(f"observation has dtype {array.dtype}: expected numbers 0 and 1, shape (3, 3, 2)")
    if array.shape != (3, 3, 2):
        raise InvalidBoardError(
            f"observation has shape {array.shape}, expected (3, 3, 2): PettingZoo tictactoe_v3's "
            "[col, row, plane] array (plane 0 the observing agent's marks, plane 1 the opponent's)"
        )
    bad = np.argwhere((array != 0) & (array != 1))
    if bad.size:
        i, j, p = (int(v) for v in bad[0])
        raise InvalidBoardError(f"observation[{i}, {j}, {p}] is {array[i, j, p].item()!r}: expected 0 or 1 (plane {p} holds {_PLANE[p]})")
    planes = array.astype(np.int8)
    both = np.argwhere(planes[:, :, 0] & planes[:, :, 1])
    if both.size:
        i, j = (int(v) for v in both[0])
        raise InvalidBoardError(f"observation[{i}, {j}] has both planes set (PettingZoo action {3 * i + j}, row {j}, col {i}): a square holds one mark at most")
    return planes


def _o_has_won(*, x_mask: int, o_mask: int) -> bool:
    """Whether the rule says O has won tic-tac-toe on the board with these cells (a bit each)."""
    rules = DEFAULT_GAME.rules
    return rules.outcome_of_word(rules.join(x_mask, o_mask)) is Outcome.O_WON


def _observer_mark(own_mask: int, other_mask: int, agent: str | None) -> int:
    """1 if the observing agent plays X, 2 if O (see the module docstring)."""
    own, other = own_mask.bit_count(), other_mask.bit_count()
    if agent is not None:
        if agent not in _MARK:
            raise InvalidBoardError(f"unknown agent {agent!r}: expected 'player_1' (X) or 'player_2' (O)")
        mark = _MARK[agent]
        x, o = (own, other) if mark == 1 else (other, own)
        if x not in (o, o + 1):
            raise InvalidBoardError(
                f"impossible mark counts for {agent}: {own} on plane 0 ({agent}) and {other} on plane 1, "
                f"so {x} X and {o} O (X, player_1, moves first: X has as many marks as O or one more)"
            )
        return mark
    if own == other + 1:
        return 1  # X has just moved
    if other == own + 1:
        return 2  # O has just moved
    if own == other:
        return 2 if _o_has_won(x_mask=other_mask, o_mask=own_mask) else 1  # O (observing) has just won, else X to move
    raise InvalidBoardError(
        f"impossible mark counts: {own} on plane 0 (the observing agent) and {other} on plane 1 (the opponent): "
        "expected equal counts or one more on either plane (player_1, X, moves first)"
    )


def board_from_pettingzoo(observation: Any, *, agent: Agent | None = None) -> int:
    """The code of a PettingZoo ``tictactoe_v3`` board, for :func:`solver.lookup`.

    The board reads like PettingZoo's picture: the square of action ``a`` is at
    row ``a % 3``, column ``a // 3`` (the observation array itself is indexed
    ``[col, row]``; see the module docstring). X is ``player_1``.

    :param observation: the dict from ``env.last()`` / ``env.observe(agent)``, or
        its ``"observation"`` array of shape ``(3, 3, 2)``.
    :param agent: the observing agent. By default the counts decide, reading every
        observation of the ``agent_iter()`` loop right (see the module docstring);
        name it for ``env.observe(agent)`` of the agent *not* to move.
    :raises InvalidBoardError: for a wrong shape, values other than 0 and 1, a square
        set on both planes, impossible mark counts, or a board no legal game reaches.

    >>> import numpy as np, solver
    >>> obs = np.zeros((3, 3, 2), dtype=np.int8)
    >>> obs[0, 1, 1] = 1      # the opponent (X) played action 1: row 1, col 0
    >>> solver.lookup(board_from_pettingzoo(obs)).board
    '.../X../...'
    """
    planes = _planes(observation)
    own, other = planes[:, :, 0].T.reshape(-1), planes[:, :, 1].T.reshape(-1)  # [col, row] -> row-major cells
    mark = _observer_mark(int(own @ _BITS), int(other @ _BITS), agent)
    x, o = (own, other) if mark == 1 else (other, own)
    code = int((x + 2 * o).astype(np.int64) @ _POWERS)
    check_rules(DEFAULT_GAME, code)
    return code


def pettingzoo_position(observation: Any, *, agent: Agent | None = None) -> Position:
    """The solved :class:`~solver.Position` of a PettingZoo observation (see :func:`board_from_pettingzoo`)."""
    return _lookup(board_from_pettingzoo(observation, agent=agent))


def pettingzoo_best_actions(observation: Any, *, agent: Agent | None = None) -> list[int]:
    """PettingZoo action ids of every best move for the side to move, ascending; ``[]`` when the game is over.

    Pass the dict from ``env.last()`` and ``env.step`` one of these ids.

    >>> import numpy as np
    >>> obs = np.zeros((3, 3, 2), dtype=np.int8)
    >>> obs[0, 0, 0] = obs[0, 1, 0] = 1     # X, to move, holds actions 0 and 1 (column 0)
    >>> obs[1, 0, 1] = obs[1, 1, 1] = 1     # O holds actions 3 and 4
    >>> pettingzoo_best_actions(obs)        # win at action 2: row 2, col 0
    [2]
    """
    return sorted(pettingzoo_action(cell) for cell in pettingzoo_position(observation, agent=agent).best_cells)


def pettingzoo_observation(board: Board, *, agent: Agent | None = None) -> np.ndarray:
    """PettingZoo's ``(3, 3, 2)`` int8 observation of a board, as ``env.observe(agent)["observation"]``.

    The inverse of :func:`board_from_pettingzoo`.

    :param board: a tic-tac-toe board in any form :func:`solver.lookup` accepts.
    :param agent: the observing agent; by default the one to move (``player_1`` on
        an even number of marks).
    :raises InvalidBoardError: for an invalid board or an unknown agent.

    >>> pettingzoo_observation("X../.../...")[:, :, 1].tolist()    # player_2 to move sees X at action 0
    [[1, 0, 0], [0, 0, 0], [0, 0, 0]]
    """
    game, code = parse(board, DEFAULT_GAME)
    check_rules(game, code)
    digits = np.array(board_digits(game, code), dtype=np.int8).reshape(3, 3)
    if agent is None:
        mark = 1 if np.count_nonzero(digits) % 2 == 0 else 2
    elif agent in _MARK:
        mark = _MARK[agent]
    else:
        raise InvalidBoardError(f"unknown agent {agent!r}: expected 'player_1' (X) or 'player_2' (O)")
    observation = np.empty((3, 3, 2), dtype=np.int8)
    observation[:, :, 0] = (digits == mark).T  # [row, col] -> [col, row]
    observation[:, :, 1] = (digits == 3 - mark).T
    return observation


# -- Connect Four -------------------------------------------------------------------
# OpenSpiel's ``connect_four`` and PettingZoo's ``connect_four_v3`` number the board as we do: row 0 at the
# top, an action id is a column (0 to 6); Connect Four is answered by search (:mod:`solver.store.searched`),
# so each function takes the ``budget`` of :func:`solver.lookup` (seconds; None: no limit).

CONNECT_FOUR = CONNECT_FOUR_GAME.name
"""Our name of Connect Four (``"connect4"`` is an alias)."""

ConnectFourAgent = Literal["player_0", "player_1"]
"""PettingZoo's ``connect_four_v3`` agents: ``player_0`` moves first (X here), ``player_1`` plays O."""


def board_from_openspiel_connect_four(state: Any) -> int:
    """The code of an OpenSpiel ``connect_four`` board: a ``pyspiel`` state or its ``str()``, six lines of seven
    ``.``, ``x`` (player 0, moves first) and ``o``, the top row first.

    >>> from solver.encoding.board import render
    >>> render(parse_game(CONNECT_FOUR), board_from_openspiel_connect_four(".......\\n" * 4 + "...o...\\n..oxx..\\n")).split("/")[-1]
    '..OXX..'

    :raises InvalidBoardError: for another game, a malformed board, or one no legal game reaches.
    """
    if not isinstance(state, str):
        name = _openspiel_name(state)
        if name != "connect_four":
            raise InvalidBoardError(f"an OpenSpiel {name!r} state: expected a 'connect_four' state")
    text = state if isinstance(state, str) else str(state)
    game, code = parse(text.strip(), parse_game(CONNECT_FOUR))
    check_rules(game, code)
    return code


def _openspiel_name(state: Any) -> str:
    try:
        return str(state.get_game().get_type().short_name)
    except AttributeError:
        raise InvalidBoardError(f"cannot read an OpenSpiel board from {type(state).__name__}: expected a pyspiel connect_four state or its str()") from None


def openspiel_connect_four_position(state: Any, *, budget: float | None = None) -> Position:
    """The solved :class:`~solver.Position` of an OpenSpiel ``connect_four`` state or its ``str()``, searched."""
    from .api import lookup

    return lookup(board_from_openspiel_connect_four(state), game=CONNECT_FOUR, budget=budget)


def openspiel_connect_four_best_actions(state: Any, *, budget: float | None = None) -> list[int]:
    """OpenSpiel action ids (columns) of every best move, ascending; ``[]`` when the game is over."""
    return list(openspiel_connect_four_position(state, budget=budget).best_columns)


def board_from_pettingzoo_connect_four(observation: Any, *, agent: ConnectFourAgent | None = None) -> int:
    """The code of a PettingZoo ``connect_four_v3`` observation (the dict of ``env.last()``, or its ``(6, 7, 2)`` array).

    Plane 0 holds the observing agent's pieces, plane 1 its opponent's, row 0 the top. Who is X (``player_0``) is
    told by ``agent``, else by the counts: the observer is X when the planes hold as many pieces (X is to move)
    or plane 0 one more, O when plane 1 holds one more.

    :raises InvalidBoardError: for a malformed observation, an ``agent`` that is not ``"player_0"`` or ``"player_1"``,
        or a board no legal game reaches.
    """
    planes = observation.get("observation") if isinstance(observation, Mapping) else observation
    try:
        array = np.asarray(planes)
    except (TypeError, ValueError):
        array = np.zeros(0)
    if array.shape != (6, 7, 2) or not np.isin(array, (0, 1)).all() or (array.sum(axis=2) > 1).any():
        raise InvalidBoardError(f"a connect_four_v3 observation is a (6, 7, 2) array of 0 and 1, one piece a cell; found shape {array.shape}")
    if agent is not None and (type(agent) is not str or agent not in ("player_0", "player_1")):  # any other value once meant player_1: the colours swapped
        raise InvalidBoardError(f"unknown agent {quote(agent)}: connect_four_v3's agents are 'player_0' (X, moves first) and 'player_1' (O)")
    own, other = array[:, :, 0].reshape(-1), array[:, :, 1].reshape(-1)
    observer_is_x = agent == "player_0" if agent is not None else int(own.sum()) >= int(other.sum())
    x, o = (own, other) if observer_is_x else (other, own)
    game = parse_game(CONNECT_FOUR)
    code = int(sum(3**cell for cell in range(game.cells) if x[cell]) + sum(2 * 3**cell for cell in range(game.cells) if o[cell]))
    check_rules(game, code)
    return code


def pettingzoo_connect_four_position(observation: Any, *, agent: ConnectFourAgent | None = None, budget: float | None = None) -> Position:
    """The solved :class:`~solver.Position` of a PettingZoo ``connect_four_v3`` observation, searched."""
    from .api import lookup

    return lookup(board_from_pettingzoo_connect_four(observation, agent=agent), game=CONNECT_FOUR, budget=budget)


def pettingzoo_connect_four_best_actions(observation: Any, *, agent: ConnectFourAgent | None = None, budget: float | None = None) -> list[int]:
    """``connect_four_v3`` actions (columns) of every best move, ascending, each allowed by the ``action_mask``."""
    return list(pettingzoo_connect_four_position(observation, agent=agent, budget=budget).best_columns)
