"""A book's proof and trust: what ``solve verify`` checks of an opening book, and when a book is believed.

A book (:mod:`solver.search.book`) answers the opening without a search, so a wrong entry is a wrong
answer that nothing else catches. It is believed by the rule of every table (:mod:`solver.storage.trust`):

1. **shipped**: a book of the depth whose checksum the package ships (Connect Four's, depth 9; a book that shipped before is believed by its checksum too) is
   checked against that checksum when it is opened, and then believed; the package ships that book
   itself too (:func:`shipped_book_path`), so a fresh install answers the opening;
2. **built or proved here**: ``solve build`` records the book it wrote in the registry beside it, and
   ``solve verify`` records the book it proved (the deepest ply searched whole, or the sample the user
   chose, said in its verdict);
3. **proved before its first answer**: any other book (another depth, a copy from elsewhere) is proved
   when it is opened, when that takes at most :data:`PROOF_SECONDS` on one core: every entry of the
   deepest ply searched by the engine, every shallower entry derived again from its children. A
   longer proof is refused with the ``solve verify`` command that proves it.

:func:`check_book` is the proof: every byte (checked when the book was opened: digests, root, the
header bounded by the arrays it describes), every ply's positions (exactly the game's, generated ply by
ply and stopped at the first ply that differs, so a header that claims more plies costs nothing more),
every shallower entry against its children, and the deepest ply's entries searched again: all of
them, or a sample drawn at random each run (a forger cannot know which entries a run searches; the
seed is said, so a run can be repeated).
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import search  # its names load numba when first used (solver.search.options)
from ..contents.opening import open_table
from ..errors import TableError
from ..rules.game import Game
from ..storage import trust
from .book import TABLE_BYTES, seconds_per_position
from .estimate import format_duration
from .locate import packaged_file

__all__ = [
    "DEFAULT_SAMPLE",
    "PROOF_SECONDS",
    "BookCheck",
    "VerifyPlan",
    "check_book",
    "open_trusted_book",
    "shipped_book_path",
    "verify_book",
    "verify_plan",
]

DEFAULT_SAMPLE = 16
"""Entries of the deepest ply ``solve verify`` re-derives by search when not told (``--sample N``, ``--all``)."""

PROOF_SECONDS = 60.0
"""The longest proof (seconds on one core, :func:`solver.store.book.seconds_per_position`) a book of no shipped
checksum gets before its first answer; a longer one is refused with the ``solve verify`` command (as a table's is)."""


def shipped_book_path(game: Game) -> Path | None:
    """The book the package ships for ``game`` (``solver/data/<game>.ttt``: Connect Four's, of the depth whose
    checksum ships, :data:`solver.storage.checksums.EXPECTED_BOOK_ROOTS`), or None."""
    return packaged_file(f"{game.name}.ttt") if trust.expected_root(game, "book") is not None else None


@dataclass(frozen=True)
class BookCheck:
    """What :func:`verify_book` checked and found."""

    path: Path
    checksum: str
    depth: int
    derived: int
    """Entries of plies 0 to ``depth - 1`` checked against their children's entries."""
    searched: int
    """Entries of the deepest ply re-derived by the engine, without the book."""
    deepest: int
    """Entries of the deepest ply in all (``searched`` of them were searched)."""
    seed: int | None
    """The seed of the sample searched (None: every entry was); ``solve verify --seed`` repeats a run."""
    problems: tuple[str, ...]
    seconds: float

    @property
    def whole(self) -> bool:
        """Whether every entry of the deepest ply was searched (a proof, not a sample)."""
        return self.searched == self.deepest


def verify_book(
    path: str | os.PathLike[str],
    game: Game | str | None = None,
    *,
    sample: int | None = DEFAULT_SAMPLE,
    seed: int | None = None,
    table_bytes: int = TABLE_BYTES,
    on_entry: Callable[[int, int, int, float], None] | None = None,
) -> BookCheck:
    """Check a book file (:func:`check_book`), opened and every byte checked first.

    :raises TableError: for a file that is damaged or not a book (nothing is checked from unverified bytes).
    """
    return check_book(search.open_book(path, game), sample=sample, seed=seed, table_bytes=table_bytes, on_entry=on_entry)


def check_book(
    book: search.TableBook,
    *,
    sample: int | None = DEFAULT_SAMPLE,
    seed: int | None = None,
    table_bytes: int = TABLE_BYTES,
    on_entry: Callable[[int, int, int, float], None] | None = None,
) -> BookCheck:
    """Check an open book: every ply's positions (exactly those of the game, :func:`solver.search.plies.positions`),
    every shallower entry against its children's (the derivation), and the deepest ply's entries re-derived by the
    engine without the book: ``sample`` of them drawn at random (``seed``: None draws a fresh one, said in the
    result), or all (``sample=None``).

    :param on_entry: called with ``(key, stored, searched, seconds)`` after each entry is searched.
    """
    started = time.monotonic()
    keys, scores = book.arrays()
    levels, problems = _levels(book)
    if problems:
        return BookCheck(book.path, book.checksum, book.depth, 0, 0, book.plies[-1], None, tuple(problems), time.monotonic() - started)
    stored = _by_level(keys, scores, levels, problems, book.path)
    derived = _check_derivation(book, levels, stored, problems)
    seed = None if sample is None or sample >= levels[-1].size else (secrets.randbits(32) if seed is None else seed)
    picked = _sample(levels[-1].size, sample, seed or 0)
    engine = search.Engine(book.game, table_bytes=table_bytes)
    for at in picked.tolist():
        key = int(levels[-1][at])
        clock = time.process_time()
        found = engine.score(search.position_of_key(book.game, key))
        if on_entry is not None:
            on_entry(key, int(stored[-1][at]), found, time.process_time() - clock)
        if found != int(stored[-1][at]):
            problems.append(f"{book.path}: ply {book.depth}, key {key:#x}: holds {int(stored[-1][at])}, the engine finds {found}")
    return BookCheck(book.path, book.checksum, book.depth, derived, int(picked.size), int(levels[-1].size), seed, tuple(problems), time.monotonic() - started)


def _levels(book: search.TableBook) -> tuple[list[np.ndarray], list[str]]:
    """The game's positions of each ply up to the book's depth, generated ply by ply and stopped at the first ply
    whose count is not the header's (a problem then): a header claiming plies its arrays do not hold costs no more."""
    levels: list[np.ndarray] = []
    for ply, level in search.positions(book.game, book.depth):
        if level.size != book.plies[ply]:
            return levels, [f"{book.path}: holds {book.plies[ply]:,} positions of ply {ply}, and the game has {level.size:,}"]
        levels.append(level)
    if len(levels) != book.depth + 1:
        return levels, [f"{book.path}: claims depth {book.depth}, and the game has no position of ply {len(levels)} whose game goes on"]
    return levels, []


def _check_derivation(book: search.TableBook, levels: Sequence[np.ndarray], stored: Sequence[np.ndarray], problems: list[str]) -> int:
    """Check every shallower entry against its children's (a problem for each of the first ten wrong a ply); the entries checked."""
    derived = 0
    for ply in range(book.depth):
        expected = search.derive_all(book.game, levels[ply : ply + 2], stored[ply + 1])[0]
        wrong = np.flatnonzero(expected != stored[ply])
        derived += levels[ply].size
        for at in wrong[:10].tolist():
            problems.append(f"{book.path}: ply {ply}, key {int(levels[ply][at]):#x}: holds {int(stored[ply][at])}, its children give {int(expected[at])}")
    return derived


@dataclass(frozen=True)
class VerifyPlan:
    """What :func:`verify_book` of a book file will check, read from its header alone (:func:`verify_plan`)."""

    depth: int
    positions: int
    """Entries in all, plies 0 to ``depth``."""
    deepest: int
    """Entries of the deepest ply."""
    searched: int
    """Entries of the deepest ply searched again."""
    seconds: float
    """About how long their searches take on one core (:func:`seconds_per_position`)."""


def verify_plan(path: str | os.PathLike[str], game: Game, sample: int | None = DEFAULT_SAMPLE) -> VerifyPlan | None:
    """What :func:`verify_book` with this ``sample`` (None: all) will check and about how long it takes, from the
    file's header (nothing else read); None when the header cannot be read or does not describe a book (:func:`verify_book`
    then refuses the file)."""
    try:
        meta = open_table(path, game=game).header.meta
        depth, plies = int(meta["depth"]), [int(n) for n in meta["plies"]]
    except (TableError, KeyError, TypeError, ValueError):
        return None
    if len(plies) != depth + 1 or any(n <= 0 for n in plies):
        return None
    searched = plies[-1] if sample is None else min(sample, plies[-1])
    return VerifyPlan(depth, sum(plies), plies[-1], searched, searched * seconds_per_position(game, depth))


def _by_level(keys: np.ndarray, scores: np.ndarray, levels: Sequence[np.ndarray], problems: list[str], path: str | os.PathLike[str]) -> list[np.ndarray]:
    """Each ply's stored scores in the order of its keys (a missing key: a problem, and score 0 in its place)."""
    out = []
    for ply, level in enumerate(levels):
        at = np.minimum(np.searchsorted(keys, level), keys.size - 1)
        missing = keys[at] != level
        if missing.any():
            problems.append(f"{path}: lacks {int(missing.sum()):,} positions of ply {ply} (the first: key {int(level[np.flatnonzero(missing)[0]]):#x})")
        out.append(np.where(missing, 0, scores[at]).astype(np.int8))
    return out


def _sample(size: int, sample: int | None, seed: int) -> np.ndarray:
    """The positions of a ply to search: a seeded sample in ascending order, or all of them."""
    if sample is None or sample >= size:
        return np.arange(size)
    return np.sort(np.random.default_rng(seed).choice(size, size=sample, replace=False))


# -- trust ---------------------------------------------------------------------------------------
def open_trusted_book(path: str | os.PathLike[str], game: Game | str | None = None) -> search.TableBook:
    """The book at ``path`` (of ``game``; None: the game its header names), believed by the trust policy (module docstring) or refused.

    :raises TableError: naming the file, for a damaged or forged book, one whose proof finds a wrong entry, or one
        whose proof would take longer than :data:`PROOF_SECONDS` (then with the ``solve verify`` command that proves it).
    """
    book = search.open_book(path, game)
    if trust.expected_book_root(book.game, book.depth) is not None or trust.is_trusted(book.path.parent, book.game.name, "book", book.checksum):
        return book
    unknown = f"no checksum ships for a {book.game.name} book of depth {book.depth}, and this user did not build or prove this one"
    seconds = book.plies[-1] * seconds_per_position(book.game, book.depth)
    if seconds > PROOF_SECONDS:
        raise TableError(
            f"{book.path}: {unknown}; proving it (its {book.plies[-1]:,} entries of ply {book.depth} searched) takes about "
            f"{format_duration(seconds)} on 1 core: prove it with: solve verify --game {book.game.name} --table {book.path} --all "
            "(or --sample N for a sample of your choosing); it is believed after that"
        )
    check = check_book(book, sample=None)
    if check.problems:
        raise TableError(f"{book.path}: {unknown}, and it is wrong: {check.problems[0]}")
    trust.proved_here(book.path.parent, book.game, "book", book.checksum)
    return book


def record_book_check(check: BookCheck, game: Game) -> bool:
    """Trust a book ``solve verify`` checked without a problem (its deepest ply searched whole, or the sample the user
    chose): True when recorded; nothing to record for a book whose checksum ships."""
    if check.problems or trust.expected_book_root(game, check.depth) is not None:
        return False
    return trust.proved_here(check.path.parent, game, "book", check.checksum)
