"""``python -m solver.cli``: the ``solve`` command."""

from . import main


def run() -> None:
    """``solve`` as ``python -m solver.cli`` runs it, ending the process with the status the command chose.

    CPython notes a ``KeyboardInterrupt`` raised inside code compiled from a string (``exec`` or ``eval``, as a
    dataclass's or a namedtuple's methods are made while a module is imported) as unhandled even when it is caught, and
    a process started with ``-m`` then kills itself by SIGINT at exit instead of exiting with its status: a Ctrl-C the
    command answered with one line and status 130 ended as killed by SIGINT. (The ``solve`` console script runs as a
    script, whose exit keeps its status.) Every exit of ``main`` is the command's own (click's ``SystemExit``), so the
    note is cleared before it: running an empty string clears it.
    """
    try:
        main()
    except SystemExit:
        exec("")  # clears CPython's note of an unhandled Ctrl-C (run_eval_code_obj): the command handled it
        raise


if __name__ == "__main__":  # pragma: no cover
    run()
