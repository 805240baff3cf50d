"""The README and the manual in docs/ are real: their Python runs, their console output is what
`solve` prints, the README's quick start works in a new shell, and CI installs, tests and builds
the manual exactly as they say."""

from __future__ import annotations

import ast
import doctest
import importlib
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
CONSOLE = re.compile(r"```console\n(.*?)```", re.S)


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def sessions(text: str) -> list[list[tuple[str, str]]]:
    """Each console block, as its ``$ command`` lines with the output shown under each."""
    blocks = []
    for block in CONSOLE.findall(text):
        commands = []
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            commands.append((command, output))
        blocks.append(commands)
    return blocks


def console_examples() -> list[tuple[str, str, str]]:
    """Every ``$ solve ...`` line of every page, with the output shown under it."""
    return [
        (page_id(page), command, output)
        for page in PAGES
        for block in sessions(page.read_text(encoding="utf-8"))
        for command, output in block
        if command.startswith("solve ")
    ]


def shell_sessions() -> list[tuple[str, list[tuple[str, str]]]]:
    """Every console block of the README (its quick start) and the blocks of the manual with a
    command other than `solve` (activating the venv, python): they are run as written in a new
    shell (test_shell_sessions_run_as_written_in_a_new_shell), where a bare `solve` is not found."""
    return [
        (page_id(page), block)
        for page in PAGES
        for block in sessions(page.read_text(encoding="utf-8"))
        if page == README or any(not command.startswith("solve ") for command, _ in block)
    ]


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_python_examples_run_as_shown(page: Path, table_dir: Path) -> None:
    """Every ``>>>`` example of the page, run as a doctest in a namespace of its own, its output compared
    character for character (numpy's spacing too: a reader copies it and compares)."""
    results = doctest.testfile(str(page), module_relative=False, globs={}, optionflags=0, encoding="utf-8")
    assert results.failed == 0


def test_the_pages_with_python_examples_have_them_all() -> None:
    """A page losing its examples (a broken fence, a stray edit) would pass the doctest silently."""
    counted = {page_id(page): len(doctest.DocTestParser().get_examples(page.read_text(encoding="utf-8"))) for page in PAGES}
    assert counted["docs/api.md"] >= 15
    assert counted["docs/cli.md"] >= 3 and counted["docs/grading.md"] >= 2 and counted["docs/big-games.md"] >= 2
    assert counted["docs/index.md"] >= 2 and counted["docs/interop.md"] >= 8 and sum(counted.values()) >= 30


CONNECT_FOUR_ADAPTERS = (
    "openspiel_connect_four_position",
    "openspiel_connect_four_best_actions",
    "pettingzoo_connect_four_position",
    "pettingzoo_connect_four_best_actions",
)


def test_the_interop_page_has_a_worked_example_of_each_connect_four_adapter_that_runs() -> None:
    """Each Connect Four adapter is called in a ``>>>`` example (run above without the libraries) and in a program
    printing what its ``text`` block shows (run by tests/test_interop.py against OpenSpiel and PettingZoo), and the
    page says PettingZoo's connect_four_v3 has player_0 first, unlike tictactoe_v3."""
    text = (DOCS / "interop.md").read_text(encoding="utf-8")
    sessions = "\n".join(example.source for example in doctest.DocTestParser().get_examples(text))
    programs = "\n".join(code for code, _ in re.findall(r"```python\n((?:(?!```).)*)```\s*```text\n((?:(?!```).)*)```", text, flags=re.S))
    for adapter in CONNECT_FOUR_ADAPTERS:
        assert f"interop.{adapter}(" in sessions and f"interop.{adapter}(" in programs, adapter
    assert 'pyspiel.load_game("connect_four")' in programs and "connect_four_v3.env()" in programs
    assert "`connect_four_v3` has `player_0` first" in " ".join(text.split())


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_python_blocks_without_prompts_compile_and_import_what_exists(page: Path) -> None:
    """The ```python blocks that are programs, not sessions (interop, adapters, the compact build):
    test_interop and test_grade run the ones they can; every one at least compiles, and every
    name it imports from the package exists (a module renamed under the page fails here)."""
    for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S):
        if ">>>" in block:
            continue
        tree = compile(block, str(page), "exec", flags=ast.PyCF_ONLY_AST)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "solver":
                module = importlib.import_module(node.module or "")
                for alias in node.names:
                    assert hasattr(module, alias.name) or importlib.util.find_spec(f"{node.module}.{alias.name}"), (page.name, node.module, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "solver":
                        importlib.import_module(alias.name)


@pytest.mark.parametrize(("page", "command", "expected"), console_examples(), ids=lambda value: value.split("\n")[0][:40])
def test_console_output_is_what_solve_prints(page: str, command: str, expected: str, table_dir: Path) -> None:
    args = shlex.split(command)
    result = CliRunner().invoke(main, args[1:])
    assert result.exit_code == 0, result.output
    assert result.stdout == expected


def test_every_console_command_is_checked() -> None:
    """A console line is either `solve ...` (run above) or part of a session run in a new shell."""
    in_sessions = {command for _, block in shell_sessions() for command, _ in block}
    for page in PAGES:
        for block in sessions(page.read_text(encoding="utf-8")):
            for command, _ in block:
                assert command.startswith("solve ") or command in in_sessions, (page, command)
    quick_start = README.read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert CONSOLE.search(quick_start), "the README's quick start is a console session, run in a new shell"


def test_readme_is_a_front_door() -> None:
    """At most 12 KB, a table of contents naming each section, and every link leads somewhere."""
    text = README.read_text(encoding="utf-8")
    assert len(text.encode()) <= 12 * 1024
    contents = next(line for line in text.splitlines() if line.startswith("**Contents:**"))
    sections = re.findall(r"^## (.+)$", text, flags=re.M)
    assert [re.sub(r"\W+", "-", title.lower()).strip("-") for title in sections] == re.findall(r"\(#([\w-]+)\)", contents)
    for target in re.findall(r"\]\(((?!https?:|#)[^)#]+)", text):
        assert (ROOT / target).exists(), target
    for page in DOCS.glob("*.md"):
        assert f"(docs/{page.name})" in text, f"the README does not link {page.name}"


def test_the_readme_and_the_manual_name_every_runtime_dependency() -> None:
    """What ``pip install .`` brings (zstandard among them) is said where a new user sets up."""
    import tomllib

    requirements = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = [re.split(r"[<>=;\[ ]", requirement, maxsplit=1)[0] for requirement in requirements]
    assert "zstandard" in names
    setup = README.read_text(encoding="utf-8").split("## Set up", 1)[1].split("\n## ", 1)[0]
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for name in names:
        assert name in setup, f"the README's set-up does not name {name}"
        assert name in index, f"docs/index.md does not name {name}"
    for page in PAGES:  # and a page that lists the core's dependencies lists them all
        sentences = " ".join(page.read_text(encoding="utf-8").split()).split(". ")
        for sentence in [sentence for sentence in sentences if re.search(r"\b(?:only|core|runtime) dependencies", sentence, flags=re.I)]:
            missing = [name for name in names if name not in sentence]
            assert not missing, f"{page_id(page)} lists the core dependencies without {missing}: {sentence.strip()}"


def test_the_grading_page_gives_the_signature_solver_grade_has() -> None:
    """Issue 24: the page's ``solver.grade(...)`` lacked ``sample=`` and ``sandbox=``; it is checked against the function now."""
    import inspect

    import solver

    text = " ".join((DOCS / "grading.md").read_text(encoding="utf-8").split())
    written = re.search(r"`solver\.grade\((.*?)\)` returns", text)
    assert written, "docs/grading.md no longer shows solver.grade's signature"
    parameters = inspect.signature(solver.grade).parameters.values()
    expected = ", ".join(["player", "*"] + [f"{p.name}={p.default!r}".replace("'", '"') for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY])
    assert written[1] == expected


def test_the_manual_names_no_version_after_the_one_it_documents() -> None:
    """Issue 24: version 0.1.0's manual spoke of tables kept somewhere "before 0.2"."""
    import tomllib

    version = tuple(int(part) for part in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"].split("."))
    for page in [README, *DOCS.glob("*.md")]:
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"\b(?:before|since|until|version|release) (?:version |release )?v?(\d+\.\d+(?:\.\d+)?)\b(?! ?[A-Za-z%])", text):
            named = tuple(int(part) for part in match[1].split("."))
            assert named <= version, f"{page.name}: {match[0]!r} names a version after {'.'.join(map(str, version))}"


def test_no_page_gives_a_table_file_the_size_of_the_raw_layers() -> None:
    """Issue 24: "151 GiB for the table file" (5x5k4's raw layers) beside the 2.59 GB file it is."""
    for page in [README, *DOCS.glob("*.md")]:
        text = " ".join(page.read_text(encoding="utf-8").split())
        for sentence in re.split(r"(?<=[.;:])\s", text):
            if "table file" in sentence:
                assert "151 GiB" not in sentence.split("table file")[1][:40] and "151 GiB for the table" not in sentence, (page.name, sentence)


def test_every_page_is_in_the_site_navigation() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = re.findall(r"^\s+- [^:]+: (\S+\.md)$", config, flags=re.M)
    assert sorted(nav) == sorted(page.name for page in DOCS.glob("*.md"))


def test_the_file_format_page_names_the_format_versions_it_describes() -> None:
    from solver.storage.tablefile import COMPRESSED_VERSION, FORMAT_VERSION, MAGIC

    text = (DOCS / "file-format.md").read_text(encoding="utf-8")
    versions = f"format versions {FORMAT_VERSION} and {COMPRESSED_VERSION}"
    assert versions in text and f"## Format version {FORMAT_VERSION}" in text and f"## Format version {COMPRESSED_VERSION}" in text
    assert f"magic `{MAGIC.decode().strip()}\\n`" in text
    assert versions in README.read_text(encoding="utf-8")


def test_the_http_page_lists_the_endpoints_of_the_openapi_document() -> None:
    from web_support import need_web

    need_web()
    from solver.web import MAX_BATCH, MAX_BODY_BYTES
    from solver.web.openapi import openapi_document

    document = openapi_document(["3x3k3"], max_batch=MAX_BATCH, max_body=MAX_BODY_BYTES)
    served = {(method.upper(), path) for path, operations in document["paths"].items() for method in operations}
    text = (DOCS / "http.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `(GET|POST|PUT|DELETE) (/api/\S+?)(?:\?\S*)?` \|", text, flags=re.M))
    assert documented - {("GET", "/api/v1/openapi.json")} == served
    assert "(openapi.json)" in text  # the page links the document the site build writes (scripts/mkdocs_hooks.py)


def test_ci_installs_tests_and_builds_the_manual_exactly_as_the_readme_says() -> None:
    readme = README.read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install = re.search(r"pip\"? install (\S+)", ci)
    test = re.search(r'"\$venv/bin/python" -m pytest(.*)', ci)
    assert install and test
    assert f".venv/bin/pip install {install[1]} && .venv/bin/python -m pytest{test[1]}" in readme
    assert "python3 -m venv" in ci
    assert "docs" in install[1]  # the extra that brings MkDocs
    assert re.search(r'"\$venv/bin/mkdocs" build --strict --site-dir', ci)


def clean_environment(home: Path) -> dict[str, str]:
    """What a new login shell has: a home, the system PATH, and pip's own configuration (an index
    mirror, a proxy) if the machine has one; nothing of this test process's virtual environment."""
    keep = {name: value for name, value in os.environ.items() if name.startswith("PIP_") or name.lower().endswith("_proxy")}
    return {**keep, "HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


@pytest.mark.slow
def test_shell_sessions_run_as_written_in_a_new_shell(tmp_path: Path) -> None:
    """A clean clone, the README's first set-up command, then each console session of the README
    and the manual in a new shell of its own (`env -i`: no activated venv, no PATH of ours), its
    output compared with the page. Bare `solve` before `source .venv/bin/activate` fails here.
    The clone is of the last commit: commit a change to the quick start before running this."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout to clone")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = clean_environment(Path.home())
    assert shutil.which("solve", path=env["PATH"]) is None, "a solve on the system PATH would hide a missing activation"
    setup = re.search(r"```sh\n(python3 -m venv \.venv && \.venv/bin/pip install \. && \.venv/bin/solve stats)\n```", README.read_text(encoding="utf-8"))
    assert setup, "the README's first set-up command"
    done = subprocess.run(["bash", "-c", setup[1]], cwd=clone, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "reachable positions     5,478" in done.stdout
    for page, block in shell_sessions():
        script = "set -e\n" + "\n".join(command for command, _ in block)
        ran = subprocess.run(["bash", "-c", script], cwd=clone, env=env, capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0, f"{page}: {ran.stderr}"
        assert ran.stdout == "".join(output for _, output in block), page


HTTP_EXAMPLE = re.compile(r"```sh\n(curl .*?)```\s*```text\n(.*?)```", re.S)
SHOWN_PAIR = re.compile(r'"(\w+)": ("(?:[^"\\]|\\.)*"|-?\d+|true|false|null|\[[-\d, ]*\])')
SERVE_COMMAND = re.compile(r"`solve serve((?: --game [\w-]+)+)`")


def served_for_examples(text: str) -> list[tuple[str, str, list[str]]]:
    """Each `curl` example of a page with its answer and the games the page says to serve for it: those of the
    last `solve serve --game G` written (in backquotes) in its section before it, and tic-tac-toe, which
    `solve serve` always serves. A reader who starts the server as the page says gets the answers it shows."""
    found = []
    for section in re.split(r"^## ", text, flags=re.M):
        for example in HTTP_EXAMPLE.finditer(section):
            commands = SERVE_COMMAND.findall(section[: example.start()])
            games = commands[-1].split("--game")[1:] if commands else []
            found.append((example[1], example[2], ["3x3k3", *(game.strip() for game in games)]))
    return found


def test_http_examples_answer_what_the_page_shows(table_dir: Path) -> None:
    """Each `curl` of docs/http.md, sent to the app `solve serve` runs when started as the page says
    (:func:`served_for_examples`): the status it shows, and every `"key": value` it shows (the answers
    are cut with `...` on the page) is in the answer as written. An example answered 404 asks for a
    game that no table can be made of, so it is a 404 whatever tables a reader has."""
    from web_support import need_web

    need_web()
    import warnings

    import solver
    from solver import web
    from solver.rules.game import parse_game

    with warnings.catch_warnings():  # Starlette 1.x suggests httpx2 for its test client; httpx works the same
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        clients = {}
        for _, _, games in served_for_examples((DOCS / "http.md").read_text(encoding="utf-8")):
            if tuple(games) not in clients:
                clients[tuple(games)] = TestClient(web.create_app([solver.table_for(game) for game in games]))
    examples = served_for_examples((DOCS / "http.md").read_text(encoding="utf-8"))
    assert len(examples) >= 5
    checked = 0
    for command, shown, games in examples:
        args = shlex.split(command.replace("\\\n", " "))
        method = args[args.index("-X") + 1] if "-X" in args else "GET"
        url = next(arg for arg in args if arg.startswith("http://127.0.0.1:8000/"))
        headers = {"content-type": "application/json"} if "-d" in args else {}
        body = args[args.index("-d") + 1] if "-d" in args else None
        answer = clients[tuple(games)].request(method, url.removeprefix("http://127.0.0.1:8000"), content=body, headers=headers)
        status = re.match(r"HTTP/1\.1 (\d+)", shown)
        assert answer.status_code == (int(status[1]) if status else 200), (command, games, answer.text)
        if answer.status_code == 404 and url.startswith("http://127.0.0.1:8000/api/v1/"):
            game = url.removeprefix("http://127.0.0.1:8000/api/v1/").split("/")[0].split("?")[0]
            with pytest.raises(ValueError):
                parse_game(game)  # no table of it can exist: the example holds whatever a reader has built
        for key, value in SHOWN_PAIR.findall(shown):
            assert f'"{key}": {value}' in answer.text, (command, key, value)
            checked += 1
    assert checked >= 60


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The manual built as CI builds it (``mkdocs build --strict``), once for the tests that read the pages."""
    pytest.importorskip("mkdocstrings_handlers.python", reason="needs the docs extra")
    site = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"}
    mkdocs = Path(sys.executable).with_name("mkdocs")
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return site


def test_the_api_reference_shows_no_sphinx_role_as_text_and_links_the_objects_it_renders(built_site: Path) -> None:
    """Issue 24: the generated page showed 19 ``:meth:``, 32 ``:func:``, 13 ``:class:`` and 24 ``:mod:`` as text."""
    page = (built_site / "api" / "index.html").read_text(encoding="utf-8")
    raw = re.findall(r":(?:py:)?(?:func|meth|class|mod|data|attr|exc|obj|const):", page)
    assert raw == [], f"{len(raw)} roles shown as text"
    anchors = set(re.findall(r'id="(solver\.[\w.]+)"', page))
    links = re.findall(r'<a class="autorefs autorefs-internal"[^>]* href="#(solver\.[\w.]+)"', page)
    assert len(links) >= 30 and set(links) <= anchors, "each role naming a rendered object is a link to it"
    assert 'href="#solver.table_for"' in page and 'href="#solver.Table.verify"' in page


def test_sphinx_roles_become_optional_cross_references_named_as_the_manual_renders_them() -> None:
    griffe = pytest.importorskip("griffe")
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import griffe_roles
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    package = griffe.load("solver", search_paths=[str(ROOT)], extensions=griffe.load_extensions(griffe_roles.SphinxRoles))
    table = package["tables.base.Table"]
    resolve = griffe_roles.resolver(table, griffe_roles.public_names(package))
    assert resolve("solver.tables.Table.verify") == "solver.Table.verify", "followed through the re-exports to the name the manual renders"
    assert resolve("InvalidBoardError") == "solver.InvalidBoardError"
    assert resolve("no_such_name") == "no_such_name", "kept: it stays code, never a broken link"
    text = package["store.make"].docstring.value  # ":mod:`solver.retrograde.dense`", ":func:`kind_for`" in the source
    assert ":mod:" not in text and ":func:" not in text
    assert '<autoref identifier="solver.retrograde.dense" optional><code>solver.retrograde.dense</code></autoref>' in text
    assert '<autoref identifier="solver.store.make.kind_for" optional><code>kind_for</code></autoref>' in text


def test_the_index_table_of_pages_lists_every_page_of_the_manual() -> None:
    """A new reader finds every page from the index: Rules, Mirrors and Checksums were missing."""
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    table = index.split("## The manual", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| \[[^\]]+\]\(([\w-]+\.md)[#\w-]*\) \|", table, flags=re.M))
    assert listed == {page.name for page in DOCS.glob("*.md")} - {"index.md"}


def test_the_rules_page_is_named_for_what_it_covers_in_the_readme_and_the_menu() -> None:
    """It covers normal, misère and gravity play; the README and the site's menu called it "normal and misère"."""
    title = (DOCS / "rules.md").read_text(encoding="utf-8").splitlines()[0]
    nav = re.search(r"^\s+- ([^:\n]+(?::[^:\n]+)?): rules\.md$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), flags=re.M)
    readme = re.search(r"\[([^\]]+)\]\(docs/rules\.md\):", README.read_text(encoding="utf-8"))
    index = re.search(r"^\| \[([^\]]+)\]\(rules\.md\) \| ([^|]+) \|", (DOCS / "index.md").read_text(encoding="utf-8"), flags=re.M)
    assert nav and readme and index
    for named in (title, nav[1], readme[1], index[1] + " " + index[2]):
        assert all(rule in named for rule in ("normal", "misère", "gravity")), named


def test_the_browser_packages_are_installed_as_a_new_machine_needs() -> None:
    """``apt-get install`` without ``update`` fails on a fresh machine, without ``sudo`` as a user, and without ``-y`` it asks."""
    command = "`sudo apt-get update && sudo apt-get install -y chromium chromium-driver`"
    for page in (README, DOCS / "index.md"):
        text = " ".join(page.read_text(encoding="utf-8").split())
        assert command in text, page_id(page)
        assert text.count("chromium-driver") == text.count(command), page_id(page)


def modules_named_in_the_development_guide(text: str) -> set[str]:
    """The modules docs/development.md names: by path anywhere (``solver/store/make.py``), or by file name in
    the row of its folder in the table of layers (``| `solver/store/` | `make.py` ... |``; the row ``base
    modules`` names the modules of ``solver/`` itself)."""
    named = set(re.findall(r"\bsolver/[\w/]+\.py\b", text))
    for folder, cells in re.findall(r"^\| (`solver/[\w/]+/`|base modules) \|(.*)\|\s*$", text, re.M):
        where = "solver/" if folder == "base modules" else folder.strip("`")
        named.update(where + name for name in re.findall(r"`(\w+\.py)`", cells))
    return named


def test_the_development_guide_names_every_module_of_the_package() -> None:
    modules = {path.relative_to(ROOT).as_posix() for path in (ROOT / "solver").rglob("*.py") if path.name != "__init__.py"}
    missing = sorted(modules - modules_named_in_the_development_guide((DOCS / "development.md").read_text(encoding="utf-8")))
    assert not missing, f"docs/development.md does not name these modules (add each to its folder's row of the table of layers): {missing}"


def test_the_guide_check_reads_paths_and_the_rows_of_the_table_of_layers() -> None:
    text = "See solver/store/make.py.\n| `solver/rules/` | `game.py` (a game), `base.py` |\n| base modules | `errors.py` (errors) |\n"
    assert modules_named_in_the_development_guide(text) == {"solver/store/make.py", "solver/rules/game.py", "solver/rules/base.py", "solver/errors.py"}


def test_the_glossary_gives_each_word_one_meaning() -> None:
    text = (DOCS / "development.md").read_text(encoding="utf-8")
    section = text.split("## Words", 1)[1].split("\n## ", 1)[0]
    words = re.findall(r"^\| \*\*([^*]+)\*\*", section, re.M)
    for word in ("block", "chunk", "layer", "ply", "plies", "code", "index", "verified", "prove", "trust"):
        assert word in words, f"the glossary of docs/development.md lacks {word!r}: {words}"
    assert len(words) == len(set(words)), "a word defined twice in the glossary"
