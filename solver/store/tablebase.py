"""The :class:`Tablebase`: the one owner of the sources of answers, the open tables and the trust policy.

Modelled on python-chess's ``chess.syzygy.Tablebase``: one object holds every table opened
for it and answers positions from them; ``lookup`` raises where an answer cannot be had,
``get`` returns a default; :meth:`Tablebase.clear` (``close``) forgets every open table.

A look-up flows like this (``solver.lookup(board, game="4x4")``)::

    solver.api.lookup ── the default Tablebase (default_tablebase())
        └─ Tablebase.lookup: the game's table from the memo (one dictionary hit), else
           Tablebase.table: parse the game once, then ask each Source in order
              ├─ a source that holds no answer for the game declines (returns None)
              └─ LocalTables (last): the shipped table, else <table dir>/<game>.ttt,
                 else a build (asking for consent when it is long): solver.store.locate
        └─ Table.at(code): one read of the table, a Position (solver.tables.position)

**Sources.** A :class:`Source` is anything with a ``key`` and a ``table(game, want, tablebase)``
method that gives the game's :class:`~solver.tables.Table` or declines with None. The ones
here: :class:`LocalTables` (the shipped tables and a table directory, building what is
missing; never declines, so it comes last) and :class:`TableAt` (a table read block by block
at a URL or at ``$SOLVED_TICTACTOE_MIRROR``, :mod:`solver.store.urltable`). A search engine
and its book are one more source: :meth:`Tablebase.add_source` puts it first, and it answers
the games it can search (a ``Table`` whose ``at`` searches) and declines the others.

**Caches.** The tables a source gave, by game and the source's ``key``, and a memo of the
names and :class:`Game` objects look-ups were given (so a look-up of a known game costs
one dictionary hit). Both belong to the Tablebase and :meth:`Tablebase.clear` empties both.

**Trust.** Every table file this object opens passes :meth:`Tablebase.trust_or_prove` before it
answers (:func:`solver.store.locate.trust_or_prove`: a shipped checksum vouches for it, or this
user built or proved it, or the full consistency pass proves it when that takes at most a
minute); :meth:`Tablebase.record_proof` trusts a table proved by ``solve verify``.

``solver.lookup`` and the other functions of :mod:`solver.api` use :func:`default_tablebase`;
``solver.forget()`` clears it. The front ends (the CLI, the web app) take a Tablebase and
open tables only through it.

>>> tablebase = Tablebase()
>>> tablebase.lookup("XX./OO./...").best_moves
((0, 2),)
>>> tablebase.table("3x3").kind, tablebase.get("XXX/XXX/XXX") is None
('dense', True)
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np

from ..encoding.board import Board, parse
from ..encoding.drops import move_string_code
from ..encoding.moves import MoveSpec
from ..errors import InvalidBoardError, InvalidGameError, TableError
from ..rules.game import DEFAULT_GAME, Game, parse_game
from ..search.options import Progress
from ..storage import trust
from ..storage.fsutil import link_stays_inside
from ..tables import Kind, Scores, Table
from ..tables.position import Position
from ..words import count
from . import locate
from .book import book_game, book_path
from .bookproof import open_trusted_book, shipped_book_path
from .estimate import refuse_beyond_machine
from .locate import Consent
from .searched import SearchSource, searches_by
from .urltable import MIRROR_ENV, open_url_table, table_url

if TYPE_CHECKING:
    from ..search import TableBook
    from ..tables.analysis import GameAnalysis
    from .make import BuildHook

__all__ = ["MIRROR_ENV", "LocalTables", "Source", "TableAt", "Tablebase", "Want", "default_tablebase"]


@dataclass(frozen=True)
class Want:
    """What the caller of a table allows and wants to hear, handed to each :class:`Source`.

    :param build: for a missing table: None builds it when that takes at most a minute and a GiB of
        disk, else only when ``consent`` says yes; True whatever it costs; False never.
    :param on_build: called around a build (the CLI shows a notice and a progress bar).
    :param consent: asked with the estimate before a build that needs consent.
    :param notify: told what a build finds (another process building the same game: this one waits).
    :param on_load: called with the game just before a game answered by search loads its engine, at its first search (a
        position the book answers whole loads none): its compiled kernels, loaded in a second, or compiled once after
        an install (a minute or so; the CLI says so on a terminal).
    """

    build: bool | None = None
    on_build: BuildHook | None = None
    consent: Consent | None = None
    notify: Callable[[str], None] | None = None
    on_load: Callable[[Game], None] | None = None


class Source(Protocol):
    """A source of answers: a table directory, a URL, a search engine and its book.

    A source is asked for a game's table by :meth:`Tablebase.table`, in the Tablebase's order; the
    first that gives one answers, and the Tablebase keeps it under ``(game, key)`` until
    :meth:`Tablebase.clear`. A source that holds nothing for the game declines with None (the next
    one is asked); one that should hold it but cannot (a broken file, a build that needs consent)
    raises, as :class:`TableError` or :class:`~solver.errors.BuildNeedsConsent`.
    """

    @property
    def key(self) -> Hashable:
        """What the source reads, so that two equal sources share their open tables: ``("local", path)``, ``("url", url)``."""
        ...

    def table(self, game: Game, want: Want, tablebase: Tablebase) -> Table | None:
        """``game``'s answers (a :class:`~solver.tables.Table`), or None when this source holds none for it.

        :param want: what the caller allows (building, consent) and wants to hear.
        :param tablebase: the asking Tablebase: open files with :meth:`Tablebase.open_file`, so that its trust policy applies.
        """
        ...


@dataclass(frozen=True)
class LocalTables:
    """The shipped tables and a table directory (:mod:`solver.store.locate`), building a missing table.

    It never declines: a missing table is built (or refused with the estimate and the
    ``solve build`` command, or with ``build=False`` a :class:`TableError`), so it is the last source.

    :param directory: the table directory; None for the default (``$SOLVED_TICTACTOE_DIR``, else
        the user data directory: :func:`solver.store.locate.table_dir`).
    """

    directory: Path | None = None

    @property
    def key(self) -> Hashable:
        return ("local", self.directory)

    def table(self, game: Game, want: Want, tablebase: Tablebase) -> Table:
        path = locate.table_path(game, table_dir_=self.directory)
        inside = path != locate.shipped_path(game)
        if os.path.lexists(path) or want.build is False:
            return tablebase.open_file(path, game=game, follow_symlinks=not inside or link_stays_inside(path))
        if want.build is None:
            locate.ask_consent(game, path, want.consent)
        return locate.build_or_keep_in_memory(game, path, on_build=want.on_build, notify=want.notify)


@dataclass(frozen=True)
class TableAt:
    """A table read where a server keeps it, block by block (:mod:`solver.store.urltable`).

    :param url: the table file's URL, or a directory's that holds ``<game>.ttt``; None for
        ``$SOLVED_TICTACTOE_MIRROR``.
    :param checksum: the table's SHA-256 in hex, for a game without a shipped one.
    """

    url: str | None = None
    checksum: str | None = None

    @property
    def key(self) -> Hashable:
        return ("url", self.url, self.checksum)

    def table(self, game: Game, want: Want, tablebase: Tablebase) -> Table:
        return open_url_table(table_url(game, self.url), game=game, checksum=self.checksum)


_MEMO_SIZE = 256
"""Game names and objects the look-up memo keeps at most (a process asking about more games opens them anew)."""


class Tablebase:
    """The owner of the sources of answers, the open tables and the trust policy (module docstring).

    :param table_dir: the table directory of the last source (:class:`LocalTables`); None for the default.
    :param sources: the sources asked before it, in order (a URL, a table directory: :class:`Source`).
    :param search: answer a gravity game that no table holds, and whose table takes more than a minute to build
        (Connect Four), by search (:class:`~solver.store.searched.SearchSource`, asked just before the local tables).
    """

    def __init__(self, *, table_dir: str | os.PathLike[str] | None = None, sources: Iterable[Source] = (), search: bool = True) -> None:
        searched = [SearchSource()] if search else []
        self.sources: list[Source] = [*sources, *searched, LocalTables(None if table_dir is None else Path(table_dir))]
        """The sources, asked in this order; the local tables come last."""
        self._open: dict[tuple[Game, Hashable], Table] = {}
        """The tables the sources gave, by game and source key."""
        self._by_name: dict[str | None, Table] = {}
        """Look-ups' fast path (:attr:`opened`): a game name, or None for a look-up without ``game=`` (tic-tac-toe),
        maps to its table from :attr:`sources`."""
        self._by_game: dict[int, tuple[Game, Table]] = {}
        """The same for a :class:`Game` given as itself, by ``id`` (hashing a Game costs more than the look-up)."""
        self._opened_view: Mapping[str | None, Table] = MappingProxyType(self._by_name)
        self._books: dict[tuple[Game, Path | None], TableBook | None] = {}
        """The books :meth:`book` opened (or found missing), by game and table directory."""

    def __repr__(self) -> str:
        return f"<Tablebase: {count(len(self.sources), 'source')}, {count(len(self._open), 'open table')}>"

    # -- sources and tables -------------------------------------------------------------
    def add_source(self, source: Source) -> None:
        """Ask ``source`` before every source already here (the local tables stay last)."""
        self.sources.insert(0, source)
        self._forget_memo()

    def table(
        self,
        game: Game | str | None = None,
        *,
        table_dir: str | os.PathLike[str] | None = None,
        url: str | None = None,
        checksum: str | None = None,
        build: bool | None = None,
        on_build: BuildHook | None = None,
        consent: Consent | None = None,
        notify: Callable[[str], None] | None = None,
        on_load: Callable[[Game], None] | None = None,
    ) -> Table:
        """The table of ``game`` (default tic-tac-toe), from the first source that holds it, opened once.

        :param table_dir: use this table directory instead of the sources (:class:`LocalTables`).
        :param url: read the table at this URL instead (:class:`TableAt`; ``checksum`` for a game without a shipped one).
        :param build: None, True or False: see :class:`Want`. ``on_build``, ``consent``, ``notify``, ``on_load``: likewise
            (``on_load`` reaches a search table when it is first opened).
        :raises InvalidGameError: for a malformed game.
        :raises BuildNeedsConsent: for a missing table whose build needs consent that was not given.
        :raises TableError: for a broken table, or when no source holds the game's.
        """
        resolved = parse_game(game)
        want = Want(build, on_build, consent, notify, on_load)
        if url is not None:
            return self.table_from(TableAt(url, checksum), resolved, want)
        sources = self.sources if table_dir is None else self._sources_in(Path(table_dir))
        for source in sources:
            found = self._open.get((resolved, source.key)) or self._ask(source, resolved, want)
            if found is not None:
                return found
        raise TableError(f"no source holds the {resolved.name} table (asked: {', '.join(type(s).__name__ for s in self.sources)})")

    def _sources_in(self, table_dir: Path) -> list[Source]:
        """The sources of ``table(..., table_dir=...)``: the search (when this Tablebase searches), with the books and
        tables of that directory, then its local tables (Connect Four's book built there is read there)."""
        searched = [replace(source, directory=table_dir) for source in self.sources if isinstance(source, SearchSource)]
        return [*searched, LocalTables(table_dir)]

    def table_from(self, source: Source, game: Game, want: Want | None = None) -> Table:
        """``game``'s table from ``source`` alone (kept with the others until :meth:`clear`).

        :raises TableError: if the source declines.
        """
        found = self._open.get((game, source.key)) or self._ask(source, game, want or Want())
        if found is None:
            raise TableError(f"{type(source).__name__} holds no {game.name} table")
        return found

    def _ask(self, source: Source, game: Game, want: Want) -> Table | None:
        found = source.table(game, want, self)
        if found is not None:
            self._open[(game, source.key)] = found
        return found

    def get_table(self, game: Game | str | None = None, default: Any = None) -> Table | Any:
        """Like :meth:`table`, but ``default`` when no table is at hand: nothing is built, and a missing,
        broken or untrusted table, or a game no source holds, gives ``default``."""
        try:
            return self.table(game, build=False)
        except (TableError, InvalidGameError):
            return default

    def resolve(self, game: Game | str | None = None, table: Table | None = None) -> Table:
        """``table`` if given (checked against ``game``), else :meth:`table` of ``game`` (default tic-tac-toe).

        :raises InvalidGameError: if both are given and disagree.
        """
        if table is None:
            return self.table(game)
        if game is not None and parse_game(game) != table.game:
            raise InvalidGameError(f"game {parse_game(game).name} does not match the table's game {table.game.name}")
        return table

    def open_file(
        self,
        path: str | os.PathLike[str],
        *,
        game: Game | str | None = None,
        kind: Kind | None = None,
        verify: bool | None = None,
        follow_symlinks: bool = True,
        prove_untrusted: bool = True,
    ) -> Table:
        """Open a table file (either kind; the header says which), trusted by :meth:`trust_or_prove` before it answers.

        :param kind: ``"dense"`` or ``"compact"`` to refuse a file of the other kind.
        :param verify: for a dense table, hash every block now (None: for tables of up to 8 MiB).
        :param prove_untrusted: False leaves an untrusted table to the caller (``solve verify`` proves it).
        :raises TableError: for a missing, broken, forged or mismatched file, or an untrusted one that cannot be believed.
        """
        resolved = None if game is None else parse_game(game)
        table = locate.open_file(path, game=resolved, kind=kind, verify=verify, follow_symlinks=follow_symlinks, prove_untrusted=False)
        if prove_untrusted:
            self.trust_or_prove(table)
        return table

    def open_url(self, url: str, *, game: Game | str | None = None, checksum: str | None = None) -> Table:
        """The table at ``url`` (a file's URL; with ``game``, a directory's too), read block by block
        (:class:`TableAt`); without ``game``, of the game its header names.

        :raises TableError: for a URL that is not http(s), a server that fails, or a table without a known checksum.
        """
        if game is not None:
            return self.table(game, url=url, checksum=checksum)
        return open_url_table(url, checksum=checksum)

    # -- books ------------------------------------------------------------------------------
    def book(self, game: Game | str, *, table_dir: str | os.PathLike[str] | None = None) -> TableBook | None:
        """``game``'s opening book, for a game answered by search and a book (Connect Four: :func:`solver.store.book.book_game`),
        opened once and kept until :meth:`clear`: ``<game>.ttt`` of the first table directory that holds one
        (``solve build`` or ``solve fetch`` put it there), else the one the package ships; None for a game with neither.

        A book is believed as a table is (:func:`solver.store.bookproof.open_trusted_book`): its shipped checksum, or this
        user built or proved it, or it is proved now when that takes at most a minute; else it is refused.

        :raises TableError: naming the file, for a damaged, forged, wrong or unproved book.
        """
        resolved = parse_game(game)
        where = (resolved, None if table_dir is None else Path(table_dir))
        if where in self._books:
            return self._books[where]
        found = _open_book(resolved, self.table_dirs(table_dir)) if book_game(resolved) else None
        if len(self._books) >= _MEMO_SIZE:
            self._books.clear()
        self._books[where] = found
        return found

    # -- trust ------------------------------------------------------------------------------
    def trust_or_prove(self, table: Table) -> None:
        """Check a table opened from a file before its first answer, unless its checksum vouches for it
        (:func:`solver.store.locate.trust_or_prove`).

        :raises TableError: if it is refuted, or proving it takes longer than a minute.
        """
        locate.trust_or_prove(table)

    def believe(self, table: Table) -> None:
        """Deprecated alias of :meth:`trust_or_prove`: the old name did not say that an untrusted table is proved."""
        warnings.warn("Tablebase.believe is deprecated: use Tablebase.trust_or_prove", DeprecationWarning, stacklevel=2)
        self.trust_or_prove(table)

    def record_proof(self, table: Table) -> None:
        """Trust a table that was just proved whole (``solve verify``) from now on, if no checksum ships for it."""
        if table.file is not None:
            trust.proved_here(table.file.path.parent, table.game, table.kind, table.sha256)

    # -- answers ----------------------------------------------------------------------------
    @property
    def opened(self) -> Mapping[str | None, Table]:
        """The tables look-ups found so far, by the ``game=`` they were asked with: a game name, or None for
        tic-tac-toe (a read-only view, the same object for the Tablebase's life; :meth:`clear` empties it).
        A caller's hot path reads it before it asks :meth:`lookup` (``solver.lookup`` does)."""
        return self._opened_view

    def _remembered(self, game: Game | str | None) -> Table:
        """The table of ``game`` from the sources, remembered for the next look-up."""
        table = self.table(DEFAULT_GAME if game is None else game)
        if len(self._by_name) + len(self._by_game) < _MEMO_SIZE:
            if type(game) is Game:
                self._by_game[id(game)] = (game, table)  # the game is kept alive, so its id is not reused
            elif game is None or type(game) is str:
                self._by_name[game] = table
        return table

    def _forget_memo(self) -> None:
        self._by_name.clear()
        self._by_game.clear()

    def table_of(self, game: Game | str | None) -> Table:
        """The table of ``game=`` (tic-tac-toe for None) as a look-up finds it: from the memo when it was asked for before."""
        if game is None or type(game) is str:
            return self._by_name.get(game) or self._remembered(game)
        entry = self._by_game.get(id(game))
        return entry[1] if entry is not None and entry[0] is game else self._remembered(game)

    def lookup(self, board: Board | None, *, game: Game | str | None = None, budget: float | None = None, progress: Progress | None = None) -> Position:
        """Solve a position (:func:`solver.lookup`); None, like any other thing that is not a board, is refused.

        :param budget: for a game answered by search (Connect Four), the seconds the search may take
            (:class:`~solver.errors.SearchTimeout` beyond); None for no limit. A table's look-up ignores it.
        :param progress: for a search, called with the nodes searched and the seconds elapsed.

        :raises InvalidBoardError: saying what is wrong with the board and where.
        :raises InvalidGameError: for a malformed or unsupported ``game``.
        :raises BuildNeedsConsent: if the game's table is missing and building it needs consent.
        :raises TableError: if the table is broken.
        """
        # table_of() written out: this is the look-up hot path.
        if game is None or type(game) is str:
            table = self._by_name.get(game) or self._remembered(game)
        else:
            entry = self._by_game.get(id(game))
            table = entry[1] if entry is not None and entry[0] is game else self._remembered(game)
        if budget is not None or progress is not None:
            table = table.bounded(budget, progress)
        if type(board) is int:
            return table.at(board)
        return table.at(parse(cast(Board, board), table.game)[1])  # None is refused by the board reader, as any other non-board

    def lookup_moves(self, moves: str, *, game: Game | str | None = None, budget: float | None = None, progress: Progress | None = None) -> Position:
        """The position a move string reaches, solved (:func:`solver.lookup` with ``moves=``): a game answered by search
        plays it on the engine's bitboards (:meth:`~solver.store.searched.SearchTable.at_moves`), a table reads its code.

        :raises InvalidBoardError: naming the move that cannot be played; otherwise as :meth:`lookup`.
        """
        table = self._by_name.get(game) if game is None or type(game) is str else None
        if table is None:  # the first look-up of the game: a string that cannot be played is refused before a table is opened or built
            move_string_code(moves, parse_game(game))
            table = self.table_of(game)
        if budget is not None or progress is not None:
            table = table.bounded(budget, progress)
        return table.at_moves(moves)

    def get(self, board: Board, default: Any = None, *, game: Game | str | None = None, budget: float | None = None) -> Position | Any:
        """Like :meth:`lookup`, but returns ``default`` for an invalid board."""
        try:
            return self.lookup(board, game=game, budget=budget)
        except InvalidBoardError:
            return default

    def best_move(self, board: Board, *, game: Game | str | None = None, budget: float | None = None) -> tuple[int, int] | int:
        """One best move (:func:`solver.best_move`): one look-up, its best move read from it (:attr:`Position.best_move`).

        :raises InvalidBoardError: for an invalid board, or when the game is over.
        """
        return self.lookup(board, game=game, budget=budget).best_move

    def lookup_codes(self, codes: np.ndarray | Iterable[int], *, game: Game | str | None = None, check: bool = True, budget: float | None = None) -> Scores:
        """Vectorised :meth:`lookup` over an array of codes (:meth:`solver.tables.Table.lookup_codes`); a game answered by
        search is searched position by position, slowly, ``budget`` seconds at most for the whole batch."""
        table = self.table_of(game)
        return (table if budget is None else table.bounded(budget)).lookup_codes(codes, check=check)

    def analyze(self, moves: Iterable[MoveSpec], *, game: Game | str | None = None, table: Table | None = None, budget: float | None = None) -> GameAnalysis:
        """Replay a game from the empty board and judge every ply (:func:`solver.tables.analysis.analyze`); for a game
        answered by search, ``budget`` bounds the whole analysis (seconds, from this call), and the plies whose
        positions are not answered by then are named as not judged (:attr:`GameAnalysis.unjudged`)."""
        from ..tables import analysis  # here: a process that analyses no game loads no analysis

        found = self.table_of(game) if table is None else self.resolve(game, table)
        if budget is None or not found.searches:
            return analysis.analyze(moves, table=found)
        with searches_by(time.monotonic() + budget):
            return analysis.analyze(moves, table=found.bounded(budget))

    def build(self, game: Game | str, path: str | os.PathLike[str], **options: Any) -> Table:
        """Build ``game``'s table into ``path`` and open it from there (:func:`solver.store.locate.build_and_open`, same options:
        ``on_build``, ``jobs``, ``scheduler``, ``notify``, ``force``); a game past this machine is refused first.

        :raises GameTooLargeError: for a game past this machine (Connect Four), with the estimate and the cluster command.
        """
        resolved = parse_game(game)
        refuse_beyond_machine(resolved, path)
        return locate.build_and_open(resolved, path, **options)

    def path_of(self, game: Game | str | None = None, *, table_dir: str | os.PathLike[str] | None = None) -> Path:
        """The file that holds (or will hold) ``game``'s table in the local tables (:func:`solver.store.locate.table_path`)."""
        return locate.table_path(parse_game(game), table_dir_=table_dir if table_dir is not None else self._local_dir())

    def table_dir(self, table_dir: str | os.PathLike[str] | None = None) -> Path:
        """The directory that holds built tables (:func:`solver.store.locate.table_dir`)."""
        return locate.table_dir(table_dir if table_dir is not None else self._local_dir())

    def table_dirs(self, table_dir: str | os.PathLike[str] | None = None) -> Sequence[Path]:
        """The directories the local tables are looked for in (:func:`solver.store.locate.table_dirs`)."""
        return locate.table_dirs(table_dir if table_dir is not None else self._local_dir())

    def _local_dir(self) -> Path | None:
        last = self.sources[-1]
        return last.directory if isinstance(last, LocalTables) else None

    # -- forgetting -------------------------------------------------------------------------
    def clear(self) -> None:
        """Forget every open table and book and the look-up memo: the next look-up opens its table afresh (for tests,
        long-lived processes, and after a table file may have changed); the warnings said once are said again."""
        self._open.clear()
        self._books.clear()
        self._forget_memo()
        locate.forget_warnings()

    close = clear
    """python-chess's name for :meth:`clear`."""

    def __enter__(self) -> Tablebase:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None) -> None:
        self.clear()


_default: Tablebase | None = None


def default_tablebase() -> Tablebase:
    """The Tablebase that :mod:`solver.api`'s functions (``solver.lookup``, ...) and the grader use, made on first use."""
    global _default
    if _default is None:
        _default = Tablebase()
    return _default


def table_for(game: Game = DEFAULT_GAME, **options: Any) -> Table:
    """The default Tablebase's :meth:`Tablebase.table` (``table_dir``, ``url``, ``checksum``, ``build``, ``on_build``, ``consent``, ``notify``,
    ``on_load``)."""
    return default_tablebase().table(game, **options)


def resolve_table(game: Game | None = None, table: Table | None = None) -> Table:
    """The default Tablebase's :meth:`Tablebase.resolve`."""
    return default_tablebase().resolve(game, table)


def forget() -> None:
    """Clear the default Tablebase (:meth:`Tablebase.clear`): ``solver.forget()``."""
    default_tablebase().clear()


def _open_book(game: Game, directories: Iterable[Path]) -> TableBook | None:
    """``game``'s book in the first of ``directories`` that holds one, else the shipped one, else None (:meth:`Tablebase.book`)."""
    for directory in directories:
        path = book_path(Path(directory), game)
        if path.is_file():
            return open_trusted_book(path, game)
    shipped = shipped_book_path(game)
    return None if shipped is None else open_trusted_book(shipped, game)
