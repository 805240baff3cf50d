"""Benchmark: the canonical form of codes under a game's symmetries (solver.encoding.symmetry).

    python scripts/bench_symmetry.py                 # 5x5k4 (8 symmetries) and 4x5k4 (4)
    python scripts/bench_symmetry.py --games 3x7k3 --boards 2000000

Prints per board: the vectorised canonical form and canonical test (ns, best of 5 over
``--boards`` random codes), the canonical test of a tile of the index (high half-boards by
low half-boards, the layered build's shape), one code's canonical form, its images, and the canonical
forms of all its children at once (µs, best of 5 ``timeit`` runs). Times are CPU times of this
process (``time.process_time``): the machine is shared. Measures and prints;
asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's solver

import numpy as np  # noqa: E402

from solver.encoding.layouts import layout  # noqa: E402
from solver.encoding.symmetry import symmetries  # noqa: E402
from solver.rules.game import parse_game  # noqa: E402


def bench(name: str, boards: int) -> str:
    """One game's figures, as one line."""
    game = parse_game(name)
    sym = symmetries(game)
    rng = np.random.default_rng(14)
    codes = rng.integers(0, game.codes, boards, dtype=np.int64)
    one = [int(c) for c in codes[:1000]]
    vector = min(timeit.repeat(lambda: sym.canonical(codes), number=1, repeat=5, timer=time.process_time)) / codes.size * 1e9
    test = min(timeit.repeat(lambda: sym.is_canonical(codes), number=1, repeat=5, timer=time.process_time)) / codes.size * 1e9
    scalar = min(timeit.repeat(lambda: [sym.canonical_of(c) for c in one], number=20, repeat=5, timer=time.process_time)) / 20 / len(one) * 1e6
    images = min(timeit.repeat(lambda: [sym.images_of(c) for c in one], number=20, repeat=5, timer=time.process_time)) / 20 / len(one) * 1e6
    index = layout(game)
    tile = max((b for layer in index.tiles for b in layer), key=lambda b: b.size)
    rows = min(tile.rows, max(1, boards // tile.cols))
    high = index.high.codes[index.high.group(tile.hx, tile.ho)][:rows]
    low = index.low.codes[index.low.group(tile.lx, tile.lo)]
    grid = min(timeit.repeat(lambda: sym.is_canonical_grid(high, low, index.radix), number=1, repeat=5, timer=time.process_time)) / (rows * low.size) * 1e9
    children = min(timeit.repeat(lambda: [sym.canonical_children(c, 1) for c in one[:200]], number=5, repeat=5, timer=time.process_time)) / 5 / 200 * 1e6
    return (
        f"{game.name} ({sym.count} symmetries, {game.cells} cells): canonical {vector:.0f} ns/board, "
        f"is_canonical {test:.0f} ns/board, is_canonical_grid {grid:.1f} ns/board (a tile of the index); one code: canonical_of {scalar:.2f} µs, "
        f"images_of {images:.2f} µs, canonical_children {children:.1f} µs"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="5x5k4,4x5k4")
    parser.add_argument("--boards", type=int, default=1_000_000)
    args = parser.parse_args()
    for name in args.games.split(","):
        print(bench(name, args.boards), flush=True)


if __name__ == "__main__":
    main()
