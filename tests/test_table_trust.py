"""A table never answers wrongly: damaged blocks are found on first use, forged files are refused
by the checksum the package expects, and unreachable codes are marked even without checks.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import struct

import numpy as np
import pytest

import solver
import solver.storage.tablefile
import solver.storage.trust
import solver.store.locate
import solver.tables.dense
from solver import build_table, load_table
from solver.contents.stored import compact_meta
from solver.rules.game import DENSE_MAX_CELLS, parse_game
from solver.storage.checksums import EXPECTED_ROOTS
from solver.storage.tablefile import open_table


def header_of(data: bytes) -> dict:
    (length,) = struct.unpack("<I", data[8:12])
    return json.loads(data[12 : 12 + length].decode("ascii"))


def entries_span(data: bytes) -> tuple[int, int]:
    (spec,) = header_of(data)["arrays"]
    return spec["offset"], spec["offset"] + 4 * int(np.prod(spec["shape"]))


@pytest.fixture(scope="module")
def tictactoe() -> solver.Table:
    return build_table()


@pytest.fixture
def lazily_verified(monkeypatch):
    """Open every table like a large one: blocks are verified on first use, not on open."""
    monkeypatch.setattr(solver.tables.dense, "VERIFY_ON_OPEN_BYTES", 0)


def _flip(path, where: int) -> None:
    data = bytearray(path.read_bytes())
    data[where] ^= 0x01
    path.write_bytes(bytes(data))


# -- damaged blocks --------------------------------------------------------------------------------------


def test_a_batch_reaching_the_last_block_verifies_it_before_answering(tmp_path, lazily_verified):
    """A batch spanning the first and the last block: every block it touches is hashed, the last one too."""
    table = build_table(game="3x4k3")
    path = table.save(tmp_path / "3x4k3.ttt")
    first, _ = entries_span(path.read_bytes())
    guard = load_table(path).file.guard("entries")
    assert guard.count >= 3
    reachable = table.reachable_codes()
    last = int(reachable[-1])
    assert last >> guard.shift == guard.count - 1, "the code must lie in the last block"
    _flip(path, first + 4 * last + 3)  # its score
    damaged = load_table(path)
    with pytest.raises(solver.TableError, match=f"block {guard.count - 1} of 'entries'.*does not match its checksum"):
        damaged.lookup_codes(np.array([int(reachable[0]), int(reachable[len(reachable) // 2]), last]))
    with pytest.raises(solver.TableError, match="does not match its checksum"):
        load_table(path).lookup_codes(np.array([last, int(reachable[0])]))


def test_a_flipped_byte_anywhere_in_the_entries_raises_on_first_use_instead_of_answering(tmp_path, tictactoe, lazily_verified):
    """Before block checksums, a flipped byte in a large memory-mapped table gave a wrong answer silently."""
    path = tictactoe.save(tmp_path / "3x3k3.ttt")
    first, end = entries_span(path.read_bytes())
    reachable = tictactoe.reachable_codes()
    for code in (int(reachable[0]), int(reachable[len(reachable) // 2]), int(reachable[-1])):
        for byte in range(4):  # best (2 bytes), ply, score
            tictactoe.save(path)
            _flip(path, first + 4 * code + byte)
            table = load_table(path)
            with pytest.raises(solver.TableError, match=r"does not match its checksum.*solve build --game 3x3k3"):
                table.at(code)
            with pytest.raises(solver.TableError, match="does not match its checksum"):
                table.lookup_codes(np.array([code]))
            with pytest.raises(solver.TableError):
                table.lookup(solver.encoding.board.render(table.game, code))


def test_a_damaged_block_does_not_stop_answers_from_intact_blocks(tmp_path, lazily_verified):
    table = build_table(game="3x4")  # 531,441 codes: 33 blocks of 64 KiB
    path = table.save(tmp_path / "3x4k3.ttt")
    first, _ = entries_span(path.read_bytes())
    reachable = table.reachable_codes()
    damaged, intact = int(reachable[-1]), int(reachable[0])
    assert damaged * 4 // (64 << 10) != intact * 4 // (64 << 10)
    _flip(path, first + 4 * damaged + 3)
    opened = load_table(path)
    assert opened.at(intact).score == table.at(intact).score
    with pytest.raises(solver.TableError, match="block"):
        opened.at(damaged)


def test_only_the_touched_blocks_are_hashed_by_a_lookup(tmp_path, lazily_verified):
    path = build_table(game="3x4").save(tmp_path / "3x4k3.ttt")
    opened = load_table(path)
    guard = opened.file.guard("entries")
    assert sum(guard.flags) == 0
    opened.at(0)
    assert sum(guard.flags) == 1 and guard.flags[0] == 1
    opened.lookup_codes(np.arange(0, opened.game.codes, 3**11), check=False)
    assert 1 < sum(guard.flags) < guard.count


def test_every_bulk_array_read_is_verified_first(tmp_path, lazily_verified):
    table = build_table(game="3x4")
    path = table.save(tmp_path / "3x4k3.ttt")
    first, end = entries_span(path.read_bytes())
    _flip(path, end - 1)
    opened = load_table(path)
    for read in (lambda: opened.score, lambda: opened.entries, lambda: opened.reachable_codes(), lambda: opened.stats()):
        with pytest.raises(solver.TableError, match="does not match its checksum"):
            read()


# -- forged files and the expected checksums --------------------------------------------------------------


def _forge(path, code: int, new_score: int) -> None:
    """Change one code's score and recompute every checksum in the file, so that it is self-consistent."""
    data = bytearray(path.read_bytes())
    header = header_of(data)
    first, end = entries_span(data)
    data[first + 4 * code + 3] = new_score & 0xFF
    block = header["block_bytes"]
    index = (4 * code) // block
    digest = hashlib.sha256(data[first + index * block : min(end, first + (index + 1) * block)]).digest()
    at = header["digests"]["offset"] + 32 * index
    data[at : at + 32] = digest
    digests = bytes(data[header["digests"]["offset"] :])
    without_root = {key: value for key, value in header.items() if key != "root"}
    header["root"] = hashlib.sha256(json.dumps(without_root, sort_keys=True, separators=(",", ":")).encode() + digests).hexdigest()
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    (length,) = struct.unpack("<I", data[8:12])
    data[12 : 12 + length] = text.ljust(length)
    path.write_bytes(bytes(data))


def test_a_forged_self_consistent_table_is_refused_naming_both_checksums(tmp_path, tictactoe):
    path = tictactoe.save(tmp_path / "3x3k3.ttt")
    _forge(path, 0, 99)  # "X wins the empty board in one ply"
    monkeypatched_expected = EXPECTED_ROOTS["3x3k3"]
    with pytest.raises(solver.TableError) as caught:
        load_table(path, verify=True)
    message = str(caught.value)
    forged_root = header_of(path.read_bytes())["root"]
    assert forged_root in message and monkeypatched_expected in message, message
    assert str(path) in message and f"solve build --game 3x3k3 --output {path}" in message


def test_a_forged_dense_table_of_a_game_without_a_shipped_checksum_is_proved_and_refused(tmp_path, tictactoe, monkeypatch):
    """Without an expected checksum, a self-consistent forgery is proved before its first answer:
    a plausible forged score (X wins in 5) is refuted by the consistency pass, an impossible one (X wins
    in 1 on the empty board) by the block check."""
    monkeypatch.setattr(solver.storage.trust, "expected_root", lambda game, kind="dense": None)
    path = tictactoe.save(tmp_path / "3x3k3.ttt")
    _forge(path, 0, 95)
    with pytest.raises(solver.TableError, match="this user did not build this one, and it is wrong: .*differs from a fresh build"):
        load_table(path, verify=True)
    _forge(path, 0, 99)
    with pytest.raises(solver.TableError, match="code 0 holds the score 99, impossible for a 3x3k3 position with 0 pieces"):
        load_table(path, verify=True)


def test_a_file_in_the_table_dir_never_overrides_the_shipped_tictactoe_table(table_dir, tictactoe):
    path = tictactoe.save(table_dir / "3x3k3.ttt")
    _forge(path, 0, 99)
    assert solver.table_for().path == solver.store.locate.shipped_path(solver.Game())
    assert solver.lookup(0).score == 0


def test_expected_checksums_cover_every_game_up_to_16_cells_of_every_shipped_rule():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from checksums import every_game

    assert {game.name for game in every_game(DENSE_MAX_CELLS)} == set(EXPECTED_ROOTS)
    assert all(len(root) == 64 and int(root, 16) >= 0 for root in EXPECTED_ROOTS.values())


@pytest.mark.parametrize("game", [name for name, _ in zip(sorted(EXPECTED_ROOTS, key=lambda n: solver.parse_game(n).cells), range(60), strict=False)])
def test_a_fresh_build_has_the_expected_checksum(game):
    assert build_table(game=game).sha256 == EXPECTED_ROOTS[game]


@pytest.mark.slow
@pytest.mark.parametrize("game", ["3x4k3", "4x3k3", "2x6k4", "3x5k3"])
def test_a_fresh_build_of_a_larger_game_has_the_expected_checksum(game):
    assert build_table(game=game).sha256 == EXPECTED_ROOTS[game]


def test_the_shipped_table_has_the_expected_checksum():
    shipped = solver.store.locate.shipped_path(solver.Game())
    assert open_table(shipped).header.root == EXPECTED_ROOTS["3x3k3"]


# -- unreachable codes without checks -----------------------------------------------------------------------


def test_lookup_codes_without_checks_marks_unreachable_codes(tictactoe):
    codes = np.array([0, 2, 4, 13222])  # 2 = O alone: impossible counts; 4 = X and X: impossible
    scores = tictactoe.lookup_codes(codes, check=False)
    assert scores.reachable.tolist() == [True, False, False, True]
    assert scores.score[~scores.reachable].tolist() == [-128, -128]
    assert scores.reachable.dtype == bool
    assert tictactoe.lookup_codes(codes[scores.reachable]).reachable.all()


# -- compact tables past 16 cells -------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["2x9k4", pytest.param("3x6k3", marks=pytest.mark.slow), pytest.param("4x5k4", marks=pytest.mark.slow)])
def test_a_fresh_compact_build_has_the_shipped_checksum(tmp_path, game):
    from solver.storage.checksums import EXPECTED_COMPACT_ROOTS
    from solver.store.locate import open_compact
    from solver.store.make import build_compact

    path = build_compact(parse_game(game), tmp_path / f"{game}.ttt", jobs=2)
    table = open_compact(path)
    assert table.sha256 == EXPECTED_COMPACT_ROOTS[game]
    table.verify_blocks()  # every block, with the check of impossible scores: none in a real table


def test_a_compact_table_with_a_changed_score_is_refused_even_when_self_consistent(tmp_path):
    """A compressed table written honestly from one forged score: its blocks, CRCs, digests and root all
    agree with each other, and only the shipped checksum tells it from the real table."""
    import numpy as np

    from solver.retrograde.sweep import build_layers
    from solver.store.locate import open_compact
    from solver.store.make import write_compact

    game = parse_game("2x9k4")
    layers = [np.array(layer) for layer in build_layers(game, tmp_path / "build", jobs=1).layers()]
    layers[0][0] = 99  # the empty board: "X wins in one ply"
    path = write_compact(tmp_path / "2x9k4.ttt", game, layers)
    forged = header_of(path.read_bytes())["root"]
    with pytest.raises(solver.TableError, match=f"checksum {forged} is not the expected"):
        open_compact(path)


# -- games without a shipped checksum: built here, or proved -----------------------
# A compact table of a small game stands in for 3x6k4: no checksum ships for compact 2x4k3 or 3x3k3,
# and they build in milliseconds.


def _compact_scores(game: str, tmp_path) -> np.ndarray:
    from solver.retrograde.sweep import build_layers

    built = build_layers(parse_game(game), tmp_path / f"{game}-layers.build", jobs=1)
    return np.concatenate([np.asarray(layer) for layer in built.layers()])


def _write_forged_compact(path, game: str, scores: np.ndarray):
    """A compact table file with every checksum right for these scores, not recorded as built here."""
    return solver.storage.tablefile.write_table(path, kind="compact", game=parse_game(game), meta=compact_meta(parse_game(game)), arrays={"scores": scores})


@pytest.fixture
def no_proof(monkeypatch):
    """Fail the test if the consistency pass runs."""
    import solver.store.make

    monkeypatch.setattr(solver.store.make, "prove", lambda table: pytest.fail("the consistency pass ran"))


def test_a_forged_compact_table_answering_x_wins_in_3_on_the_empty_board_is_refused(tmp_path):
    scores = _compact_scores("2x4k3", tmp_path)
    scores[0] = 97  # the empty board: "X wins in 3", impossible with lines of 3
    path = _write_forged_compact(tmp_path / "2x4k3.ttt", "2x4k3", scores)
    with pytest.raises(solver.TableError) as caught:
        solver.store.locate.open_file(path).lookup(0)
    message = str(caught.value)
    assert "board 0 (layer 0) holds the score 97, impossible for a 2x4k3 position with 0 pieces" in message
    assert f"solve build --game 2x4k3 --output {path}" in message


def test_a_stored_127_is_refused_not_read_as_a_win_in_minus_27_plies(tmp_path):
    scores = _compact_scores("3x3k3", tmp_path)
    scores[5] = 127
    path = _write_forged_compact(tmp_path / "c.ttt", "3x3k3", scores)
    with pytest.raises(solver.TableError, match="holds the score 127, impossible"):
        solver.store.locate.open_file(path)


def test_a_plausible_forgery_is_refuted_by_the_consistency_pass_before_its_first_answer(tmp_path):
    scores = _compact_scores("3x3k3", tmp_path)
    assert scores[0] == 0
    scores[0] = 95  # "X wins in 5": possible for the layer, wrong for the game
    path = _write_forged_compact(tmp_path / "c.ttt", "3x3k3", scores)
    with pytest.raises(solver.TableError) as caught:
        solver.store.locate.open_file(path)
    message = str(caught.value)
    assert "no checksum ships for compact 3x3k3 tables and this user did not build this one, and it is wrong" in message
    assert "layer 0: 1 board disagrees with its children" in message and "rebuild it with: solve build" in message
    assert not (tmp_path / "trusted.json").exists()


def test_a_table_built_here_is_recorded_and_trusted_without_a_proof(tmp_path, no_proof):
    from solver.store.make import build_compact

    path = build_compact(parse_game("2x4k3"), tmp_path / "2x4k3.ttt", jobs=1)
    registry = tmp_path / "trusted.json"
    info = registry.lstat()
    assert stat.S_IMODE(info.st_mode) == 0o600 and info.st_uid == os.getuid()
    entries = json.loads(registry.read_text())["tables"]
    table = solver.store.locate.open_file(path)
    assert entries == [{"game": "2x4k3", "kind": "compact", "root": table.sha256}]
    assert table.lookup(0).result == build_table(game="2x4k3").lookup(0).result


def test_a_genuine_table_not_built_here_is_proved_once_then_trusted(tmp_path, monkeypatch):
    import solver.store.make

    path = _write_forged_compact(tmp_path / "c.ttt", "3x3k3", _compact_scores("3x3k3", tmp_path))
    proofs = []
    real = solver.store.make.prove
    monkeypatch.setattr(solver.store.make, "prove", lambda table: proofs.append(table) or real(table))
    assert solver.store.locate.open_file(path).lookup(0).result == "draw"
    assert solver.store.locate.open_file(path).lookup(0).result == "draw"
    assert len(proofs) == 1


@pytest.mark.parametrize("how", ["group-writable", "symlink", "garbage"])
def test_a_registry_others_could_have_written_is_not_believed(tmp_path, monkeypatch, how):
    import solver.store.make

    scores = _compact_scores("3x3k3", tmp_path)
    scores[0] = 95
    path = _write_forged_compact(tmp_path / "c.ttt", "3x3k3", scores)
    root = open_table(path).header.root
    text = json.dumps({"version": 1, "tables": [{"game": "3x3k3", "kind": "compact", "root": root}]})
    registry = tmp_path / "trusted.json"
    if how == "symlink":
        (tmp_path / "elsewhere.json").write_text(text)
        (tmp_path / "elsewhere.json").chmod(0o600)
        registry.symlink_to(tmp_path / "elsewhere.json")
    else:
        registry.write_text(text if how != "garbage" else text[:-3])
        registry.chmod(0o664 if how == "group-writable" else 0o600)
    with pytest.raises(solver.TableError, match="it is wrong"):
        solver.store.locate.open_file(path)


def test_a_long_proof_is_refused_with_the_verify_and_build_commands_then_verify_trusts_it(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import solver.store.estimate
    from solver.cli import main

    path = _write_forged_compact(tmp_path / "2x4k3.ttt", "2x4k3", _compact_scores("2x4k3", tmp_path))
    monkeypatch.setattr(solver.store.estimate, "PROOF_WORK_PER_SECOND", 1.0)
    with pytest.raises(solver.TableError) as caught:
        solver.store.locate.open_file(path)
    message = str(caught.value)
    assert f"solve verify --table {path}" in message and "solve build --game 2x4k3" in message and "proving it takes about" in message
    result = CliRunner().invoke(main, ["verify", "--table", str(path)])
    assert result.exit_code == 0, result.output
    assert solver.store.locate.open_file(path).lookup(0).result == "draw"


def test_solve_serve_does_not_serve_a_forged_table_of_a_game_without_a_shipped_checksum(table_dir, tmp_path, monkeypatch):
    pytest.importorskip("starlette")
    from click.testing import CliRunner

    import solver.web
    from solver.cli import main

    scores = _compact_scores("2x4k3", tmp_path)
    scores[0] = 97
    table_dir.mkdir()
    _write_forged_compact(table_dir / "2x4k3.ttt", "2x4k3", scores)
    served = []
    monkeypatch.setattr(solver.web, "serve", lambda tables, **kwargs: served.extend(t.game.name for t in tables))
    result = CliRunner().invoke(main, ["serve", "--port", "0", "--table-dir", str(table_dir)])
    assert result.exit_code == 0, result.output
    assert served == ["3x3k3"]
    assert "solve: warning: not serving 2x4k3:" in result.stderr and "impossible" in result.stderr


@pytest.mark.parametrize("game", ["3x3k3", "3x4k3", "2x5k4", "4x3k3"])
def test_every_score_of_a_real_table_is_possible_for_its_layer(game):
    from solver.contents.plausible import dense_check

    entries = build_table(game=game).entries
    assert dense_check(parse_game(game))(0, entries) is None


def test_every_score_of_a_real_compact_table_is_possible_for_its_layer(tmp_path):
    from solver.contents.plausible import compact_check
    from solver.encoding.layouts import layout

    for game in ("2x4k3", "3x3k3", "1x17k3"):
        assert compact_check(parse_game(game), layout(parse_game(game)).layer_offsets)(0, _compact_scores(game, tmp_path)) is None


# -- the header is what the checksum covers, byte for byte ------------------------


@pytest.mark.parametrize(
    ("old", "new"), [(b'"format_version":2', b'"format_version":2.0'), (b'"format":', b'"x":1,"format":'), (b'"block_bytes":', b'"block_bytes" :')]
)
def test_a_header_that_is_not_the_canonical_bytes_is_refused(tmp_path, old, new):
    shipped = solver.store.locate.shipped_path(solver.Game())
    data = bytearray(shipped.read_bytes())
    (length,) = struct.unpack("<I", data[8:12])
    text = bytes(data[12 : 12 + length])
    assert old in text and text.endswith(b" " * (len(new) - len(old)))  # room in the padding
    changed = text.rstrip(b" ").replace(old, new, 1).ljust(length)
    assert header_of(bytes(data[:12]) + changed)["root"] == EXPECTED_ROOTS["3x3k3"]  # the same root: only the canonical form is hashed
    data[12 : 12 + length] = changed
    path = tmp_path / "3x3k3.ttt"
    path.write_bytes(bytes(data))
    with pytest.raises(solver.TableError, match="the header is not in its canonical form"):
        open_table(path)


def test_a_forged_3x6k4_table_answering_x_wins_in_3_on_the_empty_board_is_refused(tmp_path):
    """The forgery that was once believed: no checksum ships for 3x6k4; the forged scores' every checksum is right."""
    from solver.encoding.layouts import layout

    scores = np.zeros(layout(parse_game("3x6k4")).size, dtype=np.int8)
    scores[0] = 97  # the empty board: "X wins in 3" (X would hold 2 pieces, lines need 4)
    path = _write_forged_compact(tmp_path / "3x6k4.ttt", "3x6k4", scores)
    with pytest.raises(solver.TableError, match="board 0 \\(layer 0\\) holds the score 97, impossible for a 3x6k4 position"):
        solver.store.locate.open_file(path).lookup(0)


@pytest.mark.parametrize("name", ["3x3k3-armageddon", "3x4k3-gravity-armageddon"])
def test_a_forged_armageddon_table_is_refused_by_its_shipped_checksum(tmp_path, name):
    """Armageddon's checksums ship like every other rule's: a self-consistent forgery (X wins in 9 plies where O does)
    is refused on open by the checksum, naming both, before any proof."""
    table = build_table(game=name)
    assert table.sha256 == EXPECTED_ROOTS[name]
    path = table.save(tmp_path / f"{name}.ttt")
    _forge(path, 0, -table.lookup(0).score)
    with pytest.raises(solver.TableError, match="not the expected") as caught:
        load_table(path, verify=True)
    assert EXPECTED_ROOTS[name] in str(caught.value) and header_of(path.read_bytes())["root"] in str(caught.value)
