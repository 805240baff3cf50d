"""The layered build on a Dask cluster: the same sweep, chunks run by Dask workers.

The sweep is bulk-synchronous (layer ``p`` reads only layer ``p + 1``), so a
cluster needs no engine of its own beyond a task queue per layer: the client
(:func:`build_on_cluster`) submits the chunks of layer ``p`` as tasks, each task
(:func:`solver.retrograde.spool.run_chunks`) memory-maps layer ``p + 1`` read-only from the
**shared build directory** and writes its own slice of layer ``p``'s partial
file, then flushes it. When every task of the layer has finished, the client finishes
the layer (renamed or decoded into place) and records it in the manifest, exactly as the
local build does; so a killed cluster build resumes the same way (locally or on the
cluster), and the bytes are identical to :func:`solver.retrograde.sweep.build_layers`'s.

Requirements: the ``cluster`` extra (Dask distributed: ``pip install '.[cluster]'``
in the checkout) on the client and every worker, and one directory that the client
and every worker see at the same path (NFS, Lustre, a cloud file system). Dask is
imported only here, and only when a cluster build runs.
"""

from __future__ import annotations

import importlib
import os
import secrets
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BuildError, quote
from ..rules.game import Game
from .chunks import Chunk, Progress
from .pieces import PieceSealing
from .spool import ChunkResult, run_chunks
from .sweep import BuildResult, Release, sweep

if TYPE_CHECKING:
    from distributed import Client

SCHEDULER_ENV = "SOLVED_TICTACTOE_SCHEDULER"
"""Environment variable holding the default scheduler address, e.g. ``tcp://head:8786``."""


def scheduler_address(explicit: str | None = None) -> str | None:
    """The scheduler to use: ``explicit``, else ``$SOLVED_TICTACTOE_SCHEDULER``, else None (build locally)."""
    return explicit or os.environ.get(SCHEDULER_ENV) or None


def distributed_module() -> Any:
    """The ``distributed`` module, imported on first use (it is untyped: kept as ``Any``)."""
    try:
        return importlib.import_module("distributed")
    except ImportError:  # pragma: no cover - depends on the environment
        from ..errors import SolverError
        from ..extras import install_command

        raise SolverError(f"a cluster build needs Dask distributed: install it with {install_command('cluster')}") from None


CONNECT_SECONDS = 30
"""How long a cluster build waits for its scheduler to answer."""


def check_address(address: str) -> None:
    """Refuse a scheduler address Dask cannot parse (``notaurl:::``), before anything is built.

    :raises BuildError: naming the address and what is wrong with it.
    """
    distributed = distributed_module()
    try:
        scheme, location = distributed.comm.parse_address(address)
        if scheme in ("tcp", "tls", "ws", "wss", "ucx"):
            distributed.comm.parse_host_port(location)
    except (ValueError, TypeError) as error:
        raise BuildError(f"invalid Dask scheduler address {quote(address)}: {_first_line(error)}; expected e.g. tcp://host:8786") from None


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:200] if text else type(error).__name__


def connected_client(scheduler: str | Client) -> tuple[Any, bool]:
    """A Dask client of ``scheduler`` (a client given is used as it is) and whether the caller owns it (must close it)."""
    distributed = distributed_module()
    if isinstance(scheduler, distributed.Client):
        return scheduler, False
    address = str(scheduler)
    check_address(address)
    try:
        return distributed.Client(address, timeout=CONNECT_SECONDS), True
    except (OSError, TimeoutError, ValueError) as error:
        raise BuildError(f"cannot use the Dask scheduler {quote(address)}: {_first_line(error)}") from None


def build_on_cluster(
    game: Game,
    directory: str | os.PathLike[str],
    scheduler: str | Client,
    *,
    progress: Progress | None = None,
    notify: Callable[[str], None] | None = None,
    extra_disk: int = 0,
    release: Release | None = None,
) -> BuildResult:
    """Solve a game into a shared build directory with the workers of a Dask cluster; resume if half done.

    :param directory: the build directory, at the same path on the client and every worker.
    :param scheduler: the scheduler's address (``tcp://host:8786``) or a connected ``distributed.Client``.
    :param progress: called in the client after every chunk (:class:`solver.retrograde.chunks.ChunkDone`).
    :param notify: called with a line of text when the build resumes.
    :param release: retires finished layers once nothing reads them raw (:class:`solver.retrograde.sweep.Release`;
        its work runs on the cluster's workers too).
    :raises solver.errors.BuildError: if the shared directory lacks the disk space (checked first).
    """
    path = Path(directory).resolve()
    client, owned = connected_client(scheduler)
    try:
        workers = max(1, sum(client.nthreads().values()))
        run = secrets.token_hex(4)  # task keys unique to this run

        def dispatch(ply: int, groups: list[list[Chunk]], raw: bool, sealing: PieceSealing | None) -> Iterator[list[ChunkResult]]:
            as_completed = distributed_module().as_completed
            futures = [
                client.submit(
                    run_chunks, str(path), game.name, ply, group, raw=raw, flush=True, sealing=sealing, pure=False, key=f"solver-{game.name}-{ply}-{n}-{run}"
                )
                for n, group in enumerate(groups)
            ]
            for future in as_completed(futures):
                result: Any = future.result()
                yield result
                future.release()

        def mapper(function: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
            futures = client.map(function, list(items), pure=False)
            for future in futures:
                yield future.result()
                future.release()

        options: dict[str, Any] = {"progress": progress, "notify": notify, "extra_disk": extra_disk, "release": release, "mapper": mapper}
        return sweep(game, path, dispatch, jobs=workers, check_memory=False, **options)
    finally:
        if owned:
            client.close()
