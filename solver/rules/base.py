"""The rule interface: what every rule of the family answers, and the statuses it answers with.

A rule is one object per game (:attr:`solver.rules.game.Game.rules`), the one place that
knows how the game is played: its lines, the status of a board, the moves of a position,
the score of a finished board, the symmetries, which boards a legal game reaches, and
the suffix of the game's name. The build kernels, the tables, the grader and the front
ends ask it; none of them finds a line or decides a winner itself.

A **status** is what the rules say of a board before any table is read:

=================  ============================================================================
status             meaning
=================  ============================================================================
:data:`IN_PLAY`    reachable, nobody has completed a line, a move is left: a table stores its score
:data:`LINE`       reachable, and the player who moved last completed a line: the game is over
:data:`DRAWN`      reachable, no line and no move left (the board is full): the game is over
:data:`INVALID`    no legal game reaches it
=================  ============================================================================

Who wins a :data:`LINE` board is the rule's business (:attr:`Rules.line_wins`): in normal
play the player who completed the line, in misère play the other one. So the score of a
finished board, for the side to move (:mod:`solver.rules.score`), is the rule's too:
:attr:`Rules.status_scores`. The :class:`Outcome` of a board names the winner directly.

A new rule is one module of this package, a subclass of :class:`Rules` (usually of
:class:`solver.rules.mnk.MnkRules`) with its name suffix, listed in :mod:`solver.rules.catalog`.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from .score import UNREACHABLE, WIN

if TYPE_CHECKING:
    from .game import Game

IN_PLAY = 0
"""Status: the game goes on; the table stores the score."""
LINE = 1
"""Status: the player who moved last completed a line; the game is over."""
DRAWN = 2
"""Status: the board is full and nobody completed a line; the game is over."""
INVALID = 3
"""Status: no legal game reaches the board."""


class Outcome(enum.Enum):
    """What the rules say of a board, with the winner named: ``solver.parse_game("3x3").rules.outcome(code)``."""

    IN_PLAY = "in play"
    X_WON = "X won"
    O_WON = "O won"
    DRAWN = "drawn"
    INVALID = "invalid"


class Rules(ABC):
    """The rule of one game (module docstring). Get it from the game: ``game.rules``."""

    suffix: ClassVar[str]
    """The suffix of the game's name (``""`` for normal play, ``"misere"`` for ``3x3k3-misere``)."""
    title: ClassVar[str]
    """The rule in a few words, for people: ``"normal play"``, ``"misère"``."""
    line_wins: ClassVar[bool]
    """Whether completing a line wins (normal play) or loses (misère)."""
    drops: ClassVar[bool] = False
    """Whether a piece drops to the lowest empty cell of its column (gravity): a move is then a column."""
    status_is_exact: ClassVar[bool] = True
    """Whether :meth:`judge` and :meth:`classify` tell every unreachable board. When False (gravity), a board
    they call in play, finished or drawn may still be one no game reaches; the table says so
    (``UNREACHABLE``), so a table stores a byte for every board they do not call :data:`INVALID`."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.game.name}>"

    # -- the rule's constants -----------------------------------------------------
    @property
    def line_score(self) -> int:
        """The score of a :data:`LINE` board for the side to move: ``-WIN`` (already lost) or ``WIN`` (already won)."""
        return -WIN if self.line_wins else WIN

    @property
    def status_scores(self) -> tuple[int, int, int, int]:
        """The score each status gives (``status_scores[status]``; in play: 0, the table stores the real one)."""
        return (0, self.line_score, 0, UNREACHABLE)

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

    @abstractmethod
    def possible_scores(self, ply: int) -> frozenset[int]:
        """Every score a position with ``ply`` pieces can hold under this rule (any other is a damaged table)."""

    # -- one board ------------------------------------------------------------------
    @property
    @abstractmethod
    def lines(self) -> tuple[tuple[int, ...], ...]:
        """Every line whose completion ends the game, as cell tuples."""

    @property
    @abstractmethod
    def line_masks(self) -> tuple[int, ...]:
        """:attr:`lines` as bit masks (bit ``cell`` set)."""

    def has_line(self, mask: int) -> bool:
        """Whether the pieces in ``mask`` include a whole line."""
        return any(mask & line == line for line in self.line_masks)

    def lines_in(self, mask: int) -> list[tuple[int, ...]]:
        """The lines wholly inside ``mask``."""
        return [line for line, m in zip(self.lines, self.line_masks, strict=True) if mask & m == m]

    @property
    @abstractmethod
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The symmetries that keep the rule, as cell permutations, identity first (``perm[cell]``: the cell whose content moves to ``cell``)."""

    @abstractmethod
    def judge(self, code: int) -> tuple[int, int]:
        """``(status, pieces)`` of one board code in range (illegal piece counts: :data:`INVALID`)."""

    @abstractmethod
    def word_of(self, code: int) -> int:
        """The board word of a code: X's cells in the low bits, O's from bit 32 (:mod:`solver.rules.bitboard`)."""

    @abstractmethod
    def judge_word(self, word: int) -> tuple[int, int]:
        """:meth:`judge` of a board word (:meth:`word_of`), for a caller that needs the word too."""

    @abstractmethod
    def winning_cells(self, mask: int, empty: int) -> int:
        """The cells of ``empty`` where a player holding the cells ``mask`` would complete a line (a bit each)."""

    @abstractmethod
    def winning_cells_many(self, masks: np.ndarray, empty: np.ndarray) -> np.ndarray:
        """:meth:`winning_cells` of many boards (uint32, flat), for a batch's best moves."""

    def status_of(self, code: int) -> int:
        """The status of one board code in range."""
        return self.judge(code)[0]

    @abstractmethod
    def moves(self, x: int, o: int) -> int:
        """The cells the side to move may play on a board in play (X's and O's cells as masks), a bit each."""

    def landing(self, taken: int, col: int) -> int | None:
        """The cell a move in column ``col`` takes (``taken``: the occupied cells), or None if it has none
        (gravity: the lowest empty cell; on a board without gravity a column is not a move)."""
        return None

    @abstractmethod
    def violation(self, code: int) -> str | None:
        """Why no legal game reaches the board, in words, or None when one does."""

    def outcome(self, code: int) -> Outcome:
        """The board's :class:`Outcome`, the winner named."""
        status, pieces = self.judge(code)
        if status == LINE:
            return Outcome.X_WON if self.line_winner("X" if pieces % 2 else "O") == "X" else Outcome.O_WON
        return (Outcome.IN_PLAY, Outcome.IN_PLAY, Outcome.DRAWN, Outcome.INVALID)[status]

    # -- many boards ----------------------------------------------------------------
    @abstractmethod
    def words(self, codes: np.ndarray, patterns: Sequence[np.ndarray] | None = None) -> np.ndarray:
        """The board words of many codes in range (int64, flat): :meth:`word_of` of each."""

    @abstractmethod
    def classify(self, codes: np.ndarray, patterns: Sequence[np.ndarray] | None = None, words: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(status, pieces)`` of many codes in range, uint8 each, flat (illegal piece counts: :data:`INVALID`, 0 pieces);
        ``words``: their board words (:meth:`words`) if the caller has them already."""

    @abstractmethod
    def statuses_of_words(self, words: np.ndarray) -> np.ndarray:
        """The status of many board words (uint8, flat; illegal piece counts: :data:`INVALID`)."""

    def statuses(self, codes: np.ndarray) -> np.ndarray:
        """The status of many codes (uint8, shaped like ``codes``)."""
        return self.classify(codes)[0].reshape(np.shape(codes))

    @abstractmethod
    def moves_many(self, occupied: np.ndarray) -> np.ndarray:
        """The cells the side to move may play on many boards in play, from their occupied cells (masks, same dtype)."""

    @abstractmethod
    def completes_line(self, masks: np.ndarray) -> np.ndarray:
        """Whether each of many one-player cell masks holds a whole line (bool, shaped like ``masks``)."""
