"""Every checksum check is the trust policy's (solver/storage/trust.py): a local file, a mirror and a URL ask it.

A table whose root is not the checksum the package ships is refused through every path; a policy that refuses
everything is obeyed by every path (so no path compares checksums on its own); what a fetch and a proof record
is the policy's to record.
"""

from __future__ import annotations

from io import BytesIO
from pathlib import Path
from types import SimpleNamespace

import pytest
from range_server import serving

from solver.errors import TableError
from solver.rules.game import parse_game
from solver.storage import checksums, trust
from solver.storage.tablefile import read_head
from solver.store.locate import open_file
from solver.store.mirror import fetch_table
from solver.store.tablebase import Tablebase
from solver.store.urltable import open_url_table

GAME = parse_game("2x9k4")
NAME = "2x9k4.ttt"
FORGED_ROOT = "ab" * 32
"""A checksum no 2x9k4 table has."""

pytestmark = pytest.mark.usefixtures("private_cache")


def open_table_bytes_root(data: bytes) -> str:
    """The root a table file's header states."""

    def fail(problem: str, found: object = None) -> TableError:
        return TableError(problem)

    return read_head(BytesIO(data), len(data), fail)[0].root


@pytest.fixture
def local_file(stand_in_table: bytes, tmp_path: Path) -> Path:
    path = tmp_path / "local" / NAME
    path.parent.mkdir()
    path.write_bytes(stand_in_table)
    return path


def test_a_table_whose_root_is_not_the_shipped_checksum_is_refused_locally_from_a_mirror_and_at_a_url(
    stand_in_table: bytes, local_file: Path, table_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(checksums.EXPECTED_COMPACT_ROOTS, GAME.name, FORGED_ROOT)  # the package ships another root
    monkeypatch.delitem(checksums.EARLIER_COMPACT_ROOTS, GAME.name, raising=False)
    with pytest.raises(TableError, match=f"not the expected {FORGED_ROOT}"):
        open_file(local_file, game=GAME)
    with serving({NAME: stand_in_table}) as server:
        with pytest.raises(TableError, match=f"not the expected {FORGED_ROOT}"):
            fetch_table(GAME, url=server.url, table_dir=table_dir)
        assert not (table_dir / NAME).exists()
        with pytest.raises(TableError, match=f"not the expected {FORGED_ROOT}"):
            open_url_table(server.url + NAME, game=GAME)
        table_dir.mkdir(parents=True, exist_ok=True)
        (table_dir / NAME).write_bytes(stand_in_table)  # in place already, but not the table the package expects
        with pytest.raises(TableError, match="not replaced unless asked"):
            fetch_table(GAME, url=server.url, table_dir=table_dir)
    real = open_table_bytes_root(stand_in_table)
    assert not trust.is_shipped(real, GAME, "compact") and trust.build_refusal(real, GAME, "compact") == FORGED_ROOT


def test_a_policy_that_refuses_every_root_is_obeyed_by_every_path(
    stand_in_table: bytes, local_file: Path, table_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []

    def refuse(root: str, game: object, kind: str, *, expected: str | None = None) -> str:
        asked.append(root)
        return "refused by the policy"

    monkeypatch.setattr(trust, "refusal", refuse)
    with pytest.raises(TableError, match="refused by the policy"):
        open_file(local_file, game=GAME)
    assert asked, "opening a local file did not ask the policy"
    with serving({NAME: stand_in_table}) as server:
        for path, attempt in (
            ("a mirror", lambda: fetch_table(GAME, url=server.url, table_dir=table_dir)),
            ("a URL", lambda: open_url_table(server.url + NAME, game=GAME)),
        ):
            before = len(asked)
            with pytest.raises(TableError, match="refused by the policy"):
                attempt()
            assert len(asked) > before, f"{path} did not ask the policy"
    assert not (table_dir / NAME).exists()


def test_the_checksum_a_server_s_table_must_have_is_the_policy_s(monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = checksums.EXPECTED_COMPACT_ROOTS[GAME.name]
    assert trust.required_root(GAME, "compact", None) == shipped == trust.required_root(GAME, "compact", shipped.upper())
    with pytest.raises(TableError, match="is not the one the package ships"):
        trust.required_root(GAME, "compact", FORGED_ROOT)
    with pytest.raises(TableError, match="is not a SHA-256"):
        trust.required_root(GAME, "compact", "abc")
    monkeypatch.delitem(checksums.EXPECTED_COMPACT_ROOTS, GAME.name)
    assert trust.required_root(GAME, "compact", FORGED_ROOT.upper()) == FORGED_ROOT
    with pytest.raises(TableError, match="no checksum ships"):
        trust.required_root(GAME, "compact", None)
    header = SimpleNamespace(game=parse_game("3x3"), kind="compact")
    assert trust.expects(GAME, FORGED_ROOT)(header) is None  # a header of another game: no checksum is its
    assert trust.is_required(FORGED_ROOT, GAME, "compact", FORGED_ROOT) and not trust.is_required(None, GAME, "compact", FORGED_ROOT)


def test_a_proved_table_is_recorded_by_the_policy_only_where_no_checksum_ships(local_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = open_file(local_file, game=GAME)
    Tablebase().record_proof(table)  # a checksum ships: nothing to record
    assert not trust.registry_path(local_file.parent).exists()
    monkeypatch.delitem(checksums.EXPECTED_COMPACT_ROOTS, GAME.name)
    Tablebase().record_proof(table)
    assert trust.is_trusted(local_file.parent, GAME.name, "compact", table.sha256)
