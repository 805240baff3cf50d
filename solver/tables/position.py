"""What a look-up returns: a :class:`Position` and the :class:`Move` outcomes in it.

Conventions (all distances in **plies**, single moves by one player):

* ``value`` is for **X**: 1 X wins, 0 draw, -1 O wins, under perfect play
  (the minimax utility of the usual tic-tac-toe notebooks).
* ``result`` is for the **side to move**: ``'win'``, ``'draw'`` or ``'loss'``.
  On a finished board nobody moves; ``result`` is then for the player who
  would have been next, so a won game reads ``'loss'`` and ``winner`` names the winner.
* ``plies`` is the number of plies to the end under perfect play, where the
  winner wins as fast as possible and the loser holds out as long as possible
  (0 on a finished board; for a draw, the number of empty cells).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any, Literal, NamedTuple, Protocol

from ..encoding import board as _board
from ..encoding.coderules import code_rules
from ..encoding.drops import landing_cell, read_drop
from ..encoding.moves import MoveSpec, parse_move
from ..errors import InvalidBoardError, InvalidMoveError
from ..rules.base import LINE, Outcome
from ..rules.game import Game
from ..rules.score import Result as Result  # re-exported: results are named where scores are decoded
from ..rules.score import decode, outcome_label
from ..words import count, signed


class LookupTable(Protocol):
    """What a position asks of the table it was looked up in (:class:`solver.tables.Table` is one): a protocol,
    so that this module does not import the tables, which make positions."""

    def at(self, code: int) -> Position: ...
    def score_of(self, code: int) -> int: ...
    def best_mask_of(self, code: int) -> int: ...
    def best_move(self, board: _board.Board, *, game: Game | str | None = None) -> tuple[int, int] | int: ...
    def best_mask_at(self, position: Position) -> int: ...
    def best_move_at(self, position: Position) -> tuple[int, int] | int: ...
    def move_scores(self, position: Position) -> tuple[tuple[int, int], ...]: ...


__all__ = ["Move", "Player", "Position", "Result", "outcome_label", "outcome_words", "result_phrase"]

Player = Literal["X", "O"]

_WINNERS: dict[Outcome, Player] = {Outcome.X_WON: "X", Outcome.O_WON: "O"}
"""The winner of each outcome that has one."""


def outcome_words(result: str, plies: int) -> str:
    """The outcome in words: ``win in 1 ply``, ``loss in 4 plies``, ``draw, 9 plies to the end``."""
    if result == "draw":
        return f"draw, {count(plies, 'ply')} to the end"
    return f"{result} in {count(plies, 'ply')}"


def result_phrase(position: Position) -> str:
    """Who is to move and their result, in words (a position's ``repr`` without the board):
    ``'O to move: loss in 4 plies (value for X: +1)'``, ``'game over: X won'``, ``'game over: a draw'``."""
    if position.is_over:
        return f"game over: {position.game.rules.over_words(position.line_completer)}"
    return f"{position.to_move} to move: {outcome_words(position.result, position.plies)} (value for X: {signed(position.value)})"


@dataclass(frozen=True, repr=False)
class Move:
    """The outcome of one legal move, for the player making it.

    ======== ==================================================================
    cell     flat index ``row * cols + col`` (OpenSpiel's action id on 3x3)
    row/col  where the piece goes
    score    the move's score for the mover (:mod:`solver.rules.score`)
    value    the game's value for X after the move (1, 0, -1)
    result   ``'win'``, ``'draw'`` or ``'loss'`` for the mover
    plies    plies from the current position to the end, this move included
    best     whether the move reaches the position's best score
    ======== ==================================================================
    """

    cell: int
    row: int
    col: int
    score: int
    value: int
    result: Result
    plies: int
    best: bool

    @property
    def label(self) -> str:
        """A short label: ``W3`` (win in 3 plies), ``D`` (draw), ``L6`` (loss in 6)."""
        return outcome_label(self.result, self.plies)

    def __repr__(self) -> str:
        """Where, and what it leads to for the mover: ``<Move (2, 2): loss in 4 plies, best>``."""
        outcome = "draw" if self.result == "draw" else outcome_words(self.result, self.plies)
        return f"<Move ({self.row}, {self.col}): {outcome}{', best' if self.best else ''}>"


class MoveList(tuple[Move, ...]):
    """The legal moves of a position (:attr:`Position.moves`): a tuple of :class:`Move`
    in cell order, whose ``repr`` groups the moves by outcome, best first.

    >>> import solver
    >>> solver.lookup("XO./.X./...").moves
    <MoveList for O: loss in 4 plies (best) at (2, 2); loss in 2 plies at (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)>
    >>> solver.lookup("XO./.X./...").moves[0]
    <Move (0, 2): loss in 2 plies>
    >>> solver.lookup("XXX/OO./...").moves
    <MoveList: none, the game is over>
    """

    player: Player | None
    """Who makes these moves (``None`` when the game is over)."""
    columns: bool
    """Whether a move is written as its column (:attr:`solver.rules.parts.MoveRule.writes_columns`: under gravity),
    so that the ``repr`` names columns."""

    def __new__(cls, moves: Iterable[Move] = (), player: Player | None = None, *, columns: bool = False) -> MoveList:
        self = super().__new__(cls, moves)
        self.player = player
        self.columns = columns
        return self

    def __repr__(self) -> str:
        if not self:
            return "<MoveList: none, the game is over>"
        groups: dict[int, list[Move]] = {}
        for move in sorted(self, key=lambda move: -move.score):
            groups.setdefault(move.score, []).append(move)
        parts = []
        for moves in groups.values():
            first = moves[0]
            outcome = "draw" if first.result == "draw" else outcome_words(first.result, first.plies)
            if self.columns:
                cells = f"column{'s' if len(moves) > 1 else ''} {', '.join(str(col) for col in sorted(move.col for move in moves))}"
            else:
                cells = ", ".join(f"({move.row}, {move.col})" for move in moves)
            parts.append(f"{outcome}{' (best)' if first.best else ''} at {cells}")
        return f"<MoveList for {self.player}: {'; '.join(parts)}>"


@dataclass(frozen=True, slots=True, repr=False)
class Position:
    """A solved position: one look-up in a table. Immutable.

    :param game: the game the board belongs to.
    :param code: the board's base-3 code (:mod:`solver.encoding.board`).
    :param score: the score for the side to move (:mod:`solver.rules.score`).
    :param best_mask: bit ``cell`` set for every best move; 0 when the game is over.
        A table may leave it unset: it is then asked for it (``table.best_mask_of(code)``)
        the first time it is read, and the answer is kept (compact tables find best
        moves from the children, :mod:`solver.tables.compact`).
    :param pieces: pieces on the board: the number of plies played.
    :param scored: ``(cell, score for the mover)`` of every legal move, in cell order: one read of the
        children, made when :attr:`moves`, :meth:`to_dict` or (on a compact table) :attr:`best_mask` first
        needs it, and kept (``table.move_scores(position)``). None, or unset, until then.

    Its ``repr`` is the board and the result in one line; ``str`` draws the board:

    >>> import solver
    >>> p = solver.lookup("XX./OO./...")
    >>> p
    <Position 3x3k3 XX./OO./... X to move: win in 1 ply (value for X: +1)>
    >>> p.to_move, p.result, p.plies, p.value, p.best_moves
    ('X', 'win', 1, 1, ((0, 2),))
    >>> print(p)
    X X .
    O O .
    . . .
    >>> solver.lookup(0), solver.lookup("XXX/OO./...")
    (<Position 3x3k3 .../.../... X to move: draw, 9 plies to the end (value for X: 0)>, <Position 3x3k3 XXX/OO./... game over: X won>)
    """

    game: Game
    code: int
    score: int
    best_mask: int
    pieces: int
    table: LookupTable = field(repr=False, compare=False)
    scored: tuple[tuple[int, int], ...] | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        return f"<Position {self.game.name} {self.board} {result_phrase(self)}>"

    def __str__(self) -> str:
        return "\n".join(_board.draw(self.game, self.code))

    # -- the board -------------------------------------------------------
    @property
    def cells(self) -> tuple[Player | None, ...]:
        """Each cell's piece (``'X'``, ``'O'`` or None), in cell order."""
        return tuple((None, "X", "O")[d] for d in _board.digits(self.game, self.code))

    @property
    def board(self) -> str:
        """The board as ``"X.O/.X./..O"``."""
        return _board.render(self.game, self.code)

    # -- the game state ----------------------------------------------------
    @property
    def outcome(self) -> Outcome:
        """What the rule says of the board (:class:`solver.rules.base.Outcome`: in play, X won, O won, drawn), from
        the look-up's score and pieces, no child read (:meth:`solver.rules.base.Rules.outcome_of_score`)."""
        return self.game.rules.outcome_of_score(self.score, self.pieces)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (a line, or a full board), as the rule says of the look-up's score and
        pieces (:attr:`outcome`): no child read."""
        return self.game.rules.outcome_of_score(self.score, self.pieces) is not Outcome.IN_PLAY

    @property
    def to_move(self) -> Player | None:
        """``'X'`` or ``'O'``; None when the game is over."""
        return None if self.is_over else self._next

    @property
    def _next(self) -> Player:
        return "X" if self.pieces % 2 == 0 else "O"

    @property
    def winner(self) -> Player | None:
        """Who has won already (None while playing and for a drawn full board), as the rule says (:attr:`outcome`)."""
        return _WINNERS.get(self.game.rules.outcome_of_score(self.score, self.pieces))

    @property
    def line_completer(self) -> Player | None:
        """Who completed a line and so ended the game (the last mover; None while playing and for a full board without a line)."""
        if not self.is_over or code_rules(self.game).status_of(self.code) != LINE:
            return None
        return "O" if self._next == "X" else "X"

    # -- the solution ------------------------------------------------------
    @property
    def result(self) -> Result:
        """``'win'``, ``'draw'`` or ``'loss'`` for the side to move, under perfect play."""
        return decode(self.score, 0)[0]  # the result alone: a draw's length is not needed

    @property
    def value(self) -> int:
        """The game's value for X under perfect play: 1, 0 or -1."""
        sign = (self.score > 0) - (self.score < 0)
        return sign if self._next == "X" else -sign

    @property
    def plies(self) -> int:
        """Plies to the end under perfect play (0 when over)."""
        return decode(self.score, self.game.cells - self.pieces)[1]

    @property
    def best_cells(self) -> tuple[int, ...]:
        """The best moves as flat cell indices, in cell order."""
        return tuple(cell for cell in range(self.game.cells) if self.best_mask >> cell & 1)

    @property
    def best_moves(self) -> tuple[tuple[int, int], ...]:
        """The best moves as ``(row, col)``, in cell order; empty when over (under gravity: the cells the pieces land on)."""
        return tuple(self.game.coords(cell) for cell in self.best_cells)

    @property
    def best_columns(self) -> tuple[int, ...]:
        """The columns of the best moves, ascending, each once; empty when over. Under gravity these are the
        best moves themselves (a move is a column):

        >>> import solver
        >>> solver.lookup("..../..../..../X...", game="4x4k4-gravity").best_columns
        (0, 1, 2, 3)
        """
        return tuple(sorted({cell % self.game.cols for cell in self.best_cells}))

    @property
    def best_move(self) -> tuple[int, int] | int:
        """One best move, from this look-up (no second one): ``(row, col)``, the first best move in cell order;
        under gravity a move is a column: the lowest-numbered best column, an ``int``.

        >>> import solver
        >>> solver.lookup("XX./OO./...").best_move
        (0, 2)

        :raises InvalidBoardError: when the game is over.
        """
        if self.is_over:
            raise InvalidBoardError(f"the game is over on {self.board}: there is no move to make")
        return self.table.best_move_at(self)

    @property
    def move_scores(self) -> tuple[tuple[int, int], ...]:
        """``(cell, score for the mover)`` of every legal move, in cell order (empty when over): the children
        read once (:meth:`solver.tables.Table.move_scores`) and kept for :attr:`moves` and :meth:`to_dict`."""
        scored = self.scored
        if scored is None:
            scored = self.table.move_scores(self)
            POSITION_SETTERS.scored(self, scored)
        return scored

    @property
    def playable(self) -> int:
        """The cells the side to move may play, a bit each (0 when over): every empty cell, or under
        gravity the lowest empty cell of each column that has room (:meth:`solver.rules.base.Rules.moves`)."""
        if self.is_over:
            return 0
        x, o = _board.masks(self.game, self.code)
        return self.game.rules.moves(x, o)

    @property
    def moves(self) -> MoveList:
        """The outcome of every legal move, in cell order; empty when over (under gravity one a column that has room)."""
        if self.is_over:
            return MoveList()
        empty = self.game.cells - self.pieces
        sign = 1 if self._next == "X" else -1
        out = []
        for cell, score in self.move_scores:
            result, plies = decode(score, empty)
            out.append(
                Move(
                    cell=cell,
                    row=cell // self.game.cols,
                    col=cell % self.game.cols,
                    score=score,
                    value=sign * ((score > 0) - (score < 0)),
                    result=result,
                    plies=plies,
                    best=bool(self.best_mask >> cell & 1),
                )
            )
        return MoveList(out, self._next, columns=self.game.rules.move.writes_columns)

    def cell_of(self, move: MoveSpec, *, where: str = "") -> int:
        """The cell a move takes here, checked to be legal: any form of :mod:`solver.encoding.moves` (a flat
        cell, ``(row, col)``, text), or under gravity a column or the ``(row, col)`` of the cell a piece
        dropped there lands on (:mod:`solver.encoding.drops`).

        >>> import solver
        >>> p = solver.lookup("..../..../..../X...", game="4x4k4-gravity")
        >>> p.cell_of(0), p.cell_of("3,1"), p.game.coords(p.cell_of(0))
        (8, 13, (2, 0))
        >>> p.cell_of((3, 0))
        Traceback (most recent call last):
        ...
        solver.errors.InvalidMoveError: (3,0) is taken on ..../..../..../X...: a piece dropped in column 0 lands on (2,0)

        :param where: put before every message, e.g. ``"ply 3: "``.
        :raises InvalidBoardError: if the move cannot be read or is off the board.
        :raises InvalidMoveError: if it is not legal here: the cell is taken, the game is over, or
            under gravity the column is full or the cell is not where the piece would land.
        """
        return legal_cell(self.game, self.code, move, over=self.is_over, board=self.board, where=where)

    def move(self, cell: MoveSpec) -> Move:
        """The outcome of a move: a flat index, ``(row, col)`` or text (:mod:`solver.encoding.moves`); under
        gravity a column, or the ``(row, col)`` of the cell the piece lands on (:meth:`cell_of`).

        :raises InvalidBoardError: if the move cannot be read or is off the board.
        :raises InvalidMoveError: if it is not legal here (:meth:`cell_of`).
        """
        found = self.cell_of(cell)
        return next(move for move in self.moves if move.cell == found)

    def play(self, cell: MoveSpec) -> Position:
        """The position after the side to move plays ``cell``: a flat index, ``(row, col)``
        or text such as ``"1,1"`` (:mod:`solver.encoding.moves`); under gravity a column, or the
        ``(row, col)`` of the cell the piece lands on (:meth:`cell_of`).

        >>> import solver
        >>> solver.lookup(0).play(4).board
        '.../.X./...'
        >>> solver.lookup(0, game="4x4k4-gravity").play(2).play(2).board
        '..../..../..O./..X.'

        :raises InvalidBoardError: if the move cannot be read or is off the board.
        :raises InvalidMoveError: if it is not legal here: a taken cell, the game over, or under gravity
            a full column or a cell that is not where the piece would land.
        """
        found = self.cell_of(cell)
        piece = 1 if self._next == "X" else 2
        return self.table.at(self.code + piece * 3**found)

    def to_dict(self, *, best_first: bool = False) -> dict[str, Any]:
        """Everything about the position as JSON-ready data: what ``solve lookup --json``
        prints and what the HTTP API (``solve serve``) answers, from this one function.

        While the game goes on: ``"over": false`` and ``to_move``. A finished board says so
        instead: ``"over": true`` and ``winner`` (``"X"``, ``"O"``, or None for a draw), with no
        ``to_move``. ``result`` is :attr:`result` on every board: for the side to move, and on a
        finished board for the player who would have been next (the module docstring), so a won
        game reads ``"loss"``. ``code`` is the board's code as a number and ``code_str`` the same in decimal
        digits, for JSON readers whose numbers are doubles (JavaScript's ``JSON.parse`` rounds a code past
        2**53, which a Connect Four board's can be). ``value`` is always for X; each move's
        ``result`` is for the player making it (the mover). Under gravity a move is a column:
        ``best_columns`` (after ``best_cells``, gravity games only) lists the best columns, and
        ``moves`` holds one entry a column that has room, its ``row`` and ``col`` the cell the piece
        lands on (what the HTTP API answers too, :mod:`solver.web.batch`).

        :param best_first: order ``moves`` best first, as the lichess tablebase does:
            wins fastest first, then draws, then losses slowest first, ties in cell
            order (the HTTP API). By default ``moves`` are in cell order (the CLI).

        >>> import solver
        >>> d = solver.lookup("XO./.X./...").to_dict(best_first=True)
        >>> d["over"], d["result"], d["plies"], d["best_cells"], [(m["cell"], m["result"], m["plies"]) for m in d["moves"][:2]]
        (False, 'loss', 4, [8], [(8, 'loss', 4), (2, 'loss', 2)])
        >>> d = solver.lookup("XXX/OO./...").to_dict()
        >>> d["over"], d["winner"], "to_move" in d, d["result"]
        (True, 'X', False, 'loss')
        """
        head: dict[str, Any] = {"game": self.game.name, "code": self.code, "code_str": str(self.code), "board": self.board}
        if self.is_over:
            head.update(over=True, winner=self.winner)
        else:
            head.update(over=False, to_move=self.to_move)
        head["value"] = self.value
        head["result"] = self.result
        return {
            **head,
            "plies": self.plies,
            "score": self.score,
            "best_moves": [list(m) for m in self.best_moves],
            "best_cells": list(self.best_cells),
            **({"best_columns": list(self.best_columns)} if self.game.rules.move.writes_columns else {}),
            "moves": self._move_dicts(best_first),
        }

    def _move_dicts(self, best_first: bool) -> list[dict[str, Any]]:
        """``moves`` of :meth:`to_dict`: the fields of :attr:`moves`, without building
        :class:`Move` objects (this is the HTTP API's hot path)."""
        if self.is_over:
            return []
        cols, best_mask = self.game.cols, self.best_mask
        empty = self.game.cells - self.pieces
        sign = 1 if self._next == "X" else -1
        scored = [(score, cell) for cell, score in self.move_scores]  # only where a piece lands, under gravity
        if best_first:
            scored.sort(key=lambda item: (-item[0], item[1]))
        out = []
        for score, cell in scored:
            result, plies = decode(score, empty)
            value = sign * ((score > 0) - (score < 0))
            out.append(
                {"cell": cell, "row": cell // cols, "col": cell % cols, "value": value, "result": result, "plies": plies, "best": bool(best_mask >> cell & 1)}
            )
        return out

    # -- notebooks -------------------------------------------------------------
    def _repr_svg_(self) -> str | None:
        """The board as SVG for Jupyter, drawn by the picture registered for it (:mod:`solver.present.notebook`)."""
        return draw_picture("position svg", self)

    def _repr_html_(self) -> str | None:
        """The board and a line in words as HTML for Jupyter, drawn by :mod:`solver.present.notebook`."""
        return draw_picture("position html", self)


PICTURES: dict[str, Callable[[Any], str]] = {}
"""How notebooks draw the tables' results, by kind (``"position svg"``, ``"position html"``, ``"analysis html"``, ``"stats html"``),
and how ``str()`` writes a game analysis (``"analysis text"``).

The presentation layer fills it when the package is imported (:mod:`solver.present.notebook`), so the
``_repr_*_`` methods that Jupyter calls draw with it while this layer imports nothing above it.
"""


def draw_picture(kind: str, subject: object) -> str | None:
    """The picture of ``subject`` drawn by the function registered for ``kind`` (None when none is: Jupyter then shows the repr)."""
    draw = PICTURES.get(kind)
    return None if draw is None else draw(subject)


class Setters(NamedTuple):
    """The slots' own setters: a table fills a new Position with these, skipping the frozen
    ``__init__`` (the look-up hot path), and may leave ``best_mask`` and ``scored`` unset."""

    game: Any
    code: Any
    score: Any
    best_mask: Any
    pieces: Any
    table: Any
    scored: Any


POSITION_SETTERS = Setters(*(getattr(Position, name).__set__ for name in Setters._fields))


def _from_the_table(position: Position, name: str) -> Any:
    """``Position.__getattr__``: reached only for a slot never set, a best mask or the moves' scores a
    table left for later; the table is asked (:meth:`solver.tables.Table.best_mask_at`,
    :meth:`solver.tables.Table.move_scores`) and the answer kept.

    Set on the class below rather than defined in it: a ``__getattr__`` in the class body
    would tell mypy that every attribute exists. A set slot is read as fast as any slot.
    """
    if name == "best_mask":
        mask = position.table.best_mask_at(position)
        POSITION_SETTERS.best_mask(position, mask)
        return mask
    if name == "scored":
        scored = position.table.move_scores(position)
        POSITION_SETTERS.scored(position, scored)
        return scored
    raise AttributeError(f"'Position' object has no attribute {name!r}")


setattr(Position, "__getattr__", _from_the_table)  # noqa: B010 - see the function's docstring


def _refuse(self: Position, name: str, *value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to {name!r}: a Position is immutable")


# dataclass(frozen=True, slots=True) raises TypeError instead of FrozenInstanceError for
# names that are not fields (a CPython quirk); refuse every assignment the same way.
Position.__setattr__ = _refuse  # type: ignore[method-assign,assignment]
Position.__delattr__ = _refuse  # type: ignore[method-assign,assignment]


def legal_cell(game: Game, code: int, move: object, *, over: bool, board: str, where: str = "") -> int:
    """The cell ``move`` takes on the board ``code`` of ``game`` (shown as ``board`` in messages; ``over``: the game has
    ended there), checked to be legal: :meth:`Position.cell_of`, and the analysis's replayed boards, read moves so.

    :raises InvalidBoardError: if the move cannot be read or is off the board.
    :raises InvalidMoveError: if it is not legal here.
    """
    if game.rules.move.writes_columns:
        drop = read_drop(move, game, where=where)
        if over:
            shown = f"column {drop.col}" if drop.cell is None else f"({drop.cell // game.cols},{drop.col})"
            raise InvalidMoveError(f"{where}cannot play {shown} on {board}: the game is over")
        x, o = _board.masks(game, code)
        return landing_cell(drop, game, x | o, where=where, on=f" on {board}")
    cell = parse_move(move, game, where=where)
    reason = code_rules(game).illegal_move(code, cell)
    if reason is not None:
        row, col = game.coords(cell)
        raise InvalidMoveError(f"{where}cannot play row {row}, col {col} on {board}: {reason}")
    return cell
