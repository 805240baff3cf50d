"""Functions of another shape: every option they need, found by trying them, said in one line.

When the first calls of a grading all fail the same known way (:func:`hint` names the ways),
the grader does not stop at the first option that would help: it tries it on a few of those
positions, then the next one the answers call for, and so on (:func:`find_options`), so one
run names them all. Seed 002's ``MINIMAX(state, is_max) -> (value, [row, col])`` on boards of
``"x"``, ``"o"`` and ``" "`` took three runs, one hint each (``--turn max``, then
``--returns value-move``, then ``--symbols``); now the first run names the three.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

Turn = Literal["symbol", "max"]
Returns = Literal["move", "value-move"]
Symbols = tuple[Any, Any, Any]

MAX_TRIES = 16
"""The most shapes tried for one grading."""
SYMBOL_GUESSES: tuple[Symbols, ...] = (
    *((x, o, empty) for empty in (" ", "-", ".", "_", "") for x, o in (("X", "O"), ("x", "o"))),
    (1, -1, 0),
    (1, 2, 0),
)
"""Symbols tried for a function that finds no empty cell: the empty cell as a space, ``-``, ``.``, ``_`` or
nothing, with X and O in either case; then ints."""


@dataclass(frozen=True)
class Shape:
    """The options that shape a call: whose turn is passed, what is returned, the board's symbols."""

    turn: Turn | None
    returns: Returns
    symbols: Symbols


@dataclass(frozen=True)
class Tried:
    """What a few calls of one shape gave.

    :param failing: the known way every call failed (:func:`hint`), or None.
    :param example: an answer (or exception) showing it.
    :param calls: the calls made.
    :param answered: calls answered with a legal move.
    :param kept: of those, the ones that kept the result.
    """

    failing: str | None
    example: str
    calls: int
    answered: int
    kept: int

    def works(self) -> bool:
        """Whether the calls gave legal moves and no known failure."""
        return self.failing is None and self.answered > 0

    def perfect(self) -> bool:
        """Whether every call kept its result: no other shape can do better."""
        return self.works() and self.kept == self.calls


Try = Callable[[Shape], Tried | None]
"""Grades a few positions with a shape; None when the time ran out."""


def hint(kind: str, example: str, name: str) -> str:
    """The line for one known way of failing (``kind``), shown by ``example``, for the function ``name``."""
    if kind == "no move":
        return (
            f"{name} answered {example} (no move): it finds no empty cell, so the board's empty cells are probably "
            "not written the way it expects: give its symbols, e.g. --symbols 'X,O, ' or --symbols 'x,o,-'"
        )
    if kind == "value-move":
        return f"{name} answered {example}, which looks like (value, move): grade it with --returns value-move"
    if kind == "value-column":
        return (
            f"{name} answered {example}, which is not where a piece lands: if it is (value, column), grade it with "
            "--returns value-move; if it is (row, col), the row must be the lowest empty one of the column (or answer the column alone)"
        )
    if kind == "move only":
        return f"{name} answered {example}, a move without a value: grade it without --returns value-move"
    if kind == "arguments: fewer":
        return f"{example}: {name} takes only the board: grade it without --turn"
    if kind == "arguments: more":
        return (
            f"{example}: {name} also takes whose turn it is: grade it with --turn max (True when X, the maximiser, "
            "is to move) or --turn symbol (the mover's symbol)"
        )
    if kind == "state object":
        return _adapter_hint(example, name)
    return f"{example}: {name} takes more than a board and whose turn it is: adapt it (README, Grade your minimax)"


_NOT_AN_OBJECT = re.compile(r"AttributeError: '(?:list|ndarray|str|tuple)' object has no attribute '(\w+)'")
"""The exception of a function that reads an attribute of the board it is given, as of a course's game or state object."""


def state_attribute(message: str) -> str | None:
    """The attribute a function read of the board it was given (``board`` of ``game.board``), if ``message`` says so."""
    found = _NOT_AN_OBJECT.search(message)
    return found.group(1) if found else None


ADAPTERS = {
    "game": (
        "seed 003's MinimaxPlayer.move(self, game, state): def move(board, me) makes the course's Game, sets its board to the "
        "board and the player's n to me, and returns player.move(game, None)",
        "--numpy --turn symbol",
    ),
    "state": (
        "seed 001's iterative_minimax(state): def move(board, me) makes State(board, next_player=me) and returns the move of its best action",
        "--symbols 'x,o,-' --turn symbol",
    ),
}
"""The two adapters of docs/grading.md ("Functions of other shapes"): what each does, and the options its function is graded with."""


def _adapter_hint(example: str, name: str) -> str:
    """For a function that takes a course's object, not a board: the adapter of docs/grading.md that fits (a ``.board``
    read: the game object's; anything else: the state object's), and the command that grades it."""
    attribute = state_attribute(example) or "board"
    does, options = ADAPTERS["game" if attribute == "board" else "state"]
    return (
        f"{example}: {name} reads .{attribute} of what it is given, so it takes an object of its course (a game or a state), "
        f"not a board, and no option passes one: add a function that makes that object from the board and calls {name}, "
        f"as docs/grading.md (Functions of other shapes) does for {does}; then grade that function: solve grade FILE.py:move {options}"
    )


def _reason(kind: str, example: str, name: str, start: Shape) -> str:
    """Why the calls failed, in a few words (the option comes at the end of the line)."""
    if kind == "no move":
        return f"{name} answered {example} (no move) on boards whose empty cells are {start.symbols[2]!r}"
    if kind == "value-move":
        return f"{name} answered {example}, which looks like (value, move)"
    if kind == "value-column":
        return f"{name} answered {example}, which is not where a piece lands but may be (value, column)"
    if kind == "move only":
        return f"{name} answered {example}, a move without a value"
    if kind == "arguments: fewer":
        return f"{example}: it takes only the board"
    if kind == "state object":
        return f"{example}: it takes an object, not a board"
    return f"{example}: it also takes whose turn it is"


def _candidates(kind: str, shape: Shape, *, array: bool, flat: bool) -> list[Shape]:
    """The shapes that could fix ``kind``, most likely first."""
    if kind == "arguments: more":
        return [replace(shape, turn="max"), replace(shape, turn="symbol")]
    if kind == "arguments: fewer":
        return [replace(shape, turn=None)]
    if kind in ("value-move", "value-column") and shape.returns == "move":
        return [replace(shape, returns="value-move")]
    if kind == "move only" and shape.returns == "value-move":
        return [replace(shape, returns="move")]
    if kind == "no move" and not array:
        guesses = [s for s in SYMBOL_GUESSES if s != shape.symbols and (not flat or all(isinstance(c, str) and len(c) == 1 for c in s))]
        return [replace(shape, symbols=s) for s in guesses]
    return []


def _rank(end: tuple[Shape, Tried, list[tuple[str, str]]]) -> tuple[bool, int, int, int]:
    """Better first: it works, more results kept, more legal answers, more failures got past."""
    _, tried, seen = end
    return (tried.works(), tried.kept, tried.answered, len(seen))


class _Search:
    """Tries shapes from a failing one, following each failure to the options that could fix it (a small tree)."""

    def __init__(self, run: Try, *, array: bool, flat: bool) -> None:
        self.run, self.array, self.flat = run, array, flat
        self.budget = MAX_TRIES
        self.done = False
        """True once the time ran out: nothing more is tried."""
        self.perfect = False
        """True once a shape kept every result: no other is tried, but for the other way of passing whose turn it is
        (both may keep every result tried: :func:`find_options` then tries them on more positions)."""

    def ends(self, shape: Shape, tried: Tried, seen: list[tuple[str, str]]) -> list[tuple[Shape, Tried, list[tuple[str, str]]]]:
        """Every shape reached from ``shape`` (whose calls gave ``tried``), with the failures met on the way there."""
        if tried.failing is None:
            self.perfect = self.perfect or tried.perfect()
            return [(shape, tried, seen)]
        kind = tried.failing
        seen = [*seen, (kind, tried.example)]
        found = [(shape, tried, seen)]
        for candidate in _candidates(kind, shape, array=self.array, flat=self.flat):
            if self.done or self.budget <= 0 or (self.perfect and kind != "arguments: more"):
                break
            self.budget -= 1
            outcome = self.run(candidate)
            if outcome is None:
                self.done = True
            elif outcome.failing is None or outcome.failing != kind:
                found += self.ends(candidate, outcome, seen)  # it works, or fails another known way: a step on
        return found


Found = tuple[Shape, Tried, list[tuple[str, str]], tuple[Shape, ...]]
"""What :func:`find_options` found: the shape, what its calls gave, the ``(kind, example)`` of each failure met on
the way to it, and the other shapes that did as well on every position tried (none unless a tie was left)."""


def find_options(start: Shape, first: Tried, run: Try, *, more: Try | None = None, array: bool = False, flat: bool = False) -> Found:
    """The best shape reached from ``start``, whose calls all failed as ``first`` says.

    Each failure is followed to every option that could fix it, and each option to the next failure
    (a function that takes whose turn it is may also return ``(value, move)`` and read other symbols);
    wrong symbols or a wrong turn often give legal moves too, but keep fewer results, so the shape
    that keeps the most is taken (:func:`_rank`). The search stops at a shape that keeps every
    result, after :data:`MAX_TRIES` shapes, or when the time runs out.

    Shapes that tie (``--turn max`` and ``--turn symbol`` both keeping 5 of 5 results: a function that reads ``me``
    as ``'X'`` or ``'O'`` plays as one side whatever True or False it gets, and late positions rarely show it) are
    tried again on ``more`` positions; a tie that is left is returned, never decided by the order of the options.
    """
    search = _Search(run, array=array, flat=flat)
    ends = search.ends(start, first, [])
    best = max(ends, key=_rank)
    tied = [end for end in ends if _rank(end) == _rank(best) and end[0] != best[0]]
    if not tied or not best[1].works():
        return (*best, ())
    again = [(shape, outcome, seen) for shape, _, seen in [best, *tied] if more is not None and (outcome := more(shape)) is not None]
    if len(again) < 1 + len(tied):  # no more positions to try, or the time ran out: the tie stands
        return (*best, tuple(end[0] for end in tied))
    best = max(again, key=_rank)
    return (*best, tuple(end[0] for end in again if _rank(end) == _rank(best) and end[0] != best[0]))


def options_text(start: Shape, end: Shape) -> str:
    """The command-line options that turn ``start`` into ``end``, e.g. ``with --turn max --returns value-move`` or ``without --turn``."""
    added = []
    if end.turn is not None and end.turn != start.turn:
        added.append(f"--turn {end.turn}")
    if end.returns != start.returns and end.returns != "move":
        added.append(f"--returns {end.returns}")
    if end.symbols != start.symbols:
        added.append("--symbols " + shlex.quote(",".join("None" if s is None else str(s) for s in end.symbols)))
    parts = [f"with {' '.join(added)}"] if added else []
    removed = [
        *(["--turn"] if end.turn is None and start.turn is not None else []),
        *(["--returns value-move"] if end.returns != start.returns == "value-move" else []),
    ]
    if removed:
        parts.append(f"without {' and '.join(removed)}")
    return " and ".join(parts)


def explain(start: Shape, first: Tried, run: Try, *, name: str, positions: int, more: Try | None = None, array: bool = False, flat: bool = False) -> str:
    """One line for a function whose first ``positions`` calls all failed as ``first`` says: every option it needs.

    The options are tried (:func:`find_options`, shapes that tie tried again on ``more`` positions); the line names
    each failure met, then the options that made the calls work (all of them when they still tie), or, when none
    did, the hint for the failure that is left.
    """
    end, tried, seen, tied = find_options(start, first, run, more=more, array=array, flat=flat)
    lead = f"on the first {positions} {'position' if positions == 1 else 'positions'} graded, "
    fixed = options_text(start, end)
    if not tried.works():
        kind, example = (tried.failing, tried.example) if tried.failing is not None else seen[-1]
        reasons = [_reason(k, e, name if i == 0 else "it", start) for i, (k, e) in enumerate(seen) if k != kind]
        further = f" (graded {fixed}, it got that far)" if fixed and kind != "state object" else ""  # an adapter's options are its own
        return lead + "; ".join([*reasons, hint(kind, example, name)]) + further
    reasons = [_reason(kind, example, name if i == 0 else "it", start) for i, (kind, example) in enumerate(seen)]
    if tied:
        others = " or ".join(options_text(start, shape) for shape in tied)
        both = f"each kept {tried.kept} of the {tried.calls} results it was tried on, so the calls cannot tell which it reads"
        return lead + "; ".join(reasons) + f": grade it {fixed} or {others}: {both}; choose by how {name} reads its second argument"
    return lead + "; ".join(reasons) + f": grade it {fixed} (tried on {tried.calls} of them: {tried.kept} of {tried.calls} results kept)"
