"""Progress on stderr: a click progress bar on a terminal, else a line every :data:`PROGRESS_LINE_SECONDS` (a
build's layers and boards, a download's bytes, a proof's boards, a grading's positions, a book's chunks)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from ..api import Game, format_duration
from ..words import percent

if TYPE_CHECKING:
    from ..api import BuildProgress

PROGRESS_LINE_SECONDS = 60.0
"""Off a terminal (a log, a pipe, nohup), a build prints its progress as a line this often."""


class _ProgressLines:
    """A build's progress as a line on stderr every :data:`PROGRESS_LINE_SECONDS`: the layer being
    solved, the share done, the rate and the time left (what a progress bar shows, for a log file).

    The rate is in boards a second for a compact build, whose work units are its boards (plus a
    small fixed cost a chunk, :data:`solver.retrograde.chunks.CHUNK_COST`); the time left assumes
    the rate so far.
    """

    def __init__(self, game: Game, work: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.game, self.work, self.clock = game, work, clock
        self.started = self.shown = clock()
        self.done = 0
        self.layer: int | str | None = None

    def __call__(self, units: int, layer: int | str | None = None) -> None:
        """Count ``units`` done (in ``layer``), and print a line if the last one is a minute old."""
        self.done += units
        self.layer = self.layer if layer is None else layer
        now = self.clock()
        if now - self.shown >= PROGRESS_LINE_SECONDS:
            self.shown = now
            click.echo(self.line(now), err=True)

    def line(self, now: float) -> str:
        """``solving 5x5k4: layer 14/25, 43.1% done, 21.4 M boards/s, about 35 min left``."""
        elapsed = max(now - self.started, 1e-9)
        parts = [] if self.layer is None else [_layer_text(self.layer, self.game)]
        parts.append(f"{100 * self.done / max(self.work, 1):.1f}% done")
        if self.layer is not None:
            parts.append(f"{rate_text(self.done / elapsed)} boards/s")
        if self.done:
            parts.append(f"about {format_duration(elapsed * (self.work - self.done) / self.done)} left")
        return f"solving {self.game.name}: {', '.join(parts)}"


def _layer_text(layer: int | str, game: Game) -> str:
    """``layer 14/25``, or the label a stage gave (a gravity build's forward pass: ``reachable positions, layer 3/28``)."""
    return layer if isinstance(layer, str) else f"layer {layer}/{game.cells}"


def rate_text(per_second: float) -> str:
    """``21.4 M``, ``830 k``, ``75``: a rate to three figures."""
    for scale, unit in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if per_second >= scale:
            return f"{per_second / scale:.3g}{unit}"
    return f"{per_second:.3g}"


@contextmanager
def progress_bar(game: Game, work: int, *, quiet: bool) -> Iterator[BuildProgress | None]:
    """A click progress bar on stderr over a build's work units (a dense build: a step per ply
    of each pass; a compact one: boards, labelled with the layer being solved). Off a terminal,
    where a bar cannot redraw, a line every minute instead (:class:`_ProgressLines`)."""
    if quiet:
        yield None
        return
    if not sys.stderr.isatty():  # a build of seconds prints nothing; a long one a line a minute
        yield _ProgressLines(game, work)
        return

    def layer_text(ply: int | str | None) -> str | None:
        return None if ply is None else _layer_text(ply, game)

    with click.progressbar(length=work, label=f"solving {game.name}", file=sys.stderr, item_show_func=layer_text) as bar:

        def advance(units: int, layer: int | str | None = None) -> None:
            bar.update(units, layer)

        yield advance


@contextmanager
def meter(label: str, total: int, *, quiet: bool = False) -> Iterator[Callable[[int], None]]:
    """A click progress bar on stderr over ``total`` units (a download's bytes, a check's blocks, a proof's boards,
    a grading's positions); off a terminal, where click would print the label as a line, a line a minute only
    (:class:`_MinuteLines`: a command of seconds prints nothing but its result); nothing if ``quiet``."""
    if quiet:
        yield lambda units: None
        return
    if not sys.stderr.isatty():
        yield _MinuteLines(label, total)
        return
    with click.progressbar(length=total, label=label, file=sys.stderr) as bar:
        yield bar.update


def echo_under_bar(line: str) -> None:
    """A line on stdout while a :func:`meter` bar may be drawn on the same terminal: the bar's line is cleared
    first (it is drawn again at its next step), so the line does not land after the bar's text."""
    if sys.stderr.isatty() and sys.stdout.isatty():
        click.echo("\r\x1b[K", nl=False, err=True)
    click.echo(line)


class _MinuteLines:
    """Progress off a terminal: ``<label>: 45.0% done, about 2 min left`` on stderr once a minute (:data:`PROGRESS_LINE_SECONDS`)."""

    def __init__(self, label: str, total: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.label, self.total, self.clock = label, total, clock
        self.started = self.shown = clock()
        self.done = 0

    def __call__(self, units: int) -> None:
        self.done += units
        now = self.clock()
        if now - self.shown >= PROGRESS_LINE_SECONDS and self.done:
            self.shown = now
            left = (now - self.started) * max(self.total - self.done, 0) / self.done
            click.echo(f"{self.label}: {percent(self.done, max(self.total, 1))} done, about {format_duration(left)} left", err=True)


@contextmanager
def book_meter(game: Game, *, quiet: bool) -> Iterator[Callable[[int, int], None]]:
    """The book build's progress: a bar on a terminal, else a line a minute (:data:`PROGRESS_LINE_SECONDS`)."""
    state: dict[str, Any] = {"bar": None, "shown": 0.0, "done": 0}
    start = time.monotonic()

    def advance(done: int, chunks: int) -> None:
        if quiet:
            return
        if sys.stderr.isatty():
            if state["bar"] is None:
                state["bar"] = click.progressbar(length=chunks, label=f"{game.name} book", file=sys.stderr).__enter__()
            state["bar"].update(done - state["done"])
        elif time.monotonic() - state["shown"] >= PROGRESS_LINE_SECONDS or done == chunks:
            state["shown"] = time.monotonic()
            click.echo(
                f"{game.name} book: {done:,} of {chunks:,} chunks searched ({100 * done / max(chunks, 1):.1f}%), "
                f"{format_duration(time.monotonic() - start)} so far",
                err=True,
            )
        state["done"] = done

    try:
        yield advance
    finally:
        if state["bar"] is not None:
            state["bar"].__exit__(None, None, None)
