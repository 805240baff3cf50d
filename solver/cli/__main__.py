"""``python -m solver.cli``: the ``solve`` command."""

from . import main

if __name__ == "__main__":  # pragma: no cover
    main()
