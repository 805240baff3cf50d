"""A player's text (exception messages, type names, answers' reprs, import errors) reaches the grading report
with every control character escaped: in the text report, in ``--json`` and on the CLI's stderr, sandboxed or not.

A student's file could otherwise clear the teacher's screen, set the window's title, colour the report, reorder
text with bidi overrides or forge report lines with line breaks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import solver
import solver.grading.sandbox
from solver.cli import main

HOSTILE_TEXT = "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b[31mred\x9b2J\x7f\u202eevil\u2066\x00\n  kept the result 4,520\r\x85\u2028"
"""Clear the screen, home the cursor, set the window title (OSC ... BEL), colour; a C1 CSI, DEL, bidi overrides, NUL,
line breaks that would forge a report line, NEL and a line separator."""
SHOUTER = f"""
HOSTILE = {HOSTILE_TEXT!r}
Shouting = type("Shout" + HOSTILE.replace("\\x00", ""), (Exception,), {{}})  # a type name holds no NUL
Sneaky = type("Sneaky" + HOSTILE.replace("\\x00", ""), (), {{"__repr__": lambda self: HOSTILE}})

def raises(board):
    raise ValueError(HOSTILE)

def raises_its_own_type(board):
    raise Shouting(HOSTILE)

def answers_an_object(board):
    return Sneaky()

def answers_text(board):
    return HOSTILE
"""
NAMES = ["raises", "raises_its_own_type", "answers_an_object", "answers_text"]
CONTROLS = ("\x1b", "\x07", "\x9b", "\x7f", "\u202e", "\u2066", "\x00", "\r", "\x85", "\u2028")


def unsafe(text: str) -> list[str]:
    """The characters of ``text`` a terminal would act on (everything not printable, but the line breaks of the report itself)."""
    return sorted({char for char in text if not char.isprintable() and char != "\n"})


def strings(data: object) -> list[str]:
    """Every string in JSON data, keys included."""
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [text for key, value in data.items() for text in (key, *strings(value))]
    if isinstance(data, list):
        return [text for item in data for text in strings(item)]
    return []


@pytest.fixture
def shouter(tmp_path: Path) -> Path:
    path = tmp_path / "shouter.py"
    path.write_text(SHOUTER)
    return path


def test_printable_escapes_every_control_character_and_keeps_the_rest():
    from solver.errors import printable

    assert printable("plain text, café, 名前, ✓") == "plain text, café, 名前, ✓"
    assert printable("\x1b[2J\x07\x9b\x7f\u202e\t\n\x00") == "\\x1b[2J\\x07\\x9b\\x7f\\u202e\\t\\n\\x00"
    assert unsafe(printable(HOSTILE_TEXT)) == []
    assert printable(printable(HOSTILE_TEXT)) == printable(HOSTILE_TEXT), "escaping twice changes nothing"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("sandbox", ["auto", "none"])
def test_a_players_text_is_escaped_in_the_text_report_and_the_json(shouter: Path, name: str, sandbox: str):
    if sandbox == "auto" and solver.grading.sandbox.bwrap_problem() is not None:
        sandbox = "none"
    args = ["grade", f"{shouter}:{name}", "--sample", "3", "--sandbox", sandbox, "-q", "--total-timeout", "60"]
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert unsafe(text.stdout) == [] and unsafe(text.stderr) == [], "the text report carries the player's control characters"
    assert "\\x1b[2J" in text.stdout, "the escaped text is shown"
    assert "kept the result 4,520" not in "\n".join(line for line in text.stdout.splitlines() if line.startswith("kept")), "no forged line"
    data = json.loads(CliRunner().invoke(main, [*args, "--json"]).stdout)
    found = strings(data)
    assert any("\\x1b[2J" in item for item in found)
    assert [item for item in found if unsafe(item)] == [], "the JSON report carries the player's control characters"


def test_a_function_objects_text_is_escaped_in_the_report():
    def raises(board: object) -> object:
        raise ValueError(HOSTILE_TEXT)

    report = solver.grade(raises, sample=3)
    assert unsafe(str(report)) == [] and [item for item in strings(report.to_dict()) if unsafe(item)] == []
    assert report.exceptions[0].message.startswith("ValueError: \\x1b[2J")


def test_an_import_error_with_control_characters_is_one_escaped_line_on_stderr(tmp_path: Path):
    path = tmp_path / "broken.py"
    path.write_text(f"raise RuntimeError({HOSTILE_TEXT!r})\n")
    for sandbox in ("auto", "none"):
        result = CliRunner().invoke(main, ["grade", f"{path}:play", "--sample", "3", "--sandbox", sandbox, "-q"])
        assert result.exit_code == 2 and result.stdout == ""
        assert unsafe(result.stderr) == [] and result.stderr.count("\n") == 1, result.stderr
        assert "RuntimeError: \\x1b[2J" in result.stderr
        with pytest.raises(solver.PlayerError) as caught:
            solver.grade(f"{path}:play", sample=3, sandbox=sandbox)
        assert unsafe(str(caught.value)) == []


FORGER = f'''
import json, os, signal, sys

def forges(board):
    """Writes its own reply, with a raw message, straight to the reply pipe (bypassing the grader's code in its process), then dies."""
    frame = sys._getframe(1)
    while "index" not in frame.f_locals:
        frame = frame.f_back
    reply = {{"i": frame.f_locals["index"], "x": {HOSTILE_TEXT!r}, "call": False, "s": 0.0, "m": 0, "p": 0}}
    os.write(int(sys.argv[2]), (json.dumps(reply) + "\\n").encode())
    os.kill(os.getpid(), signal.SIGKILL)
'''


@pytest.mark.parametrize("sandbox", ["auto", "none"])
def test_a_reply_forged_in_the_players_process_is_escaped_by_the_grader(tmp_path: Path, sandbox: str):
    path = tmp_path / "forger.py"
    path.write_text(FORGER)
    report = solver.grade(f"{path}:forges", sample=2, sandbox=sandbox, total_timeout=60)
    assert report.exceptions, report
    assert report.exceptions[0].message.startswith("\\x1b[2J"), report.exceptions[0].message
    assert unsafe(str(report)) == [] and [item for item in strings(report.to_dict()) if unsafe(item)] == []
