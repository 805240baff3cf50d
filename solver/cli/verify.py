"""``solve verify``: the proof of a table file (or a seeded sample of its layers), or the check of an opening book."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from ..api import (
    DEFAULT_BOOK_SAMPLE,
    DEFAULT_REFERENCE,
    MAX_EMPTY,
    Check,
    Game,
    LayerCheck,
    Table,
    book_game,
    check_sample,
    format_duration,
    proof,
    proof_disk,
    proof_seconds,
    proof_work,
    record_book_check,
    remove_dead_temporaries,
    sample_seconds,
    shipped_book_path,
    verify_book,
    verify_plan,
)
from ..memory import size_words
from ..words import count
from .group import main
from .options import TableOptions, game_option
from .progress import echo_under_bar, meter


@main.command()
@game_option
@click.option(
    "--table", "path", type=click.Path(dir_okay=False, path_type=Path), default=None, help="The table file to check (default: the one 'solve' uses for --game)."
)
@click.option(
    "--sample",
    "boards",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Instead of the proof, check a seeded sample of N boards in play per layer against their children (minutes, not hours; not a proof).",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="The seed of --sample's sample (a table's: 0 when not given; a book's: drawn afresh each run and said, so that a run can be repeated).",
)
@click.option(
    "--reference",
    type=click.IntRange(min=0),
    default=DEFAULT_REFERENCE,
    show_default=True,
    help=f"With --sample: boards per layer (with at most {MAX_EMPTY} empty cells) also solved by an independent minimax.",
)
@click.option("--all", "every", is_flag=True, help="Connect Four's book: re-derive every entry of its deepest ply by search (the time of a build).")
def verify(options: TableOptions, path: Path | None, boards: int | None, seed: int | None, reference: int, every: bool) -> None:
    """Prove everything a table file says: its header, every block, every score, the counts it keeps.

    One line per part on stdout as it is done (what was checked), each problem on stderr
    with the place in the file, then the verdict. A proved table of a game without a shipped
    checksum is trusted from then on. Also removes the temporary files that dead builders left beside it.
    With --sample N, check a seeded sample of every layer instead: one line per layer, then the verdict (a sample is not a proof: nothing is trusted for it).
    """
    if book_game(options.game):
        _verify_book(path or _book_in_use(options), options.game, boards, seed, every, quiet=options.quiet)
        return
    path = path or options.tablebase.path_of(options.game, table_dir=options.table_dir)
    remove_dead_temporaries(path.parent)
    table = options.tablebase.open_file(path, game=options.game if options.game_given else None, verify=False, prove_untrusted=False)
    if boards is not None:
        _verify_sample(table, path, boards, seed or 0, reference, quiet=options.quiet)
        return

    def show(check: Check) -> None:
        echo_under_bar(f"{path}: {check.what}{': FAILED' if check.problems else ''}")
        for problem in check.problems:
            click.echo(_about(path, problem), err=True)

    if not options.quiet:
        seconds, disk = proof_seconds(table.game, table.kind), proof_disk(table)
        kept = f", keeping up to {size_words(disk)} on disk in {tempfile.gettempdir()} (set TMPDIR to choose)" if disk else ""
        click.echo(f"Proving {path} ({table.game.name}): every block and every score; about {format_duration(seconds)} on 1 core{kept}", err=True)
    with meter(f"proving {table.game.name}", proof_work(table), quiet=options.quiet) as advance:
        problems = [problem for check in proof(table, on_check=show, progress=advance) for problem in check.problems]
    if problems:
        click.echo(f"{path}: FAILED ({table.game.name}): {count(len(problems), 'problem')}", err=True)
        raise SystemExit(1)
    options.tablebase.record_proof(table)  # proved: trusted from now on when no checksum ships for it
    click.echo(f"{path}: OK ({table.game.name}, sha256 {table.sha256})")


def _book_in_use(options: TableOptions) -> Path:
    """The book look-ups of ``options.game`` read: the table directory's, else the one the package ships."""
    there = options.tablebase.path_of(options.game, table_dir=options.table_dir)
    shipped = shipped_book_path(options.game)
    return shipped if shipped is not None and not there.exists() else there


def _verify_book(path: Path, game: Game, boards: int | None, seed: int | None, every: bool, *, quiet: bool) -> None:
    """``solve verify`` of an opening book: what it checks and how long it should take on stderr (unless ``quiet``),
    then every byte, the derivation of every shallower ply, and the deepest ply's entries re-derived by search (a
    sample drawn afresh, its seed said, or all with --all): a line per entry searched, then the verdict. A book that
    passes is believed from now on (recorded beside it, unless its checksum ships), as the verdict says."""
    sample = None if every else (boards or DEFAULT_BOOK_SAMPLE)
    searched = _announce_book_check(path, game, sample, quiet=quiet)
    with meter(f"verifying the {game.name} book", searched, quiet=quiet) as advance:

        def show(key: int, stored: int, found: int, seconds: float) -> None:
            echo_under_bar(f"{path}: key {key:#x}: {stored} in the book, {found} by search ({seconds:.2f} s){'' if stored == found else ': FAILED'}")
            advance(1)

        check = verify_book(path, game, sample=sample, seed=seed, on_entry=show)
    sampled = "" if check.seed is None else f" (a sample: --seed {check.seed} repeats it)"
    what = (
        f"{game.name} book, depth {check.depth}: every block, {check.derived:,} entries against their children, "
        f"{check.searched:,} of {check.deepest:,} re-derived by search{sampled}, {check.seconds:.1f} s"
    )
    if check.problems:
        for problem in check.problems:
            click.echo(problem, err=True)
        click.echo(f"{path}: FAILED ({what}): {count(len(check.problems), 'problem')}", err=True)
        raise SystemExit(1)
    trusted = "; believed from now on" if record_book_check(check, game) else ""
    click.echo(f"{path}: OK ({what}; sha256 {check.checksum}{trusted})")


def _announce_book_check(path: Path, game: Game, sample: int | None, *, quiet: bool) -> int:
    """Say what ``solve verify`` of a book checks and about how long it takes (:func:`solver.api.verify_plan`: its
    header read, nothing else yet); the entries it will search. A header that cannot be read is left to the check to refuse."""
    plan = verify_plan(path, game, sample)
    if plan is None:
        return 0
    if not quiet:
        click.echo(
            f"Verifying {path} ({game.name} book, depth {plan.depth}, {plan.positions:,} positions): every block, every entry of plies 0 to "
            f"{plan.depth - 1} against its children, and {plan.searched:,} of the {plan.deepest:,} entries of ply {plan.depth} searched again; "
            f"about {format_duration(plan.seconds)} on 1 core",
            err=True,
        )
    return plan.searched


def _about(path: Path, problem: str) -> str:
    """``<path>: <problem>``, with the path once: a problem found in the file's blocks names it already."""
    return problem if problem.startswith(f"{path}: ") else f"{path}: {problem}"


def _verify_sample(table: Table, path: Path, boards: int, seed: int, reference: int, *, quiet: bool) -> None:
    """``solve verify --sample``: what it checks and how long it should take on stderr (unless ``quiet``),
    a line per layer on stdout, a line per problem on stderr, then the verdict."""
    game = table.game
    if not quiet:
        seconds = sample_seconds(game, boards=boards, reference=reference, max_empty=MAX_EMPTY)
        solved = f", {min(reference, boards):,} of them in each layer with at most {MAX_EMPTY} empty cells also by the reference minimax" if reference else ""
        what = f"up to {count(boards, 'board')} in each of its {game.cells + 1} layers{solved}"
        click.echo(f"Checking a sample of {path} ({game.name}): {what}; about {format_duration(seconds)}", err=True)

    with meter(f"sampling {game.name}", game.cells + 1, quiet=quiet) as advance:

        def show(layer: LayerCheck) -> None:
            against = f", {layer.reference:,} against the reference minimax" if layer.reference else ""
            echo_under_bar(f"layer {layer.ply:2d}: {count(layer.boards, 'board')} checked{against}, {layer.seconds:.2f} s")
            advance(1)

        report = check_sample(table, boards=boards, seed=seed, reference=reference, on_layer=show)
    what = f"{table.game.name}, seed {seed}, {count(report.checked, 'board')} in {count(len(report.layers), 'layer')}, {report.seconds:.1f} s"
    if report.problems:
        for problem in report.problems:
            click.echo(_about(path, problem), err=True)
        click.echo(f"{path}: sample FAILED ({what}): {count(len(report.problems), 'problem')}", err=True)
        raise SystemExit(1)
    click.echo(f"{path}: sample OK ({what}); a sample, not a proof: 'solve verify' without --sample proves every board")
