"""Measure block codecs on a compact table's score bytes (issue 14): which one should big tables use?

    python scripts/measure_codecs.py --build-dir DIR            # DIR: a finished layered build of the game
    python scripts/measure_codecs.py --build-dir DIR --game 4x5k4 --blocks 64 --seed 14 --wheels

The build directory is the one :func:`solver.retrograde.sweep.build_layers` writes (``layer-PP.i8``);
if it has no finished build, the game is built there first (4x5k4: about 45 s and 742 MB).

A random sample of ``--blocks`` aligned 256 KiB spans of the score array (all layers
concatenated, the order of :mod:`solver.encoding.index`) is compressed block by block with every
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
compress speed (MB/s of input, one core) and the mean time to decode one block, both in
CPU time of this process (``time.process_time``: the machine is shared; every codec runs
on one thread).
Measures and prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import functools
import lzma
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's solver

import numpy as np  # noqa: E402

from solver.encoding.board import masks, rule_violation  # noqa: E402
from solver.encoding.layouts import layout  # noqa: E402
from solver.encoding.symmetry import symmetries  # noqa: E402
from solver.retrograde.builddir import BuildDir  # noqa: E402
from solver.retrograde.sweep import build_layers  # noqa: E402
from solver.rules.game import parse_game  # noqa: E402
from solver.rules.score import UNREACHABLE, WIN  # noqa: E402
from solver.storage.blockarray import BlockArray, write_blocks  # noqa: E402

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
        ("lzma-6", lambda b: lzma.compress(b, format=lzma.FORMAT_RAW, filters=raw_lzma), lambda b: lzma.decompress(b, format=lzma.FORMAT_RAW, filters=raw_lzma))
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
            from compression import zstd as stdzstd  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            from backports import zstd as stdzstd  # type: ignore[import-not-found, no-redef, unused-ignore]
        for level in (3, 6, 9, 12, 15, 19):
            found.append((f"compression.zstd-{level}", functools.partial(stdzstd.compress, level=level), stdzstd.decompress))
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
            found.append(
                (
                    f"blosc2-{name}-9",
                    functools.partial(blosc2.compress, typesize=1, clevel=9, filter=blosc2.Filter.NOFILTER, codec=codec),
                    blosc2.decompress,
                )
            )
        blosc2.set_nthreads(1)  # one core, like the others
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


def canonical_under(game_name: str, codes: np.ndarray, group: int) -> np.ndarray:
    """Whether each code is the smallest of its images under the game's first ``group`` symmetries
    (all of them by default; 4 on a square: the rectangle's, to see what the other 4 bring)."""
    sym = symmetries(parse_game(game_name))
    if group >= sym.count:
        return sym.is_canonical(codes)
    keep = np.ones(codes.size, dtype=bool)
    for s in range(1, group):
        keep &= codes <= sym.image(codes, s)
    return keep


def contents(game_name: str, scores: np.ndarray, start: int, group: int = 8) -> dict[str, np.ndarray]:
    """The stored bytes of one span under each "don't care" rule (see the module docstring)."""
    game = parse_game(game_name)
    index = layout(game)
    part = np.asarray(scores[start : start + SPAN])
    codes = index.codes(start, start + part.size)[0]
    canonical = canonical_under(game_name, codes, group)
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


def forward_fill(values: np.ndarray, keep: np.ndarray, before: int = UNREACHABLE) -> np.ndarray:
    """``values`` where ``keep``, else the last kept value before (``before`` ahead of the first)."""
    source = np.where(keep, np.arange(values.size), -1)
    np.maximum.accumulate(source, out=source)
    filled: np.ndarray = np.where(source >= 0, values[np.maximum(source, 0)], np.int8(before)).astype(np.int8)
    return filled


def stored_steps(game_name: str, scores: np.ndarray, *, finished: bool, step: int = 1 << 22) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The whole score array as a compressed table would store it, step by step: (stored bytes, read mask).

    Boards never read (not canonical, unreachable, and finished ones unless ``finished``)
    hold the previous read board's score.
    """
    game = parse_game(game_name)
    index, sym = layout(game), symmetries(game)
    offsets = np.asarray(index.layer_offsets)
    last = UNREACHABLE
    for start in range(0, scores.size, step):
        part = np.asarray(scores[start : start + step])
        codes = index.codes(start, start + part.size)[0]
        ply = np.searchsorted(offsets, np.arange(start, start + part.size), side="right") - 1
        keep = (part != UNREACHABLE) & sym.is_canonical(codes)
        if not finished:
            keep &= (part != -WIN) & (ply != game.cells)
        filled = forward_fill(part, keep, last)
        last = int(filled[-1])
        yield filled, keep


def container(game_name: str, scores: np.ndarray, work: Path, configs: list[tuple[str, int]], *, finished: bool) -> None:
    """Write the whole table with :func:`solver.storage.blockarray.write_blocks` per (codec, level); print sizes and times."""
    t0 = time.perf_counter()
    saved = work / f"{game_name}.stored-{'with' if finished else 'without'}-finished.npz"
    if saved.exists():  # the same build directory's bytes, from an earlier run
        with np.load(saved) as cached:
            stored, keep = cached["stored"], cached["keep"]
    else:
        pieces = list(stored_steps(game_name, scores, finished=finished))
        stored = np.concatenate([p for p, _ in pieces])
        keep = np.concatenate([k for _, k in pieces])
        del pieces
        np.savez(saved, stored=stored, keep=keep)
    print(
        f"stored bytes ready in {time.perf_counter() - t0:.1f} s; boards read: {keep.mean():.1%} (finished boards {'kept' if finished else 'do not care'})",
        flush=True,
    )
    rng = np.random.default_rng(1)
    for name, level in configs:
        path = work / f"{game_name}.{name}{level}.blocks"
        t0 = time.process_time()
        with open(path, "wb") as out:
            written = write_blocks(out, [stored], codec=name, level=level)
        seconds = time.process_time() - t0
        size = path.stat().st_size + len(written.digests)
        region = np.memmap(path, dtype=np.uint8, mode="r")
        array = BlockArray(region, written.encoding, written.digest, name=str(path))
        picks = rng.choice(written.encoding.blocks, size=min(300, written.encoding.blocks), replace=False).tolist()
        t1 = time.process_time()
        for block in picks:
            array.block(block)
        first = (time.process_time() - t1) / len(picks)
        t1 = time.process_time()
        decoded = array.decode_all()
        whole = time.process_time() - t1
        same = np.array_equal(decoded, stored) and np.array_equal(decoded[keep], np.asarray(scores)[keep])
        print(
            f"{name}-{level}: {size / 1e6:.1f} MB ({scores.size / size:.1f}x, {8 * size / scores.size:.3f} bits/board) "
            f"written in {seconds:.1f} s ({scores.size / seconds / 1e6:.0f} MB/s); first touch of a block "
            f"(CRC, decode, SHA-256) {first * 1e6:.0f} µs; every block {whole:.1f} s (CPU times); read boards answer the table: {same}",
            flush=True,
        )
        warm_lookup(game_name, array, scores, keep, rng)


class Prototype:
    """A look-up through the canonical form on a block array whose don't-care boards hold
    anything: the rules say unreachable and finished, the table the rest (what the wired
    table will do; here to time it and to check it against the plain scores)."""

    def __init__(self, game_name: str, array: BlockArray) -> None:
        self.game = parse_game(game_name)
        self.index, self.sym, self.array = layout(self.game), symmetries(self.game), array
        self.through = [[m for m in self.game.rules.line_masks if m >> cell & 1] for cell in range(self.game.cells)]

    def score(self, code: int) -> int:
        """The score for the side to move (``UNREACHABLE`` if the rules say so)."""
        if rule_violation(self.game, code) is not None:
            return UNREACHABLE
        x, o = masks(self.game, code)
        if self.game.rules.has_line(x if x.bit_count() > o.bit_count() else o):  # the last mover won
            return -WIN
        if x | o == self.game.full_mask:
            return 0
        canonical, _ = self.sym.canonical_of(code)
        return self.array[self.index.index_of_code(canonical)]

    def best_mask(self, code: int) -> int:
        """Best moves of a reachable, unfinished board, in the caller's orientation."""
        x, o = masks(self.game, code)
        piece, mine = (1, x) if x.bit_count() == o.bit_count() else (2, o)
        canonical, s = self.sym.canonical_of(code)
        cells, children, _ = self.sym.canonical_children(canonical, piece)
        mine = self.sym.mask_from_caller(mine, s)
        full = (x | o).bit_count() + 1 == self.game.cells
        lowest, mask = 128, 0
        for cell, child in zip(cells.tolist(), children.tolist(), strict=True):
            after = mine | 1 << cell
            if any(after & line == line for line in self.through[cell]):
                value = -WIN
            elif full:
                value = 0
            else:
                value = self.array[self.index.index_of_code(child)]
            if value < lowest:
                lowest, mask = value, 1 << cell
            elif value == lowest:
                mask |= 1 << cell
        return self.sym.mask_to_caller(mask, s)


def plain_best_mask(game_name: str, scores: np.ndarray, code: int) -> int:
    """Best moves from the plain scores (every board stored)."""
    game = parse_game(game_name)
    index = layout(game)
    x, o = masks(game, code)
    piece = 1 if x.bit_count() == o.bit_count() else 2
    lowest, mask = 128, 0
    for cell in range(game.cells):
        if (x | o) >> cell & 1:
            continue
        value = int(scores[index.index_of_code(code + piece * 3**cell)])
        if value < lowest:
            lowest, mask = value, 1 << cell
        elif value == lowest:
            mask |= 1 << cell
    return mask


def cpu_per_item(function: Callable[[int], object], items: list[int], repeat: int = 5) -> float:
    """CPU seconds per call of ``function`` over ``items``, the best of ``repeat`` passes."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for item in items:
            function(item)
        best = min(best, time.process_time() - t0)
    return best / max(1, len(items))


def warm_cpu(function: Callable[[int], object], item: int, repeat: int = 5) -> float:
    """CPU seconds of one call of ``function(item)`` after a first call (the best of ``repeat``)."""
    function(item)
    return cpu_per_item(function, [item], repeat)


def warm_lookup(game_name: str, array: BlockArray, scores: np.ndarray, keep: np.ndarray, rng: np.random.Generator) -> None:
    """The parts of a warm look-up: canonical form, index, one byte from a cached block (µs each)."""
    game = parse_game(game_name)
    index, sym = layout(game), symmetries(game)
    kept = np.flatnonzero(keep[: 1 << 16])  # read boards of the first block: warm once touched
    codes = index.codes_at(kept[rng.integers(0, kept.size, 2000)])
    images = sym.image(codes, rng.integers(0, sym.count, codes.size))  # what a caller may ask
    callers = images.tolist()
    places = [index.index_of_code(sym.canonical_of(code)[0]) for code in callers]
    assert [array[i] for i in places] == np.asarray(scores)[places].tolist()
    canonical = cpu_per_item(sym.canonical_of, callers)
    where = cpu_per_item(index.index_of_code, callers)
    byte = cpu_per_item(array.__getitem__, places)
    print(
        f"  warm look-up parts, CPU per board: canonical {1e6 * canonical:.2f} µs, index {1e6 * where:.2f} µs, byte from a cached block {1e6 * byte:.2f} µs",
        flush=True,
    )
    proto = Prototype(game_name, array)
    plain = np.asarray(scores)
    sample = rng.integers(0, scores.size, 4000)
    sample = sample[plain[sample] != UNREACHABLE]
    callers = index.codes_at(sample).tolist()
    picked = [c for c in callers if proto.score(c) not in (-WIN, UNREACHABLE) and (masks(game, c)[0] | masks(game, c)[1]) != game.full_mask]
    for code in picked[:300]:  # first touch of their blocks and children, and the check against the plain table
        assert proto.score(code) == plain[index.index_of_code(code)], code
        assert proto.best_mask(code) == plain_best_mask(game_name, plain, code), code
    warm = picked[:40]  # their blocks fit the cache: warm
    for code in warm:
        proto.score(code)
    rules = cpu_per_item(lambda code: rule_violation(game, code), warm)
    score = cpu_per_item(proto.score, warm)
    # one board at a time: its children's blocks (up to one per child) fit the cache once touched
    best = float(np.mean([warm_cpu(proto.best_mask, code) for code in warm]))
    print(
        f"  prototype through the canonical form ({len(picked[:300])} random reachable boards answer like the plain table): "
        f"CPU per board (warm): score {1e6 * score:.1f} µs (of which the rules check {1e6 * rules:.1f} µs), "
        f"best moves {1e6 * best:.1f} µs",
        flush=True,
    )


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
            t0 = time.process_time()
            small = compress(piece)
            t1 = time.process_time()
            back = decompress(small)
            t2 = time.process_time()
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
                capture_output=True,
                text=True,
                check=False,
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
    parser.add_argument("--group", type=int, default=8, help="use only the first N symmetries (4 on a square: the rectangle's)")
    parser.add_argument("--codecs", default="", help="comma-separated codec names to keep (default: all)")
    parser.add_argument("--contents", default="", help="comma-separated contents to keep (default: all)")
    parser.add_argument("--block-kib", default="64,256", help="block sizes in KiB")
    parser.add_argument("--wheels", action="store_true", help="also download each codec's wheel and print its size")
    parser.add_argument("--container", default="", help="write the whole table with solver.storage.blockarray instead, e.g. zstd:9,zlib:9")
    parser.add_argument("--keep-finished", action="store_true", help="with --container: store finished boards too")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()), help="where --container writes its files")
    args = parser.parse_args()

    scores = load_scores(args.game, args.build_dir)
    if args.container:
        configs = [(item.split(":")[0], int(item.split(":")[1])) for item in args.container.split(",")]
        container(args.game, scores, args.work, configs, finished=args.keep_finished)
        return
    game = parse_game(args.game)
    group = min(args.group, symmetries(game).count)
    print(f"{game.name}: {scores.size:,} boards ({scores.nbytes / 1e6:.0f} MB at one byte each), {group} symmetries used")
    rng = np.random.default_rng(args.seed)
    spans = np.sort(rng.choice(scores.size // SPAN, size=min(args.blocks, scores.size // SPAN), replace=False)) * SPAN
    samples = [contents(args.game, scores, int(start), args.group) for start in spans]
    read = sum(int(s["canonical packed"].size) for s in samples)
    boards = sum(int(s["every board"].size) for s in samples)
    print(f"sample: {len(samples)} spans of 256 KiB, seed {args.seed}; boards read (canonical and reachable): {read / boards:.1%}")
    wanted = [name for name in args.codecs.split(",") if name]
    print(f"{'codec':<18} {'content':<26} {'block':>6} {'ratio':>7} {'bits/board':>10} {'MB/s':>7} {'decode µs':>9}")
    for codec in codecs():
        if wanted and codec[0] not in wanted:
            continue
        for content in samples[0]:
            if args.contents and content not in args.contents.split(","):
                continue
            for block in [int(k) << 10 for k in args.block_kib.split(",")]:
                ratio, bits, speed, decode = measure(samples, block, codec, content)
                print(f"{codec[0]:<18} {content:<26} {block >> 10:>4}Ki {ratio:>6.1f}x {bits:>10.3f} {speed:>7.1f} {decode:>9.1f}", flush=True)
    if args.wheels:
        wheel_sizes(["zstandard", "backports.zstd", "lz4", "blosc2"])


if __name__ == "__main__":
    main()
