"""Build a table file: the same as ``solve build`` (see ``--help``).

    python scripts/build_table.py --output data/3x3k3.ttt
    python scripts/build_table.py --game 4x4k4
"""

from solver.cli import main

if __name__ == "__main__":
    main(["build", *__import__("sys").argv[1:]], prog_name="build_table.py")
