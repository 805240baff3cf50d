"""Building a game's opening book: the deepest ply searched in chunks, resumably, on local cores or a Dask cluster.

A book (:mod:`solver.search.book`) holds every position of a gravity game up to ``depth`` pieces with
its exact score. Only the deepest ply is searched, by the engine (:class:`solver.search.engine.Engine`);
every shallower ply is derived from the one below it (:func:`solver.search.plies.derive_all`). The
search is the cost, so it runs in **chunks**: the deepest ply's sorted canonical keys cut into runs of
:data:`CHUNK_POSITIONS` (or ``chunk``), chunk ``i`` the keys ``i * chunk`` to ``(i + 1) * chunk - 1``
(fixed by the game, the depth and the chunk size, which ``plan.json`` records, so a resumed build cuts them
the same way).

**The build directory** ``<book>.build`` beside the book file holds, each file written atomically
(:func:`solver.storage.fsutil.atomic_file`) and none of them pickled:

===================  ==============================================================================
file                 content
===================  ==============================================================================
``plan.json``        the game, the depth, the chunk size, the deepest ply's positions and the SHA-256
                     of its keys: a directory of another book is refused, never mixed in
``keys.bin``         the deepest ply's keys: :data:`MAGIC`, the SHA-256 of the rest, ``uint64`` keys
``chunk-NNNNNN.bin`` a chunk's results: :data:`MAGIC`, the SHA-256 of the rest, the count
                     (``uint32``), the score bytes (``int8``), the CPU seconds the search took
                     (``float64``), little-endian
``wall.txt``         the wall seconds of the runs stopped so far (for the figures)
===================  ==============================================================================

A chunk file whose digest or size is wrong is removed and searched again (the build says so). A build
killed at any moment keeps every chunk it finished, and the same command resumes it; since each score
is exact, the chunks give the same bytes in any order, on any machine, and the book file is the same
bytes as a build that was never stopped. Chunks run in a pool of processes, one engine each
(:func:`build_book`), or as tasks of a Dask cluster that see the build directory at the same path
(``scheduler``: :mod:`solver.retrograde.cluster`'s client); each task writes its own chunk file. To stop a
build in the background, signal its process group (``kill -- -PGID``): the pool's processes go with it.

When every chunk is there, the book file is written (:func:`solver.search.book.write_book`), the
build's figures beside it (``<book>.figures.json``: depth, positions, chunks, the search's CPU
seconds, the wall time of the runs; the book's bytes hold none of them), and the build directory
is removed.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import search  # its names load numba when first used (solver.search.options)
from ..errors import BuildError, InvalidGameError
from ..rules.game import CONNECT_FOUR, TABLE_CELLS, Game
from ..storage import trust
from ..storage.fsutil import atomic_file, directory_lock, empty_private_directory, format_size
from .estimate import BuildEstimate, format_duration
from .locate import packaged_file

MAGIC = b"SOLVBOOK"
"""The first bytes of a build directory's ``keys.bin`` and chunk files."""

CHUNK_POSITIONS = 16
"""Positions of the deepest ply a chunk holds: about a minute of search at Connect Four's ply 6 on one core, so a
killed build loses little and a cluster's workers share the work evenly."""

TABLE_BYTES = 256 << 20
"""Each build process's transposition table (256 MiB; its entries help the next positions of the chunk)."""

DEFAULT_DEPTH = {CONNECT_FOUR: 9}
"""The depth of the book ``solve build`` makes, by game (chosen by measurement: docs/connect4.md); other
games get :data:`SMALL_DEPTH`."""
SMALL_DEPTH = 4

SECONDS_PER_POSITION = {
    CONNECT_FOUR: {4: 13.7, 5: 6.9, 6: 5.4, 7: 5.7, 8: 0.24, 9: 0.13},
    Game(6, 6, 4, "gravity"): {4: 0.6},
    Game(5, 7, 4, "gravity"): {4: 0.9},
}
"""CPU seconds the engine takes for one position of the deepest ply, by game and ply. Connect Four's plies 4 to 7:
means over seeded samples, measured 2026-11-28 on the project's 2-core machine under a load average of 13 to 23,
a fresh 128 MiB table each, 3 to 8 positions a ply (docs/connect4.md). Its ply 8: the depth-8 build itself, 0.24 s a position over all 91,295
(21,968 CPU seconds, 2026-12-03, chunks of 16 positions on one 256 MiB table a process, at ``nice 19``, beside other work;
a fresh table a position costs more). Its ply 9: the depth-9 build, 0.13 s a position over all 269,531 (34,523 CPU
seconds, 2026-12-03; a third of its chunks searched before the build used the depth-8 book's floor
(:func:`floor_book`), which made the later chunks about twice as fast). 6x6k4-gravity's and 5x7k4-gravity's ply 4 (their books'
default depth): 3 seeded positions each, 0.33 to 0.86 s and 0.17 to 1.62 s (2026-12-02, load about 3).
A ply not listed takes the nearest listed ply's figure (shallower positions cost more: an estimate of ply 2 errs short);
a game not listed: :data:`SMALL_SECONDS_PER_POSITION`."""
SMALL_SECONDS_PER_POSITION = 0.01

Progress = Callable[[int, int], None]
"""Called with the chunks done so far and the chunks in all, after each chunk."""


def default_depth(game: Game) -> int:
    """The depth of ``game``'s book when none is asked for (:data:`DEFAULT_DEPTH`)."""
    return DEFAULT_DEPTH.get(game, SMALL_DEPTH)


def book_path(table_dir: Path, game: Game) -> Path:
    """Where ``game``'s book lives in a table directory: ``<game>.ttt``, the file a table of the game would be
    (Connect Four's only table is its book; ``solve fetch`` fetches it as any table)."""
    return table_dir / f"{game.name}.ttt"


@dataclass(frozen=True)
class BookFigures:
    """What a book build measured (kept beside the book, ``<book>.figures.json``)."""

    game: str
    depth: int
    positions: int
    """Positions in the book, plies 0 to ``depth``."""
    searched: int
    """Positions of the deepest ply, each searched by the engine."""
    chunks: int
    cpu_seconds: float
    """The engine's CPU seconds over every chunk (each chunk's own figure, whoever ran it)."""
    wall_seconds: float
    """Wall time of the runs that built it (a resumed build adds each run's)."""
    jobs: int
    bytes: int
    checksum: str

    def to_json(self) -> dict[str, Any]:
        """The figures as the JSON file holds them."""
        return dict(self.__dict__)


def figures_path(path: Path) -> Path:
    """The file beside a book that holds its build's figures."""
    return path.with_name(path.name + ".figures.json")


def read_figures(path: Path) -> BookFigures | None:
    """The figures of the build of the book at ``path``, or None when none were kept (a fetched book)."""
    try:
        data = json.loads(figures_path(path).read_text())
        return BookFigures(**data)
    except (OSError, ValueError, TypeError):
        return None


def estimate_book(game: Game, path: Path, *, depth: int | None = None, jobs: int | None = None) -> BuildEstimate:
    """What building ``game``'s book into ``path`` costs: the chunks not yet in ``<path>.build`` times the measured
    seconds a position (:data:`SECONDS_PER_POSITION`) over the cores; disk, the book (9 bytes a position); memory,
    a table a process. Counting the positions walks the plies (seconds for Connect Four at depth 8)."""
    game = search.engine_game(game)
    depth = default_depth(game) if depth is None else depth
    jobs = jobs or os.cpu_count() or 1
    counts = [keys.size for _, keys in search.positions(game, depth)]
    if len(counts) <= depth:
        raise InvalidGameError(f"{game.name} has no position with {depth} pieces whose game goes on: a book goes to ply {len(counts) - 1} at most")
    chunks = -(-counts[-1] // CHUNK_POSITIONS)
    done = len(_done_chunks(path.with_name(path.name + ".build"), chunks))
    left = max(0, counts[-1] - done * CHUNK_POSITIONS)
    rate = seconds_per_position(game, depth)
    return BuildEstimate(game, left * rate / min(jobs, max(1, chunks - done)), 9 * sum(counts), jobs * TABLE_BYTES + 32 * sum(counts), jobs)


def seconds_per_position(game: Game, ply: int) -> float:
    """CPU seconds the engine takes for one position of ``game``'s ply ``ply``, without a book (:data:`SECONDS_PER_POSITION`:
    the nearest measured ply, ten times more a ply shallower than the shallowest measured; :data:`SMALL_SECONDS_PER_POSITION`
    for a game not measured)."""
    measured = SECONDS_PER_POSITION.get(game, {})
    if not measured:
        return SMALL_SECONDS_PER_POSITION
    shallowest = min(measured)
    if ply < shallowest:  # shallower positions cost more, by far: ten times a ply is a floor, not a measure
        return measured[shallowest] * 10.0 ** (shallowest - ply)
    return measured[min(measured, key=lambda listed: abs(listed - ply))]


# -- the build directory --------------------------------------------------------------------------
def _sealed(payload: bytes) -> bytes:
    return MAGIC + hashlib.sha256(payload).digest() + payload


def _unsealed(path: Path) -> bytes | None:
    """The payload of a build file whose magic and digest hold, else None."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    if raw[:8] != MAGIC or hashlib.sha256(raw[40:]).digest() != raw[8:40]:
        return None
    return raw[40:]


def _write(path: Path, data: bytes) -> None:
    with atomic_file(path, needed=len(data)) as out:
        out.write(data)


def chunk_name(index: int) -> str:
    """The file of chunk ``index`` in a build directory."""
    return f"chunk-{index:06d}.bin"


def read_chunk(directory: Path, index: int, size: int) -> tuple[np.ndarray, float] | None:
    """Chunk ``index``'s scores and CPU seconds when its file is whole and holds ``size`` positions, else None."""
    payload = _unsealed(directory / chunk_name(index))
    if payload is None or len(payload) != 4 + size + 8 or int.from_bytes(payload[:4], "little") != size:
        return None
    scores = np.frombuffer(payload[4 : 4 + size], dtype=np.int8).copy()
    return scores, float(np.frombuffer(payload[4 + size :], dtype="<f8")[0])


def _done_chunks(directory: Path, chunks: int) -> list[int]:
    """The chunks whose files are there (not yet checked: :func:`read_chunk` checks them)."""
    if not directory.is_dir():
        return []
    return [i for i in range(chunks) if (directory / chunk_name(i)).is_file()]


def _plan(game: Game, depth: int, keys: np.ndarray, chunk: int) -> dict[str, Any]:
    return {
        "game": game.name,
        "depth": depth,
        "chunk_positions": chunk,
        "positions": int(keys.size),
        "keys_sha256": hashlib.sha256(keys.tobytes()).hexdigest(),
    }


def _prepare(directory: Path, game: Game, depth: int, keys: np.ndarray, chunk: int, notify: Callable[[str], None]) -> None:
    """Write the plan and the keys into a fresh build directory, or check that the one there is this book's."""
    plan = _plan(game, depth, keys, chunk)
    plan_file = directory / "plan.json"
    if plan_file.exists():
        try:
            found = json.loads(plan_file.read_text())
        except ValueError:
            found = None
        if found != plan:
            raise BuildError(
                f"{directory} holds the build of another book ({str(found)[:160]}), not {game.name}'s to depth {depth} in chunks of {chunk}: "
                "remove it, or build that book into its own file"
            )
        chunks = -(-keys.size // chunk)
        notify(f"Resuming the {game.name} book build in {directory}: {len(_done_chunks(directory, chunks)):,} of {chunks:,} chunks done")
    else:
        _write(directory / "plan.json", json.dumps(plan, sort_keys=True).encode("ascii"))
    if _unsealed(directory / "keys.bin") != keys.tobytes():
        _write(directory / "keys.bin", _sealed(keys.astype("<u8").tobytes()))


def _plan_depth(directory: Path) -> int:
    try:
        depth = json.loads((directory / "plan.json").read_text()).get("depth")
    except (OSError, ValueError, AttributeError):
        depth = None
    if type(depth) is not int:
        raise BuildError(f"{directory / 'plan.json'} is damaged: remove {directory} and build again")
    return depth


def _load_keys(directory: Path) -> np.ndarray:
    payload = _unsealed(directory / "keys.bin")
    if payload is None:
        raise BuildError(f"{directory / 'keys.bin'} is damaged: remove {directory} and build again")
    return np.frombuffer(payload, dtype="<u8")


# -- the search of a chunk (in a worker process or a Dask task) ------------------------------------
_engines = threading.local()


def _engine(game: Game, table_bytes: int, depth: int) -> search.Engine:
    """This thread's engine for a build of ``game``'s book to ``depth`` (one a process in a pool; one a thread in a
    Dask worker), with the book one ply shallower where the package ships it (:func:`floor_book`)."""
    found: search.Engine | None = getattr(_engines, "engine", None)
    if found is None or getattr(_engines, "made_for", None) != (game, table_bytes, depth):
        found = _engines.engine = search.Engine(game, table_bytes=table_bytes, threads=1, book=floor_book(game, depth))
        _engines.made_for = (game, table_bytes, depth)
    return found


def floor_book(game: Game, depth: int) -> search.TableBook | None:
    """The book a build to ``depth`` searches with: the one the package ships for ``game`` when it is exactly one ply
    shallower (its checksum the shipped one), else None.

    Every position of the build's deepest ply then scores at least its parents' scores negated
    (:func:`solver.search.negamax.book_floor`), and exactly that when it is a best move's child, which one null-window
    probe proves: a fifth fewer positions searched on two of the depth-9 build's chunks (docs/connect4.md). A deeper
    book is never used (it would answer the positions the build is to search), and the proof of a book
    (:func:`solver.store.bookproof.check_book`) searches with none, so a build's entries are checked by a search that
    owes nothing to the shallower book.
    """
    path = packaged_file(f"{game.name}.ttt")
    expected = trust.expected_book_root(game, depth - 1)
    if path is None or expected is None:
        return None
    book = search.open_book(path, game)
    return book if book.depth == depth - 1 and book.checksum == expected else None


def run_chunk(directory: str, game_name: str, index: int, chunk: int = CHUNK_POSITIONS, table_bytes: int = TABLE_BYTES) -> tuple[int, float]:
    """Search chunk ``index`` of the build in ``directory`` and write its chunk file; ``(index, CPU seconds)``.

    A task of the pool and of the cluster alike: it reads the keys from the build directory, so the
    client sends only names and numbers. The seconds are the process's CPU time while the chunk ran (the
    engine searches in a thread of its own; a Dask worker running several tasks at once counts theirs too).
    """
    where = Path(directory)
    game = search.engine_game(game_name)
    keys = _load_keys(where)[index * chunk : (index + 1) * chunk]
    engine = _engine(game, table_bytes, _plan_depth(where))
    start = time.process_time()
    scores = np.array([engine.score(search.position_of_key(game, int(key))) for key in keys], dtype=np.int8)
    seconds = time.process_time() - start
    payload = int(keys.size).to_bytes(4, "little") + scores.tobytes() + np.array([seconds], dtype="<f8").tobytes()
    _write(where / chunk_name(index), _sealed(payload))
    return index, seconds


# -- running the chunks -----------------------------------------------------------------------------
Runner = Callable[[Path, Game, Sequence[int], int], Iterator[tuple[int, float]]]
"""Runs the chunks ``todo`` of a build directory (chunks of ``chunk`` positions), yielding each one's result as it is written."""


def _local_runner(jobs: int, table_bytes: int) -> Runner:
    """A pool of ``jobs`` processes, one engine each; one job runs the chunks in this process."""

    def inline(directory: Path, game: Game, todo: Sequence[int], chunk: int) -> Iterator[tuple[int, float]]:
        for index in todo:
            yield run_chunk(str(directory), game.name, index, chunk, table_bytes)

    def run(directory: Path, game: Game, todo: Sequence[int], chunk: int) -> Iterator[tuple[int, float]]:
        import multiprocessing  # here: only a book's build starts processes (a look-up loads no multiprocessing)

        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            futures = [pool.submit(run_chunk, str(directory), game.name, index, chunk, table_bytes) for index in todo]
            try:
                for future in concurrent.futures.as_completed(futures):
                    yield future.result()
            except BaseException:
                for future in futures:
                    future.cancel()
                raise

    return inline if jobs == 1 else run


def _cluster_runner(scheduler: Any, table_bytes: int) -> Runner:
    from ..retrograde.cluster import connected_client, distributed_module

    def run(directory: Path, game: Game, todo: Sequence[int], chunk: int) -> Iterator[tuple[int, float]]:
        client, owned = connected_client(scheduler)
        try:
            tag = secrets.token_hex(4)
            futures = [
                client.submit(run_chunk, str(directory), game.name, index, chunk, table_bytes, pure=False, key=f"solver-book-{game.name}-{index}-{tag}")
                for index in todo
            ]
            for future in distributed_module().as_completed(futures):
                yield future.result()
                future.release()
        finally:
            if owned:
                client.close()

    return run


def build_book(
    game: Game | str,
    path: str | os.PathLike[str],
    *,
    depth: int | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    table_bytes: int = TABLE_BYTES,
    chunk: int = CHUNK_POSITIONS,
    progress: Progress | None = None,
    notify: Callable[[str], None] | None = None,
) -> BookFigures:
    """Build ``game``'s book of ``depth`` plies into ``path``, resuming what ``<path>.build`` holds (module docstring).

    :param jobs: worker processes on this machine (default: every core); ignored with ``scheduler``.
    :param scheduler: a Dask scheduler's address or a ``distributed.Client``: the chunks run there, and the
        build directory must be at the same path on every worker.
    :param chunk: positions a chunk (recorded in the build directory: a resumed build must be given the same).
    :param progress: called with ``(chunks done, chunks)`` after each chunk, and once before the first.
    :param notify: told in a line that the build resumes, or that a damaged chunk is searched again.
    :raises BuildError: for a build directory of another book; :raises InvalidGameError: for a game the engine does not play.
    """
    game = search.engine_game(game)
    target = Path(path)
    depth = default_depth(game) if depth is None else depth
    say = notify or (lambda line: None)
    jobs = jobs or os.cpu_count() or 1
    started = time.monotonic()
    levels = [keys for _, keys in search.positions(game, depth)]
    if len(levels) <= depth:
        raise InvalidGameError(f"{game.name} has no position with {depth} pieces whose game goes on: a book goes to ply {len(levels) - 1} at most")
    deepest = levels[-1]
    directory = target.with_name(target.name + ".build")
    chunks = -(-deepest.size // chunk)
    with directory_lock(directory, on_wait=say):
        _prepare(directory, game, depth, deepest, chunk, say)
        todo = _chunks_left(directory, deepest.size, chunk, say)
        runner = _cluster_runner(scheduler, table_bytes) if scheduler is not None else _local_runner(jobs, table_bytes)
        done = chunks - len(todo)
        if progress is not None:
            progress(done, chunks)
        try:
            for _ in runner(directory, game, todo, chunk) if todo else ():
                done += 1
                if progress is not None:
                    progress(done, chunks)
        except BaseException:
            record_wall(directory, time.monotonic() - started)
            raise
        scores, cpu = _gather(directory, deepest.size, chunk)
        search.write_book(target, game, levels, search.derive_all(game, levels, scores))
        wall = time.monotonic() - started + _earlier_wall(directory)
        book = search.open_book(target, game)
        trust.built_here(target.parent, game, "book", book.checksum)  # built here: believed from now on, as a built table is
        figures = BookFigures(
            game.name, depth, int(sum(level.size for level in levels)), int(deepest.size), chunks, cpu, wall, jobs, target.stat().st_size, book.checksum
        )
        _write(figures_path(target), json.dumps(figures.to_json(), sort_keys=True, indent=1).encode("ascii"))
        empty_private_directory(directory)
    return figures


def record_wall(directory: Path, seconds: float) -> None:
    """Add a run's wall time to the build directory's (kept across resumed runs for the figures)."""
    _write(directory / "wall.txt", f"{_earlier_wall(directory) + seconds:.3f}".encode("ascii"))


def _earlier_wall(directory: Path) -> float:
    try:
        return float((directory / "wall.txt").read_text())
    except (OSError, ValueError):
        return 0.0


def _chunks_left(directory: Path, positions_: int, chunk: int, say: Callable[[str], None]) -> list[int]:
    """The chunks with no whole file; a damaged file is removed (and said)."""
    todo = []
    for index in range(-(-positions_ // chunk)):
        size = min(chunk, positions_ - index * chunk)
        file = directory / chunk_name(index)
        if file.exists() and read_chunk(directory, index, size) is None:
            say(f"{file} is damaged: its chunk is searched again")
            file.unlink()
        if not file.exists():
            todo.append(index)
    return todo


def _gather(directory: Path, positions_: int, chunk: int) -> tuple[np.ndarray, float]:
    """The deepest ply's scores from every chunk file, and the CPU seconds in all."""
    scores = np.empty(positions_, dtype=np.int8)
    cpu = 0.0
    for index in range(-(-positions_ // chunk)):
        size = min(chunk, positions_ - index * chunk)
        found = read_chunk(directory, index, size)
        if found is None:
            raise BuildError(f"{directory / chunk_name(index)} is missing or damaged after its search: run the same command again")
        scores[index * chunk : index * chunk + size] = found[0]
        cpu += found[1]
    return scores, cpu


def describe(figures: BookFigures) -> str:
    """One line: depth, positions, size, time."""
    return (
        f"the {figures.game} book: depth {figures.depth}, {figures.positions:,} positions ({figures.searched:,} searched), "
        f"{format_size(figures.bytes)}, {format_duration(figures.cpu_seconds)} of search CPU, {format_duration(figures.wall_seconds)} wall"
    )


def book_game(game: Game) -> bool:
    """Whether ``game`` is answered by the engine and a book rather than a table: a gravity game in normal play
    whose board fits the engine's bitboard and is past what a table holds (Connect Four: past
    :data:`~solver.rules.game.TABLE_CELLS` cells, its codes do not fit int64). 6x6 and 5x7 have tables."""
    if game.cells <= TABLE_CELLS:  # a table's game: the engine is not even loaded
        return False
    try:
        search.engine_game(game)
    except InvalidGameError:
        return False
    return True
