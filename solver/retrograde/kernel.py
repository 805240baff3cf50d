"""The one entry of the layered build's kernel: a chunk of a layer solved by its move rule's hook.

What the build needs of a move rule (:class:`solver.rules.parts.MoveRule`) is its **kernel hook**
(:class:`KernelHook`): how a chunk is solved from the next layer's scores, and, where the status of a
board does not tell every board no game reaches (:attr:`solver.rules.game.Game.build_walks_forward`),
the forward pass that finds the reached boards first. A hook's chunk solver is compiled
(:mod:`solver.retrograde.compiled`), with its numpy passes kept as its plain twin (``plain=True``). The hooks
are registered here by the move rule's type, and everything in the build (:mod:`solver.retrograde.sweep`, :mod:`solver.retrograde.spool`,
:mod:`solver.retrograde.proof`) asks :func:`hook_of` or :func:`solve_chunk`; none tests which rule it is.

================================================  ==========================================
move rule                                         hook
================================================  ==========================================
:class:`~solver.rules.placement.Placement`        :mod:`solver.retrograde.placement` (backward only)
:class:`~solver.rules.gravity.Drop`               :mod:`solver.retrograde.gravity` (forward, then backward)
================================================  ==========================================

A new move rule is a module of :mod:`solver.rules`, a line of :mod:`solver.rules.catalog`, its kernel
module here and a line of :data:`HOOKS` (and its layout, :func:`solver.encoding.index.layout`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

import numpy as np

from ..rules.game import Game
from ..rules.gravity import Drop
from ..rules.parts import MoveRule
from ..rules.placement import Placement
from ..storage.spill import Spill
from . import gravity, placement
from .builddir import BuildDir
from .chunks import Chunk, Progress
from .sparse import ChildScores

SolveChunk = Callable[[Game, Chunk, "np.ndarray | ChildScores | None", "np.ndarray | None"], np.ndarray]
"""``(game, chunk, child layer, reached)`` -> the chunk's int8 scores (flat, index order); the child layer an array,
or (gravity) a sparse layer (:mod:`solver.retrograde.sparse`)."""


@dataclass(frozen=True)
class KernelHook:
    """What the layered build needs of one move rule (module docstring)."""

    solve_chunk: SolveChunk
    """A chunk's scores from the next layer's (None for the full layer) and, with a forward pass, which of its boards
    a game reaches (bool, flat; None without)."""
    plain_chunk: SolveChunk
    """The same by numpy passes: the compiled kernel's plain twin (the same bytes; the tests compare them)."""
    reach_layers: Callable[..., Iterator[tuple[int, np.ndarray]]] | None = None
    """The forward pass (``reach_layers(game, jobs=...)``: ``(ply, packed bits)`` from layer 0), or None when the rules
    tell every board no game reaches."""
    write_reach: Callable[..., None] | None = None
    """The forward pass kept in a build directory (``write_reach(build, jobs=..., progress=...)``), or None."""


HOOKS: dict[type[MoveRule], KernelHook] = {
    Placement: KernelHook(placement.solve_chunk, placement.plain_chunk),
    Drop: KernelHook(gravity.solve_chunk, gravity.plain_chunk, gravity.reach_layers, gravity.write_reach),
}
"""The kernel hook of each move rule."""


def hook_of(game: Game) -> KernelHook:
    """The kernel hook of the game's move rule."""
    return HOOKS[type(game.rules.move)]


def solve_chunk(
    game: Game, chunk: Chunk, child_layer: np.ndarray | ChildScores | None, reached: np.ndarray | None = None, *, plain: bool = False
) -> np.ndarray:
    """The scores of one chunk (int8, flat, in index order), from the next layer's scores, by the move rule's hook
    (its compiled kernel, or with ``plain`` its numpy twin: the same bytes).

    :param child_layer: layer ``chunk.ply + 1``'s int8 scores in layer-local index order
        (None for the full-board layer, which has no children).
    :param reached: with a forward pass (:attr:`KernelHook.reach_layers`), which of the chunk's boards a game
        reaches (bool, flat); None without.
    """
    hook = hook_of(game)
    return (hook.plain_chunk if plain else hook.solve_chunk)(game, chunk, child_layer, reached)


def write_reach(build: BuildDir, *, jobs: int = 1, progress: Progress | None = None) -> None:
    """Run the move rule's forward pass into the build directory, if it has one (else nothing to do)."""
    hook = hook_of(build.game)
    if hook.write_reach is not None:
        hook.write_reach(build, jobs=jobs, progress=progress)


def reach_layers(game: Game, *, jobs: int = 1, plies: Collection[int] | None = None, spill: Spill | None = None) -> dict[int, np.ndarray]:
    """The forward pass's packed bits per layer (:attr:`KernelHook.reach_layers`), or ``{}`` without one.

    :param plies: keep only these layers' bits (default: every layer's), and stop after the last of them: a check of
        one layer of a big game holds that layer's bits, not every layer's (4x8k4-gravity: 2.1 GB, not 16.7 GB).
    :param spill: where the kept bits go (each layer's under :func:`reach_name`: on disk when big); default: memory.
    """
    hook = hook_of(game)
    if hook.reach_layers is None:
        return {}
    last = game.cells if plies is None else max(plies, default=-1)
    kept: dict[int, np.ndarray] = {}
    if last < 0:
        return kept
    for ply, bits in hook.reach_layers(game, jobs=jobs):
        if plies is None or ply in plies:
            kept[ply] = bits if spill is None else _spilled(spill, reach_name(ply), bits)
        if ply >= last:
            break
    return kept


def reach_name(ply: int) -> str:
    """The name of layer ``ply``'s bits of the boards reached in a spill (:func:`reach_layers`)."""
    return f"reach-{ply}"


def _spilled(spill: Spill, name: str, bits: np.ndarray) -> np.ndarray:
    """``bits`` copied into the spill's array ``name``."""
    kept = spill.array(name, bits.size, np.uint8)
    kept[:] = bits
    return kept
