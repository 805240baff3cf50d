"""Benchmark: the layer sweep's per-chunk work, in boards per second on one core.

    taskset -c 0 python scripts/bench_sweep.py                      # this checkout's solver
    taskset -c 0 python scripts/bench_sweep.py --checkout OTHER_DIR # another checkout's, same figures
    python scripts/bench_sweep.py --game 3x6k3 --plies 9 10 11 --profile
    python scripts/bench_sweep.py --game 5x5k4 --plies 10 13 --boards 8000000

Solves a fixed set of chunks of chosen layers in this process (one core) and prints
boards/s: CPU time (``time.process_time``, what a core did) and wall time. The chunks
of a layer are spread evenly over it, up to ``--boards`` boards per layer (the whole
layer if it is smaller). Layer ``p + 1`` is seeded random scores (a sparse file for a
layer of more than 2**28 boards) unless ``--layers`` names a finished build directory:
the work of a chunk does not depend on the values it reads. Measures and prints;
asserts nothing. To compare two checkouts, run them back to back (several times,
interleaved) on the same core.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np

DEFAULT_PLIES = {"4x5k4": [6, 9, 11, 13, 15, 17], "3x6k3": [6, 8, 10, 12, 14]}


def load_solver(checkout: Path | None) -> tuple[ModuleType, ModuleType, SimpleNamespace]:
    """The game and index modules of ``checkout`` (default: this script's checkout), and its layered build's
    ``chunks`` and ``solve_chunk`` (from solver/retrograde/chunks.py and kernel.py, or an older checkout's layered.py)."""
    root = checkout or Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root.resolve()))
    game = importlib.import_module("solver.rules.game")
    index = importlib.import_module("solver.encoding.index")
    try:
        kernel = importlib.import_module("solver.retrograde.kernel")
        chunking = importlib.import_module("solver.retrograde.chunks")
    except ImportError:
        try:
            kernel = chunking = importlib.import_module("solver.retrograde.layered")
        except ImportError:
            kernel = chunking = importlib.import_module("solver.layered")
    if not str(Path(kernel.__file__ or "").resolve()).startswith(str(root.resolve())):
        raise SystemExit(f"imported {kernel.__file__}, not the checkout {root}")
    return game, index, SimpleNamespace(chunks=chunking.chunks, solve_chunk=kernel.solve_chunk, folder=Path(kernel.__file__ or "").parent)


RANDOM_MAX = 1 << 28
"""Child layers up to this many boards are random scores in memory; bigger ones (5x5k4) a sparse file."""


def child_scores(sizes: tuple[int, ...], ply: int, layers: Path | None, seed: int, tmp: Path) -> Any:
    """Layer ``ply + 1``'s scores (None past the full board): read from a build directory, seeded
    random int8, or for a layer too big for memory a memory map of a sparse file in ``tmp``."""
    if ply + 1 >= len(sizes):
        return None
    if layers is not None:
        return np.memmap(layers / f"layer-{ply + 1:02d}.i8", dtype=np.int8, mode="r")
    if sizes[ply + 1] > RANDOM_MAX:
        path = tmp / f"child-{ply + 1:02d}.i8"
        with path.open("wb") as handle:
            handle.truncate(sizes[ply + 1])
        return np.memmap(path, dtype=np.int8, mode="r", shape=(sizes[ply + 1],))
    return np.random.default_rng(seed + ply).integers(-128, 128, sizes[ply + 1], dtype=np.int16).astype(np.int8)


def picked_chunks(all_chunks: list[Any], budget: int) -> list[Any]:
    """Chunks spread evenly over a layer, about ``budget`` boards in all (every chunk if the layer is smaller)."""
    total = sum(chunk.boards for chunk in all_chunks)
    if total <= budget:
        return all_chunks
    wanted = max(1, round(budget * len(all_chunks) / total))
    return [all_chunks[number * len(all_chunks) // wanted] for number in range(wanted)]


def time_layer(layered: SimpleNamespace, game: Any, todo: list[Any], child: Any, repeat: int) -> tuple[int, list[float], list[float]]:
    """Boards of the chunks and the CPU and wall seconds of each of ``repeat`` runs over them."""
    layered.solve_chunk(game, todo[0], child)  # warm the index tables
    cpu, wall = [], []
    boards = sum(chunk.boards for chunk in todo)
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        for chunk in todo:
            layered.solve_chunk(game, chunk, child)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return boards, cpu, wall


def measure(layered: SimpleNamespace, game: Any, sizes: tuple[int, ...], args: argparse.Namespace, tmp: Path) -> None:
    """Time the chosen layers of one game: a line per layer (best and median of the runs) and a total of the bests."""
    plies = args.plies or DEFAULT_PLIES.get(game.name) or list(range(game.cells))
    total_boards, total_cpu, total_wall = 0, 0.0, 0.0
    for ply in plies:
        todo = picked_chunks(layered.chunks(game, ply), args.boards)
        child = child_scores(sizes, ply, args.layers, args.seed, tmp)
        boards, cpu, wall = time_layer(layered, game, todo, child, args.repeat)
        total_boards, total_cpu, total_wall = total_boards + boards, total_cpu + min(cpu), total_wall + min(wall)
        print(
            f"{game.name} layer {ply:2d}: {boards:>11,} boards in {len(todo):3d} chunks  "
            f"{boards / min(cpu) / 1e6:7.2f} M boards/s CPU (median {boards / statistics.median(cpu) / 1e6:6.2f})  "
            f"{boards / min(wall) / 1e6:7.2f} M/s wall",
            flush=True,
        )
    print(f"TOTAL {game.name}: {total_boards:,} boards  {total_boards / total_cpu / 1e6:.2f} M boards/s CPU  {total_boards / total_wall / 1e6:.2f} M/s wall")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, help="a checkout whose solver/ to measure (put first on sys.path)")
    parser.add_argument("--game", action="append", help="games to measure (default 4x5k4 and 3x6k3)")
    parser.add_argument("--plies", type=int, nargs="+", help="layers to measure (default: a spread per game)")
    parser.add_argument("--boards", type=int, default=6_000_000, help="boards per layer at most (default 6 M)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per layer; the best is printed (default 3)")
    parser.add_argument("--layers", type=Path, help="a finished build directory to read the child layers from")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--profile", action="store_true", help="print cProfile's top lines")
    args = parser.parse_args()
    game_module, index_module, layered = load_solver(args.checkout)
    print(f"solver from {layered.folder}")
    profiler = cProfile.Profile()
    if args.profile:
        profiler.enable()
    with tempfile.TemporaryDirectory() as directory:
        for name in args.game or list(DEFAULT_PLIES):
            game = game_module.parse_game(name)
            measure(layered, game, index_module.layout(game).layer_sizes, args, Path(directory))
    if args.profile:
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
