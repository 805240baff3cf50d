"""Measure block codecs on a compact table's score bytes (issue 14): which one should big tables use?

    python scripts/measure_codecs.py --build-dir DIR            # DIR: a finished layered build of the game
    python scripts/measure_codecs.py --build-dir DIR --game 4x5k4 --blocks 64 --seed 14 --wheels

The build directory is the one :func:`solver.layered.build_layers` writes (``layer-PP.i8``);
if it has no finished build, the game is built there first (4x5k4: about 45 s and 742 MB).

A random sample of ``--blocks`` aligned 256 KiB spans of the score array (all layers
concatenated, the order of :mod:`solver.index`) is compressed block by block with every
codec, as 256 KiB blocks and as the four 64 KiB blocks of each span (the same bytes),
under these contents:

===================  ==========================================================================
``every board``      the scores as ``solve build`` writes them today
``dc=unreachable``   boards that are never read (not canonical under the board's symmetries,
                     or unreachable) set to the unreachable byte (-128)
``dc=previous``      the same boards set to the previous read board's score (forward fill)
``... +finished``    finished boards (a line was just made, or the board is full: the rules
                     give their score) also "don't care"
``canonical packed`` only the read boards, packed (no index could address them: a bound)
===================  ==========================================================================

Printed per codec and content: ratio, bits per board (over all boards of the sample),
compress speed (MB/s of input, one core) and the mean time to decode one block.
Measures and prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import lzma
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's solver

import numpy as np  # noqa: E402

from solver.game import parse_game  # noqa: E402
from solver.index import layout  # noqa: E402
from solver.layered import BuildDir, build_layers  # noqa: E402
from solver.score import UNREACHABLE, WIN  # noqa: E402
from solver.symmetry import symmetries  # noqa: E402

SPAN = 256 << 10
Codec = tuple[str, Callable[[bytes], bytes], Callable[[bytes], bytes]]


def codecs() -> list[Codec]:
    """Every codec that can be imported here: (name, compress, decompress)."""
    found: list[Codec] = [
        ("zlib-6", lambda b: zlib.compress(b, 6), zlib.decompress),
        ("zlib-9", lambda b: zlib.compress(b, 9), zlib.decompress),
    ]
    raw_lzma = [{"id": lzma.FILTER_LZMA2, "preset": 6}]
    found.append(
        ("lzma-6", lambda b: lzma.compress(b, format=lzma.FORMAT_RAW, filters=raw_lzma),
         lambda b: lzma.decompress(b, format=lzma.FORMAT_RAW, filters=raw_lzma))
    )
    try:
        import zstandard

        for level in (3, 9, 19):
            cctx = zstandard.ZstdCompressor(level=level, write_content_size=True, write_checksum=False)
            dctx = zstandard.ZstdDecompressor()
            found.append((f"zstd-{level}", cctx.compress, dctx.decompress))
    except ImportError:
        print("zstandard not installed: skipped")
    try:  # Python 3.14's compression.zstd, or its backport (the same libzstd, a 0.5 MB wheel)
        try:
            from compression import zstd as stdzstd  # type: ignore[import-not-found]
        except ImportError:
            from backports import zstd as stdzstd  # type: ignore[import-not-found,no-redef]
        for level in (3, 9, 19):
            found.append((f"compression.zstd-{level}", lambda b, lv=level: stdzstd.compress(b, level=lv), stdzstd.decompress))
    except ImportError:
        print("backports.zstd not installed: skipped")
    try:
        import lz4.block

        found.append(("lz4", lambda b: lz4.block.compress(b, store_size=True), lz4.block.decompress))
        found.append(("lz4-hc9", lambda b: lz4.block.compress(b, mode="high_compression", compression=9, store_size=True), lz4.block.decompress))
    except ImportError:
        print("lz4 not installed: skipped")
    try:
        import blosc2

        for name, codec in (("blosclz", blosc2.Codec.BLOSCLZ), ("zstd", blosc2.Codec.ZSTD)):
            found.append((
                f"blosc2-{name}-9",
                lambda b, c=codec: blosc2.compress(b, typesize=1, clevel=9, filter=blosc2.Filter.NOFILTER, codec=c),
                blosc2.decompress,
            ))
    except ImportError:
        print("blosc2 not installed: skipped")
    return found


def load_scores(game_name: str, build_dir: Path) -> np.ndarray:
    """Every layer's scores, concatenated (a build is made first if the directory has none)."""
    game = parse_game(game_name)
    directory = BuildDir(build_dir, game)
    if not all(directory.layer_path(p).exists() for p in range(game.cells + 1)):
        print(f"building {game.name} into {build_dir} ...", flush=True)
        build_layers(game, build_dir, jobs=1)
    return np.concatenate([np.asarray(layer) for layer in directory.layers()])


def contents(game_name: str, scores: np.ndarray, start: int) -> dict[str, np.ndarray]:
    """The stored bytes of one span under each "don't care" rule (see the module docstring)."""
    game = parse_game(game_name)
    index = layout(game)
    part = np.asarray(scores[start : start + SPAN])
    codes = index.codes(start, start + part.size)[0]
    canonical = symmetries(game).is_canonical(codes)
    ply = np.searchsorted(np.asarray(index.layer_offsets), np.arange(start, start + part.size), side="right") - 1
    reachable = part != UNREACHABLE
    finished = reachable & ((part == -WIN) | (ply == game.cells))
    read = canonical & reachable
    out = {"every board": part}
    for label, keep in (("", read), (" +finished", read & ~finished)):
        out["dc=unreachable" + label] = np.where(keep, part, np.int8(UNREACHABLE))
        out["dc=previous" + label] = forward_fill(part, keep)
    out["canonical packed"] = part[read]
    return out


def forward_fill(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``values`` where ``keep``, else the last kept value before (the unreachable byte before the first)."""
    source = np.where(keep, np.arange(values.size), -1)
    np.maximum.accumulate(source, out=source)
    filled: np.ndarray = np.where(source >= 0, values[np.maximum(source, 0)], np.int8(UNREACHABLE)).astype(np.int8)
    return filled


def measure(samples: list[dict[str, np.ndarray]], block: int, codec: Codec, content: str) -> tuple[float, float, float, float]:
    """(ratio, bits per board, compress MB/s, decode µs per block) over every sample block."""
    _, compress, decompress = codec
    raw = packed = boards = 0
    squeeze = unpack = 0.0
    blocks = 0
    for sample in samples:
        data = sample[content]
        boards += sample["every board"].size
        step = block if content != "canonical packed" else max(1, data.size * block // SPAN)
        for a in range(0, data.size, step):
            piece = data[a : a + step].tobytes()
            t0 = time.perf_counter()
            small = compress(piece)
            t1 = time.perf_counter()
            back = decompress(small)
            t2 = time.perf_counter()
            assert back == piece
            squeeze, unpack = squeeze + t1 - t0, unpack + t2 - t1
            raw, packed, blocks = raw + len(piece), packed + len(small), blocks + 1
    total = sum(s["every board"].size for s in samples)
    return total / packed, 8 * packed / boards, raw / squeeze / 1e6, unpack / blocks * 1e6


def wheel_sizes(names: list[str]) -> None:
    """Download each package's wheel for this Python and platform (no dependencies) and print its size."""
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            result = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", "-d", tmp, name],
                capture_output=True, text=True, check=False,
            )
            wheels = sorted(Path(tmp).glob(f"{name.replace('-', '_').replace('.', '_')}-*.whl"))
            size = f"{wheels[-1].stat().st_size / 1e6:.2f} MB ({wheels[-1].name})" if wheels else f"failed: {result.stderr.strip()[-120:]}"
            print(f"wheel {name}: {size}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", type=Path, required=True)
    parser.add_argument("--game", default="4x5k4")
    parser.add_argument("--blocks", type=int, default=64, help="256 KiB spans sampled")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--codecs", default="", help="comma-separated codec names to keep (default: all)")
    parser.add_argument("--wheels", action="store_true", help="also download each codec's wheel and print its size")
    args = parser.parse_args()

    scores = load_scores(args.game, args.build_dir)
    game = parse_game(args.game)
    print(f"{game.name}: {scores.size:,} boards ({scores.nbytes / 1e6:.0f} MB at one byte each), {symmetries(game).count} symmetries")
    rng = np.random.default_rng(args.seed)
    spans = np.sort(rng.choice(scores.size // SPAN, size=args.blocks, replace=False)) * SPAN
    samples = [contents(args.game, scores, int(start)) for start in spans]
    read = sum(int(s["canonical packed"].size) for s in samples)
    boards = sum(int(s["every board"].size) for s in samples)
    print(f"sample: {len(samples)} spans of 256 KiB, seed {args.seed}; boards read (canonical and reachable): {read / boards:.1%}")
    wanted = [name for name in args.codecs.split(",") if name]
    print(f"{'codec':<18} {'content':<26} {'block':>6} {'ratio':>7} {'bits/board':>10} {'MB/s':>7} {'decode µs':>9}")
    for codec in codecs():
        if wanted and codec[0] not in wanted:
            continue
        for content in samples[0]:
            for block in (64 << 10, 256 << 10):
                ratio, bits, speed, decode = measure(samples, block, codec, content)
                print(f"{codec[0]:<18} {content:<26} {block >> 10:>4}Ki {ratio:>6.1f}x {bits:>10.3f} {speed:>7.1f} {decode:>9.1f}", flush=True)
    if args.wheels:
        wheel_sizes(["zstandard", "backports.zstd", "lz4", "blosc2"])


if __name__ == "__main__":
    main()
