"""The cluster build (solver/retrograde/cluster.py) on a local Dask cluster of two worker processes gives the
same bytes as the single-machine build, and resumes a build the same way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="the cluster build needs the [cluster] extra (Dask distributed)")

from solver.retrograde.builddir import BuildDir  # noqa: E402
from solver.retrograde.chunks import ChunkDone  # noqa: E402
from solver.retrograde.cluster import build_on_cluster, scheduler_address  # noqa: E402
from solver.retrograde.sweep import build_layers  # noqa: E402
from solver.rules.game import parse_game  # noqa: E402


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as connected:
            yield connected


def _same_layers(a: Path, b: Path, layers: int) -> bool:
    return all((a / f"layer-{p:02d}.i8").read_bytes() == (b / f"layer-{p:02d}.i8").read_bytes() for p in range(layers))


@pytest.mark.slow
def test_a_cluster_build_of_4x4k4_is_byte_identical_to_the_local_build(client: object, tmp_path: Path) -> None:
    on_cluster = build_on_cluster(parse_game("4x4k4"), tmp_path / "cluster", client)
    local = build_layers(parse_game("4x4k4"), tmp_path / "local", jobs=1)
    assert on_cluster.sha256 == local.sha256
    assert _same_layers(tmp_path / "cluster", tmp_path / "local", 17)


def test_a_cluster_build_resumes_a_build_interrupted_locally(client: object, tmp_path: Path) -> None:
    def stop_in_layer_6(done: ChunkDone) -> None:
        if done.ply == 6:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_layers(parse_game("3x4k3"), tmp_path / "build", jobs=1, progress=stop_in_layer_6)
    said: list[str] = []
    resumed = build_on_cluster(parse_game("3x4k3"), tmp_path / "build", client, notify=said.append)
    assert resumed.resumed_below == 7 and said
    assert resumed.sha256 == build_layers(parse_game("3x4k3"), tmp_path / "fresh", jobs=1).sha256


def test_the_scheduler_address_comes_from_the_argument_or_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOLVED_TICTACTOE_SCHEDULER", raising=False)
    assert scheduler_address(None) is None
    monkeypatch.setenv("SOLVED_TICTACTOE_SCHEDULER", "tcp://head:8786")
    assert scheduler_address(None) == "tcp://head:8786"
    assert scheduler_address("tcp://other:8786") == "tcp://other:8786"


@pytest.mark.slow
def test_a_cluster_build_of_3x6k3_is_byte_identical_to_the_local_build(client: object, tmp_path: Path) -> None:
    on_cluster = build_on_cluster(parse_game("3x6k3"), tmp_path / "cluster", client)
    local = build_layers(parse_game("3x6k3"), tmp_path / "local", jobs=2)
    assert on_cluster.sha256 == local.sha256
    assert BuildDir(tmp_path / "cluster", on_cluster.game).finished(check=True) == local.sha256


def test_a_cluster_build_of_a_misere_game_is_byte_identical_to_the_local_build(client: object, tmp_path: Path) -> None:
    """The workers get the game by name, rule suffix included: misère play builds on the cluster as it does here."""
    on_cluster = build_on_cluster(parse_game("3x4k3-misere"), tmp_path / "cluster", client)
    local = build_layers(parse_game("3x4k3-misere"), tmp_path / "local", jobs=1)
    assert on_cluster.game == parse_game("3x4k3-misere") and on_cluster.sha256 == local.sha256
    assert on_cluster.sha256 != build_layers(parse_game("3x4k3"), tmp_path / "normal", jobs=1).sha256


@pytest.mark.slow
def test_a_cluster_build_of_a_gravity_game_is_byte_identical_to_the_local_build(client: object, tmp_path: Path) -> None:
    """Under gravity the client finds which boards a game reaches (reach-PP.zbits in the build directory) and the workers
    solve the chunks from it: the layers are those of the local build, and they differ from the game without gravity."""
    game = parse_game("4x5k4-gravity")
    on_cluster = build_on_cluster(game, tmp_path / "cluster", client)
    local = build_layers(game, tmp_path / "local", jobs=1)
    assert on_cluster.game == game and on_cluster.sha256 == local.sha256
    assert BuildDir(tmp_path / "cluster", game).manifest()["reach"] == BuildDir(tmp_path / "local", game).manifest()["reach"]
    misere = build_on_cluster(parse_game("4x5k4-gravity-misere"), tmp_path / "misere", client)
    assert misere.sha256 != local.sha256
