"""Build a table file: the same as ``solve build`` (see ``--help``).

python scripts/build_table.py --output data/3x3k3.ttt
python scripts/build_table.py --game 4x4k4
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's solver

from solver.cli import main  # noqa: E402

if __name__ == "__main__":
    main(["build", *sys.argv[1:]], prog_name="build_table.py")
