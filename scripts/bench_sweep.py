"""Benchmark: the layer sweep's per-chunk work, in boards per second on one core.

    taskset -c 0 python scripts/bench_sweep.py                      # this checkout's solver
    taskset -c 0 python scripts/bench_sweep.py --checkout OTHER_DIR # another checkout's, same figures
    python scripts/bench_sweep.py --game 3x6k3 --plies 9 10 11 --profile

Solves a fixed set of chunks of chosen layers in this process (one core) and prints
boards/s: CPU time (``time.process_time``, what a core did) and wall time. The chunks
of a layer are spread evenly over it, up to ``--boards`` boards per layer (the whole
layer if it is smaller). Layer ``p + 1`` is seeded random scores unless ``--layers``
names a finished build directory: the work of a chunk does not depend on the values it
reads. Measures and prints; asserts nothing. To compare two checkouts, run them back
to back (several times, interleaved) on the same core.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import pstats
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

DEFAULT_PLIES = {"4x5k4": [6, 9, 11, 13, 15, 17], "3x6k3": [6, 8, 10, 12, 14]}


def load_solver(checkout: Path | None) -> tuple[ModuleType, ModuleType, ModuleType]:
    """The game, index and layered-build modules of ``checkout`` (default: this script's checkout)."""
    root = checkout or Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root.resolve()))
    game = importlib.import_module("solver.game")
    index = importlib.import_module("solver.index")
    try:
        layered = importlib.import_module("solver.build.layered")
    except ImportError:
        layered = importlib.import_module("solver.layered")
    if not str(Path(layered.__file__ or "").resolve()).startswith(str(root.resolve())):
        raise SystemExit(f"imported {layered.__file__}, not the checkout {root}")
    return game, index, layered


def child_scores(sizes: tuple[int, ...], ply: int, layers: Path | None, seed: int) -> Any:
    """Layer ``ply + 1``'s scores: read from a build directory, or seeded random int8 (None past the full board)."""
    import numpy as np

    if ply + 1 >= len(sizes):
        return None
    if layers is not None:
        return np.fromfile(layers / f"layer-{ply + 1:02d}.i8", dtype=np.int8)
    return np.random.default_rng(seed + ply).integers(-128, 128, sizes[ply + 1], dtype=np.int16).astype(np.int8)


def picked_chunks(all_chunks: list[Any], budget: int) -> list[Any]:
    """Chunks spread evenly over a layer, about ``budget`` boards in all (every chunk if the layer is smaller)."""
    total = sum(chunk.boards for chunk in all_chunks)
    if total <= budget:
        return all_chunks
    wanted = max(1, round(budget * len(all_chunks) / total))
    return [all_chunks[number * len(all_chunks) // wanted] for number in range(wanted)]


def time_layer(layered: ModuleType, game: Any, todo: list[Any], child: Any, repeat: int) -> tuple[int, list[float], list[float]]:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, help="a checkout whose solver/ to measure (put first on sys.path)")
    parser.add_argument("--game", action="append", help="games to measure (default 4x5k4 and 3x6k3)")
    parser.add_argument("--plies", type=int, nargs="+", help="layers to measure (default: a spread per game)")
    parser.add_argument("--boards", type=int, default=6_000_000, help="boards per layer at most (default 6 M)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per layer; the best is printed (default 3)")
    parser.add_argument("--layers", type=Path, help="a finished build directory to read the child layers from")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--profile", action="store_true", help="print cProfile's top lines (one run per layer)")
    args = parser.parse_args()
    game_module, index_module, layered = load_solver(args.checkout)
    print(f"solver from {Path(layered.__file__ or '').parent}")
    profiler = cProfile.Profile() if args.profile else None
    for name in args.game or list(DEFAULT_PLIES):
        game = game_module.parse_game(name)
        sizes = index_module.layout(game).layer_sizes
        plies = args.plies or DEFAULT_PLIES.get(name) or list(range(game.cells + 1))
        total_boards, total_cpu, total_wall = 0, 0.0, 0.0
        for ply in plies:
            todo = picked_chunks(layered.chunks(game, ply), args.boards)
            child = child_scores(sizes, ply, args.layers, args.seed)
            if profiler is not None:
                profiler.enable()
            boards, cpu, wall = time_layer(layered, game, todo, child, 1 if profiler else args.repeat)
            if profiler is not None:
                profiler.disable()
            total_boards, total_cpu, total_wall = total_boards + boards, total_cpu + min(cpu), total_wall + min(wall)
            print(
                f"{name} layer {ply:2d}: {boards:>11,} boards in {len(todo):3d} chunks  "
                f"{boards / min(cpu) / 1e6:7.2f} M boards/s CPU (median {boards / statistics.median(cpu) / 1e6:6.2f})  "
                f"{boards / min(wall) / 1e6:7.2f} M/s wall",
                flush=True,
            )
        print(f"TOTAL {name}: {total_boards:,} boards  {total_boards / total_cpu / 1e6:.2f} M boards/s CPU  {total_boards / total_wall / 1e6:.2f} M/s wall")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
