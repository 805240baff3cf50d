"""Containment of a graded player.

The hostile players live in ``tests/players/hostile_players.py``. The tests that need
bubblewrap skip where it cannot run, unless ``SOLVED_TICTACTOE_REQUIRE_SANDBOX=1`` (as
``.ci/run`` sets), which makes them fail. The probes of the sandbox attack from
inside a player, as an attacker would, and must hold as root (CI runs as root).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import solver
import solver.grading.limits
import solver.grading.sandbox
import solver.store.locate
from solver.encoding.moves import parse_move
from solver.errors import InvalidBoardError, OffBoardMoveError, SandboxWarning
from solver.grading.limits import Scratch
from solver.grading.player import MAX_LINE, call_shape
from solver.grading.sandbox import ENVIRONMENT, seccomp_filter

PLAYERS = Path(__file__).parent / "players"
HOSTILE = PLAYERS / "hostile_players.py"
SIMPLE = PLAYERS / "simple_players.py"
PERFECT = PLAYERS / "perfect.py"
"""The module the test players import beside them: given to each grading as a support file (each file is graded alone)."""
REQUIRE = os.environ.get("SOLVED_TICTACTOE_REQUIRE_SANDBOX") == "1"
O_TO_MOVE = 2097
"""Tic-tac-toe positions with O to move (the hostile players attack the one where X holds only the centre)."""


def need_bwrap() -> None:
    """Skip unless bubblewrap can sandbox a process here (fail instead when CI requires it)."""
    problem = solver.grading.sandbox.bwrap_problem()
    if problem is not None:
        if REQUIRE:
            pytest.fail(f"the sandbox is required here (SOLVED_TICTACTOE_REQUIRE_SANDBOX=1): {problem}")
        pytest.skip(problem)


BOTH = [pytest.param("bwrap", id="bwrap"), pytest.param("none", id="no-sandbox")]


def sandbox_or_skip(mode: str) -> str:
    if mode == "bwrap":
        need_bwrap()
    return mode


def hostile(name: str, **options) -> solver.GradeReport:
    return solver.grade(f"{HOSTILE}:{name}", side="O", support=[PERFECT], **options)


def attacker(folder: Path, **settings) -> Path:
    """A copy of the hostile players (and their ``perfect`` neighbour) in ``folder``, told ``settings``
    by ``hostile_settings.json`` beside them (a player's environment is a fixed one)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("hostile_players.py", "perfect.py"):
        shutil.copy(PLAYERS / name, folder / name)
    (folder / "hostile_settings.json").write_text(json.dumps(settings))
    return folder / "hostile_players.py"


def beside(player: Path) -> list[Path]:
    """The support files of an :func:`attacker`: its ``perfect`` neighbour and its settings."""
    return [player.parent / "perfect.py", player.parent / "hostile_settings.json"]


def probe(player: Path, name: str, sandbox: str = "bwrap", **options):
    """What the probe ``name`` of ``player`` found in the sandbox (it raises ``PROBE <json>`` on the centre position)."""
    failure = centre_failure(solver.grade(f"{player}:{name}", side="O", sandbox=sandbox, support=beside(player), **options))
    assert failure.kind == "exception" and failure.message.startswith("RuntimeError: PROBE "), failure.message
    return json.loads(failure.message.removeprefix("RuntimeError: PROBE ").rpartition(" (hostile_players.py, line")[0])


def centre_failure(report: solver.GradeReport) -> solver.grading.grader.PlayerFailure:
    """The one failure of a report: on the position where X holds only the centre; every other answer optimal."""
    assert report.complete and report.positions == O_TO_MOVE
    assert [f.position.board for f in report.errors] == [".../.X./..."]
    assert report.optimal == report.positions - 1
    return report.errors[0]


# -- choosing the sandbox ------------------------------------------------------------------------
def test_without_bwrap_auto_grades_unsandboxed_and_says_once_what_is_not_contained(monkeypatch):
    monkeypatch.setattr(solver.grading.sandbox, "bwrap_problem", lambda: "bwrap is not installed")
    monkeypatch.setattr(solver.grading.sandbox, "_warned", False)
    with pytest.warns(SandboxWarning, match=r"without a sandbox \(bwrap is not installed\): .*files.*apt-get install -y bubblewrap") as said:
        assert solver.grading.sandbox.choose("auto") == "none"
    assert len(str(said[0].message)) < 160, "the warning is one short line (it was 450 characters)"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert solver.grading.sandbox.choose("auto") == "none"  # once per process
    with pytest.raises(solver.PlayerError, match="cannot sandbox the player: bwrap is not installed"):
        solver.grading.sandbox.choose("bwrap")
    with pytest.raises(solver.PlayerError, match="sandbox must be one of auto, bwrap, none"):
        solver.grading.sandbox.choose("docker")


def test_cli_says_once_on_one_line_that_the_player_is_not_sandboxed(monkeypatch):
    from click.testing import CliRunner

    from solver.cli import main

    monkeypatch.setattr(solver.grading.sandbox, "bwrap_problem", lambda: "bwrap is not installed")
    monkeypatch.setattr(solver.grading.sandbox, "_warned", False)
    result = CliRunner().invoke(main, ["grade", f"{SIMPLE}:first_empty", "--support", str(PERFECT), "--sample", "5", "-q"])
    assert result.exit_code == 0, result.output
    warned = [line for line in result.stderr.splitlines() if "without a sandbox" in line]
    assert len(warned) == 1 and warned[0].startswith("solve: warning: the player runs without a sandbox (bwrap is not installed)")
    refused = CliRunner().invoke(main, ["grade", f"{SIMPLE}:first_empty", "--support", str(PERFECT), "--sample", "5", "--sandbox", "bwrap"])
    assert refused.exit_code == 2 and "cannot sandbox the player" in refused.stderr


@pytest.mark.parametrize("mode", BOTH)
def test_a_sandboxed_or_plain_player_is_graded_alike(mode):
    report = solver.grade(f"{SIMPLE}:first_empty", sandbox=sandbox_or_skip(mode), support=[PERFECT])
    assert report == solver.grade(solver.load_player(f"{SIMPLE}:first_empty"))


# -- problem 1: verdicts from bytes the player cannot reach ---------------------------------------
@pytest.fixture
def own_3x4_table(tmp_path, monkeypatch) -> Path:
    """A 3x4k3 table built in a table directory of its own (the player rewrites what it finds there)."""
    monkeypatch.setenv("SOLVED_TICTACTOE_DIR", str(tmp_path))
    solver.forget()
    solver.table_for("3x4")
    yield tmp_path / "3x4k3.ttt"
    solver.forget()


@pytest.mark.parametrize("mode", BOTH)
def test_a_player_rewriting_the_table_file_changes_no_verdict(own_3x4_table, mode, tmp_path):
    sandbox_or_skip(mode)
    player = attacker(tmp_path / "player", table=str(own_3x4_table))  # told where the table is: its environment is a fixed one
    before = own_3x4_table.read_bytes()
    honest = solver.grade(solver.load_player(f"{SIMPLE}:first_empty"), game="3x4", sample=1000)
    # the figures the issue measured for first_empty on 1,000 sampled 3x4k3 positions
    assert (honest.kept, honest.mistakes, honest.blunders) == (510, 52, 438)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tampered = solver.grade(f"{player}:rewrites_the_table", game="3x4", sample=1000, sandbox=mode, support=beside(player))
    assert tampered == honest
    changed = [str(w.message) for w in caught if "changed while the player ran" in str(w.message)]
    if mode == "bwrap":  # it cannot even see the table directory
        assert tampered.printed == 0 and own_3x4_table.read_bytes() == before and not changed
    else:  # the same user without a sandbox writes the file: the verdicts held, the damage is reported
        assert tampered.printed == 1 and own_3x4_table.read_bytes() != before
        assert len(changed) == 1 and "does not match its checksum" in changed[0] and "3x4k3.ttt" in changed[0]
        where = [w.filename for w in caught if "changed while the player ran" in str(w.message)]
        assert where == [__file__], f"the warning points at {where}, not at grade()'s caller"
        with pytest.raises(solver.TableError, match="does not match its checksum"):
            solver.lookup(0, game="3x4")  # the table is reopened, and the damage refused


@pytest.fixture(scope="module")
def compact_3x3k3(tmp_path_factory) -> Path:
    """Tic-tac-toe as a compact table file (compressed blocks, as every compact table now), built once for the module."""
    from solver.store.make import build_compact

    return build_compact(solver.parse_game("3x3k3"), tmp_path_factory.mktemp("compact") / "3x3k3.ttt", jobs=1)


def test_without_a_sandbox_damage_to_a_compact_table_is_reported_as_for_a_dense_one(compact_3x3k3, tmp_path, monkeypatch):
    from solver.store.locate import open_compact

    path = Path(shutil.copy(compact_3x3k3, tmp_path / "3x3k3.ttt"))
    player = attacker(tmp_path / "player", table=str(path))
    monkeypatch.setenv("SOLVED_TICTACTOE_DIR", str(tmp_path / "no tables"))  # the player rewrites every table it finds: only this one
    honest = solver.grade(solver.load_player(f"{SIMPLE}:first_empty"), table=open_compact(path), sample=300)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tampered = solver.grade(f"{player}:rewrites_the_table", table=open_compact(path), sample=300, sandbox="none", support=beside(player))
    assert tampered == honest and tampered.printed == 1  # it rewrote the file, and no verdict moved
    changed = [str(w.message) for w in caught if "changed while the player ran" in str(w.message)]
    assert len(changed) == 1 and str(path) in changed[0] and "the file is damaged" in changed[0], changed
    with pytest.raises(solver.TableError, match="the file is damaged"):
        open_compact(path).lookup_codes(np.array([0]))


# -- problem 2: signals to the parent --------------------------------------------------------------
@pytest.mark.parametrize("mode", BOTH)
@pytest.mark.parametrize("name", ["stops_the_parent", "kills_the_parent", "terminates_the_parent"])
def test_a_player_signalling_its_parent_neither_stops_nor_kills_the_grader(name, mode, tmp_path):
    sandbox_or_skip(mode)
    command = [sys.executable, "-m", "solver.cli", "grade", f"{HOSTILE}:{name}", "--support", str(PERFECT), "--side", "O", "--json", "-q", "--sandbox", mode]
    command += ["--total-timeout", "120"]
    env = {**os.environ, "PYTHONPATH": str(Path(solver.__file__).parent.parent)}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    try:
        out, err = process.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        process.kill()  # a stopped grader still dies of SIGKILL
        process.communicate()
        pytest.fail(f"{name}: the grader never finished (stopped?)")
    assert process.returncode == 0, (process.returncode, err)
    report = json.loads(out)
    assert report["complete"] and report["positions"] == O_TO_MOVE
    if mode == "bwrap":  # its parent is the namespace's init, which such signals do not reach
        assert report["optimal"] == O_TO_MOVE
    else:  # its parent is a shield process: at worst the player's process ends on that call
        assert report["optimal"] >= O_TO_MOVE - 2


# -- problem 3: processes the player starts --------------------------------------------------------
def _sleepers(token: str) -> list[int]:
    """Live processes (not zombies) running ``sleep TOKEN``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                args = cmdline.read().split(b"\0")
            with open(f"/proc/{entry}/stat") as stat:
                state = stat.read().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if args[:2] == [b"sleep", token.encode()] and state != "Z":
            found.append(int(entry))
    return found


@pytest.mark.parametrize(("name", "started"), [("daemonizes", 1), ("forks_twenty", 20)])
def test_daemons_and_setsid_children_of_a_sandboxed_player_are_gone_after_grading(name, started, tmp_path):
    need_bwrap()
    token = f"{3000 + random.randrange(600)}.{random.randrange(10**6):06d}"
    player = attacker(tmp_path / "player", token=token)
    graded, seen = [], []

    def progress(step: int) -> None:
        graded.append(step)
        if len(graded) == O_TO_MOVE + 1:  # after the last call, before the player's process is stopped
            wait = time.monotonic() + 10  # the attacked position may be the last: give its children time to start
            while len(_sleepers(token)) < started and time.monotonic() < wait:
                time.sleep(0.05)
            seen.append(len(_sleepers(token)))

    report = solver.grade(f"{player}:{name}", side="O", progress=progress, sandbox="bwrap", support=beside(player))
    assert report.complete and report.optimal == O_TO_MOVE
    assert seen == [started], f"the player did not start its {started} processes: {seen}"
    deadline = time.monotonic() + 10
    while _sleepers(token) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _sleepers(token), "processes started by the player outlived the grading"


# -- no network, no writes outside its /tmp -----------------------------------------------------------
def test_a_sandboxed_player_reaches_no_network_and_writes_no_file(tmp_path):
    need_bwrap()
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)
        player = attacker(tmp_path / "player", port=server.getsockname()[1])
        report = solver.grade(f"{player}:reaches_out", side="O", sandbox="bwrap", support=beside(player))
        assert report.complete and report.optimal == O_TO_MOVE
        assert report.printed == 0 and not (player.parent / ".escaped").exists()
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody connected


# -- the limits, soft and hard ---------------------------------------------------------------------
@pytest.mark.parametrize("mode", BOTH)
def test_the_players_process_has_equal_soft_and_hard_limits_on_memory_cpu_file_size_and_processes(mode, tmp_path):
    import re

    sandbox_or_skip(mode)
    path = tmp_path / "limits.py"
    path.write_text(
        "import resource\n"
        "def report(board):\n"
        "    names = ('AS', 'CPU', 'FSIZE', 'NPROC', 'CORE')\n"
        "    raise RuntimeError(' '.join(f'{n}={resource.getrlimit(getattr(resource, \"RLIMIT_\" + n))}' for n in names))\n"
    )
    report = solver.grade(f"{path}:report", sample=1, memory_mb=300, total_timeout=100, sandbox=mode)
    limits = {name: (int(soft), int(hard)) for name, soft, hard in re.findall(r"(\w+)=\((-?\d+), (-?\d+)\)", report.exceptions[0].message)}
    scratch = Scratch.of(300).total_mb if mode == "bwrap" else 0  # the sandbox's /tmp and /dev/shm come out of --memory
    assert limits["AS"] == ((300 - scratch) << 20,) * 2
    assert limits["CPU"] == (100 + solver.grading.limits.CPU_SLACK,) * 2
    assert limits["FSIZE"] == (solver.grading.limits.FILE_MB << 20,) * 2
    assert limits["NPROC"][0] == limits["NPROC"][1] > 0
    assert limits["CORE"] == (0, 0)


# -- the sandbox as an allow-list, probed from inside a player -----------------------------
CHECKOUT = Path(__file__).resolve().parent.parent


def test_a_sandboxed_player_reads_no_secret_no_checkout_no_package_and_no_table(tmp_path):
    need_bwrap()
    folder = tmp_path / "player"
    player_table = folder / "3x3k3.ttt"  # a table beside the player: its folder is given, the table is not
    shipped = solver.store.locate.shipped_path(solver.parse_game("3x3k3"))
    paths = [
        "/etc/shadow",
        "/etc/passwd",
        "/root",
        "/home",
        "/run",
        "/var/run",
        "/var/tmp",
        str(CHECKOUT / "pyproject.toml"),
        str(CHECKOUT / "tests" / "test_containment.py"),
        str(Path(solver.__file__)),  # the package: with it the player could look its answers up
        str(Path(solver.__file__).parent / "api.py"),
        str(shipped),
        str(player_table),
        str(solver.store.locate.table_dir()),
        f"/proc/{os.getpid()}/environ",
    ]
    player = attacker(folder, paths=paths)
    shutil.copy(shipped, player_table)
    found = probe(player, "probe_reads", table=solver.load_table(player_table))
    ways = {str(parent) for given in (sys.base_prefix, sys.prefix, folder) for parent in Path(given).parents}  # /root/.pyenv/...
    reached = {path: outcome for path, outcome in zip(paths, found, strict=True) if outcome not in ("ENOENT", "EACCES", 0)}
    assert {path: outcome for path, outcome in reached.items() if not (path in ways and outcome == 1)} == {}, f"the player read these: {reached}"


def test_a_sandboxed_player_connects_to_no_unix_socket(tmp_path):
    need_bwrap()
    folder = tmp_path / "player"
    folder.mkdir()
    places = [Path(f"/tmp/hostile-{os.getpid()}-{random.randrange(10**9)}.sock"), Path(f"/var/tmp/hostile-{os.getpid()}-{random.randrange(10**9)}.sock")]
    places.append(folder / "inside.sock")  # a socket file in a folder the player is given: refused by the seccomp filter
    listeners = []
    try:
        for place in places:
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(str(place))
            listener.listen(4)
            listener.setblocking(False)
            listeners.append(listener)
        found = probe(attacker(folder, sockets=[str(place) for place in places]), "probe_unix_sockets")
        for listener in listeners:
            with pytest.raises(BlockingIOError):
                listener.accept()  # nobody connected
    finally:
        for listener in listeners:
            listener.close()
        for place in places:
            place.unlink(missing_ok=True)
    assert "ok" not in found, found
    if seccomp_filter() is not None:
        assert found == ["EACCES"] * 3, "socket(AF_UNIX) is refused before any path is looked up"


def test_a_sandboxed_players_tmp_and_dev_shm_count_against_its_memory(tmp_path):
    need_bwrap()
    folders = ["/dev/shm", "/tmp", "/dev", "/", "/var/tmp", str(tmp_path / "player")]
    found = probe(attacker(tmp_path / "player", folders=folders, mib=300), "probe_fills", memory_mb=256)
    written = dict(zip(folders, found, strict=True))
    scratch = Scratch.of(256)
    assert written["/dev/shm"] <= scratch.shm_mb and written["/tmp"] <= scratch.tmp_mb
    assert 0 < written["/dev/shm"] + written["/tmp"] <= scratch.total_mb < 256
    assert all(written[folder] == 0 for folder in folders[2:]), written


def test_a_sandboxed_player_forks_no_more_than_its_processes_even_as_root(tmp_path):
    need_bwrap()
    started = probe(attacker(tmp_path / "player", children=60), "probe_forks", processes=8)
    assert 0 < started < 8, f"{started} children with --processes 8 (its own process counts)"
    leftover = [path for path in Path("/sys/fs/cgroup").glob(f"**/solved-tictactoe-{os.getpid()}-*") if path.is_dir()]
    assert leftover == [], "the grading's PID cgroups are removed"


def test_a_pid_cgroup_left_by_a_killed_grader_is_removed_by_the_next_grading():
    from solver.grading.limits import PidCgroup, _own_pid_cgroups

    parents = [parent for parent in _own_pid_cgroups() if os.access(parent, os.W_OK)]
    if not parents:
        pytest.skip("no PID cgroup is writable here")
    gone = subprocess.Popen(["true"])
    gone.wait()  # reaped: its pid is gone, as a grader's killed by SIGKILL
    stale = parents[0] / f"solved-tictactoe-{gone.pid}-0"
    stale.mkdir()
    made = PidCgroup.make(8)
    assert made is not None and not stale.exists()
    made.remove()
    assert not made.path.exists()


def documented_environment() -> dict[str, tuple[str, str]]:
    """The player's environment as docs/grading.md lists it: each variable's value in the sandbox and without it."""
    page = (CHECKOUT / "docs" / "grading.md").read_text()
    section = page.split("### The player's environment", 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    found = {}
    for row in rows:
        name, sandboxed, plain = (cell.strip() for cell in row.strip("|").split("|"))
        found[name.strip("`")] = (sandboxed, plain)
    return found


def read_value(cell: str, folder: str) -> str | None:
    """A documented value: a literal in backticks, "its folder", or None where only its start is given (PYTHONPATH)."""
    if cell == "its folder":
        return folder
    if cell.startswith("`") and cell.endswith("`") and cell.count("`") == 2:
        return cell.strip("`")
    return None


@pytest.mark.parametrize("mode", BOTH)
def test_a_players_environment_is_exactly_the_documented_one(tmp_path, monkeypatch, mode):
    sandbox_or_skip(mode)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "do-not-leak")
    monkeypatch.chdir(tmp_path)  # the grader's working directory reaches the player in no variable
    player = attacker(tmp_path / "player")
    environment = probe(player, "probe_environment", sandbox=mode)
    places = probe(player, "probe_folder", sandbox=mode)
    documented = documented_environment()
    assert set(environment) == set(documented), "the player's environment is the documented one, no more, no less"
    assert {name: (value, "") for name, value in ENVIRONMENT.items()} == {name: (environment[name], "") for name in ENVIRONMENT}
    assert places["cwd"] == places["folder"] and places["files"] == ["hostile_players.py", "hostile_settings.json", "perfect.py"]
    folder = environment["PWD"]  # each grading's own: the folder of its file, and its working directory
    if mode == "bwrap":
        assert folder == places["folder"] == str(solver.grading.sandbox.PLAYER_FOLDER)
    else:  # a private folder of copies, not the player's own folder, nor the grader's working directory
        assert Path(folder).name.startswith("solve-player-") and Path(places["folder"]).name.startswith("solve-player-")
        assert Path(folder) not in (player.parent, tmp_path) and not Path(folder).exists(), "removed after grading"
    package = str(Path(solver.__file__).resolve().parents[1])
    for name, cells in documented.items():
        cell = cells[0] if mode == "bwrap" else cells[1]
        expected = read_value(cell, folder)
        if expected is not None:
            assert environment[name] == expected, (name, cell)
    first = environment["PYTHONPATH"].split(os.pathsep)[0]
    assert first == ("/grader" if mode == "bwrap" else package)
    assert str(tmp_path) not in json.dumps(environment) and "do-not-leak" not in json.dumps(environment), "nothing of the grader's"


def test_each_graded_file_is_alone_in_its_sandbox(tmp_path):
    need_bwrap()
    from click.testing import CliRunner

    from solver.cli import main

    students = tmp_path / "students"
    students.mkdir()
    secret = f"alice-secret-{random.randrange(10**12)}"
    (students / "alice.py").write_text(f"SECRET = {secret!r}\ndef play(board):\n    return 4\n")
    (students / "mallory.py").write_text(
        "import json, os\n"
        "HERE = os.path.dirname(os.path.abspath(__file__))\n"
        f"ALICE = {str(students / 'alice.py')!r}\n"
        "def steals(board):\n"
        "    found = {'folder': sorted(os.listdir(HERE)), 'cwd': sorted(os.listdir('.'))}\n"
        "    for path in (ALICE, os.path.join(HERE, 'alice.py'), '../students/alice.py'):\n"
        "        try:\n"
        "            found[path] = open(path).read()\n"
        "        except OSError as error:\n"
        "            found[path] = type(error).__name__\n"
        "    try:\n"
        "        import alice\n"
        "        found['import'] = alice.SECRET\n"
        "    except ImportError as error:\n"
        "        found['import'] = type(error).__name__\n"
        "    raise RuntimeError('PROBE ' + json.dumps(found))\n"
    )
    outputs = []
    for flags in ([], ["--json"], ["--limit", "0"]):
        result = CliRunner().invoke(main, ["grade", f"{students / 'mallory.py'}:steals", "--sample", "3", "--sandbox", "bwrap", "-q", *flags])
        assert result.exit_code == 0, result.output
        outputs.append(result.stdout + result.stderr)
    assert all(secret not in output for output in outputs), "another student's file reached the report"
    report = solver.grade(f"{students / 'mallory.py'}:steals", sample=3, sandbox="bwrap")
    found = json.loads(report.exceptions[0].message.removeprefix("RuntimeError: PROBE ").rpartition(" (mallory.py, line")[0])
    assert found["folder"] == found["cwd"] == ["mallory.py"] and found["import"] == "ModuleNotFoundError"
    assert {found[path] for path in found if path not in ("folder", "cwd", "import")} <= {"FileNotFoundError", "PermissionError"}


def test_a_support_file_is_given_beside_the_player_and_nothing_else(tmp_path):
    player = attacker(tmp_path / "player")
    (tmp_path / "player" / "other_student.py").write_text("SECRET = 1\n")
    for mode in ("bwrap", "none") if solver.grading.sandbox.bwrap_problem() is None or REQUIRE else ("none",):
        places = probe(player, "probe_folder", sandbox=mode)
        assert places["files"] == ["hostile_players.py", "hostile_settings.json", "perfect.py"], mode
    with pytest.raises(solver.PlayerError, match="no such file"):
        solver.grade(f"{player}:probe_folder", support=[tmp_path / "missing.py"], sample=1)
    with pytest.raises(solver.PlayerError, match="already holds a file named perfect.py"):
        solver.grade(f"{player}:probe_folder", support=[PERFECT, player.parent / "perfect.py"], sample=1)
    with pytest.raises(solver.PlayerError, match="table"):
        solver.grade(f"{player}:probe_folder", support=[solver.store.locate.shipped_path(solver.parse_game("3x3k3"))], sample=1)
    with pytest.raises(solver.PlayerError, match=r"graded alone.*--support .*perfect\.py"):
        solver.grade(f"{player}:probe_folder", sample=1)  # its neighbour, not given: the error says how to give it


def test_a_sandboxed_player_writes_nowhere_but_its_tmp_and_dev_shm(tmp_path):
    import site

    need_bwrap()
    folder = tmp_path / "player"
    host = [folder / "x", Path.cwd() / "x", CHECKOUT / "x"]  # the player's own folder, the grader's working directory, the checkout
    inside = ["/x", "/usr/x", "/dev/x", "/grader/solver/x", "/player/x", site.getsitepackages()[0] + "/x"]
    paths = ["/tmp/x", "/dev/shm/x", *inside, *map(str, host)]
    found = dict(zip(paths, probe(attacker(folder, paths=paths), "probe_writes"), strict=True))
    assert found["/tmp/x"] == found["/dev/shm/x"] == "ok"
    assert {path: found[path] for path in inside} == dict.fromkeys(inside, "EROFS")
    for path in host:  # wherever the checkout is (under /tmp, a write there would land in the sandbox's own /tmp, if anywhere)
        assert not path.exists(), f"the player wrote {path}"
        private = any(path == place or place in path.parents for place in (Path("/tmp"), Path("/dev/shm")))
        assert found[str(path)] != "ok" or private, (path, found[str(path)])


# -- problem 4: the memory cap ---------------------------------------------------------------------
@pytest.mark.parametrize("mode", BOTH)
def test_a_player_cannot_lift_its_memory_cap(mode):
    sandbox_or_skip(mode)
    if mode == "none" and os.geteuid() == 0:
        pytest.skip("without a sandbox, root may raise its hard limits (CAP_SYS_RESOURCE): only the sandbox drops that")
    failure = centre_failure(hostile("lifts_the_memory_cap", memory_mb=256, sandbox=mode))
    assert failure.kind in ("exception", "crash") and "filled" not in failure.answer
    assert failure.message.startswith("MemoryError") or "killed" in failure.message


# -- the protocol: replies the player forges on the reply pipe --
def test_a_reply_for_another_board_is_refused():
    failure = centre_failure(hostile("forges_a_reply_index", sandbox="none", timeout=5))
    assert failure.kind == "crash"
    assert failure.message.startswith("the player's process answered board 999999 when board ") and failure.message.endswith(" was asked")


def test_a_reply_line_over_the_length_limit_is_refused_unread():
    started = time.perf_counter()
    failure = centre_failure(hostile("writes_a_huge_line", sandbox="none", timeout=20))
    assert failure.kind == "crash"
    assert failure.message == f"the player's process sent a reply line longer than {MAX_LINE:,} bytes (refused unread)"
    assert time.perf_counter() - started < 20  # refused at the limit, not at the call's time-out


def test_a_forged_negative_count_of_printed_lines_is_refused():
    report = hostile("forges_a_printed_count", sandbox="none")
    assert report.printed >= 0
    failure = centre_failure(report)
    assert failure.kind == "crash" and "count of printed lines is not a count from 0 to" in failure.message


@pytest.mark.parametrize(
    "reply",
    [
        {"i": 0, "a": 1, "s": 0.0, "m": 0, "p": -1},
        {"i": 0, "a": 1, "s": 0.0, "m": 0, "p": True},
        {"i": 0, "a": 1, "s": 0.0, "m": 0, "p": 10**18},
        {"i": 0, "a": 1, "s": -1.0, "m": 0, "p": 0},
        {"i": 0, "a": 1, "s": float("nan"), "m": 0, "p": 0},
        {"i": 0, "a": 1, "s": 0.0, "m": 7, "p": 0},
        {"i": 0, "x": "TypeError: x", "call": "sideways", "s": 0.0, "m": 0, "p": 0},
        {"i": 1, "a": 1, "s": 0.0, "m": 0, "p": 0},
        {"i": True, "a": 1, "s": 0.0, "m": 0, "p": 0},
    ],
)
def test_every_number_from_the_players_process_is_checked(reply):
    from solver.grading.player import _refused

    assert _refused(reply, 0) is not None
    assert _refused({"i": 0, "a": 1, "s": 0.5, "m": 1, "p": 3}, 0) is None


# -- decisions by exception types, not message text -------------------------------
def test_an_off_board_move_is_its_own_exception_type():
    with pytest.raises(OffBoardMoveError):
        parse_move((3, 0))
    with pytest.raises(OffBoardMoveError):
        parse_move("99")
    with pytest.raises(InvalidBoardError) as unreadable:
        parse_move("one, two")
    assert not isinstance(unreadable.value, OffBoardMoveError)


def test_a_failed_call_is_told_by_the_signature_not_the_message():
    def board_only(board):
        return 0

    def board_and_turn(board, turn):
        return 0

    assert call_shape(board_and_turn, ("b",)) == "more"
    assert call_shape(board_only, ("b", "X")) == "fewer"
    assert call_shape(board_only, ()) == "more"
    assert call_shape(lambda a, b, c: 0, ("b",)) == "other"


def test_the_answer_key_copies_a_compact_table_file_as_well_as_a_dense_one(compact_3x3k3):
    from solver.grading.answerkey import AnswerKey
    from solver.grading.grader import positions_to_grade
    from solver.store.locate import open_compact

    compact = open_compact(compact_3x3k3)
    dense = solver.table_for()
    key = AnswerKey(compact, positions_to_grade(table=compact))
    assert len(key.positions) == 4520
    for mine, theirs in zip(key.positions, positions_to_grade(table=dense), strict=True):
        assert (mine.code, mine.score, mine.best_mask, mine.moves) == (theirs.code, theirs.score, theirs.best_mask, theirs.moves), theirs.board
    assert key.damage() is None
    first_empty = solver.load_player(f"{SIMPLE}:first_empty")
    assert solver.grade(first_empty, table=compact) == solver.grade(first_empty, table=dense)
