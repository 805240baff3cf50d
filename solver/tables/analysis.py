"""Analysing a game: every ply's move judged against the table.

:func:`analyze` replays a game from the empty board and, for every ply, says
who moved, what the best moves were, the result for the mover before and after
the move, and a :data:`Verdict`:

===========  ===================================================================
verdict      meaning (for the player who moved)
===========  ===================================================================
``best``     the move has the position's best score: one of ``best_cells``
``ok``       keeps the result but wins slower or loses faster than the best
``mistake``  gives away half a point: win -> draw, or draw -> loss
``blunder``  turns a win into a loss
===========  ===================================================================

Results are for the **mover** (``'win'``, ``'draw'``, ``'loss'``); ``value``
is for **X** (1, 0, -1). All distances are in **plies**. A ply's
``plies_before`` and ``plies_after`` are both counted from the position
*before* the move, the move included (like :attr:`Move.plies`), so a best move
has ``plies_after == plies_before`` and a slower win a larger ``plies_after``.

>>> import solver
>>> game = solver.analyze([4, 1, 0])      # X centre, O edge, X corner
>>> [(p.player, p.cell, p.verdict) for p in game.plies]
[('X', 4, 'best'), ('O', 1, 'mistake'), ('X', 0, 'best')]
>>> game.plies[1].result_before, game.plies[1].result_after
('draw', 'loss')
>>> game.summary("O")
PlayerSummary(player='O', moves=1, best=0, ok=0, mistakes=1, blunders=0)
>>> game
<GameAnalysis 3x3k3 [4, 1, 0] X: 2 best; O: 1 mistake; now XO./.X./... O to move: loss in 4 plies (value for X: +1)>
>>> game.plies[1]
<PlyAnalysis ply 2: O plays (0, 1): mistake, draw -> loss in 6 plies>

**A game answered by search** (Connect Four) is replayed first by the rules alone (every move checked, nothing
searched), then judged from its last ply back to its first, the late plies' searches being the short ones: a ply
whose position is not answered (past the budget: :class:`~solver.errors.SearchTimeout`) is not judged, and the
analysis goes on with the others. :attr:`GameAnalysis.unjudged` names those plies and :attr:`GameAnalysis.why_unjudged`
says why; :attr:`GameAnalysis.plies` holds the judged ones. A table judges every ply.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, NoReturn

from ..encoding.board import masks, render
from ..encoding.coderules import code_rules
from ..encoding.drops import Drop, landing_cell, read_drop
from ..encoding.moves import MoveSpec, is_move_string, parse_move, read_move_string
from ..errors import InvalidBoardError, InvalidMoveError, SearchTimeout, quote
from ..rules.base import Outcome
from ..rules.game import Game
from ..words import count
from .base import Table
from .position import Move, Player, Position, Result, draw_picture, legal_cell, outcome_words, result_phrase

Verdict = Literal["best", "ok", "mistake", "blunder"]
"""How good a move was for its player (see the module docstring)."""


_RANK = {"loss": 0, "draw": 1, "win": 2}


def verdict(position: Position, move: Move) -> Verdict:
    """Judge ``move`` (one of ``position.moves``) for the player making it.

    >>> import solver
    >>> p = solver.lookup("XX./OO./...")          # X wins at once with (0, 2)
    >>> [verdict(p, p.move(cell)) for cell in (2, 5, 6)]
    ['best', 'mistake', 'blunder']
    """
    if move.best:
        return "best"
    drop = _RANK[position.result] - _RANK[move.result]
    if drop <= 0:
        return "ok"
    return "blunder" if drop == 2 else "mistake"


@dataclass(frozen=True, repr=False)
class PlyAnalysis:
    """One ply of an analysed game.

    :param ply: the ply's number, 1 for X's first move.
    :param player: who moved.
    :param move: the move played, as seen from :attr:`before` (score, result and
        plies for the mover).
    :param before: the position the move was made in.
    :param after: the position the move led to.
    :param verdict: ``best``, ``ok``, ``mistake`` or ``blunder`` (module docstring).
    """

    ply: int
    player: Player
    move: Move
    before: Position
    after: Position
    verdict: Verdict

    def __repr__(self) -> str:
        before = "draw" if self.result_before == "draw" else outcome_words(self.result_before, self.plies_before)
        after = "draw" if self.result_after == "draw" else outcome_words(self.result_after, self.plies_after)
        change = before if before == after else f"{before} -> {after}"
        where = self.before.game.rules.move.move_words(self.move.cell, "({row}, {col})")
        return f"<PlyAnalysis ply {self.ply}: {self.player} plays {where}: {self.verdict}, {change}>"

    @property
    def cell(self) -> int:
        """The move as a flat cell index."""
        return self.move.cell

    @property
    def best_cells(self) -> tuple[int, ...]:
        """The best moves there, as flat cell indices."""
        return self.before.best_cells

    @property
    def best_moves(self) -> tuple[tuple[int, int], ...]:
        """The best moves there, as ``(row, col)`` pairs (as :attr:`solver.tables.position.Position.best_moves`)."""
        return self.before.best_moves

    @property
    def result_before(self) -> Result:
        """The mover's result before the move, under perfect play."""
        return self.before.result

    @property
    def plies_before(self) -> int:
        """Plies to the end before the move, under perfect play."""
        return self.before.plies

    @property
    def result_after(self) -> Result:
        """The mover's result after the move, under perfect play from there."""
        return self.move.result

    @property
    def plies_after(self) -> int:
        """Plies to the end counted from before the move, the move included."""
        return self.move.plies

    def to_dict(self) -> dict[str, Any]:
        """The ply as JSON-ready data: the move as a flat cell (``move``) and its ``row`` and ``col``; the best
        moves as ``[row, col]`` pairs (``best_moves``) and flat cells (``best_cells``), as a position's are.

        Under gravity, where a move is a column, also the best columns (``best_columns``, after ``best_cells``,
        as a position's); the column played is ``col``."""
        columns = {"best_columns": list(self.before.best_columns)} if self.before.game.rules.move.writes_columns else {}
        return {
            "ply": self.ply,
            "player": self.player,
            "move": self.cell,
            "row": self.move.row,
            "col": self.move.col,
            "board_before": self.before.board,
            "board_after": self.after.board,
            "best_moves": [list(move) for move in self.best_moves],
            "best_cells": list(self.best_cells),
            **columns,
            "result_before": self.result_before,
            "plies_before": self.plies_before,
            "result_after": self.result_after,
            "plies_after": self.plies_after,
            "value_before": self.before.value,
            "value_after": self.move.value,
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class Replayed:
    """A board reached by replaying moves, as the rules see it, not searched: what :func:`analyze` checks each move
    on before any search, and what ``solve play`` asks the human's move on (a search answers the computer's)."""

    game: Game
    code: int
    pieces: int

    @property
    def outcome(self) -> Outcome:
        """What the rule says of the board (in play, X won, O won, drawn)."""
        return code_rules(self.game).outcome(self.code)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (a line, or a full board)."""
        return self.outcome is not Outcome.IN_PLAY

    @property
    def winner(self) -> Player | None:
        """Who has won (None while playing and for a drawn board)."""
        return {Outcome.X_WON: "X", Outcome.O_WON: "O"}.get(self.outcome)  # type: ignore[return-value]

    @property
    def to_move(self) -> Player:
        """Who plays next: ``'X'`` on an even number of pieces."""
        return "X" if self.pieces % 2 == 0 else "O"

    @property
    def board(self) -> str:
        """The board as ``"X.O/.X./..O"``."""
        return render(self.game, self.code)

    def cell_of(self, move: object, *, where: str = "") -> int:
        """The cell a move takes here, checked to be legal, as :meth:`Position.cell_of` reads it (a column under gravity).

        :raises InvalidBoardError: for a move that cannot be read or is off the board.
        :raises InvalidMoveError: for a move that is not legal here, or when the game is over.
        """
        return legal_cell(self.game, self.code, move, over=self.is_over, board=self.board, where=where)

    def play(self, cell: int) -> Replayed:
        """The board after the side to move plays ``cell`` (a legal move)."""
        return Replayed(self.game, move_code(self, cell), self.pieces + 1)


@dataclass(frozen=True)
class UnjudgedPly:
    """A ply of an analysed game that was not judged: its position was not answered (a search past its budget).

    :param ply: the ply's number, 1 for X's first move.
    :param player: who moved.
    :param cell: the move as a flat cell index.
    :param before: the board the move was made on, replayed by the rules, not searched.
    """

    ply: int
    player: Player
    cell: int
    before: Replayed

    def __repr__(self) -> str:
        row, col = self.before.game.coords(self.cell)
        where = f"column {col}" if self.before.game.rules.move.writes_columns else f"({row}, {col})"
        return f"<UnjudgedPly ply {self.ply}: {self.player} plays {where}: not judged>"

    def to_dict(self) -> dict[str, Any]:
        """The ply as JSON-ready data: ``ply``, ``player``, the move as a flat cell (``move``), its ``row`` and ``col``,
        and ``board_before``."""
        row, col = self.before.game.coords(self.cell)
        return {"ply": self.ply, "player": self.player, "move": self.cell, "row": row, "col": col, "board_before": self.before.board}


@dataclass(frozen=True)
class PlayerSummary:
    """One player's moves in an analysed game, counted by verdict."""

    player: Player
    moves: int
    best: int
    ok: int
    mistakes: int
    blunders: int

    @property
    def words(self) -> str:
        """The non-zero counts in words: ``'2 best, 1 mistake'`` (``'no moves'`` for none)."""
        parts = [f"{self.best} best", f"{self.ok} ok", count(self.mistakes, "mistake"), count(self.blunders, "blunder")]
        return ", ".join(part for part in parts if not part.startswith("0 ")) or "no moves"

    def to_dict(self) -> dict[str, Any]:
        """The counts as JSON-ready data."""
        return {"moves": self.moves, "best": self.best, "ok": self.ok, "mistakes": self.mistakes, "blunders": self.blunders}


@dataclass(frozen=True, repr=False)
class GameAnalysis:
    """A game replayed from the empty board, every ply judged (see :func:`analyze`).

    Its ``repr`` is one line: the moves (flat cells, or :attr:`columns` under gravity), each
    player's verdicts, and the final board with its result (module docstring).
    """

    game: Game
    plies: tuple[PlyAnalysis, ...]
    """The judged plies, in order (every ply, unless :attr:`unjudged` names some)."""
    final: Position
    unjudged: tuple[UnjudgedPly, ...] = ()
    """The plies not judged (a game answered by search, past its budget), in order."""
    why_unjudged: str = ""
    """Why :attr:`unjudged` were not judged (the first search's stop, in the engine's words); empty when every ply was."""

    def __str__(self) -> str:
        """The table of plies ``solve analyze`` prints, the final board and each player's summary (drawn by
        :mod:`solver.present.analysis`, registered when :mod:`solver` is imported; else the ``repr``)."""
        return draw_picture("analysis text", self) or repr(self)

    def __repr__(self) -> str:
        players = "; ".join(f"{player}: {self.summary(player).words}" for player in ("X", "O") if self.summary(player).moves)
        unjudged = f"; {count(len(self.unjudged), 'ply')} not judged" if self.unjudged else ""
        moves = list(self.columns if self.game.rules.move.writes_columns else self.cells)
        played = f"{moves} {players}{unjudged}".replace("] ;", "];") if moves else "no moves"
        return f"<GameAnalysis {self.game.name} {played}; now {self.final.board} {result_phrase(self.final)}>"

    @property
    def cells(self) -> tuple[int, ...]:
        """The moves played, as flat cell indices (judged or not)."""
        return tuple(cell for _, cell in sorted([(ply.ply, ply.cell) for ply in self.plies] + [(ply.ply, ply.cell) for ply in self.unjudged]))

    @property
    def columns(self) -> tuple[int, ...]:
        """The columns of the moves played: under gravity, the moves as :func:`analyze` reads them back.

        >>> import solver
        >>> game = solver.analyze([0, 1, 1], game="4x4k4-gravity")
        >>> game.columns, game.cells
        ((0, 1, 1), (12, 13, 9))
        """
        return tuple(self.game.coords(cell)[1] for cell in self.cells)

    def summary(self, player: Player) -> PlayerSummary:
        """Moves, best moves, ok moves, mistakes and blunders of ``'X'`` or ``'O'``."""
        mine = [ply.verdict for ply in self.plies if ply.player == player]
        return PlayerSummary(
            player=player,
            moves=len(mine),
            best=mine.count("best"),
            ok=mine.count("ok"),
            mistakes=mine.count("mistake"),
            blunders=mine.count("blunder"),
        )

    def to_dict(self) -> dict[str, Any]:
        """The analysis as JSON-ready data (``moves`` as flat cells, ``plies`` (the judged ones), ``unjudged`` (each
        ply not judged: :meth:`UnjudgedPly.to_dict`) and ``why_unjudged`` (empty when every ply was judged),
        ``final``, ``summary``; under gravity also ``columns``, the columns played, after ``moves``).

        ``final`` is the last position in :meth:`Position.to_dict`'s words: ``"over": false``
        with ``to_move`` and ``result``, or ``"over": true`` with ``winner`` and ``result`` (for the player who
        would have been next, as on every finished board: a won game reads ``loss``).

        >>> import solver
        >>> solver.analyze([0, 3, 1, 4, 2]).to_dict()["final"]  # every ply judged: "unjudged" is [] and "why_unjudged" ""
        {'game': '3x3k3', 'code': 229, 'code_str': '229', 'board': 'XXX/OO./...', 'over': True, 'winner': 'X', 'value': 1, 'result': 'loss', 'plies': 0}
        """
        final = self.final
        return {
            "game": self.game.name,
            "moves": list(self.cells),
            **({"columns": list(self.columns)} if self.game.rules.move.writes_columns else {}),
            "plies": [ply.to_dict() for ply in self.plies],
            "unjudged": [ply.to_dict() for ply in self.unjudged],
            "why_unjudged": self.why_unjudged,
            "final": {key: value for key, value in final.to_dict().items() if key in _FINAL_KEYS},
            "summary": {player: self.summary(player).to_dict() for player in ("X", "O")},
        }

    def _repr_html_(self) -> str | None:
        """The plies with their verdicts, the final board and the summary, as HTML for Jupyter (:mod:`solver.present.notebook`)."""
        return draw_picture("analysis html", self)


_FINAL_KEYS = ("game", "code", "code_str", "board", "over", "winner", "to_move", "result", "value", "plies")
"""What ``GameAnalysis.to_dict()["final"]`` keeps of the last position's ``to_dict``."""


def analyze(moves: Iterable[MoveSpec], *, table: Table) -> GameAnalysis:
    """Replay a game from the empty board and judge every ply, on ``table``'s game.

    :func:`solver.analyze` finds the table of a ``game=`` and calls this. Every move is checked by the rules
    first, nothing searched; then the plies are judged from the last back to the first. A game answered by search
    judges the plies its searches answer (within the table's budget, or the deadline of
    :func:`solver.store.searched.searches_by`) and names the others (:attr:`GameAnalysis.unjudged`).

    :param moves: the game so far, one move per ply, in any form of :mod:`solver.encoding.moves`:
        flat cell indices (``[4, 0, 8]``), ``(row, col)`` pairs (``[(1, 1), (0, 0), (2, 2)]``)
        or text (``["1,1", "(0,0)"]``). Under gravity a move is a column (``[3, 3, 2]``), or the
        ``(row, col)`` of the cell the piece lands on (:mod:`solver.encoding.drops`); a whole game may be
        the move string Connect Four players write (``"4453"``: columns from 1), as one text or as an item
        of two or more digits.
    :raises InvalidBoardError: for ``moves`` that is not a sequence (whatever object it is: a
        0-d numpy array, an iterator that fails), or an unreadable or off-board move.
    :raises InvalidMoveError: for an illegal move, naming the ply and the cell: already taken (and by
        which ply), after the game ended, or under gravity a full column or a cell the piece does not land on.
    :raises SearchTimeout: when the final position itself is not answered within the budget (no ply can be judged).
    """
    boards, cells = replay(moves, table.game)
    final = table.at(boards[-1].code)
    answered: dict[int, Position | None] = {boards[-1].code: final}
    why: list[str] = []
    judged: list[PlyAnalysis] = []
    unjudged: list[UnjudgedPly] = []
    for ply in range(len(cells), 0, -1):
        board, cell = boards[ply - 1], cells[ply - 1]
        before, after = _answered(table, board.code, answered, why), _answered(table, boards[ply].code, answered, why)
        if before is None or after is None:
            unjudged.append(UnjudgedPly(ply, board.to_move, cell, board))
            continue
        move = next(move for move in before.moves if move.cell == cell)
        judged.append(PlyAnalysis(ply, board.to_move, move, before, after, verdict(before, move)))
    return GameAnalysis(table.game, tuple(reversed(judged)), final, tuple(reversed(unjudged)), why[0] if why else "")


def replay(moves: Iterable[MoveSpec], game: Game) -> tuple[list[Replayed], list[int]]:
    """The boards a game passes through (the empty board first, the final last) and its moves as flat cells, every
    move checked by the rules (nothing searched): the errors of :func:`analyze`."""
    board = Replayed(game, 0, 0)
    boards, cells, played = [board], [], dict[int, int]()
    for ply, spec in enumerate(_columns_of_move_strings(moves, game), start=1):
        if game.rules.move.writes_columns:
            cell = _drop_cell(board, spec, ply, played)
        else:
            cell = parse_move(spec, game, where=f"ply {ply}: ")
            _check_legal(board, cell, ply, played)
        played[cell] = ply
        cells.append(cell)
        board = board.play(cell)
        boards.append(board)
    return boards, cells


def _answered(table: Table, code: int, answered: dict[int, Position | None], why: list[str]) -> Position | None:
    """``table.at(code)``, once a code: None for a position whose search stopped at its budget (the reason kept in ``why``)."""
    if code not in answered:
        try:
            answered[code] = table.at(code)
        except SearchTimeout as stopped:
            answered[code] = None
            why.append(stopped.what)
    return answered[code]


class _WrittenColumn(NamedTuple):
    """A move of a move string: its column (0-based), and the move string and the move's place in it, so that a
    message about the move numbers columns from 1, as the move string does."""

    col: int
    text: str
    place: int


def _columns_of_move_strings(moves: object, game: Game) -> Iterator[object]:
    """The moves one by one, a move string (:mod:`solver.encoding.drops`) read into its columns (:class:`_WrittenColumn`): the
    whole text under gravity (``"4453"``), or an item of two or more digits (``["4453"]``, ``solve analyze 4453``)."""
    if isinstance(moves, str) and game.rules.move.writes_columns:
        yield from _written_columns(moves, game)
        return
    for spec in _each_move(moves):
        if isinstance(spec, str) and is_move_string(spec, game):
            yield from _written_columns(spec, game)
        else:
            yield spec


def _written_columns(text: str, game: Game) -> Iterator[_WrittenColumn]:
    for place, col in enumerate(read_move_string(text, game), start=1):
        yield _WrittenColumn(col, text, place)


def _not_moves(moves: object, why: str = "") -> InvalidBoardError:
    found = f"{type(moves).__name__} {quote(moves)}{why}"
    return InvalidBoardError(f"moves must be a sequence of moves, one per ply, found {found}: e.g. [4, 0, 8] or [(1, 1), (0, 0), (2, 2)]")


def _each_move(moves: object) -> Iterator[object]:
    """The moves of ``moves`` one by one; :class:`InvalidBoardError` for anything that is not a sequence of them.

    Text and bytes of any kind are refused (``"408"`` is no list of moves); anything else is iterated,
    and an object that cannot be (``np.array(88)``: a 0-d array claims to be iterable and is
    not), or whose iteration fails, is refused with what it is.
    """
    if isinstance(moves, (str, bytes, bytearray, memoryview)):
        raise _not_moves(moves)
    try:
        iterator = iter(moves)  # type: ignore[call-overload]
    except TypeError:
        raise _not_moves(moves) from None
    except Exception as error:  # noqa: BLE001 - any object's __iter__: its failure is the caller's bad input
        raise _not_moves(moves, f" (iterating it failed: {type(error).__name__})") from error
    while True:
        try:
            spec = next(iterator)
        except StopIteration:
            return
        except Exception as error:  # noqa: BLE001 - as above, for each item
            raise _not_moves(moves, f" (iterating it failed: {type(error).__name__})") from error
        yield spec


def move_code(position: Position | Replayed, cell: int) -> int:
    """The code after the side to move plays ``cell`` (a legal move of ``position``)."""
    piece: int = 1 if position.pieces % 2 == 0 else 2
    return position.code + piece * int(3**cell)


def _check_legal(position: Replayed, cell: int, ply: int, played: dict[int, int]) -> None:
    """Raise naming the ply, and who took the cell when, where the rule says the move is not legal."""
    if code_rules(position.game).is_legal(position.code, cell):
        return
    row, col = position.game.coords(cell)
    where = f"row {row}, col {col} (cell {cell})"
    if position.is_over:
        _ended(position, ply, where)
    if cell in played:
        taken = played[cell]
        owner = "X" if taken % 2 else "O"
        raise InvalidMoveError(f"ply {ply}: {position.to_move} cannot play {where}: {owner} took it at ply {taken}")


def _ended(position: Replayed, ply: int, where: str) -> NoReturn:
    ended = f"{position.winner} won" if position.winner else "a draw"
    raise InvalidMoveError(f"ply {ply}: cannot play {where}: the game ended at ply {ply - 1} ({ended}) on {position.board}")


def _drop_cell(position: Replayed, spec: object, ply: int, played: dict[int, int]) -> int:
    """The cell a move under gravity takes (:mod:`solver.encoding.drops`), naming the ply when it is refused
    (and for a taken cell, as :func:`_check_legal` does, who took it)."""
    game, written = position.game, ""
    if isinstance(spec, _WrittenColumn):  # said in the move string's numbering: columns from 1
        written, first, drop = f" (move {spec.place} of the move string {quote(spec.text)})", 1, Drop(spec.col, None)
    else:
        first, drop = 0, read_drop(spec, game, where=f"ply {ply}: ")
    where = f"ply {ply}{written}: "
    if position.is_over:
        _ended(position, ply, f"column {drop.col + first}{written}" if drop.cell is None else f"({drop.cell // game.cols},{drop.col})")
    x, o = masks(game, position.code)
    if drop.cell is not None and drop.cell in played:
        try:
            _check_legal(position, drop.cell, ply, played)
        except InvalidMoveError as taken:
            lands = game.rules.landing(x | o, drop.col)
            room = f"column {drop.col} is full" if lands is None else f"a piece dropped in column {drop.col} lands on ({lands // game.cols},{drop.col})"
            raise InvalidMoveError(f"{taken}; {room}") from None
    return landing_cell(drop, game, x | o, where=where, on=f" on {position.board}", first=first)
