"""A game's rule, composed of a grid, a move rule and a scoring: what every part of the package asks.

A rule is one object per game (:attr:`solver.rules.game.Game.rules`), the one place that
knows how the game is played: its lines, the status of a board, the moves of a position,
the score of a finished board, the symmetries, which boards a legal game reaches, and
the suffix of the game's name. The build kernels, the tables, the grader and the front
ends ask it; none of them finds a line, decides a winner or tests which rule it is.

It is composed of three parts (:mod:`solver.rules.parts`): a **grid**
(:attr:`Rules.grid`, :class:`solver.rules.grid.Grid`: cells, lines, symmetries), a **move rule**
(:attr:`Rules.move`: placement, :mod:`solver.rules.placement`; drop, :mod:`solver.rules.gravity`)
and a **scoring** (:attr:`Rules.scoring`: normal, misère, armageddon). :mod:`solver.rules.catalog`
names the parts and composes them; there is no class per combination.

A **status** is what the rules say of a board before any table is read:

=================  ============================================================================
status             meaning
=================  ============================================================================
:data:`IN_PLAY`    reachable, nobody has completed a line, a move is left: a table stores its score
:data:`LINE`       reachable, and the player who moved last completed a line: the game is over
:data:`DRAWN`      reachable, no line and no move left (the board is full): the game is over
:data:`INVALID`    no legal game reaches it
=================  ============================================================================

Who wins a :data:`LINE` board is the scoring's business (:attr:`Rules.line_wins`): in normal
play the player who completed the line, in misère play the other one; a full board is a draw
but under armageddon, where it is O's win. So the score of a finished board, for the side to
move (:mod:`solver.rules.score`), is the rule's too: :attr:`Rules.status_scores`. The
:class:`Outcome` of a board names the winner directly.

**Words, not codes.** The rules read a board as a **word**: X's and O's cells in one 64-bit
word (X in bits ``0 .. cells - 1``, O from bit 32). They know no base-3 code: a code becomes a
word in the encoding layer (:mod:`solver.encoding.coderules`, whose ``code_rules(game)`` asks
these methods of a code).

**How it is fast.** A line in direction ``d`` (step ``s`` cells) starts
at cell ``c`` when ``word & word >> s & ... & word >> (k - 1) s`` has bit ``c`` set and
``c`` is a start whose line fits on the board: four directions, the run of cells doubled
at each shift (two shifts for ``k = 4``), both players at once. A board with lines is
judged by who has them (one player only), the piece counts (who moved last) and, only
when that player has several, whether the lines share a cell; then the move rule says
whether its pieces may be where they are (:meth:`solver.rules.parts.MoveRule.misplaced`) and
whether the winning move may have been the last (:meth:`solver.rules.parts.MoveRule.last_move_fits`).
The batch methods take many words at once (numpy int64).

A compact table does not store the score of a finished or unreachable board (its bytes
there are "don't care", :mod:`solver.tables.compact`) where the status is exact
(:attr:`Rules.status_is_exact`): the rules give it, agreeing with :meth:`Rules.violation_of_word`
on every board with legal piece counts (tested on every code of several games).

>>> from solver.rules.game import Game
>>> rules = Game().rules
>>> x, o = 0b000000111, 0b000011000             # X on cells 0, 1, 2 (the top row), O on 3 and 4
>>> rules.judge_word(rules.join(x, o)), rules.judge_word(rules.join(x, 0)), rules.judge_word(rules.join(0b1, 0))
((1, 5), (3, 3), (0, 1))
>>> rules.line_score, len(rules.lines), len(rules.symmetries)
(-100, 8, 8)
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from .grid import Grid
from .parts import MoveRule, Scoring, Shape
from .score import UNREACHABLE

IN_PLAY = 0
"""Status: the game goes on; the table stores the score."""
LINE = 1
"""Status: the player who moved last completed a line; the game is over."""
DRAWN = 2
"""Status: the board is full and nobody completed a line; the game is over."""
INVALID = 3
"""Status: no legal game reaches the board."""

O_SHIFT = 32
"""O's cells start at this bit of a board word (boards of up to 32 cells)."""
X_MASK = (1 << O_SHIFT) - 1
_STEP = 1 << 14
WIN_TABLE_CELLS = 20
"""Boards of at most this many cells answer :meth:`Rules.completes_line` from a table over every mask (1 MiB at 20)."""


def mask_type(cells: int) -> type[np.unsignedinteger[Any]]:
    """The numpy type of a cell mask (a bit a cell) on a board of ``cells`` cells: uint32 up to 32, else uint64."""
    return np.uint32 if cells <= 32 else np.uint64


class Outcome(enum.Enum):
    """What the rules say of a board, with the winner named: ``rules.outcome_of_word(word)``
    (of a code: ``solver.encoding.coderules.code_rules(game).outcome(code)``)."""

    IN_PLAY = "in play"
    X_WON = "X won"
    O_WON = "O won"
    DRAWN = "drawn"
    INVALID = "invalid"


OUTCOMES: tuple[Outcome, ...] = tuple(Outcome)
"""Every :class:`Outcome`, in order: :meth:`Rules.outcomes_of_scores` gives a board's place here."""


class Rules:
    """The rule of one game (module docstring): a board, a move rule and a scoring. Get it from the game: ``game.rules``."""

    def __init__(self, game: Shape, grid: Grid, move: MoveRule, scoring: Scoring) -> None:
        if game.cells > O_SHIFT:
            raise ValueError(f"{game.name} has {game.cells} cells: board words hold at most {O_SHIFT}")
        self._compose(game, grid, move, scoring)
        self._directions = tuple((step, starts | starts << O_SHIFT) for step, starts in self._starts)
        """:attr:`_starts` for both players of a board word: bit ``c`` and ``c + 32``."""
        self._runs = tuple((starts, _run_shifts(game.k, step)) for step, starts in self._directions)
        """Per direction: where lines start, and the shifts that leave bit ``c`` set where ``k`` cells from ``c`` are one player's."""

    def _compose(self, game: Shape, grid: Grid, move: MoveRule, scoring: Scoring) -> None:
        """Keep the rule's parts and what they give whatever the board word (:class:`solver.rules.widegravity.WideRules` too)."""
        self.game = game
        self.grid = grid
        """The grid: cells, lines, symmetries (:class:`solver.rules.grid.Grid`)."""
        self.move = move
        """The move rule: where a piece may go (:class:`solver.rules.parts.MoveRule`)."""
        self.scoring = scoring
        """The scoring: what a finished board scores (:class:`solver.rules.parts.Scoring`)."""
        self._starts: tuple[tuple[int, int], ...] = tuple(self.grid.line_starts())
        """``(step, starts)`` per direction: ``starts`` has bit ``c`` for every cell a line starts at."""
        self.full = game.full_mask
        self.mask_type: type[np.unsignedinteger[Any]] = mask_type(game.cells)
        """The numpy type of a cell mask of many boards (moves, best moves): uint32 up to 32 cells, else uint64."""
        self._line_array = np.array(self.line_masks, dtype=np.int64)
        self._places_some = type(move).misplaced_many is not MoveRule.misplaced_many
        """Whether the move rule forbids some places or some last moves (gravity): the status asks it."""

    def __repr__(self) -> str:
        return f"<Rules of {self.game.name}: {self.title}>"

    # -- the rule's constants -----------------------------------------------------
    @property
    def suffix(self) -> str:
        """The suffix of the game's name (``""`` for normal play, ``"misere"``, ``"gravity-misere"``)."""
        return "-".join(part for part in (self.grid.name, self.move.name, self.scoring.name) if part)

    @property
    def title(self) -> str:
        """The rule in a few words, for people: ``"normal play"``, ``"misère"``, ``"gravity, misère"``."""
        return ", ".join(part for part in (self.grid.title, self.move.title, self.scoring.title) if part) or "normal play"

    @property
    def line_wins(self) -> bool:
        """Whether completing a line wins (normal play) or loses (misère): the scoring's."""
        return self.scoring.line_wins

    @property
    def status_is_exact(self) -> bool:
        """Whether :meth:`judge` and :meth:`classify` tell every unreachable board. When False (gravity: the move
        rule needs a forward pass), a board they call in play, finished or drawn may still be one no game reaches;
        the table says so (``UNREACHABLE``), so a table stores a byte for every board they do not call :data:`INVALID`."""
        return not self.move.forward_pass

    def to_dict(self) -> dict[str, str | bool]:
        """The rule as a client reads it (the web page's ``rule`` object): ``suffix``, ``title``, ``line_wins`` (whether
        completing a line wins: false in misère play) and ``drops`` (whether a move is written as its column).

        >>> from solver.rules.game import parse_game
        >>> parse_game("4x4k4-gravity-misere").rules.to_dict()
        {'suffix': 'gravity-misere', 'title': 'gravity, misère', 'line_wins': False, 'drops': True}
        """
        return {"suffix": self.suffix, "title": self.title, "line_wins": self.line_wins, "drops": self.move.writes_columns}

    @property
    def table_marks_unreached(self) -> bool:
        """Whether some boards the status calls in play (or finished) are reached by no game, so that the table, not
        the status, tells them: it stores ``UNREACHABLE`` for them, and a reader that needs reached boards asks it
        (gravity: the order of the moves matters). The opposite of :attr:`status_is_exact`."""
        return not self.status_is_exact

    @property
    def line_score(self) -> int:
        """The score of a :data:`LINE` board for the side to move: ``-WIN`` (already lost) or ``WIN`` (already won)."""
        return self.scoring.line_score

    @property
    def full_score(self) -> int:
        """The score of a :data:`DRAWN` board (full, no line) for the side to move: 0, a draw (armageddon: O's win)."""
        return self.scoring.full_score

    @property
    def status_scores(self) -> tuple[int, int, int, int]:
        """The score each status gives (``status_scores[status]``; in play: 0, the table stores the real one)."""
        return (0, self.line_score, self.full_score, UNREACHABLE)

    @property
    def table_reads(self) -> tuple[bool, bool, bool, bool]:
        """Whether a look-up reads the table's byte for a board of each status (``table_reads[status]``): in play
        only where the status is exact, else every status but :data:`INVALID` (the byte may say ``UNREACHABLE``)."""
        return (True, not self.status_is_exact, not self.status_is_exact, False)

    def line_winner(self, completer: str) -> str:
        """Who wins when ``completer`` (``"X"`` or ``"O"``) completes a line."""
        return completer if self.line_wins else ("O" if completer == "X" else "X")

    def end_words(self, completer: str) -> str:
        """The end of a game won by a line, in words: ``"X has won"``; in misère ``"X completed a line and lost"``."""
        return f"{completer} has won" if self.line_wins else f"{completer} completed a line and lost"

    def possible_scores(self, ply: int) -> frozenset[int]:
        """Every score a position with ``ply`` pieces can hold under this rule (any other is a damaged table)."""
        return self.scoring.possible_scores(ply)

    # -- lines, symmetries, moves --------------------------------------------------------
    @property
    def lines(self) -> tuple[tuple[int, ...], ...]:
        """Every line whose completion ends the game, as cell tuples (the board's)."""
        return self.grid.lines

    @property
    def line_masks(self) -> tuple[int, ...]:
        """:attr:`lines` as bit masks (bit ``cell`` set)."""
        return self.grid.line_masks

    def has_line(self, mask: int) -> bool:
        """Whether the pieces in ``mask`` include a whole line."""
        return any(mask & line == line for line in self.line_masks)

    def lines_in(self, mask: int) -> list[tuple[int, ...]]:
        """The lines wholly inside ``mask``."""
        return [line for line, m in zip(self.lines, self.line_masks, strict=True) if mask & m == m]

    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The symmetries that keep the rule, as cell permutations, identity first (``perm[cell]``: the cell whose
        content moves to ``cell``): the board's that the move rule keeps."""
        return self.move.symmetries(self.grid.symmetries)

    def moves(self, x: int, o: int) -> int:
        """The cells the side to move may play on a board in play (X's and O's cells as masks), a bit each."""
        return self.move.moves(x | o)

    def moves_many(self, occupied: np.ndarray) -> np.ndarray:
        """The cells the side to move may play on many boards in play, from their occupied cells (masks, same dtype)."""
        return self.move.moves_many(occupied)

    def landing(self, taken: int, col: int) -> int | None:
        """The cell a move in column ``col`` takes (``taken``: the occupied cells), or None if it has none
        (gravity: the lowest empty cell; where a move is a cell, a column is not a move)."""
        return self.move.landing(taken, col)

    def illegal_move_of_word(self, word: int, cell: int) -> str | None:
        """Why the side to move may not play ``cell`` on the board ``word``, in words (``"the game is over"``,
        ``"the cell is taken"``, or the move rule's reason), or None when the move is legal."""
        if self.judge_word(word)[0] != IN_PLAY:
            return "the game is over"
        x, o = self.split(word)
        taken = x | o
        if taken >> cell & 1:
            return "the cell is taken"
        if not self.move.moves(taken) >> cell & 1:
            return self.move.not_a_move(taken, cell, self._cells)
        return None

    def is_over_word(self, word: int) -> bool:
        """Whether the game has ended on the board ``word`` (a line, or no move left); an invalid board is not over."""
        return self.judge_word(word)[0] in (LINE, DRAWN)

    def violation_of_word(self, word: int) -> str | None:
        """Why no legal game reaches the board ``word``, or None when one does.

        >>> from solver.rules.game import Game
        >>> rules = Game().rules
        >>> rules.violation_of_word(rules.join(0b000000111, 0b000011000)) is None
        True
        >>> rules.violation_of_word(rules.join(0b11, 0))
        'impossible piece counts: 2 X and 0 O (X moves first, so X has as many pieces as O or one more)'
        """
        x, o = self.split(word)
        misplaced = self.move.misplaced(x | o)
        if misplaced:
            return self.move.misplaced_words(misplaced.bit_length() - 1, self._cells)
        nx, no = x.bit_count(), o.bit_count()
        if nx not in (no, no + 1):
            return f"impossible piece counts: {nx} X and {no} O (X moves first, so X has as many pieces as O or one more)"
        x_lines, o_lines = self.lines_in(x), self.lines_in(o)
        if x_lines and o_lines:
            return f"both players have a line: X at {self._cells(x_lines[0])} and O at {self._cells(o_lines[0])}"
        for player, other, lines, moved_last in (("X", "O", x_lines, nx > no), ("O", "X", o_lines, nx == no)):
            if lines:
                found = self._line_violation(player, other, lines, moved_last)
                if found is not None:
                    return found
        return self.move.order_violation(x, o, self.lines_in(x if nx > no else o), self._cells)

    def _line_violation(self, player: str, other: str, lines: list[tuple[int, ...]], moved_last: bool) -> str | None:
        """Why a board where only ``player`` has lines cannot occur, or None when it can."""
        if not moved_last:
            ended = "won" if self.line_wins else "completed a line"
            return f"{player} has a line at {self._cells(lines[0])} but {other} moved after it: the game went on after {player} {ended}"
        if set(lines[0]).intersection(*lines[1:]):
            return None
        named, common = [], set(lines[0])
        for line in lines:  # name just enough lines to leave no common cell
            named.append(line)
            common &= set(line)
            if not common:
                break
        listed = " and ".join(self._cells(line) for line in named)
        ending = "winning" if self.line_wins else "completing one"
        return f"{player} has lines at {listed} with no cell common to all: {player} kept playing after {ending}"

    def _cells(self, cells: Sequence[int]) -> str:
        return ",".join(f"({r},{c})" for r, c in map(self.game.coords, cells))

    def outcome_of_word(self, word: int) -> Outcome:
        """The :class:`Outcome` of the board ``word``, the winner named."""
        status, pieces = self.judge_word(word)
        if status == LINE:
            return Outcome.X_WON if self.line_winner("X" if pieces % 2 else "O") == "X" else Outcome.O_WON
        if status == DRAWN:
            winner = self.scoring.full_winner()
            return Outcome.DRAWN if winner is None else (Outcome.X_WON if winner == "X" else Outcome.O_WON)
        return (Outcome.IN_PLAY, Outcome.IN_PLAY, Outcome.DRAWN, Outcome.INVALID)[status]

    # -- what a look-up's score says: over, and who won -----------------------------------------
    @cached_property
    def _finished_scores(self) -> tuple[frozenset[int], ...]:
        line, full = self.line_score, self.full_score
        return tuple(frozenset({line, full} if pieces == self.game.cells else {line}) for pieces in range(self.game.cells + 1))

    def finished_scores(self, pieces: int) -> frozenset[int]:
        """The scores the rule gives a finished board with ``pieces`` pieces (:attr:`status_scores`): a completed
        line's and, on a full board, a full board's. A reachable board is over exactly when its score is one of
        them: no board in play scores ``WIN`` or ``-WIN`` (a result 0 plies away), and a full board has no move."""
        return self._finished_scores[pieces]

    def all_finished(self, pieces: int) -> bool:
        """Whether every board with ``pieces`` pieces is over (the full board: no move is left), so none is in play."""
        return pieces == self.game.cells

    def outcome_of_score(self, score: int, pieces: int) -> Outcome:
        """The :class:`Outcome` of a reachable board from what a look-up has of it: its score for the side to move
        (:mod:`solver.rules.score`) and its pieces, without judging the board again (:meth:`outcome_of_word` judges it).

        Over when the score is one the rule gives a finished board (:meth:`finished_scores`); then a positive
        score is the side to move's win (misère: the last mover completed a line; armageddon: O on a full
        board), a negative one the last mover's, and 0 a draw.

        >>> from solver.rules.game import parse_game
        >>> rules = parse_game("3x3k3").rules
        >>> rules.outcome_of_score(-100, 5), rules.outcome_of_score(0, 9), rules.outcome_of_score(0, 4)
        (<Outcome.X_WON: 'X won'>, <Outcome.DRAWN: 'drawn'>, <Outcome.IN_PLAY: 'in play'>)
        >>> parse_game("3x3k3-armageddon").rules.outcome_of_score(100, 9)
        <Outcome.O_WON: 'O won'>
        """
        if score not in self._finished_scores[pieces]:
            return Outcome.IN_PLAY
        if score == 0:
            return Outcome.DRAWN
        return Outcome.X_WON if (score > 0) == (pieces % 2 == 0) else Outcome.O_WON

    def outcomes_of_scores(self, scores: np.ndarray, pieces: np.ndarray | int) -> np.ndarray:
        """:meth:`outcome_of_score` of many reachable boards: each board's place in :data:`OUTCOMES` (uint8, shaped
        like ``scores``; ``pieces`` broadcast against them)."""
        wide = np.asarray(scores).astype(np.int16)
        count = np.broadcast_to(np.asarray(pieces, dtype=np.int64), wide.shape)
        finished = (wide == self.line_score) | ((count == self.game.cells) & (wide == self.full_score))
        x_won = (wide > 0) == (count % 2 == 0)
        won = np.where(x_won, OUTCOMES.index(Outcome.X_WON), OUTCOMES.index(Outcome.O_WON))
        ended = np.where(wide == 0, OUTCOMES.index(Outcome.DRAWN), won)
        return np.where(finished, ended, OUTCOMES.index(Outcome.IN_PLAY)).astype(np.uint8)

    def over_words(self, completer: str | None) -> str:
        """A finished game in words (what follows ``"game over: "``), from who completed a line (None: a full board
        without one): ``"X won"``; misère ``"O won (X completed a line and lost)"``; a full board the scoring's
        words (``"a draw"``)."""
        if completer is None:
            return self.scoring.full_words()
        winner = self.line_winner(completer)
        return f"{winner} won" if self.line_wins else f"{winner} won ({self.end_words(completer)})"

    # -- the moves the rule settles, and the children it scores -----------------------------------
    def settled_moves(self, completing: int, moves: int, pieces: int) -> int:
        """The best moves of a board in play that the rule settles without reading a child (a bit each; 0: read the
        children): the moves that complete a line where that wins, or where every move does (misère: all lose),
        and the one move left on the last empty cell.

        :param completing: the moves (of ``moves``) that complete a line for the side to move (:meth:`winning_cells`).
        :param moves: the side to move's moves (:meth:`moves`); ``pieces``: the pieces on the board.
        """
        if completing and (self.line_wins or not moves & ~completing):
            return completing
        return moves if pieces + 1 == self.game.cells else 0

    def settled_moves_many(self, completing: np.ndarray, moves: np.ndarray, pieces: np.ndarray) -> np.ndarray:
        """:meth:`settled_moves` of many boards in play (masks like ``moves``; 0 where the children must be read)."""
        settled = (completing != 0) & (self.line_wins | ((moves & ~completing) == 0))
        last = ~settled & (np.asarray(pieces) == self.game.cells - 1)
        return np.where(settled, completing, np.where(last, moves, 0)).astype(moves.dtype)

    def ruled_child_scores(self, completing: int, moves: int, pieces: int) -> dict[int, int]:
        """The scores, for their side to move, of the children of a board in play that the rule gives without a
        table (cell: score): a move that completes a line ends the game (:attr:`line_score`), one that fills the
        board too (:attr:`full_score`). None where the status is not exact (:attr:`status_is_exact`: gravity
        reads every child, which may say ``UNREACHABLE``)."""
        if not self.status_is_exact:
            return {}
        full = pieces + 1 == self.game.cells
        found = {}
        for cell in range(self.game.cells):
            if completing >> cell & 1:
                found[cell] = self.line_score
            elif full and moves >> cell & 1:
                found[cell] = self.full_score
        return found

    def completes_line(self, masks: np.ndarray) -> np.ndarray:
        """Whether each of many one-player cell masks holds a whole line (bool, shaped like ``masks``)."""
        masks = np.asarray(masks)
        if self.game.cells <= WIN_TABLE_CELLS:
            return np.asarray(self.win_table[masks])
        won = np.zeros(masks.shape, dtype=bool)
        for line in self.line_masks:
            won |= (masks & line) == line
        return won

    @cached_property
    def win_table(self) -> np.ndarray:
        """Whether each of the ``2**cells`` one-player masks holds a whole line (bool; boards up to :data:`WIN_TABLE_CELLS` cells)."""
        masks = np.arange(1 << self.game.cells, dtype=np.int64)
        win = np.zeros(masks.size, dtype=bool)
        for line in self.line_masks:
            win |= (masks & line) == line
        return win

    # -- one board ----------------------------------------------------------------------
    @staticmethod
    def split(word: int) -> tuple[int, int]:
        """X's and O's cells of a board word."""
        return word & X_MASK, word >> O_SHIFT & X_MASK

    @staticmethod
    def split_many(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`split` of many board words (int64: O's half masked, as a word with O on cell 31 is negative)."""
        return words & X_MASK, words >> O_SHIFT & X_MASK

    @staticmethod
    def join_many(x: np.ndarray, o: np.ndarray) -> np.ndarray:
        """The board words of many boards from X's and O's cells (int64 masks; :meth:`split_many`'s inverse)."""
        return np.asarray(x, dtype=np.int64) | np.asarray(o, dtype=np.int64) << O_SHIFT

    @staticmethod
    def flat_words(words: np.ndarray) -> np.ndarray:
        """Many board words as a flat array, a word a board (int64, contiguous)."""
        return np.ascontiguousarray(words, dtype=np.int64).reshape(-1)

    @staticmethod
    def join(x: int, o: int) -> int:
        """The board word of X's cells ``x`` and O's cells ``o`` (the inverse of :meth:`split`)."""
        return x | o << O_SHIFT

    def judge_word(self, word: int) -> tuple[int, int]:
        """``(status, pieces)`` of one board word: what a look-up needs besides the stored byte (the
        piece counts are checked here: illegal ones are :data:`INVALID`).

        Lines are found as the batch methods find them, runs doubled along each direction
        (two shifts a direction for ``k = 4``, not three).
        """
        x, o = self.split(word)
        nx, no = x.bit_count(), o.bit_count()
        if nx != no and nx != no + 1 or self._places_some and self.move.misplaced(x | o):  # placement: not even asked
            return INVALID, nx + no
        won = 0
        for starts, shifts in self._runs:
            run = word
            for shift in shifts:
                run &= run >> shift
            won |= run & starts
        if not won:
            return (DRAWN if nx + no == self.game.cells else IN_PLAY), nx + no
        return self._won(x, o, nx, no), nx + no

    def _won(self, x: int, o: int, nx: int, no: int) -> int:
        x_lines = [m for m in self.line_masks if x & m == m]
        o_lines = [m for m in self.line_masks if o & m == m]
        if x_lines and o_lines:
            return INVALID
        lines, moved_last = (x_lines, nx == no + 1) if x_lines else (o_lines, nx == no)
        common = self.full
        for line in lines:
            common &= line
        return LINE if moved_last and common and self.move.last_move_fits(common, x | o) else INVALID

    def winning_cells(self, mask: int, empty: int) -> int:
        """The cells of ``empty`` where a player holding the cells ``mask`` would complete a line (a bit each).

        A line is completed by a move when exactly one of its cells is missing from
        ``mask`` and that cell is empty: one pass over the game's lines (28 for 5x5k4).
        """
        found = 0
        for line in self.line_masks:
            missing = line & ~mask
            if missing & (missing - 1) == 0 and missing & empty:
                found |= missing
        return found

    def winning_cells_many(self, masks: np.ndarray, empty: np.ndarray) -> np.ndarray:
        """:meth:`winning_cells` of many boards (:attr:`mask_type`, flat): bit ``c`` set where the player holding
        ``masks`` would complete a line by a move on empty cell ``c``.

        By shifts along each direction rather than line by line: with ``ahead[j]`` having bit ``p``
        where the player holds the cell ``j`` steps after ``p`` (``masks >> j * step``), a move at
        position ``t`` of a line starting at ``p`` completes it when every ``ahead[j]``, ``j != t``,
        has bit ``p`` and a line fits at ``p``; the move's cell is ``p + t * step``.
        """
        kind = self.mask_type
        held = np.ascontiguousarray(masks).astype(kind).reshape(-1)
        found = np.zeros(held.size, dtype=kind)
        line = np.empty_like(held)
        k = self.game.k
        for step, starts in self._starts:
            ahead = [held] + [held >> kind(j * step) for j in range(1, k)]
            for t in range(k):
                others = ahead[:t] + ahead[t + 1 :]
                line.fill(starts)  # where a line fits
                for part in others:
                    line &= part
                line <<= kind(t * step)
                found |= line
        found &= np.ascontiguousarray(empty).astype(kind).reshape(-1)
        return found

    # -- many boards -------------------------------------------------------------------
    def statuses_of_words(self, words: np.ndarray) -> np.ndarray:
        """The status of many board words (uint8, flat; illegal piece counts: :data:`INVALID`), in steps of ``2**14``."""
        flat = self.flat_words(words)
        status = np.empty(len(flat), dtype=np.uint8)
        pieces = np.empty(len(flat), dtype=np.uint8)
        for a in range(0, len(flat), _STEP):
            self._classify_step(flat[a : a + _STEP], status[a : a + _STEP], pieces[a : a + _STEP])
        return status

    def classify_words(self, words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(status, pieces)`` of many board words, uint8 each, flat: what a batch look-up needs
        besides the table's bytes. The piece counts are checked here: a board with illegal counts
        (X neither as many as O nor one more) is :data:`INVALID` with 0 pieces (it is in no layer).
        The words are done in one step: keep them to a few ``2**14`` so the temporaries stay in cache
        (:meth:`statuses_of_words` steps through any number).
        """
        flat = self.flat_words(words)
        status = np.empty(len(flat), dtype=np.uint8)
        pieces = np.empty(len(flat), dtype=np.uint8)
        self._classify_step(flat, status, pieces)
        return status, pieces

    def _classify_step(self, word: np.ndarray, status: np.ndarray, pieces: np.ndarray) -> None:
        x, o = self.split_many(word)
        nx, no = np.bitwise_count(x), np.bitwise_count(o)
        np.add(nx, no, out=pieces)
        np.multiply(pieces == self.game.cells, np.uint8(DRAWN), out=status)  # full: drawn unless a line says otherwise
        won = self._lines(word)
        some = np.flatnonzero(won if won.ndim == 1 else won.any(axis=1))  # a word a board, or (boards, 2) past 32 cells
        if some.size:
            status[some] = self._won_lines(x[some], o[some], nx[some], no[some], *self.split_many(won[some]))
        illegal = np.flatnonzero((nx - no) > 1)  # uint8: X one piece ahead gives 1, O ahead wraps past 1
        if illegal.size:
            status[illegal] = INVALID
            pieces[illegal] = 0
        if self._places_some:
            misplaced = np.flatnonzero(self.move.misplaced_many(x | o))
            if misplaced.size:
                status[misplaced] = INVALID

    def _lines(self, word: np.ndarray) -> np.ndarray:
        """Bit ``c`` (and ``c + 32``) set where X's (O's) cells hold a line of ``k`` starting at cell ``c``
        (words like :meth:`flat_words`' : :meth:`split_many` parts them)."""
        return self._runs_of(word, self._directions)

    def _runs_of(self, word: np.ndarray, directions: Sequence[tuple[int, int]]) -> np.ndarray:
        """Bit ``c`` set where ``word`` has a line of ``k`` starting at cell ``c`` (int64 array, flat; ``directions``:
        ``(step, starts)``, the starts to keep, :attr:`_starts` for a mask of one player's, :attr:`_directions` for a word)."""
        k, won = self.game.k, np.zeros(word.size, dtype=np.int64)
        found, shifted = np.empty_like(word), np.empty_like(word)
        for step, starts in directions:
            run, length = word, 1  # bit c of run: length cells in this direction from c are the player's
            while 2 * length <= k:  # the run doubles at each step
                np.bitwise_and(run, np.right_shift(run, length * step, out=shifted), out=found)
                run, length = found, 2 * length
            if length < k:  # two overlapping runs of length cells cover k
                np.bitwise_and(run, np.right_shift(run, (k - length) * step, out=shifted), out=found)
                run = found
            won |= np.bitwise_and(run, starts, out=found)  # only where a line fits on the board
        return won

    def _won_lines(self, x: np.ndarray, o: np.ndarray, nx: np.ndarray, no: np.ndarray, x_won: np.ndarray, o_won: np.ndarray) -> np.ndarray:
        """Statuses of boards where somebody has a line (``nx``, ``no``: their pieces; ``x_won``, ``o_won``: where
        each player's lines start, :meth:`_lines`).

        One player with one line, and the other's turn: lost. Both with lines, or the wrong
        turn: invalid. One player with several lines: lost only if they share a cell (the
        last move made them all), decided by :meth:`_share_a_cell`.
        """
        x_starts, o_starts = np.bitwise_count(x_won), np.bitwise_count(o_won)
        x_last = (nx == no + 1) & (o_starts == 0)
        o_last = (nx == no) & (x_starts == 0)
        out = np.where((x_last & (x_starts == 1)) | (o_last & (o_starts == 1)), LINE, INVALID).astype(np.uint8)
        several = np.flatnonzero((x_last & (x_starts > 1)) | (o_last & (o_starts > 1)))
        if several.size:
            winner = np.where(x_last[several], x[several], o[several])
            out[several] = np.where(self._share_a_cell(winner), LINE, INVALID)
        if self._places_some:  # the move rule may forbid where the winning move is (gravity: on top of its column)
            lined = np.flatnonzero(out == LINE)
            if lined.size:
                winner = np.where(nx[lined] > no[lined], x[lined], o[lined])
                lines = self._line_array
                held = (winner[:, None] & lines) == lines
                common = np.bitwise_and.reduce(np.where(held, lines, self.full), axis=1)
                fits = self.move.last_move_fits_many(common, x[lined] | o[lined])
                out[lined] = np.where(fits, LINE, INVALID)
        return out

    def _share_a_cell(self, cells: np.ndarray) -> np.ndarray:
        """Whether all the lines held by each of many players' cells share a cell (bool; at least one line held)."""
        lines = self._line_array
        held = (cells[:, None] & lines) == lines
        common = np.bitwise_and.reduce(np.where(held, lines, self.full), axis=1)
        found: np.ndarray = common != 0
        return found


def _run_shifts(k: int, step: int) -> tuple[int, ...]:
    """The shifts (``run &= run >> shift``, in order) that turn a board word into the starts of runs of
    ``k`` cells ``step`` apart: the run doubles at each shift, then two overlapping runs cover ``k``
    (as :meth:`Rules._lines` does for many words)."""
    shifts, length = [], 1
    while 2 * length <= k:
        shifts.append(length * step)
        length *= 2
    if length < k:
        shifts.append((k - length) * step)
    return tuple(shifts)
